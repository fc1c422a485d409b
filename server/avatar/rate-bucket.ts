/**
 * A token bucket: `rate` tokens per second up to `burst`. The relay gives each socket one, so a
 * client may send a short burst (an animation change right after a regular frame) but never more
 * than `rate` frames per second on average. Pure: time comes in as an argument.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    /** Tokens per second. */
    readonly rate: number,
    /** Most tokens held at once. */
    readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }

  /** Takes one token if there is one. `now` in ms. */
  take(now: number): boolean {
    const elapsed = now - this.last;
    if (elapsed > 0) {
      this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.rate) / 1000);
      this.last = now;
    }
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }
}
