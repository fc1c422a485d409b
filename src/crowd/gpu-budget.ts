import { withDefaults } from '../core/options.ts';

/** Options of a {@link GpuBudget}. */
export interface GpuBudgetOptions {
  /** Budget granted per avatar, ms. Default 0.06. */
  perAvatarMs?: number;
  /** Weight of each new sample in the idle baseline EMA. Default 0.3 (fast). */
  alpha?: number;
  /** Headroom over the baseline so idle noise never fails: max(slackMs, slackFraction × baseline). */
  slackMs?: number;
  /** Headroom as a share of the baseline (see {@link slackMs}). Default 0.25. */
  slackFraction?: number;
  /** Idle samples needed before the baseline counts as calibrated. Default 1. */
  minSamples?: number;
}

/** Defaults of {@link GpuBudgetOptions}: 0.06 ms per avatar, a fast EMA, max(0.5 ms, 25 %) slack. */
export const GPU_BUDGET_DEFAULTS: Required<GpuBudgetOptions> = {
  perAvatarMs: 0.06,
  alpha: 0.3,
  slackMs: 0.5,
  slackFraction: 0.25,
  minSamples: 1,
};

/**
 * Where a budget stands: no timestamp queries, calibrating the idle baseline, no baseline (avatars from the start), within the budget, or
 * over it.
 */
export type GpuBudgetState = 'unavailable' | 'calibrating' | 'uncalibrated' | 'pass' | 'over';

/** One frame's verdict of a {@link GpuBudget}. */
export interface GpuBudgetReading {
  /** Where the budget stands. */
  state: GpuBudgetState;
  /** Latest GPU ms (null where timestamp queries are missing). */
  gpuMs: number | null;
  /** Idle baseline, ms (null until measured). */
  baselineMs: number | null;
  /** Current budget, ms (null until the baseline exists). */
  budgetMs: number | null;
  /** True while the baseline follows the measurements (no avatars). */
  tracking: boolean;
  /** One line for the HUD. */
  message: string;
}

/**
 * A GPU frame-time budget that calibrates itself on whatever machine it runs on. While no crowd
 * avatars exist it follows the measured GPU ms with a fast EMA (the idle baseline); once avatars
 * appear the baseline freezes and the budget is `baseline + slack + perAvatarMs × avatars`. So it
 * passes at idle anywhere and tightens as the crowd grows. Without timestamp queries it reports
 * 'unavailable' rather than a made-up figure. Pure logic: no three.js, no DOM.
 */
export class GpuBudget {
  private readonly perAvatarMs: number;
  private readonly alpha: number;
  private readonly slackMs: number;
  private readonly slackFraction: number;
  private readonly minSamples: number;
  private baseline = Number.NaN;
  private samples = 0;
  private last: GpuBudgetReading;

  constructor(options: GpuBudgetOptions = {}) {
    const resolved = withDefaults(GPU_BUDGET_DEFAULTS, options);
    this.perAvatarMs = resolved.perAvatarMs;
    this.alpha = resolved.alpha;
    this.slackMs = resolved.slackMs;
    this.slackFraction = resolved.slackFraction;
    this.minSamples = resolved.minSamples;
    this.last = { state: 'calibrating', gpuMs: null, baselineMs: null, budgetMs: null, tracking: true, message: 'calibrating' };
  }

  /** True once the idle baseline has enough samples. */
  get calibrated(): boolean {
    return this.samples >= this.minSamples;
  }

  /** The reading of the last {@link update}. */
  get reading(): GpuBudgetReading {
    return this.last;
  }

  /**
   * Feeds one frame: the GPU ms measured (null or undefined when unavailable) and how many
   * batched avatars exist. Returns the reading for the HUD.
   */
  update(gpuMs: number | null | undefined, avatars: number): GpuBudgetReading {
    if (gpuMs === null || gpuMs === undefined || !Number.isFinite(gpuMs)) {
      this.last = {
        state: 'unavailable',
        gpuMs: null,
        baselineMs: null,
        budgetMs: null,
        tracking: false,
        message: 'n/a: no GPU timestamp queries on this device',
      };
      return this.last;
    }
    const tracking = avatars === 0;
    if (tracking) {
      this.baseline = Number.isNaN(this.baseline) ? gpuMs : this.baseline + this.alpha * (gpuMs - this.baseline);
      this.samples++;
    }
    if (Number.isNaN(this.baseline)) {
      this.last = {
        state: 'uncalibrated',
        gpuMs,
        baselineMs: null,
        budgetMs: null,
        tracking: false,
        message: 'no idle baseline (set the crowd to 0 to calibrate)',
      };
      return this.last;
    }
    const budget = this.budgetFor(avatars);
    const state: GpuBudgetState = !this.calibrated ? 'calibrating' : gpuMs <= budget ? 'pass' : 'over';
    const verdict = state === 'calibrating' ? 'calibrating' : state === 'pass' ? 'PASS' : 'OVER';
    this.last = {
      state,
      gpuMs,
      baselineMs: this.baseline,
      budgetMs: budget,
      tracking,
      message: `${verdict} ${gpuMs.toFixed(2)} / ${budget.toFixed(2)} ms`,
    };
    return this.last;
  }

  /** The budget for a crowd of `avatars` against the frozen baseline. */
  budgetFor(avatars: number): number {
    const slack = Math.max(this.slackMs, this.slackFraction * this.baseline);
    return this.baseline + slack + this.perAvatarMs * avatars;
  }
}
