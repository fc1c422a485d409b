import type { WebGPURenderer } from 'three/webgpu';
import { backendHandles } from './backend-handles.ts';

/**
 * Resolves once the GPU has finished every command submitted so far. `renderer.render()` returns
 * when its commands are queued, and a software GPU can run frames behind the page: a picture read
 * before this resolves may be an older frame. WebGPU: the queue's `onSubmittedWorkDone`; WebGL2: a
 * fence polled once per animation frame (three no longer exposes a wait of its own).
 */
export function gpuIdle(renderer: WebGPURenderer): Promise<void> {
  const backend = backendHandles(renderer);
  if (backend.isWebGPUBackend && backend.device) return backend.device.queue.onSubmittedWorkDone();
  const gl = backend.isWebGLBackend ? backend.gl : null;
  if (!gl) return Promise.resolve();
  const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
  if (!sync) return Promise.resolve();
  gl.flush();
  return new Promise((resolve) => {
    const test = (): void => {
      const result = gl.clientWaitSync(sync, 0, 0);
      if (result === gl.TIMEOUT_EXPIRED) {
        requestAnimationFrame(test);
        return;
      }
      gl.deleteSync(sync);
      resolve();
    };
    test();
  });
}
