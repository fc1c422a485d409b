/**
 * Output level figures: RMS and peak of a block of samples, dB conversion, and a peak hold that
 * falls back after a while, like a mixing desk's meter. Pure.
 */

import { toDb } from '../core/decibels.ts';

/** dBFS conversion, re-exported from core so `cairn-world/audio` users keep one import. */
export { toDb } from '../core/decibels.ts';

/** A level reading of a buffer. */
export interface Level {
  /** Root mean square, linear (1 = full scale). */
  rms: number;
  /** Largest |sample|, linear. */
  peak: number;
}

/** RMS and peak over one or more channels' blocks together. */
export function measureLevel(...channels: ArrayLike<number>[]): Level {
  let sum = 0;
  let count = 0;
  let peak = 0;
  for (const samples of channels) {
    for (let i = 0; i < samples.length; i++) {
      const s = samples[i]!;
      sum += s * s;
      const a = s < 0 ? -s : s;
      if (a > peak) peak = a;
    }
    count += samples.length;
  }
  return { rms: count > 0 ? Math.sqrt(sum / count) : 0, peak };
}

/** Holds the highest peak for `holdSeconds`, then lets it follow the live peak again. */
export class PeakHold {
  private held = 0;
  private heldAt = Number.NEGATIVE_INFINITY;

  /** Seconds a peak is held before a lower one replaces it. */
  readonly holdSeconds: number;

  constructor(holdSeconds = 1.5) {
    this.holdSeconds = holdSeconds;
  }

  /** Offers a peak at time `now` (s); returns the held peak. */
  push(peak: number, now: number): number {
    if (peak >= this.held || now - this.heldAt > this.holdSeconds) {
      this.held = peak;
      this.heldAt = now;
    }
    return this.held;
  }

  /** The held peak. */
  get value(): number {
    return this.held;
  }

  /** Drops the held peak. */
  reset(): void {
    this.held = 0;
    this.heldAt = Number.NEGATIVE_INFINITY;
  }
}

/** Median of a list (0 for none): the in-band figure the level tests use. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A text meter for HUDs: `width` cells filled for −60…0 dBFS. */
export function meterBar(linear: number, width = 12): string {
  const db = toDb(linear);
  const filled = Math.max(0, Math.min(width, Math.round(((db + 60) / 60) * width)));
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}
