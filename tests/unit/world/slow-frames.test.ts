import { describe, expect, it } from 'vitest';
import { SlowFrameWatch } from '../../../src/world/terrain/slow-frames.ts';

describe('SlowFrameWatch', () => {
  it('trips once on three slow frames in a row, with their mean interval', () => {
    const watch = new SlowFrameWatch();
    const trips = [16, 17, 6000, 6400, 6200, 6300].map((ms) => watch.observe(ms));
    expect(trips).toEqual([false, false, false, false, true, false]);
    expect(watch.trippedAtMs).toBeCloseTo(6200);
    expect(watch.watching).toBe(false);
  });

  it('ignores long frames that a fast one interrupts (a shader compile, a tab coming back)', () => {
    const watch = new SlowFrameWatch();
    for (const ms of [900, 900, 16, 2000, 16, 700, 700, 16]) expect(watch.observe(ms)).toBe(false);
    expect(watch.trippedAtMs).toBeNull();
  });

  it('stops watching after its frames: a device that starts fast stays as it is', () => {
    const watch = new SlowFrameWatch({ watchFrames: 5 });
    for (let i = 0; i < 5; i++) watch.observe(16);
    expect(watch.watching).toBe(false);
    expect([500, 500, 500].map((ms) => watch.observe(ms))).toEqual([false, false, false]);
  });
});
