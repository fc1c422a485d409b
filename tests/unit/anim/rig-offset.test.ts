import { beforeAll, describe, expect, it } from 'vitest';
import type { AnimationClip } from 'three';
import { libraryClip, LIBRARY_ALIASES, withoutRootMotion } from '../../../src/anim/library/index.ts';
import { SWIM_RIG_OFFSETS } from '../../../src/anim/library/movement.ts';
import { MixerAnimationDriver } from '../../../src/anim/mixer-driver.ts';
import { clipRigOffset, RIG_OFFSET_RATE, RigOffsetBlend } from '../../../src/anim/rig-offset.ts';
import { createRetargetContext } from '../../../src/anim/retarget/retarget-clip.ts';
import { retargetLibrary } from '../../../src/anim/retarget/retarget-library.ts';
import { rigFromDef } from '../../../src/anim/retarget/rig-description.ts';
import { createCc4Character } from '../../../src/anim/rigs/cc4-character.ts';
import { CC4_RIG } from '../../../src/anim/rigs/cc4.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';

describe('RigOffsetBlend', () => {
  it('approaches its target at 5 Hz: 63 % after 0.2 s, 95 % after 0.6 s', () => {
    expect(RIG_OFFSET_RATE).toBe(5);
    const blend = new RigOffsetBlend();
    blend.setTarget(-1);
    expect(blend.update(0.2)).toBeCloseTo(-(1 - Math.exp(-1)), 9);
    blend.update(0.4);
    expect(blend.value).toBeCloseTo(-(1 - Math.exp(-3)), 9);
  });

  it('is frame-rate independent and never overshoots', () => {
    const coarse = new RigOffsetBlend({ initial: 0 });
    const fine = new RigOffsetBlend({ initial: 0 });
    coarse.setTarget(-1.35);
    fine.setTarget(-1.35);
    coarse.update(0.3);
    let last = 0;
    for (let i = 0; i < 30; i++) {
      fine.update(0.01);
      expect(fine.value).toBeLessThanOrEqual(last);
      expect(fine.value).toBeGreaterThanOrEqual(-1.35);
      last = fine.value;
    }
    expect(fine.value).toBeCloseTo(coarse.value, 9);
    fine.setTarget(Number.NaN);
    expect(fine.target).toBe(0);
  });

  it("reads a clip's offset from userData, 0 when absent or not a number", () => {
    expect(clipRigOffset({ rigOffset: -1.1 })).toBe(-1.1);
    expect(clipRigOffset({})).toBe(0);
    expect(clipRigOffset(undefined)).toBe(0);
    expect(clipRigOffset({ rigOffset: 'deep' })).toBe(0);
  });
});

describe('the driver with generic states, aliases and swim offsets', () => {
  let library: AnimationClip[];
  // Only the clips these states resolve to, in place, baked once outside the tests' clock.
  beforeAll(() => {
    library = ['idle', 'walk_fwd', 'run_fwd', 'swim_tread', 'swim_freestyle'].map((name) => withoutRootMotion(libraryClip(name)));
  }, 60_000);

  it('plays library clips for generic states and sinks the body smoothly into treading water', () => {
    const h = createHumanoid({ detail: 'low' });
    const driver = new MixerAnimationDriver(h.object, library, { aliases: { ...LIBRARY_ALIASES }, initial: 'idle' });
    expect(driver.machine.resolve('swim')).toBe('swim_tread');
    expect(driver.rigOffset).toBe(0);
    driver.request('swim');
    driver.update(1 / 60);
    expect(driver.clip?.name).toBe('swim_tread');
    // One frame in, the body has only started to sink: no pop.
    const tread = SWIM_RIG_OFFSETS.tread;
    expect(driver.rigOffset).toBeLessThan(0);
    expect(driver.rigOffset).toBeGreaterThan(tread * 0.1);
    for (let i = 0; i < 60; i++) driver.update(1 / 60);
    expect(driver.rigOffset).toBeCloseTo(tread * (1 - Math.exp(-5 * (61 / 60))), 6);
    // Switching to the crawl rises towards its shallower offset.
    driver.request('swim_fast');
    for (let i = 0; i < 120; i++) driver.update(1 / 60);
    expect(driver.clip?.name).toBe('swim_freestyle');
    expect(driver.rigOffset).toBeCloseTo(SWIM_RIG_OFFSETS.freestyle, 2);
    driver.request('walk');
    for (let i = 0; i < 120; i++) driver.update(1 / 60);
    expect(Math.abs(driver.rigOffset)).toBeLessThan(0.01);
    driver.dispose();
  });

  it('drives the retargeted CC4 character by the same generic names (offsets scaled to its size)', () => {
    const context = createRetargetContext(rigFromDef(MANNEQUIN), rigFromDef(CC4_RIG), { rootMotion: 'in-place' });
    const wanted = new Set(['swim_tread', 'run_fwd', 'idle']);
    const clips = retargetLibrary(
      library.filter((c) => wanted.has(c.name)),
      context,
    ).clips;
    const character = createCc4Character({ detail: 'low' });
    const driver = new MixerAnimationDriver(character.object, clips, { aliases: { ...LIBRARY_ALIASES }, initial: 'swim' });
    // The first clip starts at its own offset.
    expect(driver.rigOffset).toBeCloseTo(SWIM_RIG_OFFSETS.tread * context.ratios.vertical, 6);
    driver.request('run');
    driver.update(0.1);
    expect(driver.clip?.name).toBe('run_fwd');
    driver.dispose();
    character.dispose();
  });
});
