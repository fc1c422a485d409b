/**
 * The pelvis keeps its rest pose in the character's own frame. Mesh2Motion's rigs place their first
 * spine joint 18–20° off the line the mannequin's takes; aligning the pelvis by that line tilted it
 * off its rest pose in every frame, idle included, and bent the hip area of the mesh. The parity
 * check measures the pelvis against the source's, frame by frame (`pelvisTiltDeg`), and the hip
 * area's bending is measured on the skinned mesh (tests/harness/hip-shape.ts). Files from
 * tests/fixtures/import (see its README).
 */
import { join } from 'node:path';
import { Quaternion, Vector3, type Bone, type Object3D } from 'three';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { libraryClip, withoutRootMotion } from '../../../src/anim/library/index.ts';
import { checkLibraryParity, DEFAULT_PARITY_BOUNDS } from '../../../src/anim/parity/parity-check.ts';
import { createRetargetContext, type RetargetContext } from '../../../src/anim/retarget/retarget-clip.ts';
import { retargetLibrary } from '../../../src/anim/retarget/retarget-library.ts';
import { rigFromDef, rigFromObject } from '../../../src/anim/retarget/rig-description.ts';
import { createCc4Character } from '../../../src/anim/rigs/cc4-character.ts';
import { parseRig } from '../../../src/rig/load.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';
import { gltfBytesForThree, readGltfDocument, readModelFile } from '../../../src/rig/node/model-file.ts';
import { hipShapeChange } from '../../harness/hip-shape.ts';

vi.setConfig({ testTimeout: 60_000 });

const FIXTURES = join(import.meta.dirname, '../../fixtures/import');
const CLIPS = ['idle', 'walk_fwd'].map((name) => withoutRootMotion(libraryClip(name)));
const IDLE = CLIPS[0]!;

interface Subject {
  object: Object3D;
  bones: Bone[];
}

const subjects = new Map<string, Subject>();

beforeAll(async () => {
  // Node decodes no images: the import layer's Node path hands three the model without them.
  const zombie = await parseRig(
    await gltfBytesForThree(await readGltfDocument(join(FIXTURES, 'm2m-human-zombie.glb'))),
    'm2m-human-zombie.glb',
  );
  subjects.set('Mesh2Motion zombie', zombie);
  for (const [label, file] of [
    ['Male_Casual', 'quaternius-male-casual.fbx'],
    ['robot', 'robot-expressive.glb'],
  ] as const) {
    const model = await readModelFile(join(FIXTURES, file));
    subjects.set(label, model);
  }
  subjects.set('CC4', createCc4Character({ detail: 'low' }));
});

function contextFor(subject: Subject): RetargetContext {
  return createRetargetContext(rigFromDef(MANNEQUIN), rigFromObject(subject.object, 'target', subject.bones), { rootMotion: 'in-place' });
}

/** The hips bone of a subject, as the map found it. */
function hipsOf(subject: Subject, context: RetargetContext): Bone {
  const name = context.target.bones[context.hips.target]!.name;
  return subject.bones.find((bone) => bone.name === name)!;
}

/** The hip area's bending at idle (vertices the pelvis carries most), at nine times over the clip. */
function idleBend(subject: Subject, context: RetargetContext): number {
  const [idle] = retargetLibrary([IDLE], context).clips;
  const times = Array.from({ length: 9 }, (_, i) => (i / 8) * IDLE.duration);
  return hipShapeChange(subject.object, hipsOf(subject, context), idle!, times, 0.5).p95;
}

describe('the pelvis against the source’s, in the character’s frame', () => {
  it('keeps the pelvis of every rig at its rest pose: no tilt in any frame (was 19.8° on the Mesh2Motion zombie)', () => {
    for (const [label, subject] of subjects) {
      const context = contextFor(subject);
      const report = checkLibraryParity(CLIPS, retargetLibrary(CLIPS, context).clips, context);
      for (const clip of report.clips) expect(clip.pelvisTiltDeg.value, `${label} ${clip.clip}`).toBeLessThan(0.1);
      expect(
        report.failures.filter((f) => /pelvis/.test(f)),
        label,
      ).toEqual([]);
    }
  });

  it('fails an 18° tilt at idle, and measures the hip area bending with it', () => {
    const subject = subjects.get('Mesh2Motion zombie')!;
    const honest = contextFor(subject);
    const bendHonest = idleBend(subject, honest);
    // The mesh the pelvis carries most keeps its shape at idle (the mannequin's own breathing and sway).
    expect(bendHonest).toBeLessThan(0.008);
    // The same retarget with the pelvis tilted 18° forward off its rest pose, as aligning it by the
    // line to its first spine joint did.
    const tilted = contextFor(subject);
    const hips = tilted.hips.target;
    const left = tilted.reference.worldPosition[tilted.mapping.target.canonical.get('leftUpperLeg')!]!.clone()
      .sub(tilted.reference.worldPosition[tilted.mapping.target.canonical.get('rightUpperLeg')!]!)
      .setY(0)
      .normalize();
    tilted.reference.worldRotation[hips]!.premultiply(new Quaternion().setFromAxisAngle(left, (18 * Math.PI) / 180));
    const report = checkLibraryParity([IDLE], retargetLibrary([IDLE], tilted).clips, tilted);
    expect(report.clips[0]!.pelvisTiltDeg.value).toBeCloseTo(18, 0);
    expect(report.clips[0]!.pelvisTiltDeg.value).toBeGreaterThan(DEFAULT_PARITY_BOUNDS.pelvisTiltDeg);
    expect(report.failures.join('\n')).toMatch(
      /idle: the pelvis pelvis tilts 18\.\d° from the source's in the character's frame \(bound 3°\): its rest pose is not kept/,
    );
    expect(idleBend(subject, tilted)).toBeGreaterThan(bendHonest + 0.004);
  });

  it('lets a rig that faces another way turn about the vertical without a tilt', () => {
    // Quaternius's zombie faces +X in its file: its pelvis turns a quarter turn, and tilts not at all.
    return readModelFile(join(FIXTURES, 'quaternius-zombie.fbx')).then((zombie) => {
      const context = contextFor(zombie);
      const turn = context.reference.alignment.get(context.hips.target)!;
      expect(new Vector3(0, 1, 0).applyQuaternion(turn).angleTo(new Vector3(0, 1, 0))).toBeLessThan(1e-6);
      expect((2 * Math.acos(Math.min(1, Math.abs(turn.w))) * 180) / Math.PI).toBeGreaterThan(80);
      const report = checkLibraryParity([IDLE], retargetLibrary([IDLE], context).clips, context);
      expect(report.clips[0]!.pelvisTiltDeg.value).toBeLessThan(0.1);
    });
  });
});
