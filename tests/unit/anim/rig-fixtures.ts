import { MANNEQUIN } from '../../../src/rig/mannequin.ts';
import type { BoneDef, SkeletonDef } from '../../../src/rig/skeleton-def.ts';

/**
 * Test rigs derived from the mannequin's geometry with other naming schemes and hierarchies:
 * bones renamed, some dropped (their children re-parented), helpers added. Heads stay where the
 * mannequin has them, so a retarget onto them is a pure naming/hierarchy exercise.
 */
export function deriveRig(
  name: string,
  rename: (bone: string) => string | null,
  extra: BoneDef[] = [],
  base: SkeletonDef = MANNEQUIN,
): SkeletonDef {
  const renamed = new Map<string, string | null>();
  for (const bone of base.bones) renamed.set(bone.name, rename(bone.name));
  const resolveParent = (parent: string | null): string | null => {
    let p = parent;
    while (p !== null && renamed.get(p) === null) p = base.bones.find((b) => b.name === p)!.parent;
    return p === null ? null : renamed.get(p)!;
  };
  const bones: BoneDef[] = [];
  for (const bone of base.bones) {
    const newName = renamed.get(bone.name);
    if (newName === null || newName === undefined) continue;
    bones.push({
      name: newName,
      parent: resolveParent(bone.parent),
      head: bone.head,
      ...(bone.rotation ? { rotation: bone.rotation } : {}),
    });
  }
  return { name, bones: [...bones, ...extra] };
}

const FINGER = { thumb: 'Thumb', index: 'Index', middle: 'Middle', ring: 'Ring', pinky: 'Pinky' } as const;

/** Mixamo naming as loaders write it (`mixamorig:` sanitized to `mixamorig`), hips at the top. */
export function mixamoName(bone: string, prefix = 'mixamorig'): string | null {
  const fixed: Record<string, string | null> = {
    root: null,
    pelvis: 'Hips',
    spine_01: 'Spine',
    spine_02: null,
    spine_03: 'Spine1',
    spine_04: null,
    spine_05: 'Spine2',
    neck_01: 'Neck',
    neck_02: null,
    head: 'Head',
  };
  if (bone in fixed) return fixed[bone] === null ? null : `${prefix}${fixed[bone]}`;
  const m = /^(.*)_([lr])$/.exec(bone);
  if (!m) return null;
  const side = m[2] === 'l' ? 'Left' : 'Right';
  const part = m[1]!;
  if (part.includes('twist')) return null;
  const finger = /^(thumb|index|middle|ring|pinky)_0(\d)$/.exec(part);
  if (finger) return `${prefix}${side}Hand${FINGER[finger[1] as keyof typeof FINGER]}${finger[2]}`;
  const limbs: Record<string, string> = {
    clavicle: 'Shoulder',
    upperarm: 'Arm',
    lowerarm: 'ForeArm',
    hand: 'Hand',
    thigh: 'UpLeg',
    calf: 'Leg',
    foot: 'Foot',
    ball: 'ToeBase',
  };
  return limbs[part] ? `${prefix}${side}${limbs[part]}` : null;
}

/** 3ds Max Biped naming (`Bip01_L_UpperArm`, fingers `Finger0`…`Finger42`), unknown to the built-in maps. */
export function bipedName(bone: string): string | null {
  const fixed: Record<string, string | null> = {
    root: 'Bip01',
    pelvis: 'Bip01_Pelvis',
    spine_01: 'Bip01_Spine',
    spine_02: null,
    spine_03: 'Bip01_Spine1',
    spine_04: null,
    spine_05: 'Bip01_Spine2',
    neck_01: 'Bip01_Neck',
    neck_02: null,
    head: 'Bip01_Head',
  };
  if (bone in fixed) return fixed[bone]!;
  const m = /^(.*)_([lr])$/.exec(bone);
  if (!m) return null;
  const side = m[2]!.toUpperCase();
  const part = m[1]!;
  if (part === 'upperarm_twist_01') return `Bip01_${side}_UpArmTwist`;
  if (part.includes('twist')) return null;
  const finger = /^(thumb|index|middle|ring|pinky)_0(\d)$/.exec(part);
  if (finger) {
    const n = ['thumb', 'index', 'middle', 'ring', 'pinky'].indexOf(finger[1]!);
    return `Bip01_${side}_Finger${n}${finger[2] === '1' ? '' : Number(finger[2]) - 1}`;
  }
  // The forearm gets a name no pattern knows: the mapper must find it from the hierarchy.
  const limbs: Record<string, string> = {
    clavicle: 'Clavicle',
    upperarm: 'UpperArm',
    lowerarm: 'Segment2',
    hand: 'Hand',
    thigh: 'Thigh',
    calf: 'Calf',
    foot: 'Foot',
    ball: 'Toe0',
  };
  return limbs[part] ? `Bip01_${side}_${limbs[part]}` : null;
}

/** Biped helpers the auto mapper must leave out. */
export const BIPED_HELPERS: BoneDef[] = [
  { name: 'Bip01_HeadNub', parent: 'Bip01_Head', head: [0, 1.85, 0.015] },
  { name: 'Bip01_L_Finger0Nub', parent: 'Bip01_L_Finger02', head: [0.8, 1.417, 0.085] },
  { name: 'IK_Target_L_Hand', parent: 'Bip01', head: [0.7, 1.44, 0] },
  { name: 'Bip01_Ponytail1', parent: 'Bip01_Head', head: [0, 1.7, -0.1] },
];
