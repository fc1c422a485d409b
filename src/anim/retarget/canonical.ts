/**
 * The canonical humanoid: the vocabulary every rig's bones are mapped to. A source→target bone map
 * is two rig→canonical maps joined, so N rigs need N maps, not N² pairings.
 */

export const SIDES = ['left', 'right'] as const;
/** A limb's side. */
export type Side = (typeof SIDES)[number];

/** The fingers, thumb first. */
export const FINGERS = ['Thumb', 'Index', 'Middle', 'Ring', 'Little'] as const;
/** One of {@link FINGERS}. */
export type Finger = (typeof FINGERS)[number];

const CENTRE = ['root', 'hips', 'spine', 'chest', 'upperChest', 'neck', 'neck2', 'head', 'jaw'] as const;
const LIMB = [
  'Shoulder',
  'UpperArm',
  'UpperArmTwist',
  'LowerArm',
  'LowerArmTwist',
  'Hand',
  'UpperLeg',
  'UpperLegTwist',
  'LowerLeg',
  'LowerLegTwist',
  'Foot',
  'Toes',
  'Eye',
] as const;

/** Every canonical bone name, parents before children. */
export const CANONICAL_BONES: readonly string[] = [
  ...CENTRE,
  ...SIDES.flatMap((side) => [
    ...LIMB.map((part) => `${side}${part}`),
    ...FINGERS.flatMap((finger) => [1, 2, 3].map((joint) => `${side}${finger}${joint}`)),
  ]),
];

/** A canonical bone's name (`hips`, `leftUpperArm`, `rightIndex2`…), one of {@link CANONICAL_BONES}. */
export type CanonicalBone = string;

/** Canonical bones a rig must map for a clip to retarget at all. */
export const REQUIRED_BONES: readonly CanonicalBone[] = ['hips'];

/** Canonical bones whose absence a report should mention (the body reads wrong without them). */
export const CORE_BONES: readonly CanonicalBone[] = [
  'hips',
  'spine',
  'head',
  ...SIDES.flatMap((s) => [`${s}UpperArm`, `${s}LowerArm`, `${s}Hand`, `${s}UpperLeg`, `${s}LowerLeg`, `${s}Foot`]),
];

/**
 * How each canonical bone is turned so the target's reference pose matches the source's bind pose:
 * its head→`primary` direction (first one both rigs map) is aligned, then it is rolled about that
 * axis so `secondary[1]`→`secondary[0]` lines up too.
 */
export interface AlignmentSpec {
  /** The bones whose direction from this one is aligned: the first both rigs map. */
  primary: readonly CanonicalBone[];
  /** The pair whose direction sets the roll about the primary axis. */
  secondary?: readonly [CanonicalBone, CanonicalBone];
  /**
   * Torso bones: a primary bone off the torso's line, more than {@link TORSO_LINE_DEG} from the
   * direction to the last primary both rigs map (the head, for the hips) in either rig, is passed
   * over for the next one up. A pelvis bone hanging below a Blender rig's `Body` bone, mapped as the
   * spine, would otherwise turn the hips upside down.
   */
  alongTorso?: boolean;
}

/** How far (degrees) a torso bone's primary direction may stray from the torso's line; see {@link AlignmentSpec.alongTorso}. */
export const TORSO_LINE_DEG = 30;

function buildAlignment(): Map<CanonicalBone, AlignmentSpec> {
  const specs = new Map<CanonicalBone, AlignmentSpec>();
  specs.set('hips', {
    primary: ['spine', 'chest', 'upperChest', 'neck', 'head'],
    secondary: ['leftUpperLeg', 'rightUpperLeg'],
    alongTorso: true,
  });
  specs.set('spine', { primary: ['chest', 'upperChest', 'neck', 'head'], secondary: ['leftShoulder', 'rightShoulder'], alongTorso: true });
  specs.set('chest', { primary: ['upperChest', 'neck', 'head'], secondary: ['leftShoulder', 'rightShoulder'], alongTorso: true });
  specs.set('upperChest', { primary: ['neck', 'neck2', 'head'], secondary: ['leftShoulder', 'rightShoulder'] });
  specs.set('neck', { primary: ['neck2', 'head'] });
  specs.set('neck2', { primary: ['head'] });
  for (const s of SIDES) {
    specs.set(`${s}Shoulder`, { primary: [`${s}UpperArm`] });
    specs.set(`${s}UpperArm`, { primary: [`${s}LowerArm`] });
    specs.set(`${s}LowerArm`, { primary: [`${s}Hand`] });
    specs.set(`${s}Hand`, { primary: [`${s}Middle1`, `${s}Index1`, `${s}Ring1`], secondary: [`${s}Index1`, `${s}Little1`] });
    for (const finger of FINGERS) {
      specs.set(`${s}${finger}1`, { primary: [`${s}${finger}2`] });
      specs.set(`${s}${finger}2`, { primary: [`${s}${finger}3`] });
    }
    specs.set(`${s}UpperLeg`, { primary: [`${s}LowerLeg`] });
    specs.set(`${s}LowerLeg`, { primary: [`${s}Foot`] });
    specs.set(`${s}Foot`, { primary: [`${s}Toes`] });
  }
  return specs;
}

/** Each canonical bone's alignment rule. */
export const ALIGNMENT: ReadonlyMap<CanonicalBone, AlignmentSpec> = buildAlignment();

/** The side of a canonical bone, or null for centre-line bones. */
export function sideOf(bone: CanonicalBone): Side | null {
  return bone.startsWith('left') ? 'left' : bone.startsWith('right') ? 'right' : null;
}
