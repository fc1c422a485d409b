import { describe, expect, it } from 'vitest';
import { damp, facingFromDirection, forwardFromFacing, lerpAngle, wrapAngle } from '../../../src/core/math.ts';

describe('math', () => {
  it('uses facing = atan2(wx, wz) with forward = (sin, cos)', () => {
    expect(facingFromDirection(0, 1)).toBe(0);
    expect(facingFromDirection(1, 0)).toBeCloseTo(Math.PI / 2);
    const f = forwardFromFacing(facingFromDirection(-3, 4));
    expect(f.x).toBeCloseTo(-0.6);
    expect(f.z).toBeCloseTo(0.8);
  });

  it('wraps angles to (-π, π] and interpolates along the short arc', () => {
    expect(wrapAngle(3 * Math.PI)).toBeCloseTo(Math.PI);
    expect(wrapAngle(-Math.PI)).toBeCloseTo(Math.PI);
    expect(lerpAngle(Math.PI - 0.1, -Math.PI + 0.1, 0.5)).toBeCloseTo(Math.PI);
  });

  it('damps independently of frame rate', () => {
    let a = 0;
    for (let i = 0; i < 60; i++) a = damp(a, 1, 5, 1 / 60);
    let b = 0;
    for (let i = 0; i < 6; i++) b = damp(b, 1, 5, 1 / 6);
    expect(a).toBeCloseTo(b, 10);
  });
});
