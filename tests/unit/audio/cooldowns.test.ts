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

  it('accepts again when the clock goes backwards (a new audio context starts at 0)', () => {
    const c = new Cooldowns();
    expect(c.tryTrigger('strike', 50, 30)).toBe(true);
    expect(c.tryTrigger('strike', 0.01, 30)).toBe(true);
  });

  it('uses the cooldowns the design names: 30 ms strike, 55 ms chime, 300 ms groan', () => {
    expect(RECIPES.strike.cooldownMs).toBe(30);
    expect(RECIPES.chime.cooldownMs).toBe(55);
    expect(RECIPES.groan.cooldownMs).toBe(300);
  });
});
