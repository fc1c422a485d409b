/**
 * Jittered exponential backoff for reconnects: attempt n waits a random time in
 * [cap/2, cap] where cap = min(maxMs, baseMs · 2ⁿ) ("equal jitter"). The random half spreads a
 * room's clients out after a relay restart, so they do not all knock at once; the fixed half keeps
 * each client from retrying in a tight loop. Pure: the random source is injectable.
 */
export interface BackoffOptions {
  /** First delay's upper bound, ms. Default 500. */
  baseMs?: number;
  /** Largest delay, ms. Default 15,000. */
  maxMs?: number;
  /** Uniform [0, 1) source. Default Math.random. */
  random?: () => number;
}

export class Backoff {
  /** Failed attempts since the last success. */
  attempt = 0;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? 500;
    this.maxMs = options.maxMs ?? 15_000;
    this.random = options.random ?? Math.random;
    if (!(this.baseMs > 0 && this.maxMs >= this.baseMs)) throw new RangeError(`Backoff: need 0 < baseMs (${this.baseMs}) ≤ maxMs (${this.maxMs})`);
  }

  /** The delay before the next attempt (ms); counts the attempt. */
  next(): number {
    const cap = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return cap / 2 + this.random() * (cap / 2);
  }

  /** Call on success: the next failure starts from the base delay again. */
  reset(): void {
    this.attempt = 0;
  }
}
