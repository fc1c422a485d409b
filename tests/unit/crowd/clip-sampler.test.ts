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
    for (let k = 0; k < FLOATS_PER_BONE; k++) moved = Math.max(moved, Math.abs(after[headBone * FLOATS_PER_BONE + k]! - before[headBone * FLOATS_PER_BONE + k]!));
    expect(moved).toBeGreaterThan(0.1);
    expect(flatClips(template)).toBe(flat.clips);
  });
});
