import { describe, expect, it } from 'vitest';
import { createSoftClipCurve, softClip, SOFT_CLIP_CEILING, SOFT_CLIP_KNEE } from '../../../src/audio/clipper-curve.ts';

describe('softClip', () => {
  it('is the identity up to the 0.75 knee', () => {
    for (const x of [0, 0.1, -0.3, 0.5, 0.74, -0.75, 0.75]) expect(softClip(x)).toBe(x);
  });

  it('bends with tanh past the knee towards a 0.86 ceiling it never reaches', () => {
    expect(softClip(0.8)).toBeCloseTo(0.75 + 0.11 * Math.tanh(0.05 / 0.11), 12);
    expect(softClip(0.9)).toBeLessThan(0.9);
    expect(softClip(0.9)).toBeLessThan(0.9);
    for (const x of [1, 1.5, 2]) {
      expect(softClip(x)).toBeLessThan(SOFT_CLIP_CEILING);
      expect(softClip(-x)).toBeGreaterThan(-SOFT_CLIP_CEILING);
    }
    // Far past it, tanh rounds to 1 in floating point: the ceiling, never above.
    expect(softClip(1e6)).toBeCloseTo(SOFT_CLIP_CEILING, 9);
    expect(softClip(1e6)).toBeLessThanOrEqual(SOFT_CLIP_CEILING);
  });

  it('is odd, monotonic and continuous with slope 1 at the knee (no click where it bends)', () => {
    let previous = -Infinity;
    for (let x = -3; x <= 3; x += 0.001) {
      const y = softClip(x);
      expect(softClip(-x)).toBeCloseTo(-y, 12);
      expect(y).toBeGreaterThanOrEqual(previous);
      previous = y;
    }
    const h = 1e-6;
    const slopeAbove = (softClip(SOFT_CLIP_KNEE + h) - softClip(SOFT_CLIP_KNEE)) / h;
    expect(slopeAbove).toBeCloseTo(1, 4);
  });

  it('rejects a knee at or above the ceiling', () => {
    expect(() => softClip(0.5, { knee: 0.95, ceiling: 0.94 })).toThrow(/0 < knee < ceiling/);
  });
});

describe('createSoftClipCurve', () => {
  it('samples [−1, 1] with an exact zero in the middle and ends at softClip(±1)', () => {
    const curve = createSoftClipCurve(8192);
    expect(curve.length).toBe(8193);
    expect(curve[4096]).toBe(0);
    expect(curve[0]).toBeCloseTo(-softClip(1), 6);
    expect(curve[8192]).toBeCloseTo(softClip(1), 6);
    // The largest output a WaveShaper can give (inputs beyond ±1 clamp to the ends): −1.33 dBFS, a
    // third of a dB of room under −1 dBTP for inter-sample peaks.
    expect(20 * Math.log10(Math.max(...curve))).toBeCloseTo(-1.33, 2);
  });

  it('is linear through the middle of the range', () => {
    const curve = createSoftClipCurve(2001);
    // x = 0.5 sits at index 1500.
    expect(curve[1500]).toBeCloseTo(0.5, 6);
  });
});
