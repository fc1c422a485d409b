import { Vector3 } from 'three';
import { FINGERS, SIDES, type CanonicalBone, type Finger, type Side } from './canonical.ts';
import { deformingBones, isAddressable, type RigDescription } from './rig-description.ts';

/**
 * The automatic bone mapper for rigs no built-in map knows. Two passes:
 * 1. **Name patterns**: each bone name is split into words (`DEF-upper_arm.L`, `Bip01 L UpperArm`,
 *    `mixamorig:LeftForeArm`, `thigh_twist_01_r` …), the side words and rig prefixes are set apart,
 *    and what is left is matched against body-part patterns. Helper bones (IK targets, "share"
 *    bones, end/nub bones, face and breast helpers, individual toes) are recognised and left out.
 * 2. **Hierarchy**: the hips are the bone that carries both legs and the spine (a hips-named bone
 *    the legs do not hang from gives way to the bone above it that carries them), the spine, chest
 *    and neck are taken from the path between hips and head (rigs number their spine bones every
 *    which way), each limb bone must descend from the one above it (a hand or foot outside its
 *    chain is chosen by skin weights: see `chainEnd`),
 *    finger joints are numbered by depth below the hand, missing links (an unnamed forearm) are
 *    filled from the path between their neighbours, and bones whose name carries no side get one
 *    from where they sit (left = up × forward, forward taken from the feet).
 */
export interface AutoMapResult {
  /** Canonical bone → bone index in the rig. */
  map: Map<CanonicalBone, number>;
  /** What the mapper decided that a person may want to check. */
  notes: string[];
}

type Part =
  | 'hips'
  | 'spine'
  | 'neck'
  | 'head'
  | 'jaw'
  | 'eye'
  | 'Shoulder'
  | 'UpperArm'
  | 'LowerArm'
  | 'Hand'
  | 'UpperLeg'
  | 'LowerLeg'
  | 'Foot'
  | 'Toes'
  | 'UpperArmTwist'
  | 'LowerArmTwist'
  | 'UpperLegTwist'
  | 'LowerLegTwist'
  | `finger:${Finger}`
  | 'helper'
  | 'unknown';

interface Classified {
  index: number;
  part: Part;
  side: Side | null;
  key: string;
}

/** Words that only say which rig a bone belongs to. */
const PREFIX_WORDS = new Set([
  'cc',
  'base',
  'mixamorig',
  'bip',
  'def',
  'org',
  'jnt',
  'bn',
  'b',
  'j',
  'bone',
  'armature',
  'rig',
  'skeleton',
  'jbip',
  'c',
]);
/** Words that mark helper bones the retargeter leaves alone. */
const HELPER_WORDS = new Set([
  'share',
  'sharebone',
  'end',
  'nub',
  'tip',
  'ik',
  'fk',
  'pole',
  'target',
  'ctrl',
  'control',
  'helper',
  'null',
  'socket',
  'attach',
  'weapon',
  'prop',
  'corrective',
  'breast',
  'ribs',
  'pectoral',
  'eyelid',
  'lid',
  'brow',
  'lip',
  'cheek',
  'nose',
  'tongue',
  'teeth',
  'ear',
  'mch',
  'upperlid',
  'lowerlid',
  'hair',
  'skirt',
  'cloth',
  'tail',
  'wing',
  'pelvisshare',
  'mouth',
  'jawline',
  'temple',
  'chin',
  'squint',
  'dimple',
]);

/** Splits a bone name into lower-case words: case changes, digits and separators all split. */
export function tokenizeBoneName(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)/g, '$1 $2')
    .replace(/(\d)([A-Za-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((t) => t.toLowerCase());
}

function sideOfTokens(tokens: readonly string[]): Side | null {
  if (tokens.includes('left') || tokens.includes('l') || tokens.includes('lft')) return 'left';
  if (tokens.includes('right') || tokens.includes('r') || tokens.includes('rgt') || tokens.includes('rt')) return 'right';
  return null;
}

/** Classifies one bone name by patterns alone. */
export function classifyBoneName(name: string): {
  /** The body part the name reads as. */
  part: Part;
  /** Its side, or null for a centre-line name. */
  side: Side | null;
  /** The name's words joined, without side words, prefixes and numbers (`upperarm` for `mixamorig:LeftUpperArm`). */
  key: string;
} {
  const tokens = tokenizeBoneName(name);
  const side = sideOfTokens(tokens);
  const words = tokens.filter(
    (t) => !/^\d+$/.test(t) && !PREFIX_WORDS.has(t) && !['l', 'r', 'left', 'right', 'lft', 'rgt', 'rt'].includes(t),
  );
  const digits = tokens.filter((t) => /^\d+$/.test(t));
  const key = words.join('');
  const result = (part: Part): { part: Part; side: Side | null; key: string } => ({ part, side, key });
  if (!key) return result('unknown');
  if (words.some((w) => HELPER_WORDS.has(w))) return result('helper');
  if (words.includes('twist') || words.includes('roll')) {
    const rest = key.replace(/twist|roll/g, '');
    if (/neck/.test(rest) && side === null) return result('neck');
    if (/fore|lower.?arm/.test(rest)) return result('LowerArmTwist');
    if (/arm/.test(rest)) return result('UpperArmTwist');
    if (/calf|shin|lower.?leg|knee/.test(rest) || rest === 'leg') return result('LowerLegTwist');
    if (/thigh|up.?leg|upper.?leg/.test(rest)) return result('UpperLegTwist');
    return result('helper');
  }
  if (/toe|ball/.test(key)) return result(['toe', 'toes', 'toebase', 'ball'].includes(key) ? 'Toes' : 'helper');
  const finger = /thumb/.test(key)
    ? 'Thumb'
    : /index/.test(key)
      ? 'Index'
      : /middle|mid/.test(key)
        ? 'Middle'
        : /ring/.test(key)
          ? 'Ring'
          : /pinky|little/.test(key)
            ? 'Little'
            : /finger/.test(key) && digits.length
              ? FINGERS[Number(digits[digits.length - 1]![0])]
              : undefined;
  if (finger) return result(`finger:${finger}`);
  if (/clavicle|shoulder|collar/.test(key)) return result('Shoulder');
  if (/forearm|lowerarm|elbow/.test(key)) return result('LowerArm');
  if (/upperarm|uparm/.test(key) || key === 'arm') return result('UpperArm');
  if (/hand|wrist|palm/.test(key)) return result('Hand');
  if (/thigh|upleg|upperleg/.test(key)) return result('UpperLeg');
  if (/calf|shin|lowerleg|knee/.test(key) || key === 'leg') return result('LowerLeg');
  if (/foot|ankle/.test(key)) return result('Foot');
  if (/^(eye|eyeball)$/.test(key)) return result(side ? 'eye' : 'helper');
  if (side === null) {
    if (/hips|pelvis|^hip$/.test(key)) return result('hips');
    if (/spine|chest|waist|torso|abdomen|^back$/.test(key)) return result('spine');
    if (/neck/.test(key)) return result('neck');
    if (/^head$|^headjnt$/.test(key)) return result('head');
    if (/jaw/.test(key)) return result('jaw');
  }
  return result('unknown');
}

/** Maps an unknown rig to the canonical humanoid by name patterns and hierarchy. */
export function autoMapBones(rig: RigDescription): AutoMapResult {
  const notes: string[] = [];
  const map = new Map<CanonicalBone, number>();
  const bones = rig.bones;
  const parentOf = (i: number): number => bones[i]!.parent;
  const depth = (i: number): number => {
    let d = 0;
    for (let p = parentOf(i); p >= 0; p = parentOf(p)) d++;
    return d;
  };
  const isAncestor = (a: number, b: number): boolean => {
    for (let p = parentOf(b); p >= 0; p = parentOf(p)) if (p === a) return true;
    return false;
  };
  const pathBetween = (ancestor: number, descendant: number): number[] => {
    const path: number[] = [];
    for (let p = parentOf(descendant); p >= 0 && p !== ancestor; p = parentOf(p)) path.unshift(p);
    return path;
  };
  const classified: Classified[] = bones
    .map((bone, index) => ({ index, ...classifyBoneName(bone.originalName || bone.name) }))
    .filter((c) => isAddressable(rig, c.index));
  const byPart = (part: Part, side: Side | null = null): Classified[] =>
    classified.filter((c) => c.part === part && (side === null || c.side === side)).sort((a, b) => depth(a.index) - depth(b.index));

  // Hips: the bone that carries the legs and the spine. The top-most hips-like bone, unless the legs
  // do not hang from it and a bone above it carries both legs and the spine (Blender rigs with a
  // "Body" bone above a small "Hips"); failing a name, where the legs and the head meet.
  let hips: number | undefined = byPart('hips')[0]?.index;
  const head = byPart('head')[0]?.index;
  const legs = byPart('UpperLeg');
  const ancestors = (i: number): number[] => {
    const out: number[] = [];
    for (let p = parentOf(i); p >= 0; p = parentOf(p)) out.push(p);
    return out;
  };
  /** The nearest bone above both thighs and `top`, if it stands above the knees (not a root at the floor). */
  const legsMeet = (top: number): number | undefined => {
    const meet = ancestors(legs[0]!.index).find((a) => ancestors(legs[1]!.index).includes(a) && (a === top || ancestors(top).includes(a)));
    if (meet === undefined) return undefined;
    const knees = byPart('LowerLeg').map((c) => bones[c.index]!.worldPosition.y);
    return knees.length && bones[meet]!.worldPosition.y <= Math.max(...knees) ? undefined : meet;
  };
  if (hips !== undefined && legs.length >= 2 && !(isAncestor(hips, legs[0]!.index) && isAncestor(hips, legs[1]!.index))) {
    const meet = legsMeet(hips);
    if (meet !== undefined && meet !== hips && isAncestor(meet, hips)) {
      notes.push(
        `the legs do not hang from "${bones[hips]!.name}"; hips taken from the hierarchy: "${bones[meet]!.name}" (where the legs and the spine meet)`,
      );
      hips = meet;
    }
  }
  if (hips === undefined && legs.length >= 2 && head !== undefined) {
    hips = legsMeet(head);
    if (hips !== undefined) notes.push(`hips taken from the hierarchy: "${bones[hips]!.name}" (where legs and head meet)`);
  }
  if (hips === undefined) {
    notes.push('no hips bone found (no name like hips/pelvis, and no legs and head to find it from)');
    return { map, notes };
  }
  map.set('hips', hips);
  if (parentOf(hips) >= 0) map.set('root', rootOf(rig, hips));

  // Left = up × forward; forward from the feet (toes ahead of ankles), else +Z.
  const forward = new Vector3(0, 0, 1);
  const feet = byPart('Foot');
  const toes = byPart('Toes');
  if (feet.length && toes.length) {
    const f = new Vector3();
    for (const toe of toes) {
      const foot = feet.find((candidate) => isAncestor(candidate.index, toe.index));
      if (foot) f.add(bones[toe.index]!.worldPosition.clone().sub(bones[foot.index]!.worldPosition));
    }
    f.y = 0;
    if (f.lengthSq() > 1e-8) forward.copy(f.normalize());
  }
  const left = new Vector3(0, 1, 0).cross(forward).normalize();
  const hipsPosition = bones[hips]!.worldPosition;
  const sideByPosition = (i: number): Side => (bones[i]!.worldPosition.clone().sub(hipsPosition).dot(left) >= 0 ? 'left' : 'right');
  for (const c of classified) {
    if (c.side === null && c.part !== 'helper' && c.part !== 'unknown' && !['hips', 'spine', 'neck', 'head', 'jaw'].includes(c.part)) {
      c.side = sideByPosition(c.index);
      notes.push(`"${bones[c.index]!.name}" has no side in its name; placed on the ${c.side} by position`);
    }
  }

  // Spine, chest and neck from the path hips → head (the one spine rule every map uses).
  if (head !== undefined && isAncestor(hips, head)) {
    map.set('head', head);
    const path = pathBetween(hips, head).filter((i) => classified.find((c) => c.index === i)?.part !== 'helper');
    const neckPart = path.filter((i) => /neck/.test(classifyBoneName(bones[i]!.originalName || bones[i]!.name).key));
    const spinePart = path.filter((i) => !neckPart.includes(i));
    for (const [bone, index] of splitSpine(spinePart)) map.set(bone, index);
    if (neckPart.length >= 1) map.set('neck', neckPart[0]!);
    if (neckPart.length >= 2) map.set('neck2', neckPart[1]!);
  } else {
    const spine = byPart('spine').filter((c) => isAncestor(hips, c.index));
    if (spine[0]) map.set('spine', spine[0].index);
    notes.push('no head below the hips; the spine was mapped by name only');
  }
  const jaw = byPart('jaw').find((c) => head !== undefined && isAncestor(head, c.index));
  if (jaw) map.set('jaw', jaw.index);

  /** The first non-helper, non-twist child of a bone: the next link of a chain whose names ran out. */
  const chainChild = (index: number): number | undefined => {
    const child = bones.findIndex(
      (bone, i) => bone.parent === index && classified.some((c) => c.index === i && c.part !== 'helper' && !c.part.endsWith('Twist')),
    );
    return child < 0 ? undefined : child;
  };
  const pick = (part: Part, side: Side, under: number | undefined): number | undefined => {
    const candidates = byPart(part, side).filter((c) => under === undefined || isAncestor(under, c.index));
    return candidates[0]?.index;
  };
  /** The first non-helper bone strictly between two bones (for a link the names did not give). */
  const between = (top: number, bottom: number): number | undefined => {
    const path = pathBetween(top, bottom).filter((i) => {
      const part = classified.find((c) => c.index === i)?.part;
      return part !== 'helper' && !String(part).endsWith('Twist');
    });
    return path.length ? path[path.length - 1] : undefined;
  };

  let deforming: Set<number> | null | undefined;
  const deforms = (i: number): boolean => (deforming === undefined ? (deforming = deformingBones(rig)) : deforming)?.has(i) ?? false;
  /**
   * The end of a limb chain (hand or foot) when no bone so named hangs from the chain: the chain's
   * own next bone, or the named bone outside it (an IK target or a deform bone parented elsewhere,
   * as Blender rigs do with feet under the root). Skin weights decide: a named bone that deforms the
   * mesh is the real hand or foot unless the chain's own next bone deforms too; a named bone that
   * deforms nothing (an IK or control bone) is taken only when the chain has no next bone. A bone
   * taken from outside the chain is attached to it (see `RigBoneMap.attachments`).
   */
  const chainEnd = (part: 'Hand' | 'Foot', side: Side, lower: number): number | undefined => {
    const [limb, lowerWord, partWord] = part === 'Hand' ? ['arm', 'forearm', 'hand'] : ['leg', 'shin', 'foot'];
    const outside = byPart(part, side)[0]?.index;
    const inChain = chainChild(lower);
    if (outside === undefined) return inChain;
    const outsideName = `${side} ${partWord} "${bones[outside]!.name}"`;
    if (inChain !== undefined && (deforms(inChain) || !deforms(outside))) {
      notes.push(
        `${outsideName} sits outside the ${limb} chain (an IK or control bone); the chain's ${partWord} is "${bones[inChain]!.name}"`,
      );
      return inChain;
    }
    notes.push(
      deforms(outside)
        ? `${outsideName} sits outside the ${limb} chain but carries skin weights (a deform bone): mapped as the ${partWord}, kept at the end of the ${lowerWord}`
        : `${outsideName} sits outside the ${limb} chain and the ${lowerWord} has no child to stand in for it: the IK bone is mapped as the ${partWord}, kept at the end of the ${lowerWord}`,
    );
    return outside;
  };

  for (const side of SIDES) {
    const set = (part: string, index: number | undefined): void => {
      if (index !== undefined) map.set(`${side}${part}`, index);
    };
    // Arm.
    const spineTop = map.get('upperChest') ?? map.get('chest') ?? map.get('spine') ?? hips;
    let shoulder = pick('Shoulder', side, spineTop);
    let upperArm = pick('UpperArm', side, shoulder ?? spineTop);
    let hand = pick('Hand', side, upperArm ?? shoulder ?? spineTop);
    let lowerArm = pick('LowerArm', side, upperArm ?? shoulder ?? spineTop);
    if (hand === undefined && lowerArm !== undefined) hand = chainEnd('Hand', side, lowerArm);
    if (lowerArm !== undefined && hand !== undefined && !isAncestor(lowerArm, hand)) lowerArm = undefined;
    if (upperArm === undefined && lowerArm !== undefined) upperArm = between(shoulder ?? spineTop, lowerArm);
    if (lowerArm === undefined && upperArm !== undefined && hand !== undefined) {
      lowerArm = between(upperArm, hand);
      if (lowerArm !== undefined) notes.push(`${side} forearm taken from the hierarchy: "${bones[lowerArm]!.name}"`);
    }
    if (shoulder === undefined && upperArm !== undefined) {
      const parent = parentOf(upperArm);
      if (parent >= 0 && parent !== spineTop && isAncestor(spineTop, parent)) {
        shoulder = parent;
        notes.push(`${side} shoulder taken from the hierarchy: "${bones[parent]!.name}"`);
      }
    }
    set('Shoulder', shoulder);
    set('UpperArm', upperArm);
    set('LowerArm', lowerArm);
    set('Hand', hand);
    set('UpperArmTwist', pick('UpperArmTwist', side, upperArm));
    set('LowerArmTwist', pick('LowerArmTwist', side, lowerArm));
    if (hand !== undefined) {
      for (const finger of FINGERS) {
        let chain = byPart(`finger:${finger}`, side).filter((c) => isAncestor(hand, c.index));
        // Keep one chain: the joints that descend from the first.
        if (chain.length) chain = chain.filter((c) => c === chain[0] || isAncestor(chain[0]!.index, c.index));
        if (chain.length >= 4) {
          const first = chain[0]!;
          chain = /meta|0$/.test(first.key) || /(^|[^0-9])0$/.test(bones[first.index]!.name) ? chain.slice(1) : chain.slice(0, 3);
        }
        chain.slice(0, 3).forEach((c, j) => map.set(`${side}${finger}${j + 1}`, c.index));
      }
    }
    // Leg: the chain is what hangs from the thigh; a foot-named bone outside it (an IK or control
    // bone) does not stop the chain from mapping, and the chain's own foot is taken from the hierarchy.
    let upperLeg = pick('UpperLeg', side, hips);
    if (upperLeg === undefined) {
      upperLeg = pick('UpperLeg', side, undefined);
      if (upperLeg !== undefined) notes.push(`${side} thigh "${bones[upperLeg]!.name}" is not below the hips; mapped anyway`);
    }
    let lowerLeg = pick('LowerLeg', side, upperLeg ?? hips);
    let foot = pick('Foot', side, lowerLeg ?? upperLeg ?? hips);
    if (lowerLeg !== undefined && foot !== undefined && !isAncestor(lowerLeg, foot)) lowerLeg = undefined;
    if (upperLeg === undefined && lowerLeg !== undefined) upperLeg = between(hips, lowerLeg);
    if (lowerLeg === undefined && upperLeg !== undefined && foot !== undefined) {
      lowerLeg = between(upperLeg, foot);
      if (lowerLeg !== undefined) notes.push(`${side} shin taken from the hierarchy: "${bones[lowerLeg]!.name}"`);
    }
    if (foot === undefined && lowerLeg !== undefined) foot = chainEnd('Foot', side, lowerLeg);
    set('UpperLeg', upperLeg);
    set('LowerLeg', lowerLeg);
    set('Foot', foot);
    set('UpperLegTwist', pick('UpperLegTwist', side, upperLeg));
    set('LowerLegTwist', pick('LowerLegTwist', side, lowerLeg));
    set('Toes', pick('Toes', side, foot));
    set('Eye', pick('eye', side, head));
  }
  return { map, notes };
}

/**
 * The one spine rule (built-in maps and the automatic mapper alike): of the bones between hips and
 * neck, the first is the spine; with two, the second is the chest; with three or more, the middle
 * one is the chest and the last the upper chest.
 */
export function splitSpine(spine: readonly number[]): Array<[CanonicalBone, number]> {
  const out: Array<[CanonicalBone, number]> = [];
  if (spine.length >= 1) out.push(['spine', spine[0]!]);
  if (spine.length === 2) out.push(['chest', spine[1]!]);
  if (spine.length >= 3) out.push(['chest', spine[Math.floor(spine.length / 2)]!], ['upperChest', spine[spine.length - 1]!]);
  return out;
}

/**
 * Re-splits a map's spine by {@link splitSpine} from the bones between its hips and its neck (or
 * head), so a built-in map and the automatic mapper agree on any rig. Returns the notes.
 */
export function applySpineRule(rig: RigDescription, map: Map<CanonicalBone, number>): string[] {
  const hips = map.get('hips');
  const top = map.get('neck') ?? map.get('head');
  if (hips === undefined || top === undefined) return [];
  const path: number[] = [];
  let reached = false;
  for (let p = rig.bones[top]!.parent; p >= 0; p = rig.bones[p]!.parent) {
    if (p === hips) {
      reached = true;
      break;
    }
    path.unshift(p);
  }
  if (!reached) return [];
  const spine = path.filter((i) => {
    const { part } = classifyBoneName(rig.bones[i]!.originalName || rig.bones[i]!.name);
    return part !== 'helper' && !part.endsWith('Twist') && part !== 'neck' && isAddressable(rig, i);
  });
  if (spine.length === 0) return [];
  const before = ['spine', 'chest', 'upperChest'].map((b) => map.get(b));
  for (const bone of ['spine', 'chest', 'upperChest']) map.delete(bone);
  for (const [bone, index] of splitSpine(spine)) map.set(bone, index);
  const after = ['spine', 'chest', 'upperChest'].map((b) => map.get(b));
  return before.some((v, i) => v !== after[i])
    ? [`spine split by the one spine rule over ${spine.length} bone(s): ${spine.map((i) => rig.bones[i]!.name).join(', ')}`]
    : [];
}

function rootOf(rig: RigDescription, index: number): number {
  let i = index;
  while (rig.bones[i]!.parent >= 0) i = rig.bones[i]!.parent;
  return i;
}
