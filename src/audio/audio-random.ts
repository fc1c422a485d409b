import { Mulberry32 } from '../core/rng.ts';

/** The default amount {@link AudioRandom.vary} moves a value: ±8 %. */
export const VARY_AMOUNT = 0.08;

/**
 * The one source of randomness for sound: `vary()` on recipe values, noise offsets and rates, the
 * noise buffer itself, music patterns. Seeded (Mulberry32), so a test seed replays every hit exactly;
 * without a seed it starts from an unpredictable one so play sounds different each session.
 */
export class AudioRandom {
  private rng: Mulberry32;
  private seedValue: number;

  constructor(seed?: number) {
    this.seedValue = seed === undefined ? randomSeed() : seed >>> 0;
    this.rng = new Mulberry32(this.seedValue);
  }

  /** The seed this sequence started from. */
  get seed(): number {
    return this.seedValue;
  }

  /** Restarts the sequence from `seed` (tests call this before a scripted run). */
  reseed(seed: number): void {
    this.seedValue = seed >>> 0;
    this.rng = new Mulberry32(this.seedValue);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.rng.next();
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return this.rng.range(min, max);
  }

  /** `value` moved by up to ±`amount` of itself (default ±8 %), uniformly. */
  vary(value: number, amount = VARY_AMOUNT): number {
    return value * (1 + (2 * this.rng.next() - 1) * amount);
  }
}

function randomSeed(): number {
  const cryptoApi = (globalThis as { crypto?: Crypto }).crypto;
  if (cryptoApi?.getRandomValues) return cryptoApi.getRandomValues(new Uint32Array(1))[0]!;
  return Math.floor(Math.random() * 2 ** 32);
}
