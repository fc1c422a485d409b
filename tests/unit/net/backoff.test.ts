import { describe, expect, it } from 'vitest';
import { Mulberry32 } from '../../../src/core/rng.ts';
import { Backoff } from '../../../src/net/transport/backoff.ts';

describe('Backoff (jittered exponential reconnect delays)', () => {
  it('doubles the cap per attempt up to the maximum, with each delay in [cap/2, cap]', () => {
    const rng = new Mulberry32(1);
    const backoff = new Backoff({ baseMs: 500, maxMs: 8000, random: () => rng.next() });
    const caps = [500, 1000, 2000, 4000, 8000, 8000, 8000];
    for (const cap of caps) {
      const delay = backoff.next();
      expect(delay).toBeGreaterThanOrEqual(cap / 2);
      expect(delay).toBeLessThanOrEqual(cap);
    }
    backoff.reset();
    expect(backoff.next()).toBeLessThanOrEqual(500);
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
