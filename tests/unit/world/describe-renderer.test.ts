import type { WebGPURenderer } from 'three/webgpu';
import { describe, expect, it } from 'vitest';
import { describeRenderer } from '../../../src/world/renderer.ts';
import { isSoftwareAdapter } from '../../../src/world/renderer.ts';

/** three's WebGL2 backend as far as describeRenderer reads it: its GL context. */
function webgl2Renderer(gl: Partial<WebGL2RenderingContext> | undefined): WebGPURenderer {
  return { backend: { isWebGPUBackend: false, gl } } as unknown as WebGPURenderer;
}
const RENDERER = 0x1f01;
const UNMASKED = 0x9246;

describe('describeRenderer on the WebGL2 fallback', () => {
  const noWebGPU = { device: null, reason: 'this browser has no WebGPU (navigator.gpu is missing)' } as const;

  it('names the GL renderer, unmasked where the browser allows, so llvmpipe reads as software', () => {
    const gl = {
      RENDERER,
      getExtension: (name: string) => (name === 'WEBGL_debug_renderer_info' ? { UNMASKED_RENDERER_WEBGL: UNMASKED } : null),
      getParameter: (p: number) => (p === UNMASKED ? 'llvmpipe (LLVM 19.1.7, 256 bits)' : 'WebKit WebGL'),
    } as unknown as Partial<WebGL2RenderingContext>;
    const status = describeRenderer(webgl2Renderer(gl), noWebGPU);
    expect(status).toMatchObject({
      backend: 'WebGL2',
      adapter: 'WebGL2 (llvmpipe (LLVM 19.1.7, 256 bits))',
      fallbackReason: noWebGPU.reason,
    });
    expect(isSoftwareAdapter(status.adapter)).toBe(true);
    expect(status.software).toBe(true);
  });

  it('takes RENDERER where the unmasked name is withheld, and plain WebGL2 without a context', () => {
    const masked = { RENDERER, getExtension: () => null, getParameter: (p: number) => (p === RENDERER ? 'Mozilla' : null) };
    expect(describeRenderer(webgl2Renderer(masked as unknown as Partial<WebGL2RenderingContext>), noWebGPU).adapter).toBe(
      'WebGL2 (Mozilla)',
    );
    expect(describeRenderer(webgl2Renderer(undefined), noWebGPU).adapter).toBe('WebGL2');
  });
});
