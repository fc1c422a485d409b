/**
 * Reads what the crowd needs to know about the running renderer's device: backend, vertex-stage
 * storage buffer limit, largest texture dimension. Glue over three's backend objects.
 */
import type { WebGPURenderer } from 'three/webgpu';
import { backendHandles } from '../world/backend-handles.ts';
import type { BonePathDevice } from './bone-path.ts';

export { backendHandles, type BackendHandles } from '../world/backend-handles.ts';

export interface CrowdDeviceInfo extends BonePathDevice {
  /** Largest 2D texture dimension (bounds the baked table's rows). */
  maxTextureSize: number;
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
