import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LOD,
  liveUpdateInterval,
  planLive,
  resolveLod,
  updateDue,
  wantsLive,
  type LodCandidate,
} from '../../../src/crowd/lod-policy.ts';

const lod = resolveLod({
  liveEnter: 10,
  liveExit: 14,
  maxLive: 3,
  minDwell: 0.5,
  fullRateDistance: 6,
  rateBand: 4,
  maxVisibleInterval: 4,
  culledInterval: 10,
});
const c = (distance: number, live = false, visible = true, dwell = 10): LodCandidate => ({ distance, live, visible, dwell });

describe('live/baked switching', () => {
  it('has hysteresis: enter under liveEnter, leave only beyond liveExit', () => {
    expect(wantsLive(c(9.9), lod)).toBe(true);
    expect(wantsLive(c(12), lod)).toBe(false); // baked between the thresholds stays baked
    expect(wantsLive(c(12, true), lod)).toBe(true); // live between the thresholds stays live
    expect(wantsLive(c(14.1, true), lod)).toBe(false);
  });

  it('an avatar walking out and back across the boundary switches twice, not every frame', () => {
    // Starts 9 m away, live; walks out to 15 m and back to 9 m.
    let live = true;
    let dwell = 10;
    let switches = 0;
    // 9 → 15 → 9 metres in small steps with ±0.5 m jitter, 60 frames per second.
    for (let f = 0; f < 1200; f++) {
      const t = f / 1200;
      const distance = 12 - 3 * Math.cos(2 * Math.PI * t) + 0.5 * Math.sin(f * 1.7);
      const next = wantsLive(c(distance, live, true, dwell), lod);
      dwell += 1 / 60;
      if (next !== live) {
        switches++;
        dwell = 0;
        live = next;
      }
    }
    expect(switches).toBe(2);
  });

  it('respects the minimum dwell time after a switch', () => {
    expect(wantsLive(c(30, true, true, 0.2), lod)).toBe(true);
    expect(wantsLive(c(1, false, true, 0.2), lod)).toBe(false);
    expect(wantsLive(c(30, true, true, 0.6), lod)).toBe(false);
  });

  it('does not promote avatars outside the view, but lets near live ones keep their slot off-screen', () => {
    expect(wantsLive(c(2, false, false), lod)).toBe(false);
    expect(wantsLive(c(2, true, false), lod)).toBe(true);
  });

  it('caps the live set at maxLive, nearest first, with a bias for avatars already live', () => {
    const out = new Uint8Array(6);
    const candidates = [c(8), c(2), c(5), c(9, true), c(1), c(30)];
    expect(planLive(candidates, lod, out)).toBe(3);
    expect([...out]).toEqual([0, 1, 1, 0, 1, 0]);
    // 7.5 (already live, counts as 6) beats 6.5 (baked) for the last slot: no trading places.
    const close = [c(1), c(2), c(7.5, true), c(6.5)];
    const out2 = new Uint8Array(4);
    planLive(close, lod, out2);
    expect([...out2]).toEqual([1, 1, 1, 0]);
  });

  it('plans only the first `count` candidates of a reused array', () => {
    const out = new Uint8Array(4).fill(9);
    expect(planLive([c(1), c(2), c(3), c(4)], lod, out, 2)).toBe(2);
    expect([...out]).toEqual([1, 1, 9, 9]);
  });

  it('rejects settings without hysteresis', () => {
    expect(() => resolveLod({ liveEnter: 10, liveExit: 10 })).toThrow(/hysteresis/);
    expect(() => resolveLod({ maxLive: -1 })).toThrow(/maxLive/);
  });
});

describe('update-rate decisions', () => {
  it('runs near mixers every frame and slows with distance, capped', () => {
    expect(liveUpdateInterval(3, true, lod)).toBe(1);
    expect(liveUpdateInterval(6, true, lod)).toBe(1);
    expect(liveUpdateInterval(7, true, lod)).toBe(2);
    expect(liveUpdateInterval(10, true, lod)).toBe(2);
    expect(liveUpdateInterval(11, true, lod)).toBe(3);
    expect(liveUpdateInterval(100, true, lod)).toBe(4);
  });

  it('by default, every visible avatar that goes live runs its mixer every frame', () => {
    // A live avatar at a reduced rate steps where a baked one interpolates: the defaults keep live
    // avatars at full rate from where they go live until well into the hysteresis band.
    const defaults = resolveLod();
    expect(defaults).toEqual(DEFAULT_LOD);
    expect(defaults.fullRateDistance).toBeGreaterThanOrEqual(defaults.liveEnter);
    for (let d = 0; d <= defaults.fullRateDistance; d += 0.5) expect(liveUpdateInterval(d, true, defaults)).toBe(1);
    // Only on the way out (between fullRateDistance and liveExit) does the rate fall.
    expect(liveUpdateInterval(defaults.liveExit, true, defaults)).toBe(2);
  });

  it('slows off-screen live avatars to the culled interval, however near', () => {
    expect(liveUpdateInterval(1, false, lod)).toBe(10);
  });

  it('staggers avatars so each frame does about 1/interval of the work', () => {
    for (const interval of [1, 2, 3, 4, 10]) {
      for (let frame = 0; frame < 20; frame++) {
        let due = 0;
        for (let id = 0; id < 120; id++) if (updateDue(frame, id, interval)) due++;
        expect(due).toBe(120 / interval);
      }
      // Every avatar updates exactly once per interval.
      for (let id = 0; id < 30; id++) {
        let updates = 0;
        for (let frame = 0; frame < interval * 5; frame++) if (updateDue(frame, id, interval)) updates++;
        expect(updates).toBe(5);
      }
    }
  });
});
