import { describe, expect, it } from 'vitest';
import { Mulberry32, mulberry32, seedFromString } from '../../../src/core/rng.ts';

describe('Mulberry32', () => {
  it('matches the canonical Mulberry32 (bryc/code) for several seeds', () => {
    // The reference as published, kept verbatim so a change to ours cannot silently drift.
    function reference(a: number): () => number {
      return function () {
        let t = (a += 0x6d2b79f5);
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
    }
    for (const seed of [0, 1, 42, 0xdeadbeef]) {
      const ours = mulberry32(seed);
      const theirs = reference(seed);
      for (let i = 0; i < 1000; i++) expect(ours()).toBe(theirs());
    }
    expect(mulberry32(1)().toFixed(10)).toBe('0.6270739406');
  });

  it('replays exactly from a saved state', () => {
    const a = new Mulberry32(42);
    for (let i = 0; i < 10; i++) a.next();
    const b = new Mulberry32(0);
    b.setState(a.getState());
    expect(Array.from({ length: 5 }, () => a.next())).toEqual(Array.from({ length: 5 }, () => b.next()));
  });

  it('stays in [0, 1) and is roughly uniform', () => {
    const rng = new Mulberry32(7);
    const buckets = new Array(10).fill(0);
    for (let i = 0; i < 100_000; i++) {
      const v = rng.next();
      expect(v >= 0 && v < 1).toBe(true);
      buckets[Math.floor(v * 10)]++;
    }
    for (const count of buckets) expect(Math.abs(count - 10_000)).toBeLessThan(500);
  });

  it('int and range honour their bounds', () => {
    const rng = new Mulberry32(3);
    for (let i = 0; i < 1000; i++) {
      const n = rng.int(6);
      expect(Number.isInteger(n) && n >= 0 && n < 6).toBe(true);
      const r = rng.range(-2, 5);
      expect(r >= -2 && r < 5).toBe(true);
    }
  });

  it('derives different seeds from different names', () => {
    expect(seedFromString('forest')).not.toBe(seedFromString('forest2'));
    expect(seedFromString('forest')).toBe(seedFromString('forest'));
  });

  it('skips draws in one step and lands where drawing them would', () => {
    for (const count of [0, 1, 6, 97, 1_000_003]) {
      const drawn = new Mulberry32(0xfffffff0);
      for (let i = 0; i < count; i++) drawn.next();
      const skipped = new Mulberry32(0xfffffff0);
      skipped.skip(count);
      expect(skipped.getState()).toBe(drawn.getState());
      expect(skipped.next()).toBe(drawn.next());
    }
  });
});
