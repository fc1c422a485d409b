import { FINGERS, SIDES, type CanonicalBone } from './canonical.ts';

/** A rig's bone names by canonical bone (bones a rig lacks are simply absent). */
export type CanonicalMap = ReadonlyMap<CanonicalBone, string>;

/** A named, built-in rig→canonical map. */
export interface BuiltinBoneMap {
  /** The map's name. */
  name: 'mannequin' | 'cc4' | 'mixamo';
  /** Canonical bone → bone name in this map's spelling. */
  map: CanonicalMap;
  /**
   * Turns a bone name as found in a file into this map's spelling, or null when it cannot be one of
   * this map's names (Mixamo files spell `mixamorig:Hips`, `mixamorig1:Hips` or, after GLTFLoader's
   * sanitizing, `mixamorigHips`).
   */
  normalize(name: string): string;
}

const upper = (s: string): string => s[0]!.toUpperCase() + s.slice(1);

function mannequin(): Map<CanonicalBone, string> {
  const m = new Map<CanonicalBone, string>([
    ['root', 'root'],
    ['hips', 'pelvis'],
    ['spine', 'spine_01'],
    ['chest', 'spine_03'],
    ['upperChest', 'spine_05'],
    ['neck', 'neck_01'],
    ['neck2', 'neck_02'],
    ['head', 'head'],
  ]);
  for (const side of SIDES) {
    const x = side === 'left' ? 'l' : 'r';
    m.set(`${side}Shoulder`, `clavicle_${x}`);
    m.set(`${side}UpperArm`, `upperarm_${x}`);
    m.set(`${side}UpperArmTwist`, `upperarm_twist_01_${x}`);
    m.set(`${side}LowerArm`, `lowerarm_${x}`);
    m.set(`${side}LowerArmTwist`, `lowerarm_twist_01_${x}`);
    m.set(`${side}Hand`, `hand_${x}`);
    const names: Record<string, string> = { Thumb: 'thumb', Index: 'index', Middle: 'middle', Ring: 'ring', Little: 'pinky' };
    for (const finger of FINGERS) for (const j of [1, 2, 3]) m.set(`${side}${finger}${j}`, `${names[finger]}_0${j}_${x}`);
    m.set(`${side}UpperLeg`, `thigh_${x}`);
    m.set(`${side}UpperLegTwist`, `thigh_twist_01_${x}`);
    m.set(`${side}LowerLeg`, `calf_${x}`);
    m.set(`${side}LowerLegTwist`, `calf_twist_01_${x}`);
    m.set(`${side}Foot`, `foot_${x}`);
    m.set(`${side}Toes`, `ball_${x}`);
  }
  return m;
}

function cc4(): Map<CanonicalBone, string> {
  const m = new Map<CanonicalBone, string>([
    ['root', 'CC_Base_BoneRoot'],
    ['hips', 'CC_Base_Hip'],
    ['spine', 'CC_Base_Waist'],
    ['chest', 'CC_Base_Spine01'],
    ['upperChest', 'CC_Base_Spine02'],
    ['neck', 'CC_Base_NeckTwist01'],
    ['neck2', 'CC_Base_NeckTwist02'],
    ['head', 'CC_Base_Head'],
    ['jaw', 'CC_Base_JawRoot'],
  ]);
  for (const side of SIDES) {
    const p = (name: string): string => `CC_Base_${side === 'left' ? 'L' : 'R'}_${name}`;
    m.set(`${side}Shoulder`, p('Clavicle'));
    m.set(`${side}UpperArm`, p('Upperarm'));
    m.set(`${side}UpperArmTwist`, p('UpperarmTwist01'));
    m.set(`${side}LowerArm`, p('Forearm'));
    m.set(`${side}LowerArmTwist`, p('ForearmTwist01'));
    m.set(`${side}Hand`, p('Hand'));
    const names: Record<string, string> = { Thumb: 'Thumb', Index: 'Index', Middle: 'Mid', Ring: 'Ring', Little: 'Pinky' };
    for (const finger of FINGERS) for (const j of [1, 2, 3]) m.set(`${side}${finger}${j}`, p(`${names[finger]}${j}`));
    m.set(`${side}UpperLeg`, p('Thigh'));
    m.set(`${side}UpperLegTwist`, p('ThighTwist01'));
    m.set(`${side}LowerLeg`, p('Calf'));
    m.set(`${side}LowerLegTwist`, p('CalfTwist01'));
    m.set(`${side}Foot`, p('Foot'));
    m.set(`${side}Toes`, p('ToeBase'));
    m.set(`${side}Eye`, p('Eye'));
  }
  return m;
}

function mixamo(): Map<CanonicalBone, string> {
  const m = new Map<CanonicalBone, string>([
    ['hips', 'Hips'],
    ['spine', 'Spine'],
    ['chest', 'Spine1'],
    ['upperChest', 'Spine2'],
    ['neck', 'Neck'],
    ['head', 'Head'],
  ]);
  for (const side of SIDES) {
    const p = upper(side);
    m.set(`${side}Shoulder`, `${p}Shoulder`);
    m.set(`${side}UpperArm`, `${p}Arm`);
    m.set(`${side}LowerArm`, `${p}ForeArm`);
    m.set(`${side}Hand`, `${p}Hand`);
    const names: Record<string, string> = { Thumb: 'Thumb', Index: 'Index', Middle: 'Middle', Ring: 'Ring', Little: 'Pinky' };
    for (const finger of FINGERS) for (const j of [1, 2, 3]) m.set(`${side}${finger}${j}`, `${p}Hand${names[finger]}${j}`);
    m.set(`${side}UpperLeg`, `${p}UpLeg`);
    m.set(`${side}LowerLeg`, `${p}Leg`);
    m.set(`${side}Foot`, `${p}Foot`);
    m.set(`${side}Toes`, `${p}ToeBase`);
    m.set(`${side}Eye`, `${p}Eye`);
  }
  return m;
}

const identity = (name: string): string => name;

/** The built-in maps: UE5 mannequin, the CC4-style rig, Mixamo. */
export const BUILTIN_BONE_MAPS: readonly BuiltinBoneMap[] = [
  { name: 'mannequin', map: mannequin(), normalize: identity },
  { name: 'cc4', map: cc4(), normalize: identity },
  {
    name: 'mixamo',
    map: mixamo(),
    // "mixamorig:Hips", "mixamorig1:Hips", "mixamorig_Hips", "mixamorigHips" → "Hips".
    normalize: (name) => name.replace(/^.*:/, '').replace(/^mixamorig\d*_?/, ''),
  },
];
