import { withDefaults } from '../../core/options.ts';

/** Options of a {@link SlowFrameWatch}. */
export interface SlowFrameWatchOptions {
  /** A frame interval (ms) at or above this counts as slow. Default 400. */
  slowMs?: number;
  /** Slow frames in a row that trip the watch. Default 3. */
  inARow?: number;
  /** Frames watched before the watch gives up (a device that starts fast stays as it is). Default 240. */
  watchFrames?: number;
}

/** The defaults of {@link SlowFrameWatchOptions}. */
export const SLOW_FRAME_WATCH_DEFAULTS: Required<SlowFrameWatchOptions> = { slowMs: 400, inARow: 3, watchFrames: 240 };

/**
 * Tells a device that draws in software from its frame intervals, where its name does not say so:
 * WebKit names every GPU "Apple GPU", so llvmpipe behind WebKitGTK looks like hardware. Trips once,
 * when `inARow` frames in a row each took `slowMs` or more, within the first `watchFrames` frames;
 * one long frame (a shader compile, a hidden tab coming back) does not.
 */
export class SlowFrameWatch {
  private readonly options: Required<SlowFrameWatchOptions>;
  private seen = 0;
  private slowInARow = 0;
  /** The mean interval (ms) of the slow run that tripped the watch; null until it trips. */
  trippedAtMs: number | null = null;
  private runTotal = 0;

  constructor(options: SlowFrameWatchOptions = {}) {
    this.options = withDefaults(SLOW_FRAME_WATCH_DEFAULTS, options);
  }

  /** True while it still watches (neither tripped nor past `watchFrames`). */
  get watching(): boolean {
    return this.trippedAtMs === null && this.seen < this.options.watchFrames;
  }

  /** Takes one frame's interval (ms); returns true on the frame the watch trips, false otherwise. */
  observe(intervalMs: number): boolean {
    if (!this.watching) return false;
    this.seen++;
    if (intervalMs >= this.options.slowMs) {
      this.slowInARow++;
      this.runTotal += intervalMs;
    } else {
      this.slowInARow = 0;
      this.runTotal = 0;
    }
    if (this.slowInARow < this.options.inARow) return false;
    this.trippedAtMs = this.runTotal / this.slowInARow;
    return true;
  }
}
