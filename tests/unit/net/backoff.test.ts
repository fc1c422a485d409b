import { describe, expect, it } from 'vitest';
import { Backoff } from '../../../src/core/backoff.ts';
import { Mulberry32 } from '../../../src/core/rng.ts';

describe('Backoff (jittered exponential reconnect delays, ms)', () => {
  it('doubles the cap per attempt up to the maximum, with each delay in [cap/2, cap]', () => {
    const rng = new Mulberry32(1);
    const backoff = new Backoff({ baseMs: 500, maxMs: 8000, random: () => rng.next() });
    const caps = [500, 1000, 2000, 4000, 8000, 8000, 8000];
    for (const cap of caps) {
      const delay = backoff.next();
      expect(delay).toBeGreaterThanOrEqual(cap / 2);
      expect(delay).toBeLessThanOrEqual(cap);
    }
    expect(backoff.attempt).toBe(caps.length);
    backoff.reset();
    expect(backoff.attempt).toBe(0);
    expect(backoff.next()).toBeLessThanOrEqual(500);
  });

  it('defaults to 500 ms doubling to 15 s', () => {
    const backoff = new Backoff({ random: () => 0.999_999 });
    const delays = Array.from({ length: 8 }, () => backoff.next());
    expect(delays[0]).toBeCloseTo(500, 0);
    expect(delays[1]).toBeCloseTo(1000, 0);
    expect(delays[7]).toBeCloseTo(15_000, 0);
    expect(new Backoff({ random: () => 0 }).next()).toBe(250);
  });

  it('replays a run from the same seeded source and differs with another', () => {
    const run = (seed: number): number[] => {
      const rng = new Mulberry32(seed);
      const backoff = new Backoff({ maxMs: 10_000, random: () => rng.next() });
      return Array.from({ length: 6 }, () => backoff.next());
    };
    expect(run(42)).toEqual(run(42));
    expect(run(43)[0]).not.toBe(run(42)[0]);
  });

  it('is jittered: many clients retrying at the same attempt spread out', () => {
    const rng = new Mulberry32(2);
    const delays = Array.from({ length: 200 }, () => new Backoff({ baseMs: 1000, random: () => rng.next() }))
      .map((b) => {
        b.next();
        b.next();
        return b.next(); // third attempt: cap 4 s
      })
      .sort((a, b) => a - b);
    expect(delays[0]).toBeGreaterThanOrEqual(2000);
    expect(delays.at(-1)).toBeLessThanOrEqual(4000);
    expect(delays.at(-1)! - delays[0]!).toBeGreaterThan(1500);
  });

  it('refuses nonsense settings', () => {
    expect(() => new Backoff({ baseMs: 0 })).toThrow(/baseMs/);
    expect(() => new Backoff({ baseMs: 1000, maxMs: 10 })).toThrow(/maxMs/);
  });
});
