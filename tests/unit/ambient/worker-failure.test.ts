import { afterEach, describe, expect, it } from 'vitest';
import { AmbientScatter } from '../../../src/ambient/ambient-scatter.ts';
import { generateTerrain } from '../../../src/world/terrain/generate.ts';

/**
 * A Worker that never starts, as a bundler that did not emit the worker file or a page whose CSP
 * has no worker-src gives: the constructor succeeds, then `error` fires and no message ever comes.
 */
class WorkerThatFails {
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: { message: string; preventDefault(): void }) => void) | null = null;
  terminated = false;
  constructor() {
    setTimeout(() => this.onerror?.({ message: 'the script could not be loaded', preventDefault() {} }), 5);
  }
  postMessage(): void {}
  terminate(): void {
    this.terminated = true;
  }
}

const globals = globalThis as { Worker?: unknown };
afterEach(() => {
  delete globals.Worker;
});

describe('AmbientScatter when its Worker fails', () => {
  const ground = generateTerrain({ seed: 3, resolution: 65 });
  const focus = { x: 40, z: -30 };
  const camera = { x: 40, y: 20, z: -30 };

  /** Regions placed and instances drawn around the focus once settled. */
  async function placed(scatter: AmbientScatter): Promise<{ regions: number; instances: number }> {
    scatter.update(focus, camera, 0);
    await scatter.settled();
    const figures = {
      regions: scatter.stats.regions.placed,
      instances: scatter.stats.regions.drawn + scatter.layer.stats.rendered + scatter.layer.stats.pending,
    };
    scatter.dispose();
    return figures;
  }

  it('places the regions inline, settles, and says why, with the same placements as an inline run', async () => {
    const inline = await placed(new AmbientScatter({ ground, seed: 5, worker: false, loadRadius: 60 }));
    globals.Worker = WorkerThatFails;
    const failing = new AmbientScatter({ ground, seed: 5, worker: true, loadRadius: 60 });
    expect(failing.stats.mode).toBe('worker');
    const settled = placed(failing);
    const outcome = await Promise.race([settled.then(() => 'settled'), new Promise((r) => setTimeout(() => r('hung'), 20_000))]);
    expect(outcome).toBe('settled');
    expect(failing.stats.mode).toBe('inline');
    expect(failing.stats.lastError).toMatch(/scatter worker: the script could not be loaded; placing regions on the main thread/);
    expect(inline.regions).toBeGreaterThan(0);
    expect(inline.instances).toBeGreaterThan(inline.regions);
    expect(await settled).toEqual(inline);
  });

  it('places inline when the Worker constructor itself throws', async () => {
    globals.Worker = class {
      constructor() {
        throw new Error('worker-src refused');
      }
    };
    const scatter = new AmbientScatter({ ground, seed: 5, worker: true, loadRadius: 60 });
    expect(scatter.stats.mode).toBe('inline');
    expect(scatter.stats.lastError).toContain('worker-src refused');
    expect((await placed(scatter)).regions).toBeGreaterThan(0);
  });
});
