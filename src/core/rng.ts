/**
 * Mulberry32: a tiny, fast, seedable 32-bit PRNG. Every randomised thing in Cairn takes one of these
 * (or a seed for one), so a run can be replayed exactly.
 */
export class Mulberry32 {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform float in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** The generator's state, to save and restore a sequence position. */
  getState(): number {
    return this.state;
  }

  /** Restores a position saved with {@link getState}: the draws that follow repeat those that followed it. */
  setState(state: number): void {
    this.state = state >>> 0;
  }

  /**
   * Skips `count` draws in O(1): the state only ever advances by a constant, so `count` draws
   * later it is `state + count × step`. Whoever skips ends where one who drew `count` numbers would.
   */
  skip(count: number): void {
    // Math.imul keeps the product exact modulo 2³² (count × step overflows a double's 53 bits).
    this.state = (this.state + Math.imul(count >>> 0, 0x6d2b79f5)) >>> 0;
  }
}

/** Functional form: returns a function giving floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  const rng = new Mulberry32(seed);
  return () => rng.next();
}

/** Hashes a string to a 32-bit seed (FNV-1a), so seeds can be names. */
export function seedFromString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
