import { describe, expect, it } from 'vitest';
import { DelaySchedule } from '../../../src/voice/delay-schedule.ts';
import { powerRatioDb, rms, SILENCE_DB, toDb } from '../../../src/voice/levels.ts';
import { isOfferer } from '../../../src/voice/negotiation-roles.ts';
import {
  PTT_ATTACK_TAU,
  PTT_RELEASE_SECONDS,
  PTT_RELEASE_TAU,
  attackEnergyRatio,
  attackGain,
  releaseGain,
} from '../../../src/voice/ptt-envelope.ts';
import { VOICE_PANNER, inverseDistanceGain, listenerForward, listenerRight, rangeGain } from '../../../src/voice/spatial-model.ts';

describe('who offers', () => {
  it('is the lexicographically smaller id, the same answer on both sides', () => {
    expect(isOfferer(1, 2)).toBe(true);
    expect(isOfferer(2, 1)).toBe(false);
    // Strings, not numbers: "10" < "9".
    expect(isOfferer(10, 9)).toBe(true);
    expect(isOfferer(9, 10)).toBe(false);
    for (const [a, b] of [
      [3, 30],
      [123, 45],
      [7, 7000],
      [1000, 999],
    ] as const)
      expect(isOfferer(a, b)).toBe(!isOfferer(b, a));
    expect(() => isOfferer(4, 4)).toThrow(/itself/);
  });
});

describe('push-to-talk envelope', () => {
  it('attacks fast enough that the first 20 ms keep their energy', () => {
    expect(attackGain(0.012)).toBeGreaterThan(0.95);
    expect(attackGain(0.02)).toBeGreaterThan(0.99);
    expect(attackEnergyRatio(0.02)).toBeGreaterThan(0.5);
    // The closed form agrees with a numerical integral.
    let sum = 0;
    const n = 10_000;
    for (let i = 0; i < n; i++) sum += attackGain(((i + 0.5) / n) * 0.02) ** 2;
    expect(attackEnergyRatio(0.02)).toBeCloseTo(sum / n, 4);
    expect(attackGain(0.001, 0.5)).toBeGreaterThan(0.5);
  });

  it('releases slowly, reaching −60 dB exactly at the release time', () => {
    expect(PTT_RELEASE_SECONDS).toBe(0.4);
    expect(releaseGain(PTT_RELEASE_SECONDS)).toBeCloseTo(0.001, 6);
    expect(releaseGain(0.02)).toBeGreaterThan(0.7); // the last consonant drains
    expect(PTT_RELEASE_TAU).toBeGreaterThan(10 * PTT_ATTACK_TAU);
    expect(releaseGain(-1)).toBe(1);
  });
});

describe('broadcast delay schedule', () => {
  it('builds up without repeating audio, dumps with a countdown, and turns off at once', () => {
    const s = new DelaySchedule(5);
    expect(s.phase(0)).toBe('off');
    expect(s.dump(0)).toBeNull(); // nothing to dump while off
    expect(s.enable(10)).toEqual({ bypass: 0, delayedOpensAt: 15 });
    expect(s.enable(11)).toBeNull();
    expect(s.phase(12)).toBe('building');
    expect(s.resumesIn(12)).toBe(3);
    expect(s.phase(15)).toBe('on');
    expect(s.dump(20)).toEqual({ bypass: 0, delayedOpensAt: 25 });
    expect(s.phase(21)).toBe('dumped');
    expect(s.resumesIn(21.5)).toBe(3.5);
    expect(s.phase(25)).toBe('on');
    expect(s.resumesIn(26)).toBe(0);
    expect(s.disable(30)).toEqual({ bypass: 1, delayedOpensAt: null });
    expect(s.phase(30)).toBe('off');
    expect(s.disable(31)).toBeNull();
    expect(() => new DelaySchedule(0)).toThrow(/positive/);
  });
});

describe('spatial model', () => {
  it('uses a walking-scale inverse distance model', () => {
    expect(VOICE_PANNER).toMatchObject({
      panningModel: 'HRTF',
      distanceModel: 'inverse',
      refDistance: 2,
      rolloffFactor: 1,
      maxDistance: 40,
    });
    expect(inverseDistanceGain(1)).toBe(1);
    expect(inverseDistanceGain(2)).toBe(1);
    expect(20 * Math.log10(inverseDistanceGain(4))).toBeCloseTo(-6.02, 1);
    expect(20 * Math.log10(inverseDistanceGain(8))).toBeCloseTo(-12.0, 0);
    expect(inverseDistanceGain(3) / inverseDistanceGain(24)).toBeCloseTo(8, 5); // the browser test's −18 dB
    expect(inverseDistanceGain(1000)).toBe(inverseDistanceGain(40));
    expect([rangeGain(39), rangeGain(45), rangeGain(50), rangeGain(80)]).toEqual([1, 0.5, 0, 0]);
  });

  it('orients the listener with forward = (sin f, 0, cos f) and right = forward × up', () => {
    for (const f of [0, Math.PI / 2, Math.PI, -Math.PI / 2, 0.3]) {
      const fw = listenerForward(f);
      const right = listenerRight(f);
      expect(fw.x).toBeCloseTo(Math.sin(f), 12);
      expect(fw.z).toBeCloseTo(Math.cos(f), 12);
      // right = forward × (0, 1, 0)
      expect(right.x).toBeCloseTo(fw.y * 0 - fw.z * 1, 12);
      expect(right.z).toBeCloseTo(fw.x * 1 - fw.y * 0, 12);
    }
    // Facing north (−Z, facing π), east (+X) is on the right: the browser test's set-up.
    expect(listenerRight(Math.PI).x).toBeCloseTo(1, 12);
  });
});

describe('levels', () => {
  it('converts to dB with a floor', () => {
    expect(rms([1, -1, 1, -1])).toBe(1);
    expect(toDb(1)).toBe(0);
    expect(toDb(0.1)).toBeCloseTo(-20, 10);
    expect(toDb(0)).toBe(SILENCE_DB);
    expect(powerRatioDb(1, 100)).toBeCloseTo(-20, 10);
    expect(rms([])).toBe(0);
  });
});
