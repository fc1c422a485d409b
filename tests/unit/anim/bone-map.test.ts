import { Bone, Group } from 'three';
import { describe, expect, it } from 'vitest';
import { classifyBoneName, tokenizeBoneName } from '../../../src/anim/retarget/auto-map.ts';
import { buildBoneMapping, mapRigBones } from '../../../src/anim/retarget/bone-map.ts';
import { CORE_BONES } from '../../../src/anim/retarget/canonical.ts';
import { rigFromDef, rigFromObject } from '../../../src/anim/retarget/rig-description.ts';
import { CC4_RIG } from '../../../src/anim/rigs/cc4.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';
import { BIPED_HELPERS, bipedName, deriveRig, mixamoName } from './rig-fixtures.ts';

const names = (rig: ReturnType<typeof rigFromDef>, map: Map<string, number>): Record<string, string> =>
  Object.fromEntries([...map].map(([c, i]) => [c, rig.bones[i]!.name]));

describe('step 1: bone-name maps', () => {
  it('recognises the mannequin and the CC4-style rig by their built-in maps', () => {
    const mannequin = rigFromDef(MANNEQUIN);
    const cc4 = rigFromDef(CC4_RIG);
    const m = mapRigBones(mannequin);
    const c = mapRigBones(cc4);
    expect(m.mapName).toBe('mannequin');
    expect(c.mapName).toBe('cc4');
    expect(names(mannequin, m.canonical)).toMatchObject({
      hips: 'pelvis',
      chest: 'spine_03',
      leftLowerArm: 'lowerarm_l',
      rightLittle3: 'pinky_03_r',
      leftToes: 'ball_l',
    });
    expect(names(cc4, c.canonical)).toMatchObject({
      hips: 'CC_Base_Hip',
      spine: 'CC_Base_Waist',
      leftLowerArm: 'CC_Base_L_Forearm',
      rightLittle3: 'CC_Base_R_Pinky3',
      leftMiddle1: 'CC_Base_L_Mid1',
    });
  });

  it('recognises Mixamo rigs however the loader spelled the prefix', () => {
    for (const prefix of ['mixamorig', 'mixamorig1', 'mixamorig_']) {
      const rig = rigFromDef(deriveRig('mixamo', (b) => mixamoName(b, prefix)));
      const map = mapRigBones(rig);
      expect(map.mapName, prefix).toBe('mixamo');
      expect(names(rig, map.canonical)).toMatchObject({
        hips: `${prefix}Hips`,
        leftUpperArm: `${prefix}LeftArm`,
        leftLowerLeg: `${prefix}LeftLeg`,
        rightThumb2: `${prefix}RightHandThumb2`,
      });
    }
  });

  it('joins two maps into pairs, dropping helper bones and leaving the face rig to follow the head', () => {
    const mapping = buildBoneMapping(rigFromDef(MANNEQUIN), rigFromDef(CC4_RIG));
    expect(mapping.problems.filter((p) => p.severity === 'error')).toEqual([]);
    // 61 canonical bones both rigs carry: everything but the root, which goes into the hips track.
    expect(mapping.pairs.length).toBe(61);
    expect(mapping.pairs.some((p) => p.canonical === 'root')).toBe(false);
    expect(mapping.droppedSource).toEqual(expect.arrayContaining(['root', 'spine_02', 'spine_04']));
    expect(mapping.unmappedTarget).toEqual(
      expect.arrayContaining(['CC_Base_JawRoot', 'CC_Base_L_Eye', 'CC_Base_L_ElbowShareBone', 'CC_Base_L_BigToe1', 'CC_Base_L_Breast']),
    );
    // Every finger joint is paired, so a hand closing on a grip closes on the target too.
    for (const side of ['left', 'right'])
      for (const finger of ['Thumb', 'Index', 'Middle', 'Ring', 'Little'])
        for (const j of [1, 2, 3]) expect(mapping.pairs.some((p) => p.canonical === `${side}${finger}${j}`)).toBe(true);
  });
});

describe('step 1: the automatic mapper (name patterns and hierarchy)', () => {
  it('splits names into words and classifies them', () => {
    expect(tokenizeBoneName('mixamorigLeftForeArm')).toEqual(['mixamorig', 'left', 'fore', 'arm']);
    expect(tokenizeBoneName('DEF-upper_armL')).toEqual(['def', 'upper', 'arm', 'l']);
    expect(classifyBoneName('DEF-upper_armL')).toMatchObject({ part: 'UpperArm', side: 'left' });
    expect(classifyBoneName('Bip01_R_Calf')).toMatchObject({ part: 'LowerLeg', side: 'right' });
    expect(classifyBoneName('thigh_twist_01_l')).toMatchObject({ part: 'UpperLegTwist', side: 'left' });
    expect(classifyBoneName('Bip01_L_Finger21')).toMatchObject({ part: 'finger:Middle', side: 'left' });
    expect(classifyBoneName('CC_Base_L_KneeShareBone').part).toBe('helper');
    expect(classifyBoneName('Bip01_L_Finger0Nub').part).toBe('helper');
    expect(classifyBoneName('CC_Base_L_BigToe1').part).toBe('helper');
    expect(classifyBoneName('IK_Target_L_Hand').part).toBe('helper');
    expect(classifyBoneName('CC_Base_NeckTwist01').part).toBe('neck');
  });

  it('maps a Biped rig no built-in map knows, filling an unnamed forearm from the hierarchy and leaving helpers out', () => {
    const rig = rigFromDef(deriveRig('biped', bipedName, BIPED_HELPERS));
    const map = mapRigBones(rig);
    expect(map.mapName).toBe('auto');
    const got = names(rig, map.canonical);
    expect(got).toMatchObject({
      hips: 'Bip01_Pelvis',
      spine: 'Bip01_Spine',
      chest: 'Bip01_Spine1',
      upperChest: 'Bip01_Spine2',
      neck: 'Bip01_Neck',
      head: 'Bip01_Head',
      leftShoulder: 'Bip01_L_Clavicle',
      leftUpperArm: 'Bip01_L_UpperArm',
      leftLowerArm: 'Bip01_L_Segment2',
      rightLowerArm: 'Bip01_R_Segment2',
      leftHand: 'Bip01_L_Hand',
      leftUpperArmTwist: 'Bip01_L_UpArmTwist',
      leftThumb1: 'Bip01_L_Finger0',
      leftThumb3: 'Bip01_L_Finger02',
      leftIndex2: 'Bip01_L_Finger11',
      rightLittle3: 'Bip01_R_Finger42',
      leftUpperLeg: 'Bip01_L_Thigh',
      rightLowerLeg: 'Bip01_R_Calf',
      leftFoot: 'Bip01_L_Foot',
      leftToes: 'Bip01_L_Toe0',
    });
    expect(Object.values(got)).not.toContain('Bip01_L_Finger0Nub');
    expect(Object.values(got)).not.toContain('IK_Target_L_Hand');
    expect(Object.values(got)).not.toContain('Bip01_HeadNub');
    expect(map.notes.join('\n')).toMatch(/left forearm taken from the hierarchy: "Bip01_L_Segment2"/);
    for (const bone of CORE_BONES) expect(map.canonical.has(bone), bone).toBe(true);
  });

  it('gives a side by position to limbs whose names carry none (left = up × forward)', () => {
    const rig = rigFromDef(
      deriveRig('sideless', (b) => (b.endsWith('_l') ? `${b.slice(0, -2)}_1` : b.endsWith('_r') ? `${b.slice(0, -2)}_2` : b)),
    );
    const map = mapRigBones(rig, 'auto');
    expect(rig.bones[map.canonical.get('leftHand')!]!.name).toBe('hand_1');
    expect(rig.bones[map.canonical.get('rightUpperLeg')!]!.name).toBe('thigh_2');
    expect(map.notes.some((n) => /placed on the left by position/.test(n))).toBe(true);
  });
});

describe('step 1: bad rigs get a report naming what is wrong', () => {
  it('reports missing and duplicate bone names, and maps neither', () => {
    const group = new Group();
    const hips = Object.assign(new Bone(), { name: 'Hips' });
    const spine = Object.assign(new Bone(), { name: 'Spine' });
    const unnamed = new Bone();
    const a = Object.assign(new Bone(), { name: 'LeftHand' });
    const b = Object.assign(new Bone(), { name: 'LeftHand' });
    group.add(hips);
    hips.add(spine, unnamed);
    spine.add(a, b);
    const rig = rigFromObject(group, 'broken');
    const messages = rig.problems.map((p) => p.message).join('\n');
    expect(messages).toMatch(/bone #\d \(child of "Hips"\) has no name/);
    expect(messages).toMatch(/duplicate bone name "LeftHand" \(bones #\d and #\d\); neither is mapped/);
    const map = mapRigBones(rig, 'auto');
    expect(map.canonical.has('leftHand')).toBe(false);
    expect(map.canonical.get('hips')).toBe(rig.index.get('Hips'));
  });

  it('says when a rig cannot be retargeted at all (no hips), with every reason', () => {
    const broken = rigFromDef({
      name: 'tentacle',
      bones: [
        { name: 'base', parent: null, head: [0, 0, 0] },
        { name: 'segment', parent: 'base', head: [0, 1, 0] },
      ],
    });
    const mapping = buildBoneMapping(rigFromDef(MANNEQUIN), broken);
    const errors = mapping.problems.filter((p) => p.severity === 'error').map((p) => p.message);
    expect(errors).toEqual([expect.stringMatching(/target rig "tentacle" has no hips bone \(auto map\); nothing can be retargeted/)]);
    expect(mapping.problems.some((p) => /lacks spine, head, leftUpperArm/.test(p.message))).toBe(true);
  });

  it('reports a definition three.js cannot build instead of throwing', () => {
    const rig = rigFromDef({
      name: 'twice',
      bones: [
        { name: 'root', parent: null, head: [0, 0, 0] },
        { name: 'pelvis', parent: 'root', head: [0, 1, 0] },
        { name: 'pelvis', parent: 'root', head: [0, 1, 0] },
        { name: 'arm', parent: 'nowhere', head: [0, 1, 0] },
      ],
    });
    const messages = rig.problems.map((p) => p.message).join('\n');
    expect(messages).toMatch(/duplicate bone name "pelvis"/);
    expect(messages).toMatch(/bone "arm" lists parent "nowhere"/);
  });
});
