import { describe, expect, it } from 'vitest';
import { fft, powerSpectrum } from '../../../src/audio/fft.ts';
import { measureLevel, median, meterBar, PeakHold, toDb } from '../../../src/audio/level-meter.ts';
import { compareSummaries, summariseRender } from '../../../src/audio/render-summary.ts';
import { Mulberry32 } from '../../../src/core/rng.ts';

const SR = 48000;
function sine(freq: number, seconds: number, amplitude = 0.5, decay = 0): Float32Array {
  const out = new Float32Array(Math.round(seconds * SR));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.exp((-decay * i) / SR) * Math.sin((2 * Math.PI * freq * i) / SR);
  return out;
}

describe('fft', () => {
  it('finds a pure tone in its bin and matches a direct DFT', () => {
    const n = 64;
    const re = new Float64Array(n);
    const im = new Float64Array(n);
    for (let i = 0; i < n; i++) re[i] = Math.cos((2 * Math.PI * 5 * i) / n) + 0.25 * Math.sin((2 * Math.PI * 9 * i) / n);
    const input = Float64Array.from(re);
    fft(re, im);
    for (let k = 0; k < n; k++) {
      let dr = 0;
      let di = 0;
      for (let t = 0; t < n; t++) {
        dr += input[t]! * Math.cos((-2 * Math.PI * k * t) / n);
        di += input[t]! * Math.sin((-2 * Math.PI * k * t) / n);
      }
      expect(re[k]).toBeCloseTo(dr, 8);
      expect(im[k]).toBeCloseTo(di, 8);
    }
    expect(() => fft(new Float64Array(12), new Float64Array(12))).toThrow(/power of two/);
  });

  it('puts a 1 kHz tone at 1 kHz in the averaged spectrum', () => {
    const power = powerSpectrum(sine(1000, 0.5), 2048);
    let best = 0;
    for (let k = 0; k < power.length; k++) if (power[k]! > power[best]!) best = k;
    expect((best * SR) / 2048).toBeCloseTo(1000, -2);
  });
});

describe('level meter', () => {
  it('measures RMS and peak across channels', () => {
    const level = measureLevel(sine(440, 1, 0.5), new Float32Array(SR));
    expect(level.peak).toBeCloseTo(0.5, 3);
    expect(level.rms).toBeCloseTo(0.5 / Math.SQRT2 / Math.SQRT2, 3);
    expect(measureLevel()).toEqual({ rms: 0, peak: 0 });
  });

  it('converts to dBFS with a floor and draws a meter', () => {
    expect(toDb(1)).toBe(0);
    expect(toDb(0.5)).toBeCloseTo(-6.02, 2);
    expect(toDb(0)).toBe(-120);
    expect(meterBar(1, 10)).toBe('██████████');
    expect(meterBar(0, 10)).toBe('░░░░░░░░░░');
    expect(meterBar(10 ** (-30 / 20), 10)).toBe('█████░░░░░');
  });

  it('holds a peak for its hold time, then follows', () => {
    const hold = new PeakHold(1);
    expect(hold.push(0.8, 0)).toBe(0.8);
    expect(hold.push(0.2, 0.5)).toBe(0.8);
    expect(hold.push(0.2, 1.1)).toBe(0.2);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });
});

describe('render summaries', () => {
  const noise = (seconds: number, seed: number): Float32Array => {
    const rng = new Mulberry32(seed);
    return Float32Array.from({ length: seconds * SR }, (_, i) => (rng.next() * 2 - 1) * Math.exp((-8 * i) / SR) * 0.4);
  };

  it('summarises envelope, bands and centroid compactly', () => {
    const s = summariseRender([sine(1000, 0.5, 0.5, 6)], SR);
    expect(s.envelopeDb).toHaveLength(50);
    expect(s.envelopeDb[0]).toBeGreaterThan(s.envelopeDb[49]!);
    expect(s.bandsDb).toHaveLength(24);
    expect(s.bandEdgesHz[0]).toBe(40);
    expect(s.bandEdgesHz[24]).toBe(16000);
    const loudest = s.bandsDb.indexOf(Math.max(...s.bandsDb));
    expect(s.bandEdgesHz[loudest]!).toBeLessThanOrEqual(1000);
    expect(s.bandEdgesHz[loudest + 1]!).toBeGreaterThanOrEqual(1000);
    expect(s.centroidHz).toBeGreaterThan(900);
    expect(s.centroidHz).toBeLessThan(1100);
  });

  it('passes an identical render and a tiny change, fails a real one', () => {
    const golden = summariseRender([noise(1, 1)], SR);
    expect(compareSummaries(summariseRender([noise(1, 1)], SR), golden)).toEqual({ ok: true, problems: [] });
    // 3 % quieter: inside the tolerance (float and platform differences are far smaller).
    expect(compareSummaries(summariseRender([noise(1, 1).map((v) => v * 0.97)], SR), golden).ok).toBe(true);
    // Louder by 6 dB: the envelope and level are out.
    const louder = noise(1, 1).map((v) => v * 2);
    const loud = compareSummaries(summariseRender([louder], SR), golden);
    expect(loud.ok).toBe(false);
    expect(loud.problems.join('\n')).toMatch(/envelope at 0 ms/);
    // A tone instead of noise: the spectrum is out.
    const tonal = compareSummaries(summariseRender([sine(300, 1, 0.2, 8)], SR), golden);
    expect(tonal.ok).toBe(false);
    expect(tonal.problems.join('\n')).toMatch(/band|centroid/);
    // Longer: the length is out.
    expect(compareSummaries(summariseRender([noise(2, 1)], SR), golden).problems[0]).toMatch(/length 200 frames ≠ golden 100/);
  });
});
