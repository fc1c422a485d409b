import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../../src/core/token-bucket.ts';

describe('TokenBucket', () => {
  const limits = { ratePerSecond: 10, burst: 5 };

  it('allows a burst, then the sustained rate', () => {
    const bucket = new TokenBucket(limits, 0);
    const allowed: boolean[] = [];
    for (let i = 0; i < 8; i++) allowed.push(bucket.take(0));
    expect(allowed).toEqual([true, true, true, true, true, false, false, false]);
    // 100 ms later exactly one more token has accrued.
    expect(bucket.take(100)).toBe(true);
    expect(bucket.take(100)).toBe(false);
  });

  it('never holds more than the burst and ignores a clock that runs backwards', () => {
    const bucket = new TokenBucket(limits, 0);
    bucket.take(60_000);
    expect(bucket.snapshot()).toEqual({ tokens: 4, at: 60_000 });
    bucket.take(1_000);
    expect(bucket.snapshot()).toEqual({ tokens: 3, at: 60_000 });
  });

  it('takes a cost of several tokens only when all are there', () => {
    const bucket = new TokenBucket({ ratePerSecond: 1000, burst: 3000 }, 0);
    expect(bucket.take(0, 2500)).toBe(true);
    expect(bucket.take(0, 1000)).toBe(false);
    expect(bucket.available(0)).toBe(500);
    expect(bucket.take(500, 1000)).toBe(true);
  });

  it('resumes from a snapshot (what a hibernating socket keeps)', () => {
    const bucket = new TokenBucket(limits, 0);
    for (let i = 0; i < 5; i++) bucket.take(0);
    const resumed = new TokenBucket(limits, 0, bucket.snapshot());
    expect(resumed.take(0)).toBe(false);
    expect(resumed.take(100)).toBe(true);
  });
});
