import { AnimationClip, AnimationMixer, Quaternion, QuaternionKeyframeTrack, Vector3, VectorKeyframeTrack, type Bone } from 'three';
import { describe, expect, it, vi } from 'vitest';
import { libraryClip } from '../../../src/anim/library/index.ts';
import { alignBindPose } from '../../../src/anim/retarget/bind-alignment.ts';
import { buildBoneMapping } from '../../../src/anim/retarget/bone-map.ts';
import { instantiateRig } from '../../../src/anim/retarget/instantiate.ts';
import { scaleHipsPosition } from '../../../src/anim/retarget/position-scaling.ts';
import { createRetargetContext, RetargetError, retargetClip, type RetargetContext } from '../../../src/anim/retarget/retarget-clip.ts';
import { formatClipReports, retargetLibrary } from '../../../src/anim/retarget/retarget-library.ts';
import { rigFromDef, type RigDescription } from '../../../src/anim/retarget/rig-description.ts';
import { CC4_RIG } from '../../../src/anim/rigs/cc4.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';
import { emptyPose, relaxedArms } from '../../../src/rig/pose.ts';
import type { SkeletonDef } from '../../../src/rig/skeleton-def.ts';

// Whole-library work: seconds on an idle machine, more when the test run shares the cores.
vi.setConfig({ testTimeout: 30_000 });

const mannequin = rigFromDef(MANNEQUIN);
const cc4 = rigFromDef(CC4_RIG);
const toCc4 = createRetargetContext(mannequin, cc4);

/** Plays a clip on a fresh copy of a rig at `time` and returns its bones. */
function posed(rig: RigDescription, clip: AnimationClip, time: number): { bone(name: string): Bone } {
  const instance = instantiateRig(rig);
  const mixer = new AnimationMixer(instance.root);
  const action = mixer.clipAction(clip).play();
  action.time = time;
  mixer.update(0);
  instance.root.updateMatrixWorld(true);
  return { bone: (name) => instance.bones[rig.index.get(name)!]! };
}
const worldPosition = (bone: Bone): Vector3 => new Vector3().setFromMatrixPosition(bone.matrixWorld);
const direction = (from: Bone, to: Bone): Vector3 => worldPosition(to).sub(worldPosition(from)).normalize();

/** A one-key clip holding a pose of the mannequin (rotations only). */
function poseClip(name: string, rotations: Map<string, Quaternion>): AnimationClip {
  const tracks = [...rotations].map(
    ([bone, q]) => new QuaternionKeyframeTrack(`${bone}.quaternion`, [0, 1], [...q.toArray(), ...q.toArray()]),
  );
  return new AnimationClip(name, 1, tracks);
}

describe('step 2: bind-pose alignment (A-pose target, T-pose source)', () => {
  it("raises the A-pose arms into the source's T-pose in the reference pose, without touching the bind", () => {
    const reference = toCc4.reference;
    for (const side of ['L', 'R']) {
      const upper = cc4.index.get(`CC_Base_${side}_Upperarm`)!;
      const fore = cc4.index.get(`CC_Base_${side}_Forearm`)!;
      const inReference = reference.worldPosition[fore]!.clone().sub(reference.worldPosition[upper]!).normalize();
      expect(inReference.y).toBeCloseTo(0, 6);
      expect(Math.abs(inReference.x)).toBeCloseTo(1, 3);
      // The bind itself stays the A-pose: alignment is a separate reference, not an edit of the rig.
      expect(cc4.bones[fore]!.worldPosition.y).toBeLessThan(cc4.bones[upper]!.worldPosition.y - 0.2);
      // The alignment turned the upper arm by the A-pose angle, once.
      expect(reference.alignment.get(upper)!.angleTo(new Quaternion())).toBeCloseTo(Math.PI / 4, 2);
    }
    expect(Math.max(...reference.residual.values())).toBeLessThan(1e-5);
  });

  it("plays the source's bind pose as a T-pose on the target: the A-to-T difference is not added to the frame", () => {
    const bind = poseClip(
      'bind',
      new Map([
        ['upperarm_l', new Quaternion()],
        ['upperarm_r', new Quaternion()],
        ['pelvis', new Quaternion()],
      ]),
    );
    const { clip } = retargetClip(bind, toCc4);
    const target = posed(cc4, clip!, 0.5);
    for (const side of ['L', 'R']) {
      const arm = direction(target.bone(`CC_Base_${side}_Upperarm`), target.bone(`CC_Base_${side}_Forearm`));
      expect(Math.abs(arm.y), side).toBeLessThan(1e-4);
    }
  });

  it("gives the target arm the source arm's world direction for a relaxed pose, where copying local rotations fails", () => {
    const pose = emptyPose();
    relaxedArms(pose);
    const clip = poseClip('relaxed', pose.rotations);
    const source = posed(mannequin, clip, 0.5);
    const target = posed(cc4, retargetClip(clip, toCc4).clip!, 0.5);
    for (const [m, c] of [
      ['l', 'L'],
      ['r', 'R'],
    ]) {
      const want = direction(source.bone(`upperarm_${m}`), source.bone(`lowerarm_${m}`));
      const got = direction(target.bone(`CC_Base_${c}_Upperarm`), target.bone(`CC_Base_${c}_Forearm`));
      expect(got.angleTo(want), `${c} upper arm`).toBeLessThan(1e-3);
      const wantFore = direction(source.bone(`lowerarm_${m}`), source.bone(`hand_${m}`));
      const gotFore = direction(target.bone(`CC_Base_${c}_Forearm`), target.bone(`CC_Base_${c}_Hand`));
      expect(gotFore.angleTo(wantFore), `${c} forearm`).toBeLessThan(1e-3);
    }
    // The trap: applying the source's rotation on top of the target's bind (bind · source local) adds
    // the A-to-T difference to the frame: the arm hangs 45° further down, into the body.
    const naive = instantiateRig(cc4);
    const arm = naive.bones[cc4.index.get('CC_Base_L_Upperarm')!]!;
    arm.quaternion.multiply(pose.rotations.get('upperarm_l')!);
    naive.root.updateMatrixWorld(true);
    const wrong = direction(arm, naive.bones[cc4.index.get('CC_Base_L_Forearm')!]!);
    expect(wrong.angleTo(direction(source.bone('upperarm_l'), source.bone('lowerarm_l')))).toBeGreaterThan(0.5);
  });

  it('works the other way (A-pose source, T-pose target): mannequin → CC4 → mannequin returns the original motion', () => {
    const back = createRetargetContext(cc4, mannequin);
    // The reference pose lowers the mannequin's arms into the CC4's A-pose.
    const upper = mannequin.index.get('upperarm_l')!;
    const lower = mannequin.index.get('lowerarm_l')!;
    const armDown = back.reference.worldPosition[lower]!.clone().sub(back.reference.worldPosition[upper]!).normalize();
    expect(Math.asin(-armDown.y)).toBeCloseTo(Math.PI / 4, 3);
    const walk = libraryClip('sword_slash_1');
    const roundTrip = retargetClip(retargetClip(walk, toCc4).clip!, back).clip!;
    for (const time of [0.2, 0.45, 0.7]) {
      const original = posed(mannequin, walk, time);
      const returned = posed(mannequin, roundTrip, time);
      for (const name of ['hand_r', 'index_03_r', 'foot_l', 'head', 'lowerarm_l']) {
        const a = new Quaternion();
        const b = new Quaternion();
        original.bone(name).getWorldQuaternion(a);
        returned.bone(name).getWorldQuaternion(b);
        expect(a.angleTo(b), `${name} at ${time}`).toBeLessThan(2e-3);
        expect(worldPosition(original.bone(name)).distanceTo(worldPosition(returned.bone(name))), `${name} at ${time}`).toBeLessThan(2e-3);
      }
    }
  });

  it("aligns every mapped chain of the target to the source's bind directions", () => {
    const mapping = buildBoneMapping(mannequin, cc4);
    const reference = alignBindPose(mannequin, cc4, mapping);
    const chains: Array<[string, string]> = [
      ['leftUpperLeg', 'leftLowerLeg'],
      ['rightLowerLeg', 'rightFoot'],
      ['leftHand', 'leftMiddle1'],
      ['rightIndex1', 'rightIndex2'],
      ['spine', 'chest'],
      ['leftFoot', 'leftToes'],
    ];
    for (const [a, b] of chains) {
      const s = mannequin.bones[mapping.source.canonical.get(b)!]!.worldPosition.clone()
        .sub(mannequin.bones[mapping.source.canonical.get(a)!]!.worldPosition)
        .normalize();
      const t = reference.worldPosition[mapping.target.canonical.get(b)!]!.clone()
        .sub(reference.worldPosition[mapping.target.canonical.get(a)!]!)
        .normalize();
      expect(t.angleTo(s), `${a}→${b}`).toBeLessThan(1e-5);
    }
  });
});

/** The mannequin with legs 20 % longer (the body raised to keep the feet on the floor). */
function longLegged(): SkeletonDef {
  const hipY = 0.92;
  const legs = /^(thigh|calf|foot|ball)/;
  const lift = (0.92 - 0.085) * 0.2;
  return {
    name: 'long-legs',
    bones: MANNEQUIN.bones.map((b) => {
      const [x, y, z] = b.head;
      if (legs.test(b.name)) return { ...b, head: [x, hipY + lift - (hipY - y) * 1.2, z] as [number, number, number] };
      return { ...b, head: [x, b.name === 'root' ? y : y + lift, z] as [number, number, number] };
    }),
  };
}

describe('step 3: position scaling with two ratios', () => {
  it('measures the leg-length ratio (horizontal) and the hip-height ratio (vertical) separately', () => {
    const { ratios } = toCc4;
    expect(ratios.sourceHipHeight).toBeCloseTo(0.96, 6);
    expect(ratios.targetHipHeight).toBeCloseTo(1.02, 6);
    expect(ratios.vertical).toBeCloseTo(1.02 / 0.96, 6);
    expect(ratios.horizontal).toBeCloseTo(ratios.targetLegLength / ratios.sourceLegLength, 9);
    const long = createRetargetContext(mannequin, rigFromDef(longLegged()));
    expect(long.ratios.horizontal).toBeCloseTo(1.2, 3);
    expect(long.ratios.vertical).toBeCloseTo((0.96 + (0.92 - 0.085) * 0.2) / 0.96, 6);
    expect(Math.abs(long.ratios.horizontal - long.ratios.vertical)).toBeGreaterThan(0.02);
  });

  it('scales x/z by the horizontal ratio and y by the vertical one', () => {
    const out = scaleHipsPosition(new Vector3(1, 1.2, -2), new Vector3(0, 1, 0), new Vector3(0, 2, 0.5), { horizontal: 1.5, vertical: 3 });
    expect(out.x).toBeCloseTo(1.5, 12);
    expect(out.y).toBeCloseTo(2.6, 12);
    expect(out.z).toBeCloseTo(-2.5, 12);
  });

  it('sends a walk farther on longer legs and bobs the hips by the hip-height ratio', () => {
    const longRig = rigFromDef(longLegged());
    const long = createRetargetContext(mannequin, longRig);
    const walk = libraryClip('walk_fwd');
    const hips = (rig: RigDescription, clip: AnimationClip, name: string, time: number): Vector3 =>
      worldPosition(posed(rig, clip, time).bone(name));
    const retargeted = retargetClip(walk, long).clip!;
    const travel = hips(longRig, retargeted, 'pelvis', walk.duration).z - hips(longRig, retargeted, 'pelvis', 0).z;
    const sourceTravel = hips(mannequin, walk, 'pelvis', walk.duration).z - hips(mannequin, walk, 'pelvis', 0).z;
    expect(travel / sourceTravel).toBeCloseTo(1.2, 3);
    const times = [0, 0.1, 0.2, 0.3, 0.4, 0.5];
    for (const t of times) {
      const sourceBob = hips(mannequin, walk, 'pelvis', t).y - 0.96;
      const targetBob = hips(longRig, retargeted, 'pelvis', t).y - longRig.bones[longRig.index.get('pelvis')!]!.worldPosition.y;
      expect(targetBob).toBeCloseTo(sourceBob * long.ratios.vertical, 5);
    }
  });

  it('sums root and pelvis motion into the target hips, so knockbacks and climbs keep moving the body', () => {
    for (const [name, axis, ratio] of [
      ['knockback', 'z', toCc4.ratios.horizontal],
      ['climb_ledge', 'y', toCc4.ratios.vertical],
    ] as const) {
      const clip = libraryClip(name);
      const result = retargetClip(clip, toCc4).clip!;
      // No track on the target's root bone: the hips carry everything.
      expect(result.tracks.some((t) => t.name.startsWith('CC_Base_BoneRoot.'))).toBe(false);
      const source = (t: number): number => worldPosition(posed(mannequin, clip, t).bone('pelvis'))[axis];
      const target = (t: number): number => worldPosition(posed(cc4, result, t).bone('CC_Base_Hip'))[axis];
      const sourceMove = source(clip.duration) - source(0);
      expect(Math.abs(sourceMove), name).toBeGreaterThan(1);
      expect(target(clip.duration) - target(0), name).toBeCloseTo(sourceMove * ratio, 3);
    }
  });

  it('keeps the character in place on request (turns and vertical motion stay)', () => {
    const inPlace = createRetargetContext(mannequin, cc4, { rootMotion: 'in-place' });
    const walk = retargetClip(libraryClip('walk_fwd'), inPlace).clip!;
    for (const t of [0, 0.3, 0.6, 1.0]) expect(Math.abs(worldPosition(posed(cc4, walk, t).bone('CC_Base_Hip')).z)).toBeLessThan(0.05);
    const ladder = retargetClip(libraryClip('climb_ladder'), inPlace).clip!;
    expect(
      worldPosition(posed(cc4, ladder, 1.19).bone('CC_Base_Hip')).y - worldPosition(posed(cc4, ladder, 0).bone('CC_Base_Hip')).y,
    ).toBeGreaterThan(0.5);
  });

  it('scales authored speed and the swim rig offset with the rig', () => {
    const walk = retargetClip(libraryClip('walk_fwd'), toCc4).clip!;
    expect((walk.userData as { speed: number }).speed).toBeCloseTo(1.45 * toCc4.ratios.horizontal, 6);
    const tread = retargetClip(libraryClip('swim_tread'), toCc4).clip!;
    expect((tread.userData as { rigOffset: number }).rigOffset).toBeCloseTo(-0.1 * toCc4.ratios.vertical, 6);
  });
});

describe('fingers and feet on the retargeted character', () => {
  it('closes the CC4 hand on the sword grip: every finger joint turns, fingertips come to the palm', () => {
    const clip = retargetClip(libraryClip('sword_slash_1'), toCc4).clip!;
    const bind = instantiateRig(cc4);
    const target = posed(cc4, clip, 0.4);
    const palm = (bones: { bone(name: string): Bone }): Vector3 =>
      worldPosition(bones.bone('CC_Base_R_Hand')).lerp(worldPosition(bones.bone('CC_Base_R_Mid1')), 0.6);
    const bindBones = { bone: (name: string) => bind.bones[cc4.index.get(name)!]! };
    for (const finger of ['Index', 'Mid', 'Ring', 'Pinky']) {
      for (const joint of [1, 2, 3]) {
        const name = `CC_Base_R_${finger}${joint}`;
        expect(target.bone(name).quaternion.angleTo(cc4.bones[cc4.index.get(name)!]!.localRotation), name).toBeGreaterThan(0.6);
      }
      const tip = `CC_Base_R_${finger}3`;
      const open = worldPosition(bindBones.bone(tip)).distanceTo(palm(bindBones));
      const closed = worldPosition(target.bone(tip)).distanceTo(palm(target));
      expect(closed, finger).toBeLessThan(open * 0.75);
    }
  });

  it('keeps the CC4 feet on the floor through the walk cycle', () => {
    const clip = retargetClip(libraryClip('walk_fwd'), toCc4).clip!;
    const ankle = cc4.bones[cc4.index.get('CC_Base_L_Foot')!]!.worldPosition.y;
    for (let f = 0; f < 33; f++) {
      const t = (f / 32) * clip.duration;
      const bones = posed(cc4, clip, t);
      const lowest = Math.min(worldPosition(bones.bone('CC_Base_L_Foot')).y, worldPosition(bones.bone('CC_Base_R_Foot')).y);
      expect(Math.abs(lowest - ankle), `t=${t.toFixed(2)}`).toBeLessThan(0.006);
    }
  });
});

describe('bad input: a report naming what is wrong, and the other clips still retarget', () => {
  const good = libraryClip('wave');
  const empty = new AnimationClip('empty', 1, []);
  const foreign = new AnimationClip('foreign', 1, [
    new QuaternionKeyframeTrack('Armature.quaternion', [0, 1], [0, 0, 0, 1, 0, 0, 0, 1]),
    new VectorKeyframeTrack('Bip01.position', [0, 1], [0, 0, 0, 0, 0, 1]),
  ]);
  const helpersOnly = new AnimationClip('helpers', 1, [
    new QuaternionKeyframeTrack('spine_02.quaternion', [0, 1], [0, 0, 0, 1, 0, 0, 0, 1]),
  ]);

  it('reports a clip with no tracks, one whose tracks match no bone, and one that drives only helper bones', () => {
    const result = retargetLibrary([good, empty, foreign, helpersOnly, libraryClip('idle')], toCc4);
    expect(result.clips.map((c) => c.name)).toEqual(['wave', 'idle']);
    const byName = Object.fromEntries(result.reports.map((r) => [r.clip, r]));
    expect(byName.empty!.error).toBe('the clip has no tracks');
    expect(byName.foreign!.error).toMatch(
      /no track animates a bone of the source rig "cairn-mannequin" \(tracks: Armature\.quaternion, Bip01\.position\)/,
    );
    expect(byName.helpers!.error).toMatch(/animate only bones the target has no counterpart for \(spine_02\.quaternion\)/);
    expect(byName.wave!.ok).toBe(true);
    expect(formatClipReports(result.reports)).toMatch(/✗ foreign: no track animates/);
  });

  it('ignores stray tracks in an otherwise good clip, and says so', () => {
    const mixed = new AnimationClip('mixed', good.duration, [
      ...good.tracks,
      new QuaternionKeyframeTrack('Prop_Sword.quaternion', [0, 1], [0, 0, 0, 1, 0, 0, 0, 1]),
    ]);
    const { clip, report } = retargetClip(mixed, toCc4);
    expect(clip).not.toBeNull();
    expect(report.ignoredTracks).toEqual(['Prop_Sword.quaternion']);
    expect(report.warnings.join()).toMatch(/1 track\(s\) address no bone of the source rig/);
  });

  it('refuses rigs that cannot be paired, listing the reasons', () => {
    const noHips = rigFromDef({ name: 'crate', bones: [{ name: 'lid', parent: null, head: [0, 0, 0] }] });
    expect(() => createRetargetContext(mannequin, noHips)).toThrow(RetargetError);
    expect(() => createRetargetContext(noHips, cc4)).toThrow(/source rig "crate" has no hips bone/);
  });

  it('keeps retargeting when a source rig has duplicate names (those bones are left out)', () => {
    const def = deriveDuplicate();
    const rig = rigFromDef(def);
    expect(rig.problems.some((p) => /duplicate bone name "pinky_03_l"/.test(p.message))).toBe(true);
    const context: RetargetContext = createRetargetContext(rig, cc4);
    expect(context.mapping.pairs.some((p) => p.canonical === 'leftLittle3')).toBe(false);
    expect(context.mapping.problems.some((p) => /source rig "dupes": duplicate bone name "pinky_03_l"/.test(p.message))).toBe(true);
  });
});

/** The mannequin with a second bone named like the last pinky joint (a definition three cannot build). */
function deriveDuplicate(): SkeletonDef {
  return { name: 'dupes', bones: [...MANNEQUIN.bones, { name: 'pinky_03_l', parent: 'hand_l', head: [0.75, 1.44, -0.03] }] };
}
