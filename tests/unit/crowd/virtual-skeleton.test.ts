import type { Progress } from '../../../src/core/progress.ts';
import { AnimationMixer, Matrix4, Vector3, type Object3D } from 'three';
import { describe, expect, it } from 'vitest';
import { bakeClips } from '../../../src/crowd/bake.ts';
import { bakedFrameTime } from '../../../src/crowd/baked-layout.ts';
import { CrowdTemplate } from '../../../src/crowd/template.ts';
import { FLOATS_PER_BONE, VirtualSkeleton } from '../../../src/crowd/virtual-skeleton.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';
import { buildFixtureCharacter } from '../../harness/crowd-fixtures.ts';

/** three's own answer: pose the original with a mixer, let Skeleton.update() compute boneMatrices. */
function threeBoneMatrices(
  object: Object3D,
  clipName: string,
  time: number,
  skeleton: { update(): void; boneMatrices: Float32Array | null },
  clips: { name: string }[],
): Float32Array {
  const mixer = new AnimationMixer(object);
  const action = mixer.clipAction(clips.find((c) => c.name === clipName) as never);
  action.play();
  action.time = time;
  mixer.update(0);
  object.updateMatrixWorld(true);
  skeleton.update();
  const out = Float32Array.from(skeleton.boneMatrices!);
  mixer.stopAllAction();
  return out;
}

/** Row-major 3×4 rows → three's column-major 4×4. */
function rowsToMatrix(rows: Float32Array, offset: number): Matrix4 {
  const r = (i: number): number => rows[offset + i]!;
  return new Matrix4().set(r(0), r(1), r(2), r(3), r(4), r(5), r(6), r(7), r(8), r(9), r(10), r(11), 0, 0, 0, 1);
}

describe('VirtualSkeleton', () => {
  const humanoid = createHumanoid({ detail: 'low' });
  const template = new CrowdTemplate(humanoid);

  it('is a bones-only clone: no meshes, never in a scene, the same bone names', () => {
    const skeleton = new VirtualSkeleton(template);
    const meshes: Object3D[] = [];
    skeleton.object.traverse((node) => {
      if ((node as { isMesh?: boolean }).isMesh) meshes.push(node);
    });
    expect(meshes).toEqual([]);
    expect(skeleton.object.parent).toBeNull();
    expect(skeleton.bones.map((b) => b.name)).toEqual(humanoid.bones.map((b) => b.name));
    expect(skeleton.bones[0]).not.toBe(humanoid.bones[0]);
    skeleton.dispose();
  });

  it('writes bone.matrixWorld × boneInverse for every bone, equal to three’s skeleton.update()', () => {
    const skeleton = new VirtualSkeleton(template);
    for (const [clip, time] of [
      ['walk', 0.37],
      ['dance', 1.2],
      ['jump', 0.5],
    ] as const) {
      skeleton.pose({ clip: template.clipIndex(clip), time, previousClip: -1, previousTime: 0, weight: 1 });
      const rows = new Float32Array(template.boneCount * FLOATS_PER_BONE);
      expect(skeleton.writePose(rows, 0)).toBe(rows.length);
      const expected = threeBoneMatrices(humanoid.object, clip, time, humanoid.skeleton, humanoid.clips);
      for (let b = 0; b < template.boneCount; b++) {
        const ours = rowsToMatrix(rows, b * FLOATS_PER_BONE).elements;
        for (let i = 0; i < 16; i++) expect(ours[i]).toBeCloseTo(expected[b * 16 + i]!, 5);
      }
    }
    skeleton.dispose();
  });

  it('blends two clips by weight (a crossfade midway is between both poses)', () => {
    const skeleton = new VirtualSkeleton(template);
    const stride = template.boneCount * FLOATS_PER_BONE;
    const rows = new Float32Array(stride * 3);
    const walk = template.clipIndex('walk');
    const wave = template.clipIndex('wave');
    skeleton.pose({ clip: walk, time: 0.3, previousClip: -1, previousTime: 0, weight: 1 });
    skeleton.writePose(rows, 0);
    skeleton.pose({ clip: wave, time: 0.5, previousClip: -1, previousTime: 0, weight: 1 });
    skeleton.writePose(rows, stride);
    skeleton.pose({ clip: wave, time: 0.5, previousClip: walk, previousTime: 0.3, weight: 0.5 });
    skeleton.writePose(rows, stride * 2);
    const hand = humanoid.bones.findIndex((b) => b.name === 'hand_r');
    const position = (offset: number): Vector3 =>
      new Vector3(0.7, 1.44, 0).applyMatrix4(rowsToMatrix(rows, offset + hand * FLOATS_PER_BONE));
    const a = position(0);
    const b = position(stride);
    const mid = position(stride * 2);
    expect(a.distanceTo(b)).toBeGreaterThan(0.3);
    // Quaternion blending is not linear in position, but the midpoint lies between the two.
    expect(mid.distanceTo(a)).toBeLessThan(a.distanceTo(b));
    expect(mid.distanceTo(b)).toBeLessThan(a.distanceTo(b));
    skeleton.dispose();
  });

  it('applies the template’s root scale in front of every bone', () => {
    const fixture = buildFixtureCharacter({ height: 180, bones: 5 });
    const scaled = new CrowdTemplate(fixture, { targetHeight: 1.8 });
    const skeleton = new VirtualSkeleton(scaled);
    skeleton.pose({ clip: 0, time: 0, previousClip: -1, previousTime: 0, weight: 1 });
    const rows = new Float32Array(scaled.boneCount * FLOATS_PER_BONE);
    skeleton.writePose(rows, 0);
    const top = new Vector3(0, 180, 0).applyMatrix4(rowsToMatrix(rows, 4 * FLOATS_PER_BONE));
    expect(top.length()).toBeGreaterThan(1.5);
    expect(top.length()).toBeLessThan(2.1);
  });
});

describe('bakeClips', () => {
  it('bakes each frame exactly as the live path poses it', () => {
    const humanoid = createHumanoid({ detail: 'low' });
    const template = new CrowdTemplate(humanoid);
    const progress: Progress[] = [];
    const baked = bakeClips(template, { fps: 30, onProgress: (p) => progress.push(p) });
    expect(baked.plan.rows).toBe(baked.plan.clips.reduce((s, c) => s + c.frames, 0));
    expect(baked.data.length).toBe(baked.plan.rows * baked.rowStride);
    expect(progress.map((p) => p.label)).toEqual(baked.plan.clips.map((c) => c.name));
    expect(progress.at(-1)).toEqual({ done: baked.plan.rows, total: baked.plan.rows, label: baked.plan.clips.at(-1)!.name });
    const skeleton = new VirtualSkeleton(template);
    const rows = new Float32Array(baked.rowStride);
    for (const layout of baked.plan.clips) {
      for (const frame of [0, Math.floor(layout.frames / 2), layout.frames - 1]) {
        skeleton.pose({
          clip: template.clipIndex(layout.name),
          time: bakedFrameTime(layout, frame),
          previousClip: -1,
          previousTime: 0,
          weight: 1,
        });
        skeleton.writePose(rows, 0);
        const bakedRow = baked.data.subarray((layout.startRow + frame) * baked.rowStride, (layout.startRow + frame + 1) * baked.rowStride);
        let worst = 0;
        for (let i = 0; i < rows.length; i++) worst = Math.max(worst, Math.abs(rows[i]! - bakedRow[i]!));
        expect(worst).toBeLessThan(1e-6);
      }
    }
    skeleton.dispose();
  });
});
