import { Ema } from '../core/ema.ts';

/**
 * Per-frame figures for the HUD and `cairn.stats`: frames per second, CPU ms per frame (update +
 * render submission on the main thread), GPU ms per frame where timestamp queries exist.
 */
export class FrameStats {
  readonly cpuMs = new Ema(0.1);
  readonly gpuMs = new Ema(0.1);
  readonly frameInterval = new Ema(0.1);
  frame = 0;
  private lastFrameStart = Number.NaN;

  /** Call at the start of each frame with performance.now(). */
  beginFrame(now: number): void {
    if (!Number.isNaN(this.lastFrameStart)) this.frameInterval.push(now - this.lastFrameStart);
    this.lastFrameStart = now;
    this.frame++;
  }

  /** Records main-thread ms spent on this frame's work. */
  recordCpu(ms: number): void {
    this.cpuMs.push(ms);
  }

  recordGpu(ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) this.gpuMs.push(ms);
  }

  get fps(): number {
    return this.frameInterval.ready && this.frameInterval.value > 0 ? 1000 / this.frameInterval.value : 0;
  }
}
