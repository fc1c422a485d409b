import type { WebGPURenderer } from 'three/webgpu';

/**
 * Fields three's WebGPU and WebGL 2 backends set at runtime that its typings leave out
 * (`WebGPUBackend.device`/`compatibilityMode`, `WebGLBackend.gl`; each is null until `init()`).
 */
export interface BackendHandles {
  /** True on the WebGPU backend. */
  isWebGPUBackend?: boolean;
  /** True on the WebGL 2 backend. */
  isWebGLBackend?: boolean;
  /** The WebGPU device (WebGPU backend, after `init()`). */
  device?: GPUDevice | null;
  /** The WebGL 2 context (WebGL2 backend, after `init()`). */
  gl?: WebGL2RenderingContext | null;
  /** Whether the WebGPU device is a compatibility-mode one. */
  compatibilityMode?: boolean | null;
}

/** The renderer's backend with the device/context handles three's typings omit. */
export function backendHandles(renderer: WebGPURenderer): WebGPURenderer['backend'] & BackendHandles {
  // The only cast: three's `Backend` type lacks these fields, though every backend it ships has one of them.
  return renderer.backend as WebGPURenderer['backend'] & BackendHandles;
}
