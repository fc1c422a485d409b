import { Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { CC4_A_POSE_ANGLE, CC4_FACE_BONES, CC4_RIG } from '../../../src/anim/rigs/cc4.ts';
import { createCc4Character } from '../../../src/anim/rigs/cc4-character.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';
import { buildSkeleton, validateSkeletonDef } from '../../../src/rig/skeleton-def.ts';

const head = (name: string): Vector3 => new Vector3(...CC4_RIG.bones.find((b) => b.name === name)!.head);

describe('the CC4-style rig', () => {
  it('has about 213 uniquely named bones, a face rig of 80+, and no name in common with the mannequin', () => {
    expect(() => validateSkeletonDef(CC4_RIG)).not.toThrow();
    expect(CC4_RIG.bones.length).toBeGreaterThanOrEqual(205);
    expect(CC4_RIG.bones.length).toBeLessThanOrEqual(220);
    expect(CC4_FACE_BONES.length).toBeGreaterThanOrEqual(80);
    const mannequin = new Set(MANNEQUIN.bones.map((b) => b.name));
    expect(CC4_RIG.bones.filter((b) => mannequin.has(b.name))).toEqual([]);
    // Full finger joints (three per finger, both hands) and a jaw, eyes and tongue in the face.
    for (const side of ['L', 'R'])
      for (const finger of ['Thumb', 'Index', 'Mid', 'Ring', 'Pinky'])
        for (const j of [1, 2, 3]) expect(CC4_RIG.bones.some((b) => b.name === `CC_Base_${side}_${finger}${j}`)).toBe(true);
    for (const name of ['CC_Base_JawRoot', 'CC_Base_L_Eye', 'CC_Base_R_Eye', 'CC_Base_Tongue03']) expect(CC4_FACE_BONES).toContain(name);
  });

  it('has a root bone above the hips, as real exports do', () => {
    expect(CC4_RIG.bones[0]!.name).toBe('CC_Base_BoneRoot');
    expect(CC4_RIG.bones.find((b) => b.name === 'CC_Base_Hip')!.parent).toBe('CC_Base_BoneRoot');
  });

  it('is bound in A-pose: upper arms 45° below horizontal, where the mannequin is in T-pose', () => {
    for (const side of ['L', 'R']) {
      const arm = head(`CC_Base_${side}_Forearm`).sub(head(`CC_Base_${side}_Upperarm`));
      const below = Math.atan2(-arm.y, Math.hypot(arm.x, arm.z));
      expect(below).toBeCloseTo(CC4_A_POSE_ANGLE, 3);
    }
    const mannequinArm = new Vector3(...MANNEQUIN.bones.find((b) => b.name === 'lowerarm_l')!.head).sub(
      new Vector3(...MANNEQUIN.bones.find((b) => b.name === 'upperarm_l')!.head),
    );
    expect(Math.abs(mannequinArm.y)).toBeLessThan(1e-9);
  });

  it('has other proportions: taller, longer legs and arms', () => {
    const legLength = (hip: Vector3, knee: Vector3, ankle: Vector3): number => hip.distanceTo(knee) + knee.distanceTo(ankle);
    const m = (name: string): Vector3 => new Vector3(...MANNEQUIN.bones.find((b) => b.name === name)!.head);
    const cc4Leg = legLength(head('CC_Base_L_Thigh'), head('CC_Base_L_Calf'), head('CC_Base_L_Foot'));
    const mannequinLeg = legLength(m('thigh_l'), m('calf_l'), m('foot_l'));
    expect(cc4Leg / mannequinLeg).toBeGreaterThan(1.04);
    const cc4Arm =
      head('CC_Base_L_Upperarm').distanceTo(head('CC_Base_L_Forearm')) + head('CC_Base_L_Forearm').distanceTo(head('CC_Base_L_Hand'));
    const mannequinArm = m('upperarm_l').distanceTo(m('lowerarm_l')) + m('lowerarm_l').distanceTo(m('hand_l'));
    expect(cc4Arm / mannequinArm).toBeGreaterThan(1.05);
    expect(head('CC_Base_Head').y).toBeGreaterThan(m('head').y + 0.04);
  });

  it("carries bone-aligned bind frames (+Y along the bone), not the mannequin's world-aligned ones", () => {
    const { byName } = buildSkeleton(CC4_RIG);
    const q = new Quaternion();
    for (const [bone, child] of [
      ['CC_Base_L_Upperarm', 'CC_Base_L_Forearm'],
      ['CC_Base_R_Thigh', 'CC_Base_R_Calf'],
      ['CC_Base_Waist', 'CC_Base_Spine01'],
    ]) {
      byName.get(bone)!.getWorldQuaternion(q);
      const along = head(child).sub(head(bone)).normalize();
      expect(new Vector3(0, 1, 0).applyQuaternion(q).dot(along), bone).toBeCloseTo(1, 6);
    }
    // Heads land where the definition puts them despite the rotated frames.
    for (const def of CC4_RIG.bones) {
      const p = new Vector3().setFromMatrixPosition(byName.get(def.name)!.matrixWorld);
      expect(p.distanceTo(new Vector3(...def.head))).toBeLessThan(1e-6);
    }
    expect(byName.get('CC_Base_BoneRoot')!.quaternion.angleTo(new Quaternion())).toBeGreaterThan(1);
  });

  it('builds a skinned character: three pieces on one skeleton, valid weights, standing on the floor', () => {
    const character = createCc4Character({ detail: 'low' });
    expect(character.meshes.map((m) => m.name)).toEqual(['cc4-body', 'cc4-head', 'cc4-clothing']);
    let minY = Infinity;
    let maxY = -Infinity;
    for (const mesh of character.meshes) {
      expect(mesh.skeleton).toBe(character.skeleton);
      const index = mesh.geometry.getAttribute('skinIndex');
      const weight = mesh.geometry.getAttribute('skinWeight');
      for (let v = 0; v < index.count; v++) {
        let sum = 0;
        for (let k = 0; k < 4; k++) {
          sum += weight.getComponent(v, k);
          if (weight.getComponent(v, k) > 0) expect(index.getComponent(v, k)).toBeLessThan(character.bones.length);
        }
        expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
      }
      minY = Math.min(minY, mesh.geometry.boundingBox!.min.y);
      maxY = Math.max(maxY, mesh.geometry.boundingBox!.max.y);
    }
    expect(minY).toBeGreaterThan(-0.03);
    expect(minY).toBeLessThan(0.03);
    expect(maxY).toBeGreaterThan(1.85);
    // Fingers are skinned to their own joints, so closing them closes the hand.
    character.dispose();
    const detailed = createCc4Character({ detail: 'high' });
    const used = new Set<number>();
    const body = detailed.meshes[0]!.geometry;
    for (let v = 0; v < body.getAttribute('skinIndex').count; v++)
      if (body.getAttribute('skinWeight').getX(v) > 0.5) used.add(body.getAttribute('skinIndex').getX(v));
    for (const name of ['CC_Base_R_Index2', 'CC_Base_R_Mid3', 'CC_Base_L_Thumb2', 'CC_Base_L_UpperarmTwist02'])
      expect(used.has(detailed.bones.indexOf(detailed.bone(name))), name).toBe(true);
    expect(() => detailed.bone('pelvis')).toThrow(/CC4 character has no bone "pelvis"/);
    detailed.dispose();
  });
});
