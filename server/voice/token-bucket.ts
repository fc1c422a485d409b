/**
 * A token bucket whose whole state is two numbers, so it fits in a hibernating socket's
 * attachment and survives eviction: `tokens` left and the time (ms) they were counted at.
 * Pure: the caller passes the clock.
 */
export interface BucketState {
  tokens: number;
  /** ms timestamp of the last refill. */
  at: number;
}

export interface BucketLimits {
  /** Tokens added per second (the sustained rate). */
  ratePerSecond: number;
  /** Most tokens the bucket holds (the burst a peer may send at once). */
  burst: number;
}

/** A full bucket at time `now`. */
export function fullBucket(limits: BucketLimits, now: number): BucketState {
  return { tokens: limits.burst, at: now };
}

/**
 * Tries to take one token at time `now`. Returns whether it was allowed and the new state (the
 * input is not modified). A clock that goes backwards refills nothing.
 */
export function takeToken(state: BucketState, limits: BucketLimits, now: number): { allowed: boolean; state: BucketState } {
  const elapsed = Math.max(0, now - state.at) / 1000;
  const tokens = Math.min(limits.burst, state.tokens + elapsed * limits.ratePerSecond);
  if (tokens >= 1) return { allowed: true, state: { tokens: tokens - 1, at: Math.max(now, state.at) } };
  return { allowed: false, state: { tokens, at: Math.max(now, state.at) } };
}
