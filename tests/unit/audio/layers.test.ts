import { describe, expect, it } from 'vitest';
import { noise, planShape, tone, validateLayer } from '../../../src/audio/layers.ts';

describe('layers', () => {
  it('plan shape: earliest start, loudest layer peak time, last end, summed peak', () => {
    const shape = planShape([tone('sine', 100, 50, 0.01, 0.002, 0.3, 0.4), noise('bandpass', 3000, 1500, 1, 0, 0.001, 0.05, 0.5)]);
    expect(shape.start).toBe(0);
    expect(shape.peakTime).toBeCloseTo(0.001, 12);
    expect(shape.end).toBeCloseTo(0.312, 12);
    expect(shape.peak).toBeCloseTo(0.9, 12);
    expect(planShape([])).toEqual({ start: 0, peakTime: 0, end: 0, peak: 0 });
  });

  it('validation names the bad number', () => {
    expect(() => validateLayer(tone('sine', 0, 50, 0, 0.01, 0.1, 0.3))).toThrow(/frequencies/);
    expect(() => validateLayer(tone('sine', 100, 50, -1, 0.01, 0.1, 0.3))).toThrow(/t must be/);
    expect(() => validateLayer(tone('sine', 100, 50, 0, 0, 0.1, 0.3))).toThrow(/attack and decay/);
    expect(() => validateLayer(tone('sine', 100, 50, 0, 0.01, 0.1, 0.00001))).toThrow(/peak/);
    expect(() => validateLayer(noise('lowpass', 100, 50, 0, 0, 0.01, 0.1, 0.3))).toThrow(/q must be/);
    expect(() => validateLayer(tone('sine', 100, 50, 0, 0.01, 0.1, 0.3, 2))).toThrow(/pan/);
    expect(() => validateLayer(tone('sine', 100, 50, 0, 0.01, 0.1, 0.3, -0.5))).not.toThrow();
  });
});
