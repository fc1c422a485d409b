/**
 * The live path's cost per avatar pose, in Node, same run, interleaved: three's default (an
 * AnimationMixer over a SkinnedMesh clone, then the world matrices and Skeleton.update that three
 * runs before drawing it), the mixer over a bones-only clone (VirtualSkeleton, the crowd's former
 * live path) and the crowd's ClipSampler (flat tracks straight into the bone rows). Each call is
 * one avatar playing one clip, then (second table) mid-crossfade (walk → run at 0.4), advancing
 * time, writing 64 bone matrices.
 * `npx tsx bench/crowd/live-path.bench.ts`.
 */
import { AnimationMixer, type Object3D, type SkinnedMesh } from 'three';
import { clone as cloneSkinned } from 'three/addons/utils/SkeletonUtils.js';
import { ClipSampler } from '../../src/crowd/clip-sampler.ts';
import { CrowdTemplate } from '../../src/crowd/template.ts';
import { FLOATS_PER_BONE, VirtualSkeleton } from '../../src/crowd/virtual-skeleton.ts';
import { createHumanoid } from '../../src/rig/humanoid.ts';
import { compare, printComparison } from '../lib/measure.ts';

const humanoid = createHumanoid({ detail: 'low' });
const template = new CrowdTemplate(humanoid, { name: 'mannequin' });
const walk = template.clipIndex('walk');
const run = template.clipIndex('run');
const rows = new Float32Array(template.boneCount * FLOATS_PER_BONE);
let time = 0;
let fading = false;
const sample = () => {
  time = (time + 1 / 60) % 1;
  return { clip: run, time, previousClip: fading ? walk : -1, previousTime: (time + 0.3) % 1, weight: fading ? 0.4 : 1 };
};

// three's default path: the mixer on a full clone, then what render() does for a skinned mesh.
const avatar = cloneSkinned(humanoid.object) as Object3D;
const mixer = new AnimationMixer(avatar);
const runAction = mixer.clipAction(humanoid.clip('run'));
const walkAction = mixer.clipAction(humanoid.clip('walk'));
runAction.play().setEffectiveWeight(0.4);
walkAction.play().setEffectiveWeight(0.6);
const skinned: SkinnedMesh[] = [];
avatar.traverse((node) => {
  if ((node as SkinnedMesh).isSkinnedMesh) skinned.push(node as SkinnedMesh);
});
const skeletons = [...new Set(skinned.map((mesh) => mesh.skeleton))];

const reference = new VirtualSkeleton(template);
const sampler = new ClipSampler(template);

const candidates = [
  {
    name: "three's mixer + skeleton update",
    run: () => {
      const s = sample();
      runAction.time = s.time;
      walkAction.time = s.previousTime;
      walkAction.setEffectiveWeight(fading ? 0.6 : 0);
      runAction.setEffectiveWeight(fading ? 0.4 : 1);
      mixer.update(0);
      avatar.updateMatrixWorld(true);
      for (const skeleton of skeletons) skeleton.update();
      return skeletons[0]!.boneMatrices;
    },
  },
  {
    name: 'mixer on a bones-only clone',
    run: () => {
      reference.pose(sample());
      return reference.writePose(rows, 0);
    },
  },
  {
    name: 'ClipSampler (flat tracks)',
    run: () => {
      sampler.pose(sample());
      return sampler.writePose(rows, 0);
    },
  },
];
printComparison('one live avatar pose, 64 bones, one clip — ms per pose', compare(candidates, { rounds: 15, callsPerRound: 400 }));
fading = true;
printComparison('one live avatar pose, 64 bones, mid-crossfade — ms per pose', compare(candidates, { rounds: 15, callsPerRound: 400 }));
