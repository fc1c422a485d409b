/**
 * Counts pickups in a streak: each pickup within `window` seconds of the previous one climbs a
 * step; a longer gap starts over. Pure; times on the audio clock.
 */
export class ChimeStreak {
  private last = Number.NEGATIVE_INFINITY;
  private count = -1;

  /** Longest gap (s) that keeps a streak going. */
  readonly window: number;

  constructor(
    /** Longest gap, in seconds, that keeps a streak going. Default 2.5. */
    window = 2.5,
  ) {
    this.window = window;
  }

  /** Registers a pickup at `now` and returns its step (0 for the first of a streak). */
  next(now: number): number {
    this.count = now - this.last <= this.window && now >= this.last ? this.count + 1 : 0;
    this.last = now;
    return this.count;
  }

  /** The step the last pickup played, or −1 before any. */
  get current(): number {
    return this.count;
  }

  /** Ends the streak: the next pickup is step 0. */
  reset(): void {
    this.last = Number.NEGATIVE_INFINITY;
    this.count = -1;
  }
}
