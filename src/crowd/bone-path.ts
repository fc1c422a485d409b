/**
 * Where the vertex shader reads bone matrices from, per device. WebGPU reads storage buffers in
 * the vertex stage; three's WebGL2 backend cannot, and WebGPU compatibility-mode devices may allow
 * zero vertex-stage storage buffers. A float texture read with textureLoad works everywhere, so
 * that is the fallback. Same draw calls and the same pose data either way. Pure logic.
 */

export type BonePath = 'storage' | 'texture';

/** What the device offers, as far as the crowd cares. */
export interface BonePathDevice {
  /** The renderer's backend. */
  backend: 'WebGPU' | 'WebGL2';
  /**
   * `GPUDevice.limits.maxStorageBuffersInVertexStage` where the browser reports it; otherwise
   * undefined and inferred from `compatibilityMode`.
   */
  maxVertexStorageBuffers?: number;
  /** A WebGPU compatibility-mode device (may allow no vertex-stage storage buffers). Default false. */
  compatibilityMode?: boolean;
}

/** The bone path {@link chooseBonePath} picked, and why. */
export interface BonePathChoice {
  /** Where the vertex shader reads bone matrices from: storage buffers, or a float texture. */
  path: BonePath;
  /** Why, in words, for the HUD and the docs. */
  reason: string;
}

/** Storage buffers the crowd binds in the vertex stage: live bones and baked frames. */
export const VERTEX_STORAGE_BUFFERS_NEEDED = 2;

/** Picks the bone path; `requested` forces one where the device allows it. */
export function chooseBonePath(device: BonePathDevice, requested: BonePath | 'auto' = 'auto'): BonePathChoice {
  if (device.backend === 'WebGL2') {
    return {
      path: 'texture',
      reason:
        requested === 'storage'
          ? 'storage requested, but WebGL2 cannot read storage buffers in a vertex shader'
          : 'WebGL2: no storage buffers in the vertex stage',
    };
  }
  const available = device.maxVertexStorageBuffers ?? (device.compatibilityMode ? 0 : 8);
  if (requested === 'texture') return { path: 'texture', reason: 'texture path requested' };
  if (available < VERTEX_STORAGE_BUFFERS_NEEDED) {
    return {
      path: 'texture',
      reason: `WebGPU device allows ${available} vertex-stage storage buffers (${VERTEX_STORAGE_BUFFERS_NEEDED} needed)`,
    };
  }
  return { path: 'storage', reason: requested === 'storage' ? 'storage path requested' : 'WebGPU with vertex-stage storage buffers' };
}
