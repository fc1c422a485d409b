import { Matrix4, Quaternion, Vector3 } from 'three';
import type { BoneDef, SkeletonDef } from '../../rig/skeleton-def.ts';

/**
 * A Character Creator 4–style rig, built procedurally so the retargeting pipeline has a realistic
 * second character without shipping a model file:
 * - **213 bones**: a body with twist and "share" helper bones, breast/ribs helpers, five toes per
 *   foot and three joints per finger, plus a face rig of 100+ bones (jaw, teeth, tongue, eyes,
 *   brows, lids, cheeks, nose, lips, ears);
 * - **CC4 names** (`CC_Base_Hip`, `CC_Base_L_Upperarm`, `CC_Base_R_Mid2`, …), nothing in common
 *   with the mannequin's UE5 names;
 * - **other proportions**: 1.88 m, hips at 1.02 m, longer legs (0.885 m vs 0.835 m) and arms;
 * - **A-pose bind** (arms 45° down) where the mannequin is bound in T-pose;
 * - **bone-aligned bind frames** as exported from Blender/CC4 (each bone's +Y runs along the bone
 *   towards its child), and a root bone `CC_Base_BoneRoot` rotated into a Z-up frame above the hips,
 *   as in real exports. Nothing about these frames matches the mannequin's world-aligned ones, so
 *   copying local rotations between the rigs would be wrong: the retargeter must work in world space.
 *
 * The character faces +Z with its left side at +X, like the mannequin.
 */

type Vec3 = [number, number, number];

/** Arm angle below horizontal in the bind pose (radians). */
export const CC4_A_POSE_ANGLE = Math.PI / 4;
/** Height of `CC_Base_Hip` above the floor in the bind pose (metres). */
export const CC4_HIP_HEIGHT = 1.02;

interface Draft {
  name: string;
  parent: string | null;
  head: Vec3;
  /** Where the bone's +Y axis points (the "tail"); the bone's own head when it has none. */
  tail?: Vec3;
  /** Which way the bone's +Z axis should face, roughly (bone roll). Default: forward (+Z). */
  roll?: Vec3;
}

const drafts: Draft[] = [];
const byName = new Map<string, Draft>();
function add(name: string, parent: string | null, head: Vec3, extra: Partial<Pick<Draft, 'tail' | 'roll'>> = {}): void {
  const draft: Draft = { name, parent, head, ...extra };
  drafts.push(draft);
  byName.set(name, draft);
}
const lerp3 = (a: Vec3, b: Vec3, t: number): Vec3 => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];

// ---- Body (T-pose coordinates first; the arms are lowered into the A-pose below) ----
add('CC_Base_BoneRoot', null, [0, 0, 0], { tail: [0, 0, -0.2], roll: [0, 1, 0] });
add('CC_Base_Hip', 'CC_Base_BoneRoot', [0, CC4_HIP_HEIGHT, 0], { tail: [0, 1.08, 0] });
add('CC_Base_Pelvis', 'CC_Base_Hip', [0, 1.0, -0.01], { tail: [0, 0.9, -0.01] });
add('CC_Base_Waist', 'CC_Base_Hip', [0, 1.08, 0]);
add('CC_Base_Spine01', 'CC_Base_Waist', [0, 1.2, -0.012]);
add('CC_Base_Spine02', 'CC_Base_Spine01', [0, 1.36, -0.012]);
add('CC_Base_NeckTwist01', 'CC_Base_Spine02', [0, 1.56, 0.0]);
add('CC_Base_NeckTwist02', 'CC_Base_NeckTwist01', [0, 1.62, 0.01]);
add('CC_Base_Head', 'CC_Base_NeckTwist02', [0, 1.68, 0.016], { tail: [0, 1.86, 0.016] });

const SIDES = [
  ['L', 1],
  ['R', -1],
] as const;

/** Finger layout on the hand in T-pose: [name, z offset, length scale]. */
const FINGERS: Array<[string, number, number]> = [
  ['Index', 0.028, 1.0],
  ['Mid', 0.008, 1.08],
  ['Ring', -0.012, 1.0],
  ['Pinky', -0.031, 0.82],
];
const TOES = ['BigToe1', 'IndexToe1', 'MidToe1', 'RingToe1', 'PinkyToe1'] as const;

for (const [side, s] of SIDES) {
  const x = (v: number): number => s * v;
  const p = (name: string): string => `CC_Base_${side}_${name}`;
  // Chest helpers (real CC4 exports carry them; no animation drives them).
  add(p('RibsTwist'), 'CC_Base_Spine02', [x(0.09), 1.33, 0.02]);
  add(p('Breast'), p('RibsTwist'), [x(0.095), 1.35, 0.1], { tail: [x(0.095), 1.35, 0.16] });
  // Arm.
  const shoulder: Vec3 = [x(0.19), 1.5, -0.01];
  const elbow: Vec3 = [x(0.49), 1.5, -0.01];
  const wrist: Vec3 = [x(0.76), 1.5, -0.01];
  add(p('Clavicle'), 'CC_Base_Spine02', [x(0.035), 1.5, 0.025], { tail: shoulder });
  add(p('Upperarm'), p('Clavicle'), shoulder, { tail: elbow });
  add(p('UpperarmTwist01'), p('Upperarm'), lerp3(shoulder, elbow, 1 / 3), { tail: elbow });
  add(p('UpperarmTwist02'), p('Upperarm'), lerp3(shoulder, elbow, 2 / 3), { tail: elbow });
  add(p('ElbowShareBone'), p('Upperarm'), elbow, { tail: wrist });
  add(p('Forearm'), p('Upperarm'), elbow, { tail: wrist });
  add(p('ForearmTwist01'), p('Forearm'), lerp3(elbow, wrist, 1 / 3), { tail: wrist });
  add(p('ForearmTwist02'), p('Forearm'), lerp3(elbow, wrist, 2 / 3), { tail: wrist });
  add(p('Hand'), p('Forearm'), wrist, { tail: [x(0.86), 1.5, 0.0] });
  // Thumb leaves the palm forward and out; the four fingers fan from the knuckles.
  const thumb: Vec3[] = [
    [x(0.787), 1.484, 0.032],
    [x(0.819), 1.479, 0.058],
    [x(0.845), 1.477, 0.077],
    [x(0.866), 1.476, 0.092],
  ];
  add(p('Thumb1'), p('Hand'), thumb[0]!, { tail: thumb[1] });
  add(p('Thumb2'), p('Thumb1'), thumb[1]!, { tail: thumb[2] });
  add(p('Thumb3'), p('Thumb2'), thumb[2]!, { tail: thumb[3] });
  for (const [finger, z, length] of FINGERS) {
    const base = 0.855;
    const joints: Vec3[] = [0, 0.045, 0.075, 0.1].map((d) => [x(base + d * length), 1.5, z]);
    add(p(`${finger}1`), p('Hand'), joints[0]!, { tail: joints[1] });
    add(p(`${finger}2`), p(`${finger}1`), joints[1]!, { tail: joints[2] });
    add(p(`${finger}3`), p(`${finger}2`), joints[2]!, { tail: joints[3] });
  }
  // Leg.
  const hip: Vec3 = [x(0.1), 0.975, 0];
  const knee: Vec3 = [x(0.1), 0.53, 0.012];
  const ankle: Vec3 = [x(0.1), 0.09, -0.015];
  const ball: Vec3 = [x(0.106), 0.025, 0.135];
  add(p('Thigh'), 'CC_Base_Pelvis', hip, { tail: knee });
  add(p('ThighTwist01'), p('Thigh'), lerp3(hip, knee, 1 / 3), { tail: knee });
  add(p('ThighTwist02'), p('Thigh'), lerp3(hip, knee, 2 / 3), { tail: knee });
  add(p('KneeShareBone'), p('Thigh'), knee, { tail: ankle });
  add(p('Calf'), p('Thigh'), knee, { tail: ankle });
  add(p('CalfTwist01'), p('Calf'), lerp3(knee, ankle, 1 / 3), { tail: ankle });
  add(p('CalfTwist02'), p('Calf'), lerp3(knee, ankle, 2 / 3), { tail: ankle });
  add(p('Foot'), p('Calf'), ankle, { tail: ball, roll: [0, 1, 0] });
  add(p('ToeBase'), p('Foot'), ball, { tail: [x(0.106), 0.02, 0.2], roll: [0, 1, 0] });
  add(p('ToeBaseShareBone'), p('ToeBase'), ball, { tail: [x(0.106), 0.02, 0.2], roll: [0, 1, 0] });
  TOES.forEach((toe, i) => {
    const tx = x(0.075 + i * 0.016);
    add(p(toe), p('ToeBase'), [tx, 0.02, 0.17 - i * 0.012], { tail: [tx, 0.015, 0.2 - i * 0.014], roll: [0, 1, 0] });
  });
}

// ---- Face rig: children of CC_Base_FacialBone, positioned on the skull ----
const FACE_CENTER: Vec3 = [0, 1.78, 0.03];
add('CC_Base_FacialBone', 'CC_Base_Head', [0, 1.75, 0.035], { tail: [0, 1.75, 0.1] });
add('CC_Base_JawRoot', 'CC_Base_FacialBone', [0, 1.74, 0.01], { tail: [0, 1.68, 0.1] });
add('CC_Base_UpperJaw', 'CC_Base_FacialBone', [0, 1.735, 0.08], { tail: [0, 1.735, 0.12] });
add('CC_Base_Teeth01', 'CC_Base_UpperJaw', [0, 1.728, 0.1], { tail: [0, 1.728, 0.12] });
add('CC_Base_Teeth02', 'CC_Base_JawRoot', [0, 1.712, 0.098], { tail: [0, 1.712, 0.12] });
add('CC_Base_Tongue01', 'CC_Base_JawRoot', [0, 1.715, 0.04], { tail: [0, 1.716, 0.065] });
add('CC_Base_Tongue02', 'CC_Base_Tongue01', [0, 1.716, 0.065], { tail: [0, 1.718, 0.085] });
add('CC_Base_Tongue03', 'CC_Base_Tongue02', [0, 1.718, 0.085], { tail: [0, 1.718, 0.1] });

/** Centre-line face bones: [name, parent, y, z]. */
const FACE_CENTRE: Array<[string, string, number, number]> = [
  ['CC_Base_Forehead', 'CC_Base_FacialBone', 1.87, 0.118],
  ['CC_Base_Glabella', 'CC_Base_FacialBone', 1.82, 0.128],
  ['CC_Base_NoseBridge', 'CC_Base_FacialBone', 1.8, 0.132],
  ['CC_Base_NoseTip', 'CC_Base_FacialBone', 1.765, 0.152],
  ['CC_Base_Columella', 'CC_Base_FacialBone', 1.752, 0.142],
  ['CC_Base_Philtrum', 'CC_Base_UpperJaw', 1.742, 0.134],
  ['CC_Base_UpperLip', 'CC_Base_UpperJaw', 1.733, 0.132],
  ['CC_Base_LowerLip', 'CC_Base_JawRoot', 1.718, 0.13],
  ['CC_Base_ChinCrease', 'CC_Base_JawRoot', 1.705, 0.125],
  ['CC_Base_Chin', 'CC_Base_JawRoot', 1.69, 0.118],
  ['CC_Base_UnderChin', 'CC_Base_JawRoot', 1.675, 0.09],
  ['CC_Base_Throat', 'CC_Base_NeckTwist02', 1.63, 0.06],
];
for (const [name, parent, y, z] of FACE_CENTRE) add(name, parent, [0, y, z]);

/** Mirrored face bones: [suffix, parent ('' = FacialBone, 'Jaw', 'Upper', 'Eye'), x, y, z]. */
const FACE_SIDE: Array<[string, '' | 'Jaw' | 'Upper', number, number, number]> = [
  ['BrowInner', '', 0.018, 1.83, 0.126],
  ['BrowMid', '', 0.042, 1.838, 0.118],
  ['BrowOuter', '', 0.064, 1.83, 0.1],
  ['BrowArch', '', 0.054, 1.842, 0.11],
  ['UpperEyelidInner', '', 0.024, 1.812, 0.118],
  ['UpperEyelid', '', 0.037, 1.816, 0.121],
  ['UpperEyelidOuter', '', 0.05, 1.812, 0.114],
  ['LowerEyelidInner', '', 0.024, 1.796, 0.118],
  ['LowerEyelid', '', 0.037, 1.792, 0.12],
  ['LowerEyelidOuter', '', 0.05, 1.796, 0.113],
  ['EyeCornerInner', '', 0.019, 1.804, 0.116],
  ['EyeCornerOuter', '', 0.056, 1.805, 0.108],
  ['CheekUpper', '', 0.05, 1.78, 0.115],
  ['CheekMid', '', 0.058, 1.762, 0.105],
  ['CheekLower', '', 0.055, 1.735, 0.1],
  ['CheekPuff', '', 0.048, 1.745, 0.112],
  ['Cheekbone', '', 0.068, 1.79, 0.095],
  ['NoseWing', '', 0.018, 1.76, 0.135],
  ['Nostril', '', 0.01, 1.753, 0.14],
  ['NoseSide', '', 0.014, 1.785, 0.13],
  ['NasolabialUpper', '', 0.03, 1.755, 0.126],
  ['NasolabialLower', 'Jaw', 0.036, 1.728, 0.12],
  ['MouthCorner', 'Upper', 0.026, 1.726, 0.124],
  ['UpperLipOuter', 'Upper', 0.018, 1.732, 0.13],
  ['UpperLipInner', 'Upper', 0.008, 1.734, 0.133],
  ['LowerLipOuter', 'Jaw', 0.018, 1.72, 0.127],
  ['LowerLipInner', 'Jaw', 0.008, 1.718, 0.13],
  ['Jawline01', 'Jaw', 0.066, 1.72, 0.06],
  ['Jawline02', 'Jaw', 0.055, 1.7, 0.09],
  ['Jawline03', 'Jaw', 0.035, 1.688, 0.11],
  ['ChinSide', 'Jaw', 0.018, 1.69, 0.118],
  ['Ear', '', 0.088, 1.785, 0.02],
  ['EarUpper', '', 0.09, 1.81, 0.01],
  ['EarLower', '', 0.086, 1.76, 0.022],
  ['Temple', '', 0.075, 1.825, 0.07],
  ['ForeheadSide', '', 0.045, 1.865, 0.108],
  ['Squint', '', 0.06, 1.798, 0.104],
  ['Masseter', 'Jaw', 0.07, 1.745, 0.05],
  ['EyelidCreaseUpper', '', 0.038, 1.824, 0.117],
  ['EyelidCreaseLower', '', 0.038, 1.786, 0.118],
  ['CheekInner', '', 0.032, 1.772, 0.124],
  ['CheekOuter', '', 0.072, 1.765, 0.08],
  ['NoseCrease', '', 0.022, 1.772, 0.13],
  ['LipPucker', 'Upper', 0.013, 1.728, 0.135],
  ['LipCornerLower', 'Jaw', 0.024, 1.72, 0.122],
  ['Dimple', '', 0.038, 1.722, 0.114],
  ['Sideburn', '', 0.08, 1.8, 0.05],
  ['JawAngle', 'Jaw', 0.07, 1.705, 0.04],
  ['Jowl', 'Jaw', 0.058, 1.71, 0.08],
  ['BrowOuterLow', '', 0.07, 1.818, 0.095],
];
for (const [side, s] of SIDES) {
  const facial = 'CC_Base_FacialBone';
  add(`CC_Base_${side}_Eye`, facial, [s * 0.037, 1.805, 0.1], { tail: [s * 0.037, 1.805, 0.14] });
  for (const [suffix, parent, x, y, z] of FACE_SIDE) {
    const parentName = parent === 'Jaw' ? 'CC_Base_JawRoot' : parent === 'Upper' ? 'CC_Base_UpperJaw' : facial;
    add(`CC_Base_${side}_${suffix}`, parentName, [s * x, y, z]);
  }
}

// ---- A-pose: lower each arm about its shoulder ----
function subtree(root: string): Draft[] {
  const names = new Set([root]);
  const out: Draft[] = [];
  for (const draft of drafts) {
    if (draft.name === root || (draft.parent !== null && names.has(draft.parent))) {
      names.add(draft.name);
      out.push(draft);
    }
  }
  return out;
}
for (const [side, s] of SIDES) {
  const shoulder = new Vector3(...byName.get(`CC_Base_${side}_Upperarm`)!.head);
  const lower = new Quaternion().setFromAxisAngle(new Vector3(0, 0, 1), -s * CC4_A_POSE_ANGLE);
  const move = (p: Vec3): Vec3 => new Vector3(...p).sub(shoulder).applyQuaternion(lower).add(shoulder).toArray() as Vec3;
  for (const draft of subtree(`CC_Base_${side}_Upperarm`)) {
    draft.head = move(draft.head);
    if (draft.tail) draft.tail = move(draft.tail);
    draft.roll = draft.roll ? (new Vector3(...draft.roll).applyQuaternion(lower).toArray() as Vec3) : undefined;
  }
}

// ---- Bind frames: +Y along the bone, +Z towards the roll hint (Blender's convention) ----
const worldRotation = new Map<string, Quaternion>();
function boneFrame(draft: Draft): Quaternion {
  // Without an explicit tail a bone points at its first child, like an exported bone chain.
  const child = drafts.find((d) => d.parent === draft.name);
  const tail = draft.tail ?? child?.head ?? null;
  let y = tail ? new Vector3(...tail).sub(new Vector3(...draft.head)) : new Vector3();
  if (y.lengthSq() < 1e-10) y = new Vector3(0, 0, 1); // face bones point out of the face
  y.normalize();
  let hint = new Vector3(...(draft.roll ?? [0, 0, 1]));
  if (Math.abs(hint.clone().normalize().dot(y)) > 0.95) hint = new Vector3(0, 1, 0);
  if (Math.abs(hint.clone().normalize().dot(y)) > 0.95) hint = new Vector3(1, 0, 0);
  const xAxis = new Vector3().crossVectors(y, hint).normalize();
  const zAxis = new Vector3().crossVectors(xAxis, y).normalize();
  return new Quaternion().setFromRotationMatrix(new Matrix4().makeBasis(xAxis, y, zAxis));
}

const bones: BoneDef[] = drafts.map((draft) => {
  const world = boneFrame(draft);
  worldRotation.set(draft.name, world);
  const parentWorld = draft.parent ? worldRotation.get(draft.parent)! : new Quaternion();
  const local = parentWorld.clone().invert().multiply(world).normalize();
  const round = (v: number): number => Math.round(v * 1e6) / 1e6;
  return {
    name: draft.name,
    parent: draft.parent,
    head: draft.head.map(round) as Vec3,
    rotation: [local.x, local.y, local.z, local.w],
  };
});

/** The CC4-style character's skeleton (213 bones, A-pose bind, bone-aligned frames). */
export const CC4_RIG: SkeletonDef = { name: 'cairn-cc4', bones };

/** Bones of the face rig (everything under `CC_Base_FacialBone`, the bone itself, and the throat). */
export const CC4_FACE_BONES: readonly string[] = [
  'CC_Base_FacialBone',
  'CC_Base_Throat',
  ...subtree('CC_Base_FacialBone')
    .slice(1)
    .map((d) => d.name),
];

/** Skull centre of the CC4-style head (model space), used by its mesh builder. */
export const CC4_HEAD_CENTER: readonly [number, number, number] = FACE_CENTER;
