/**
 * Feet on the floor, measured on the skinned mesh. The library grounds a step by its soles (see
 * src/rig/ground-contact.ts): on the mannequin itself no shoe goes under the floor, and the
 * rigs the library is retargeted onto inherit that. The world's avatar stands a model on its lowest
 * bind-pose vertex, so the figure that matters is the lowest skinned vertex over the clip against
 * the lowest of the bind pose. Before the sole rule, the mannequin's own walk put its shoes 66 mm
 * under the floor and the robot's 84 mm.
 */
import { join } from 'node:path';
import type { AnimationClip, Object3D } from 'three';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ANIMATION_LIBRARY, libraryClip, withoutRootMotion } from '../../../src/anim/library/index.ts';
import { checkLibraryParity, DEFAULT_PARITY_BOUNDS } from '../../../src/anim/parity/parity-check.ts';
import { createRetargetContext } from '../../../src/anim/retarget/retarget-clip.ts';
import { retargetLibrary } from '../../../src/anim/retarget/retarget-library.ts';
import { rigFromDef } from '../../../src/anim/retarget/rig-description.ts';
import { CC4_RIG } from '../../../src/anim/rigs/cc4.ts';
import { bakeClip } from '../../../src/rig/clips.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';
import { libraryForRig } from '../../../src/anim/retarget/library-for-rig.ts';
import { createCc4Character } from '../../../src/anim/rigs/cc4-character.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';
import { readModelFile } from '../../../src/rig/node/model-file.ts';
import { sinkOverClip } from '../../harness/skinned-floor.ts';

vi.setConfig({ testTimeout: 30_000 });

const FIXTURES = join(import.meta.dirname, '../../fixtures/import');
const CLIPS = ['walk_fwd', 'run_fwd'] as const;
/** The avatar's height policy brings characters near this height; bounds are stated at it. */
const PERSON = 1.75;

interface Subject {
  object: Object3D;
  clips: AnimationClip[];
  /** Bind-pose height (metres in the file's frame), to state figures at {@link PERSON}. */
  height: number;
}

async function retargeted(object: Object3D, bones: Parameters<typeof libraryForRig>[1], name: string, height: number): Promise<Subject> {
  const result = await libraryForRig(object, bones, name, { clips: [...CLIPS] });
  expect(result.problems).toEqual([]);
  return { object, clips: result.clips, height };
}

const subjects = new Map<string, Subject>();

beforeAll(async () => {
  const mannequin = createHumanoid({ detail: 'low' });
  subjects.set('mannequin', { object: mannequin.object, clips: CLIPS.map((n) => withoutRootMotion(libraryClip(n))), height: 1.8 });
  const cc4 = createCc4Character({ detail: 'low' });
  subjects.set('cc4', await retargeted(cc4.object, cc4.bones, 'cc4', 1.88));
  for (const [key, file] of [
    ['robot', 'robot-rigid.glb'],
    ['male-casual', 'quaternius-male-casual.fbx'],
    ['zombie', 'quaternius-zombie.fbx'],
  ] as const) {
    const model = await readModelFile(join(FIXTURES, file));
    subjects.set(key, await retargeted(model.object, model.bones, key, model.report.height));
  }
});

/** Lowest point of each clip below the bind floor, at a person's height (metres). */
function sinks(key: string): Record<string, number> {
  const subject = subjects.get(key)!;
  return Object.fromEntries(subject.clips.map((clip) => [clip.name, (sinkOverClip(subject.object, clip) * PERSON) / subject.height]));
}

describe('ground contact: the lowest skinned point over the library locomotion', () => {
  it('keeps the mannequin’s own shoes on the floor (the library’s sole rule)', () => {
    for (const [clip, sink] of Object.entries(sinks('mannequin'))) {
      expect(sink, clip).toBeGreaterThan(-0.003);
      // Touching, not hovering: the stance shoe reaches the floor.
      expect(sink, clip).toBeLessThan(0.003);
    }
  });

  it('keeps the mannequin’s skin over the floor when it sits and rolls (was 40 and 180 mm under)', () => {
    const mannequin = subjects.get('mannequin')!;
    for (const name of ['sit_ground', 'roll_forward']) {
      // Between keys (30 a second) a rolling body dips a little under the poses the keys hold.
      expect(sinkOverClip(mannequin.object, withoutRootMotion(libraryClip(name))), name).toBeGreaterThan(-0.015);
    }
  });

  // What remains on other rigs is their feet's shape, not the library: the pose is carried over
  // joint for joint (the lowest toe joint stays within 11 mm of its bind height), but a foot whose
  // sole reaches further past its toe joint than the mannequin's shoe, or whose toe is not mapped
  // (Male_Casual's feet end at the ball), dips that much when it is pitched at toe-off. Measured at
  // 1.75 m: CC4 −10/−10 mm (walk/run), robot −14/−15, Male_Casual −36/−33 (its legs hang from its
  // pelvis bone `Body` where its rest pose puts them), zombie −34/−33.
  it.each([
    ['cc4', 0.03, 0.03],
    ['robot', 0.03, 0.03],
    ['male-casual', 0.04, 0.04],
    ['zombie', 0.04, 0.04],
  ] as const)('keeps %s’s lowest point within %s m (walk) / %s m (run) of its bind floor at 1.75 m', (key, walk, run) => {
    const figures = sinks(key);
    expect(Object.keys(figures).sort()).toEqual([...CLIPS].sort());
    for (const [clip, sink] of Object.entries(figures)) {
      const bound = clip === 'walk_fwd' ? walk : run;
      expect(sink, clip).toBeGreaterThan(-bound);
      expect(sink, clip).toBeLessThan(bound);
    }
  });

  it('fails the parity check on a source whose feet go through its floor (the ankle-only walk), passes the library’s', () => {
    const context = createRetargetContext(rigFromDef(MANNEQUIN), rigFromDef(CC4_RIG));
    const def = ANIMATION_LIBRARY.find((d) => d.name === 'walk_fwd')!;
    // The walk as the pose functions ground it on their own: the lower ankle at its bind height.
    const ankleOnly = bakeClip({ ...def, contact: 'ankle' }, MANNEQUIN);
    ankleOnly.userData = { ...libraryClip('walk_fwd').userData };
    const grounded = libraryClip('walk_fwd');
    for (const [clip, fails] of [
      [ankleOnly, true],
      [grounded, false],
    ] as const) {
      const report = checkLibraryParity([clip], retargetLibrary([clip], context).clips, context);
      const sink = report.clips[0]!.sourceFloorPenetration.value;
      if (fails) {
        expect(sink).toBeGreaterThan(DEFAULT_PARITY_BOUNDS.sourceFloorPenetration);
        expect(report.failures.join('\n')).toMatch(/the source clip itself puts ball_[lr] \d+\.\d+ mm below its bind-pose floor/);
      } else {
        expect(sink).toBeLessThan(0.005);
        expect(report.failures).toEqual([]);
      }
    }
  });
});
