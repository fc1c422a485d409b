import { ACESFilmicToneMapping, PCFShadowMap, SRGBColorSpace, WebGPURenderer } from 'three/webgpu';
import { installShaderDiagnostics, needsFlatSamplingShim, stripFlatInterpolationSampling, type ShaderError } from './shader-diagnostics.ts';

export type BackendName = 'WebGPU' | 'WebGL2';

/** What the renderer bootstrap found out about this device; published in `cairn.stats`. */
export interface RendererStatus {
  backend: BackendName;
  /** Why WebGPU is not in use (null when it is): shown to the user, not just logged. */
  fallbackReason: string | null;
  /** Adapter vendor/architecture/description, as far as the browser tells. */
  adapter: string;
  /** GPU frame times can be measured (WebGPU 'timestamp-query'). */
  timestampQueries: boolean;
  /** The WGSL flat-interpolation shim is rewriting shader source on this device. */
  flatSamplingShim: boolean;
  /** A WebGPU compatibility-mode device (fewer vertex storage buffers, no MSAA…). */
  compatibilityMode: boolean;
}

export interface CreateRendererOptions {
  /** Use the WebGL2 backend even when WebGPU works (testing both paths, or user choice). */
  forceWebGL?: boolean;
  antialias?: boolean;
  /** Called for every WGSL compile error with the compiler's own message. */
  onShaderError?: (error: ShaderError) => void;
}

export interface CreatedRenderer {
  renderer: WebGPURenderer;
  /** The canvas the renderer draws into; a fresh one is made if WebGPU had to be abandoned. */
  canvas: HTMLCanvasElement;
  status: RendererStatus;
}

/** Thrown when neither WebGPU nor WebGL2 can render here. The message is meant for the user. */
export class NoRendererError extends Error {
  override name = 'NoRendererError';
}

/**
 * Creates a WebGPURenderer on a real WebGPU device when there is one: `navigator.gpu` must exist,
 * `requestAdapter()` must return an adapter, the device must be created, and the backend three
 * ends up using must really be WebGPU. Otherwise it falls back to three's WebGL2 backend and says
 * why in `status.fallbackReason`. Shader compile errors surface through `onShaderError`.
 */
export async function createRenderer(options: CreateRendererOptions = {}): Promise<CreatedRenderer> {
  let reason: string | null = options.forceWebGL ? 'WebGL2 was requested (?webgl=1)' : null;
  if (!reason) {
    try {
      return await createWebGPU(options);
    } catch (error) {
      reason = (error as Error).message;
    }
  }
  return createWebGL2(options, reason);
}

async function createWebGPU(options: CreateRendererOptions): Promise<CreatedRenderer> {
  if (typeof navigator === 'undefined' || !('gpu' in navigator) || !navigator.gpu) {
    throw new Error(
      window.isSecureContext
        ? 'this browser has no WebGPU (navigator.gpu is missing)'
        : 'WebGPU needs a secure context (https or localhost)',
    );
  }
  const adapter = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('WebGPU is present but requestAdapter() returned no adapter (GPU blocklisted or unavailable)');
  // Ask for every optional feature the adapter has (timestamp queries, texture formats…) and the
  // storage limits crowds need, as three does when it creates the device itself.
  const device = await adapter.requestDevice({
    requiredFeatures: [...adapter.features] as GPUFeatureName[],
    requiredLimits: {
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      maxBufferSize: adapter.limits.maxBufferSize,
      maxStorageBuffersPerShaderStage: adapter.limits.maxStorageBuffersPerShaderStage,
    },
  });
  const shim = await needsFlatSamplingShim(device);
  installShaderDiagnostics(device, (error) => options.onShaderError?.(error), shim ? stripFlatInterpolationSampling : undefined);

  const canvas = document.createElement('canvas');
  const timestampQueries = device.features.has('timestamp-query');
  const renderer = new WebGPURenderer({ canvas, device, antialias: options.antialias ?? true, trackTimestamp: timestampQueries });
  await renderer.init();
  const backend = renderer.backend as { isWebGPUBackend?: boolean; compatibilityMode?: boolean };
  if (backend.isWebGPUBackend !== true) {
    renderer.dispose();
    throw new Error('three.js did not start its WebGPU backend on this device');
  }
  configure(renderer);
  const info = adapter.info;
  return {
    renderer,
    canvas,
    status: {
      backend: 'WebGPU',
      fallbackReason: null,
      adapter: [info?.vendor, info?.architecture, info?.description].filter(Boolean).join(' / ') || 'unknown adapter',
      timestampQueries,
      flatSamplingShim: shim,
      compatibilityMode: backend.compatibilityMode === true,
    },
  };
}

async function createWebGL2(options: CreateRendererOptions, reason: string): Promise<CreatedRenderer> {
  const canvas = document.createElement('canvas');
  const gl = canvas.getContext('webgl2');
  if (!gl) {
    throw new NoRendererError(`Cairn cannot render here: WebGPU is unavailable (${reason}) and WebGL2 is not supported either.`);
  }
  // getContext() above claimed the canvas for WebGL2; three asks for the same context type.
  const renderer = new WebGPURenderer({ canvas, forceWebGL: true, antialias: options.antialias ?? true });
  await renderer.init();
  configure(renderer);
  return {
    renderer,
    canvas,
    status: {
      backend: 'WebGL2',
      fallbackReason: reason,
      // The unmasked renderer string names a software rasteriser (SwiftShader, llvmpipe) as WebGPU's adapter info does.
      adapter: `WebGL2 / ${webglRenderer(gl)}`,
      timestampQueries: false,
      flatSamplingShim: false,
      compatibilityMode: false,
    },
  };
}

/** The GL renderer's name (unmasked where the browser allows it), for `RendererStatus.adapter`. */
function webglRenderer(gl: WebGL2RenderingContext): string {
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  return String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? 'unknown renderer');
}

function configure(renderer: WebGPURenderer): void {
  renderer.outputColorSpace = SRGBColorSpace;
  renderer.toneMapping = ACESFilmicToneMapping;
  renderer.toneMappingExposure = 0.75;
  renderer.shadowMap.enabled = true;
  renderer.shadowMap.type = PCFShadowMap;
  renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
}
