/**
 * Exponential moving average with a time constant, for figures that should read steadily on a HUD
 * (frame ms, GPU ms). The first sample initialises it, so it never starts from a made-up zero.
 */
export class Ema {
  /** The smoothed value; NaN until the first sample. */
  value = Number.NaN;

  /** Weight of each new sample, 0..1; may be changed between samples. */
  public alpha: number;

  constructor(
    /** Weight of each new sample, 0..1 (0.1 ≈ the last ten samples). */
    alpha = 0.1,
  ) {
    this.alpha = alpha;
  }

  /** Adds a sample and returns the new smoothed value (the sample itself when it is the first). */
  push(sample: number): number {
    this.value = Number.isNaN(this.value) ? sample : this.value + this.alpha * (sample - this.value);
    return this.value;
  }

  /** True once a sample has been pushed (the value is no longer NaN). */
  get ready(): boolean {
    return !Number.isNaN(this.value);
  }

  /** Forgets every sample: the next one starts the average afresh. */
  reset(): void {
    this.value = Number.NaN;
  }
}
