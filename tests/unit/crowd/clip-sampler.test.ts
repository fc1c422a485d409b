import { describe, expect, it } from 'vitest';
import type { AnimSample } from '../../../src/crowd/anim-state.ts';
import { ClipSampler, flatClips } from '../../../src/crowd/clip-sampler.ts';
import { CrowdTemplate } from '../../../src/crowd/template.ts';
import { FLOATS_PER_BONE, VirtualSkeleton } from '../../../src/crowd/virtual-skeleton.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';
import { buildFixtureCharacter } from '../../harness/crowd-fixtures.ts';

/** Largest difference between the mixer's bone rows (VirtualSkeleton) and the flat sampler's. */
function worst(template: CrowdTemplate, sample: AnimSample): number {
  const mixer = new VirtualSkeleton(template);
  const flat = new ClipSampler(template);
  const floats = template.boneCount * FLOATS_PER_BONE;
  const expected = new Float32Array(floats);
  const actual = new Float32Array(floats);
  mixer.pose(sample);
  mixer.writePose(expected, 0);
  flat.pose(sample);
  expect(flat.writePose(actual, 0)).toBe(floats);
  mixer.dispose();
  let max = 0;
  for (let i = 0; i < floats; i++) max = Math.max(max, Math.abs(expected[i]! - actual[i]!));
  return max;
}

describe('ClipSampler (flat tracks, no mixer)', () => {
  const template = new CrowdTemplate(createHumanoid({ detail: 'low' }));
  const walk = template.clipIndex('walk');
  const wave = template.clipIndex('wave');

  it('matches three’s AnimationMixer on a plain clip at many times', () => {
    for (const time of [0, 0.1, 1 / 3, 0.77, template.clips[walk]!.duration]) {
      expect(worst(template, { clip: walk, time, previousClip: -1, previousTime: 0, weight: 1 })).toBeLessThan(1e-5);
    }
  });

  it('matches the mixer mid-crossfade (rotations slerped, positions lerped)', () => {
    for (const weight of [0.1, 0.5, 0.83]) {
      expect(worst(template, { clip: wave, time: 0.2, previousClip: walk, previousTime: 0.6, weight })).toBeLessThan(1e-5);
    }
  });

  it('a crossfade weight that does not reach the pose would be caught (control)', () => {
    const mixer = new VirtualSkeleton(template);
    const flat = new ClipSampler(template);
    const a = new Float32Array(template.boneCount * FLOATS_PER_BONE);
    const b = new Float32Array(a.length);
    mixer.pose({ clip: wave, time: 0.2, previousClip: walk, previousTime: 0.6, weight: 0.5 });
    mixer.writePose(a, 0);
    flat.pose({ clip: wave, time: 0.2, previousClip: walk, previousTime: 0.6, weight: 0.3 });
    flat.writePose(b, 0);
    mixer.dispose();
    let max = 0;
    for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
    expect(max).toBeGreaterThan(1e-2);
  });

  it('matches the mixer on a loaded-style character (several skinned pieces, own skeletons)', () => {
    const fixture = new CrowdTemplate(buildFixtureCharacter());
    for (const [i, clip] of fixture.clips.entries()) {
      expect(worst(fixture, { clip: i, time: clip.duration * 0.37, previousClip: -1, previousTime: 0, weight: 1 })).toBeLessThan(1e-5);
    }
  });

  it('exposes local transforms by node name, so procedural control edits them before writing', () => {
    const flat = new ClipSampler(template);
    const head = flat.clips.nodeIndex('head');
    expect(head).toBeGreaterThanOrEqual(0);
    flat.pose({ clip: walk, time: 0.3, previousClip: -1, previousTime: 0, weight: 1 });
    const before = new Float32Array(template.boneCount * FLOATS_PER_BONE);
    flat.writePose(before, 0);
    // Turn the head 90° about Y.
    flat.quaternion.set([0, Math.SQRT1_2, 0, Math.SQRT1_2], head * 4);
    const after = new Float32Array(before.length);
    flat.writePose(after, 0);
    const headBone = template.bones.findIndex((b) => b.name === 'head');
    let moved = 0;
    for (let k = 0; k < FLOATS_PER_BONE; k++)
      moved = Math.max(moved, Math.abs(after[headBone * FLOATS_PER_BONE + k]! - before[headBone * FLOATS_PER_BONE + k]!));
    expect(moved).toBeGreaterThan(0.1);
    expect(flatClips(template)).toBe(flat.clips);
  });
});

describe('baked local transforms (what a GPU crossfade composes)', () => {
  it('compose up the parent chain, through the inverse binds and root scale, into the baked matrices', async () => {
    const { bakeClips, LOCAL_FLOATS } = await import('../../../src/crowd/bake.ts');
    const template = new CrowdTemplate(createHumanoid({ detail: 'low' }), { targetHeight: 1.5 });
    const baked = bakeClips(template, { precision: 'float' });
    const row = baked.plan.clips[template.clipIndex('wave')]!.startRow + 7;
    let worst = 0;
    for (let bone = 0; bone < template.boneCount; bone++) {
      // The shader's walk, in JavaScript: acc = local(n) ∘ acc from the bone up.
      let q = [0, 0, 0, 1];
      let t = [0, 0, 0];
      let s = 1;
      for (let n = baked.boneNodes[bone]!; n >= 0; n = baked.parents[n]!) {
        const o = (row * baked.nodes + n) * LOCAL_FLOATS;
        const l = Array.from(baked.locals.subarray(o, o + LOCAL_FLOATS));
        const [lx, ly, lz, lw] = l as [number, number, number, number];
        const rotate = (v: number[]): number[] => {
          const [vx, vy, vz] = v as [number, number, number];
          const cx = ly * vz - lz * vy + lw * vx;
          const cy = lz * vx - lx * vz + lw * vy;
          const cz = lx * vy - ly * vx + lw * vz;
          return [vx + 2 * (ly * cz - lz * cy), vy + 2 * (lz * cx - lx * cz), vz + 2 * (lx * cy - ly * cx)];
        };
        const r = rotate(t);
        t = [l[4]! + r[0]! * l[7]!, l[5]! + r[1]! * l[7]!, l[6]! + r[2]! * l[7]!];
        const [qx, qy, qz, qw] = q as [number, number, number, number];
        q = [
          lw * qx + lx * qw + ly * qz - lz * qy,
          lw * qy - lx * qz + ly * qw + lz * qx,
          lw * qz + lx * qy - ly * qx + lz * qw,
          lw * qw - lx * qx - ly * qy - lz * qz,
        ];
        s *= l[7]!;
      }
      const [x, y, z, w] = q as [number, number, number, number];
      const rot = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
      ];
      const inv = baked.inverseBinds.subarray(bone * 12, bone * 12 + 12);
      for (let r = 0; r < 3; r++) {
        for (let c = 0; c < 4; c++) {
          const value =
            (rot[r]![0]! * inv[c]! + rot[r]![1]! * inv[4 + c]! + rot[r]![2]! * inv[8 + c]!) * s * baked.rootScale +
            (c === 3 ? t[r]! * baked.rootScale : 0);
          worst = Math.max(worst, Math.abs(value - baked.data[row * baked.rowStride + bone * 12 + r * 4 + c]!));
        }
      }
    }
    expect(worst).toBeLessThan(1e-5);
  });
});

describe('headLookAt (a live control)', () => {
  it('turns the head towards the target, within its limit, and only the head', async () => {
    const { Crowd } = await import('../../../src/crowd/crowd.ts');
    const { findHeadNode, headLookAt } = await import('../../../src/crowd/look-at.ts');
    const template = new CrowdTemplate(createHumanoid({ detail: 'low' }));
    expect(findHeadNode(template)).toBe('head');
    const target = { x: 0, z: 0 };
    const control = headLookAt(template, { target: () => target, maxYaw: 1 })!;
    expect(control.reason).toBe('look-at');
    const crowd = new Crowd({ template });
    const agent = crowd.add({ z: -3, facing: 0, clip: 'idle' });
    const sampler = new ClipSampler(template);
    const head = sampler.clips.nodeIndex('head');
    const yawAfter = (x: number, z: number): number => {
      target.x = x;
      target.z = z;
      sampler.pose({ clip: agent.anim.clip, time: 0.5, previousClip: -1, previousTime: 0, weight: 1 });
      const before = Array.from(sampler.quaternion.subarray(head * 4, head * 4 + 4));
      const others = Float64Array.from(sampler.quaternion);
      control.apply!(sampler, agent);
      const after = sampler.quaternion.subarray(head * 4, head * 4 + 4);
      for (let i = 0; i < others.length; i++) if (i < head * 4 || i >= head * 4 + 4) expect(sampler.quaternion[i]).toBe(others[i]);
      // Angle of the applied turn about y: q_after = q_yaw × q_before.
      const [bx, by, bz, bw] = before as [number, number, number, number];
      const dot = after[0]! * bx + after[1]! * by + after[2]! * bz + after[3]! * bw;
      const angle = 2 * Math.acos(Math.min(1, Math.abs(dot)));
      const cross = bw * after[1]! - by * after[3]! + bz * after[0]! - bx * after[2]!;
      return Math.sign(cross) * angle;
    };
    // The avatar faces +Z (towards z = +∞); a target ahead and to +X turns it one way, -X the other.
    expect(yawAfter(0, 10)).toBeCloseTo(0, 5);
    expect(yawAfter(3, -3 + 3)).toBeCloseTo(Math.PI / 4, 3);
    expect(yawAfter(-3, 0)).toBeCloseTo(-Math.PI / 4, 3);
    // Behind it: clamped to the limit.
    expect(Math.abs(yawAfter(0.1, -20))).toBeCloseTo(1, 3);
    crowd.dispose();
  });
});

describe('baked table budget', () => {
  it('keeps a 55-clip rig under its budget in half floats, lowering the rate only when it must', async () => {
    const { bakeClips, bakedRowBytes, DEFAULT_BAKED_BUDGET } = await import('../../../src/crowd/bake.ts');
    const { AnimationClip } = await import('three');
    const humanoid = createHumanoid({ detail: 'low' });
    const clips = Array.from({ length: 55 }, (_, i) => {
      const clip = humanoid.clips[i % humanoid.clips.length]!;
      return new AnimationClip(`${clip.name}-${i}`, clip.duration, clip.tracks);
    });
    const rig = new CrowdTemplate({ object: humanoid.object, clips });
    const half = bakeClips(rig, { precision: 'half' });
    expect(half.plan.fps).toBe(30);
    expect(half.gpuBytes).toBeLessThanOrEqual(DEFAULT_BAKED_BUDGET);
    expect(half.gpuBytes).toBe(half.plan.rows * bakedRowBytes(rig.boneCount, half.nodes, 'half'));
    // The same clips in floats would not fit: the rate drops until they do.
    const tight = bakeClips(rig, { precision: 'float' });
    expect(tight.gpuBytes).toBeLessThanOrEqual(DEFAULT_BAKED_BUDGET);
    expect(tight.plan.fps).toBeLessThan(30);
  });
});
