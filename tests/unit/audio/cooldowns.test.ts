import { describe, expect, it } from 'vitest';
import { Cooldowns } from '../../../src/audio/cooldowns.ts';
import { RECIPES } from '../../../src/audio/recipes/index.ts';

describe('Cooldowns', () => {
  it('skips a trigger inside the cooldown and accepts one after it', () => {
    const c = new Cooldowns();
    expect(c.tryTrigger('strike', 1.0, 30)).toBe(true);
    expect(c.tryTrigger('strike', 1.029, 30)).toBe(false);
    expect(c.tryTrigger('strike', 1.031, 30)).toBe(true);
    expect(c.skipped).toBe(1);
  });

  it('measures from the last accepted trigger, so a steady flood plays once per cooldown', () => {
    const c = new Cooldowns();
    let accepted = 0;
    // A trigger every 10 ms for one second against a 55 ms cooldown.
    for (let i = 0; i < 100; i++) if (c.tryTrigger('chime', i * 0.01, 55)) accepted++;
    expect(accepted).toBe(17); // 0, 60, 120 … 960 ms
    expect(c.skipped).toBe(83);
  });

  it('keeps each sound on its own clock', () => {
    const c = new Cooldowns();
    expect(c.tryTrigger('groan', 0, 300)).toBe(true);
    expect(c.tryTrigger('strike', 0.01, 30)).toBe(true);
    expect(c.tryTrigger('groan', 0.29, 300)).toBe(false);
    expect(c.tryTrigger('groan', 0.3, 300)).toBe(true);
  });

  it('judges triggers in audio-time order: fifty strikes inside 49 ms give the same two strikes latest-first', () => {
    const accepted = (times: number[]): number[] => {
      const c = new Cooldowns();
      const kept = new Set<number>();
      for (const t of times) {
        const id = Math.round(t * 1000);
        const d = c.request('strike', t, 30, id, 0);
        if (d.accepted) kept.add(id);
        for (const x of d.displaced) kept.delete(x);
        for (const x of d.revived) kept.add(x);
      }
      return [...kept].sort((a, b) => a - b);
    };
    const times = Array.from({ length: 50 }, (_, i) => 1 + i * 0.001);
    const forward = accepted(times);
    expect(forward).toEqual([1000, 1030]);
    expect(accepted([...times].reverse())).toEqual(forward);
    // Fifty strikes 10 ms apart: one every 30 or 40 ms, in any order.
    const spaced = Array.from({ length: 50 }, (_, i) => 1 + i * 0.01);
    const spacedForward = accepted(spaced);
    expect(spacedForward.length).toBeGreaterThanOrEqual(13);
    for (let i = 1; i < spacedForward.length; i++) expect(spacedForward[i]! - spacedForward[i - 1]!).toBeGreaterThanOrEqual(30);
    expect(accepted([...spaced].reverse())).toEqual(spacedForward);
    let seed = 3;
    const shuffled = [...spaced].sort(() => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5);
    expect(accepted(shuffled)).toEqual(spacedForward);
  });

  it('counts the skips of the current plan: a displaced trigger is a skip, a revived one is not', () => {
    const c = new Cooldowns();
    expect(c.request('strike', 0.05, 30, 1, 0)).toMatchObject({ accepted: true, displaced: [], revived: [] });
    expect(c.request('strike', 0.07, 30, 2, 0)).toMatchObject({ accepted: false, kept: true });
    expect(c.skipped).toBe(1);
    // Due earlier, asked for later: 1 (at 50 ms) is displaced, and 2 (at 70 ms, 40 ms after it) comes back.
    expect(c.request('strike', 0.03, 30, 3, 0)).toMatchObject({ accepted: true, displaced: [1], revived: [2] });
    expect(c.skipped).toBe(1);
    // A trigger at the very time of another is skipped for good and not kept.
    expect(c.request('strike', 0.03, 30, 4, 0)).toMatchObject({ accepted: false, kept: false });
    expect(c.skipped).toBe(2);
  });

  it('uses the cooldowns the design names: 30 ms strike, 55 ms chime, 300 ms groan', () => {
    expect(RECIPES.strike.cooldownMs).toBe(30);
    expect(RECIPES.chime.cooldownMs).toBe(55);
    expect(RECIPES.groan.cooldownMs).toBe(300);
  });
});
