import { withDefaults } from '../core/options.ts';
import type { Stage } from './stage.ts';

/**
 * Calibrates a GPU budget by itself: for a few GPU measurements the avatars are hidden and the
 * budget is fed with zero avatars, so its idle baseline is measured without their draws even when
 * they arrived first (`?crowd=N`); then they come back. It runs once the target exists and again
 * after every resize (a bigger canvas costs more at idle). Works with anything shaped like the
 * crowd module's `StageCrowd` (`budget.update(gpuMs, avatars)`, `crowd.object.visible`).
 */
export interface CalibrationTarget {
  readonly budget: { update(gpuMs: number | null | undefined, avatars: number): unknown };
  readonly crowd: { readonly object: { visible: boolean } };
}

export interface BudgetCalibratorOptions {
  /** GPU measurements (new `stats.gpuMs` values) taken with the avatars hidden. Default 6. */
  samples?: number;
  /** Give up after this many frames without enough measurements (no timestamp queries). Default 90. */
  maxFrames?: number;
  /** Quiet time after the last resize event before calibrating, ms. Default 400. */
  resizeDelayMs?: number;
  /** Calibrate again after every resize. Default true. */
  recalibrateOnResize?: boolean;
}

/** Defaults of a {@link BudgetCalibrator}: 6 samples within 90 frames, 400 ms after a resize, again after each resize. */
const BUDGET_CALIBRATOR_DEFAULTS: Required<BudgetCalibratorOptions> = {
  samples: 6,
  maxFrames: 90,
  resizeDelayMs: 400,
  recalibrateOnResize: true,
};

export type CalibrationState = 'waiting' | 'measuring' | 'calibrated' | 'unavailable';

export class BudgetCalibrator {
  state: CalibrationState = 'waiting';
  /** Calibrations completed (the first, then one per resize). */
  runs = 0;
  private readonly stage: Pick<Stage, 'afterRender' | 'cairn'>;
  private readonly target: CalibrationTarget;
  private readonly options: Required<BudgetCalibratorOptions>;
  private remove: (() => void) | null = null;
  private timer: number | null = null;

  constructor(stage: Pick<Stage, 'afterRender' | 'cairn'>, target: CalibrationTarget, options: BudgetCalibratorOptions = {}) {
    this.stage = stage;
    this.target = target;
    this.options = withDefaults(BUDGET_CALIBRATOR_DEFAULTS, options);
    if (this.options.recalibrateOnResize) window.addEventListener('resize', this.onResize);
  }

  /** Hides the avatars and measures the idle baseline; resolves with the final state. */
  calibrate(): Promise<CalibrationState> {
    this.remove?.();
    const object = this.target.crowd.object;
    const wasVisible = object.visible;
    object.visible = false;
    this.state = 'measuring';
    let last = this.stage.cairn.stats.gpuMs;
    let samples = 0;
    let frames = 0;
    return new Promise((resolve) => {
      const finish = (state: CalibrationState): void => {
        this.remove?.();
        this.remove = null;
        object.visible = wasVisible;
        this.state = state;
        if (state === 'calibrated') this.runs++;
        resolve(state);
      };
      this.remove = this.stage.afterRender(() => {
        frames++;
        const gpuMs = this.stage.cairn.stats.gpuMs;
        // The stage resolves GPU time every few frames; count each new measurement once.
        if (gpuMs !== null && gpuMs !== last) {
          last = gpuMs;
          this.target.budget.update(gpuMs, 0);
          if (++samples >= this.options.samples) return finish('calibrated');
        }
        if (frames >= this.options.maxFrames) finish(samples > 0 ? 'calibrated' : 'unavailable');
      });
    });
  }

  dispose(): void {
    window.removeEventListener('resize', this.onResize);
    if (this.timer !== null) clearTimeout(this.timer);
    this.remove?.();
  }

  private readonly onResize = (): void => {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      this.timer = null;
      void this.calibrate();
    }, this.options.resizeDelayMs);
  };
}
