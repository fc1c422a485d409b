import { Mulberry32 } from '../core/rng.ts';

export interface BackoffOptions {
  /** First delay, seconds. Default 0.5. */
  initialSeconds?: number;
  /** Longest delay, seconds. Default 10. */
  maxSeconds?: number;
  /** Seed for the jitter, so a run can be replayed. Default 1. */
  seed?: number;
}

/**
 * Reconnect delays: exponential (0.5, 1, 2, 4, 8, 10, 10 … s) with "equal jitter" (each delay is
 * drawn from [d/2, d]) so a room full of clients that lost the same server do not all come back in
 * the same millisecond. Pure and seeded.
 */
export class Backoff {
  private attempt = 0;
  private readonly rng: Mulberry32;
  private readonly initial: number;
  private readonly max: number;

  constructor(options: BackoffOptions = {}) {
    this.initial = options.initialSeconds ?? 0.5;
    this.max = options.maxSeconds ?? 10;
    if (!(this.initial > 0) || !(this.max >= this.initial)) throw new Error(`bad backoff: initial ${this.initial} s, max ${this.max} s`);
    this.rng = new Mulberry32(options.seed ?? 1);
  }

  /** Seconds to wait before the next attempt; each call counts one attempt. */
  next(): number {
    const ceiling = Math.min(this.max, this.initial * 2 ** this.attempt);
    this.attempt++;
    return ceiling / 2 + this.rng.next() * (ceiling / 2);
  }

  /** Attempts since the last success. */
  get attempts(): number {
    return this.attempt;
  }

  /** Call after a successful connection. */
  reset(): void {
    this.attempt = 0;
  }
}
