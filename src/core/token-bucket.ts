/** A bucket's limits. */
export interface TokenBucketLimits {
  /** Tokens added per second (the sustained rate). */
  ratePerSecond: number;
  /** Most tokens held at once (the burst allowed after a quiet spell). */
  burst: number;
}

/** What a bucket remembers: tokens left and when (ms) they were counted. */
export interface TokenBucketState {
  /** Tokens left at {@link at}. */
  tokens: number;
  /** When the tokens were last counted (ms, the caller's clock). */
  at: number;
}

/**
 * A token bucket: `ratePerSecond` tokens a second up to `burst`. A client may send a short burst
 * but never more than the rate on average. Pure: time comes in as an argument (ms), and a clock
 * that goes backwards refills nothing.
 *
 * The whole state is two numbers ({@link TokenBucketState}), so a bucket can be written into a
 * hibernating socket's attachment and rebuilt from it ({@link TokenBucket.snapshot}); the hot path
 * ({@link TokenBucket.take}) mutates in place and allocates nothing.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  /** The rate and burst this bucket enforces. */
  readonly limits: TokenBucketLimits;

  /** A full bucket at `now`, or one resumed from `state`. */
  constructor(limits: TokenBucketLimits, now: number, state?: TokenBucketState) {
    this.limits = limits;
    this.tokens = state ? Math.min(limits.burst, state.tokens) : limits.burst;
    this.at = state ? state.at : now;
  }

  /** Takes `cost` tokens (default 1) if there are that many; returns whether it did. */
  take(now: number, cost = 1): boolean {
    this.refill(now);
    if (this.tokens >= cost) {
      this.tokens -= cost;
      return true;
    }
    return false;
  }

  /** Tokens available at `now` (refilled, nothing taken). */
  available(now: number): number {
    this.refill(now);
    return this.tokens;
  }

  /** The bucket's state, to store (a new object). */
  snapshot(): TokenBucketState {
    return { tokens: this.tokens, at: this.at };
  }

  private refill(now: number): void {
    const elapsed = now - this.at;
    if (elapsed > 0) {
      this.tokens = Math.min(this.limits.burst, this.tokens + (elapsed * this.limits.ratePerSecond) / 1000);
      this.at = now;
    }
  }
}
