import { Ema } from '../core/ema.ts';

/**
 * Per-frame figures for the HUD and `cairn.stats`: frames per second, CPU ms per frame (update +
 * render submission on the main thread), GPU ms per frame where timestamp queries exist.
 */
export class FrameStats {
  /** Main-thread ms per frame: update plus render submission (EMA). */
  readonly cpuMs = new Ema(0.1);
  /** GPU ms per frame from timestamp queries (EMA); not ready where there are none. */
  readonly gpuMs = new Ema(0.1);
  /** Ms between the starts of successive frames (EMA): what {@link fps} derives from. */
  readonly frameInterval = new Ema(0.1);
  /** Frames begun since start. */
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

  /** Records the GPU ms of a frame; a non-finite or negative reading (a failed query) is ignored. */
  recordGpu(ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) this.gpuMs.push(ms);
  }

  /** Frames per second from the frame interval; 0 before two frames have begun. */
  get fps(): number {
    return this.frameInterval.ready && this.frameInterval.value > 0 ? 1000 / this.frameInterval.value : 0;
  }
}
