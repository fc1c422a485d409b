/**
 * Reads what the crowd needs to know about the running renderer's device: backend, vertex-stage
 * storage buffer limit, largest texture dimension. Glue over three's backend objects.
 */
import type { WebGPURenderer } from 'three/webgpu';
import type { BonePathDevice } from './bone-path.ts';

export interface CrowdDeviceInfo extends BonePathDevice {
  /** Largest 2D texture dimension (bounds the baked table's rows). */
  maxTextureSize: number;
}

/**
 * Fields three's WebGPU and WebGL 2 backends set at runtime that its typings leave out
 * (`WebGPUBackend.device`/`compatibilityMode`, `WebGLBackend.gl`; each is null until `init()`).
 */
export interface BackendHandles {
  /** True on the WebGPU backend. */
  isWebGPUBackend?: boolean;
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

/**
 * The device facts the crowd needs from the running renderer: backend, vertex-stage storage buffer limit, compatibility mode, largest
 * texture.
 */
export function crowdDeviceInfo(renderer: WebGPURenderer): CrowdDeviceInfo {
  const backend = backendHandles(renderer);
  if (backend.isWebGPUBackend && backend.device) {
    const limits = backend.device.limits as GPUSupportedLimits & { maxStorageBuffersInVertexStage?: number };
    return {
      backend: 'WebGPU',
      maxVertexStorageBuffers: limits.maxStorageBuffersInVertexStage,
      compatibilityMode: backend.compatibilityMode === true,
      maxTextureSize: limits.maxTextureDimension2D,
    };
  }
  const gl = backend.gl;
  return { backend: 'WebGL2', maxVertexStorageBuffers: 0, maxTextureSize: gl ? (gl.getParameter(gl.MAX_TEXTURE_SIZE) as number) : 2048 };
}
