/**
 * Exponential moving average with a time constant, for figures that should read steadily on a HUD
 * (frame ms, GPU ms). The first sample initialises it, so it never starts from a made-up zero.
 */
export class Ema {
  value = Number.NaN;

  public alpha: number;

  constructor(
    /** Weight of each new sample, 0..1 (0.1 ≈ the last ten samples). */
    alpha = 0.1,
  ) {
    this.alpha = alpha;
  }

  push(sample: number): number {
    this.value = Number.isNaN(this.value) ? sample : this.value + this.alpha * (sample - this.value);
    return this.value;
  }

  get ready(): boolean {
    return !Number.isNaN(this.value);
  }

  reset(): void {
    this.value = Number.NaN;
  }
}
