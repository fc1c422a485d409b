/**
 * Real artists' rigs through the automatic bone mapper and the parity check. Quaternius's
 * Male_Casual (CC0, a binary FBX exported from Blender; see tests/fixtures/README.md) is a Blender
 * IK rig: the legs hang from a `Body` bone above a small `Hips`, the feet are deform bones under the
 * root, outside the leg chains (whose last bones are `_end` leaves), and the right thumb hangs from
 * the middle finger. The mapper must map every core bone to the right one, and the retarget must
 * hold up in both directions.
 */
import { join } from 'node:path';
import { AnimationMixer, LoopOnce, Vector3, type AnimationClip } from 'three';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { libraryClip } from '../../../src/anim/library/index.ts';
import { checkLibraryParity, DEFAULT_PARITY_BOUNDS } from '../../../src/anim/parity/parity-check.ts';
import { coreBoneGaps, JUDGED_BONES, mapRigBones, type RigBoneMap } from '../../../src/anim/retarget/bone-map.ts';
import { instantiateRig } from '../../../src/anim/retarget/instantiate.ts';
import { createRetargetContext, type RetargetContext } from '../../../src/anim/retarget/retarget-clip.ts';
import { retargetLibrary } from '../../../src/anim/retarget/retarget-library.ts';
import { rigFromDef, rigFromObject, type RigDescription } from '../../../src/anim/retarget/rig-description.ts';
import { readModelFile, type ModelFile } from '../../../src/rig/node/model-file.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';

vi.setConfig({ testTimeout: 30_000 });

const MALE_CASUAL = join(import.meta.dirname, '../../fixtures/import/quaternius-male-casual.fbx');

let model: ModelFile;
let rig: RigDescription;
let map: RigBoneMap;

beforeAll(async () => {
  model = await readModelFile(MALE_CASUAL);
  rig = rigFromObject(model.object, model.object.name, model.bones);
  map = mapRigBones(rig);
});

const nameOf = (bone: string): string | undefined => {
  const index = map.canonical.get(bone);
  return index === undefined ? undefined : rig.bones[index]!.name;
};

/** Plays a clip on a fresh copy of a rig at 60 Hz and returns the lowest height and the z range of a bone. */
function boneTrack(description: RigDescription, clip: AnimationClip, bone: string): { lowest: number; zRange: number } {
  const instance = instantiateRig(description);
  const mixer = new AnimationMixer(instance.root);
  const action = mixer.clipAction(clip);
  action.setLoop(LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  const target = instance.bones[description.index.get(bone)!]!;
  const at = new Vector3();
  let lowest = Infinity;
  let zMin = Infinity;
  let zMax = -Infinity;
  for (let f = 0; f <= Math.floor(clip.duration * 60); f++) {
    action.time = f / 60;
    mixer.update(0);
    instance.root.updateMatrixWorld(true);
    at.setFromMatrixPosition(target.matrixWorld);
    lowest = Math.min(lowest, at.y);
    zMin = Math.min(zMin, at.z);
    zMax = Math.max(zMax, at.z);
  }
  return { lowest, zRange: zMax - zMin };
}

describe('Quaternius Male_Casual (Blender IK rig, deform feet under the root)', () => {
  it('maps hips, spine, both arms and both legs with the deform feet to the right bones', () => {
    expect(model.report.units).toBe('mm');
    expect(model.report.height).toBeCloseTo(0.485, 2);
    expect(map.mapName).toBe('auto');
    // The bone that carries the legs and the spine, not the small "Hips" below it.
    expect(nameOf('hips')).toBe('Body');
    expect(['spine', 'chest', 'upperChest', 'neck', 'head'].map(nameOf)).toEqual(['Hips', 'Abdomen', 'Torso', 'Neck', 'Head']);
    for (const [side, x] of [
      ['left', 'L'],
      ['right', 'R'],
    ] as const) {
      expect(['Shoulder', 'UpperArm', 'LowerArm', 'Hand'].map((p) => nameOf(`${side}${p}`))).toEqual(
        ['Shoulder', 'UpperArm', 'LowerArm', 'Palm'].map((n) => `${n}${x}`),
      );
      expect(['UpperLeg', 'LowerLeg', 'Foot'].map((p) => nameOf(`${side}${p}`))).toEqual(
        ['UpperLeg', 'LowerLeg', 'Foot'].map((n) => `${n}${x}`),
      );
      // The foot is a deform bone under the root: attached to the end of its shin.
      expect(map.attachments.get(map.canonical.get(`${side}Foot`)!)).toBe(map.canonical.get(`${side}LowerLeg`));
    }
    expect(JUDGED_BONES.filter((b) => !map.canonical.has(b))).toEqual([]);
    expect(map.notes.join('\n')).toMatch(/left foot "FootL" sits outside the leg chain but carries skin weights/);
    // IK pole targets carry no weights and name no body part: never mapped.
    expect([...map.canonical.values()].map((i) => rig.bones[i]!.name).filter((n) => /Pole/.test(n))).toEqual([]);
  });

  it('as a target: idle, walk and run pass the parity check, feet on the chain, above the floor, not sliding', () => {
    const source = rigFromDef(MANNEQUIN);
    const context = createRetargetContext(source, rig);
    expect(coreBoneGaps(context.mapping, source.name, rig.name)).toEqual([]);
    const clips = ['idle', 'walk_fwd', 'run_fwd'].map((name) => libraryClip(name));
    const retargeted = retargetLibrary(clips, context);
    expect(retargeted.reports.filter((r) => !r.ok)).toEqual([]);
    const report = checkLibraryParity(clips, retargeted.clips, context);
    expect(report.failures).toEqual([]);
    expect(report.ok).toBe(true);
    for (const clip of report.clips) {
      expect(clip.floorPenetration.value, clip.clip).toBeLessThanOrEqual(DEFAULT_PARITY_BOUNDS.floorPenetration);
      expect(clip.footSlide.value, clip.clip).toBeLessThanOrEqual(DEFAULT_PARITY_BOUNDS.footSlide);
      expect(clip.positionDrift.value, clip.clip).toBeLessThanOrEqual(DEFAULT_PARITY_BOUNDS.positionDrift);
    }
    // The hips are the bone that carries the legs: a plausible hip height for a 0.49 m figure.
    expect(context.ratios.targetHipHeight).toBeCloseTo(0.212, 2);
    // They are turned to the source's bind along the torso (11°), not towards the small "Hips" bone
    // that hangs below "Body" (that turned them 142°, upside down).
    const turn = context.reference.alignment.get(context.hips.target)!;
    expect((2 * Math.acos(Math.min(1, Math.abs(turn.w))) * 180) / Math.PI).toBeLessThan(20);
    // The feet walk: they stay above the floor and step (the walk keeps its root motion).
    const walk = retargeted.clips.find((c) => c.name === 'walk_fwd')!;
    for (const foot of ['FootL', 'FootR']) {
      const track = boneTrack(rig, walk, foot);
      expect(track.lowest, foot).toBeGreaterThan(-0.002);
      expect(track.zRange, foot).toBeGreaterThan(0.1);
    }
    expect(walk.tracks.some((t) => t.name === 'FootL.position')).toBe(true);
  });

  it('as a source: its own walk and run retarget onto the mannequin and pass the parity check', () => {
    const target = rigFromDef(MANNEQUIN);
    const context: RetargetContext = createRetargetContext(rig, target);
    expect(coreBoneGaps(context.mapping, rig.name, target.name)).toEqual([]);
    const clips = model.clips.filter((c) => /Man_(Walk|Run)$/.test(c.name));
    expect(clips.length).toBe(2);
    const retargeted = retargetLibrary(clips, context);
    expect(retargeted.reports.filter((r) => !r.ok)).toEqual([]);
    const report = checkLibraryParity(clips, retargeted.clips, context);
    expect(report.failures).toEqual([]);
    expect(retargeted.clips.every((c) => c.tracks.every((t) => !t.name.startsWith('foot_') || t.name.endsWith('.quaternion')))).toBe(true);
    const ankle = target.bones[target.index.get('foot_l')!]!.worldPosition.y;
    for (const clip of retargeted.clips) {
      // The mannequin's feet swing through a stride (Quaternius's walk is in place) and come down to
      // the floor: the ankle reaches its bind height (2 cm above at most; a pelvis turned over by the
      // small "Hips" bone below "Body" kept the feet 4–6 cm up) and no more than 5 cm below it.
      for (const foot of ['foot_l', 'foot_r']) {
        const track = boneTrack(target, clip, foot);
        expect(track.zRange, `${clip.name} ${foot}`).toBeGreaterThan(0.3);
        expect(track.lowest, `${clip.name} ${foot}`).toBeLessThan(ankle + 0.02);
        expect(track.lowest, `${clip.name} ${foot}`).toBeGreaterThan(ankle - 0.05);
      }
    }
  });
});

describe('a foot that is only an IK bone', () => {
  it('is mapped when the shin has no other child, kept at the end of the shin, and passes at full scale', () => {
    // The mannequin with its feet moved under the root (no mesh, so no weights to tell from): the
    // shin's only child is a twist bone, so the IK foot is the foot.
    const bones = MANNEQUIN.bones.map((b) => (/^foot_[lr]$/.test(b.name) ? { ...b, parent: 'root' } : b));
    const order = [...bones.filter((b) => !/^(foot|ball)_[lr]$/.test(b.name)), ...bones.filter((b) => /^(foot|ball)_[lr]$/.test(b.name))];
    const ikFeet = rigFromDef({ name: 'ik-only-feet', bones: order });
    const auto = mapRigBones(ikFeet, 'auto');
    expect(auto.notes.join('\n')).toMatch(
      /left foot "foot_l" sits outside the leg chain and the shin has no child to stand in for it: the IK bone is mapped/,
    );
    const foot = ikFeet.index.get('foot_l')!;
    expect(auto.canonical.get('leftFoot')).toBe(foot);
    expect(auto.attachments.get(foot)).toBe(ikFeet.index.get('calf_l'));
    const source = rigFromDef(MANNEQUIN);
    const context = createRetargetContext(source, ikFeet, { targetMap: 'auto' });
    const clips = ['walk_fwd', 'run_fwd'].map((name) => libraryClip(name));
    const retargeted = retargetLibrary(clips, context);
    const walk = retargeted.clips[0]!;
    // The foot gets a position track keyed at 120 Hz or more; the other bones keep the source's keys.
    const position = walk.tracks.find((t) => t.name === 'foot_l.position')!;
    expect(position.times.length).toBeGreaterThanOrEqual(Math.floor(walk.duration * 120));
    expect(walk.tracks.find((t) => t.name === 'calf_l.quaternion')!.times.length).toBeLessThan(position.times.length);
    const report = checkLibraryParity(clips, retargeted.clips, context);
    expect(report.failures).toEqual([]);
    for (const clip of report.clips) expect(clip.positionDrift.value, clip.clip).toBeLessThan(DEFAULT_PARITY_BOUNDS.positionDrift);
  });
});
