import { applySpineRule, autoMapBones } from './auto-map.ts';
import { BUILTIN_BONE_MAPS, type BuiltinBoneMap } from './bone-maps.ts';
import { CANONICAL_BONES, CORE_BONES, REQUIRED_BONES, SIDES, type CanonicalBone } from './canonical.ts';
import { isAddressable, type RigDescription, type RigProblem } from './rig-description.ts';

/** Step 1 of retargeting: which bone of a rig plays which canonical part. */
export interface RigBoneMap {
  /** 'mannequin', 'cc4', 'mixamo' (built-in maps), 'auto' (name patterns + hierarchy) or 'custom'. */
  mapName: BuiltinBoneMap['name'] | 'auto' | 'custom';
  /** Canonical bone → bone index. */
  canonical: Map<CanonicalBone, number>;
  /**
   * Limb bones that do not hang from the bone before them in their chain (a foot under the root, as
   * Blender IK rigs have it): bone index → the chain bone it belongs at the end of. The retargeter
   * keeps such a bone where it sits on that chain bone in the reference pose (it writes a position
   * track for it), and the parity check follows the chain, not the hierarchy.
   */
  attachments: Map<number, number>;
  /** What mapping decided that a person should know (a guessed spine, an attached foot), one sentence each. */
  notes: string[];
}

/** How to map a rig: detect (default), a built-in map by name, or an explicit canonical → bone-name table. */
export type BoneMapChoice = 'detect' | 'auto' | BuiltinBoneMap['name'] | Readonly<Record<CanonicalBone, string>>;

/** Share of a built-in map's names a rig must carry for that map to be chosen. */
const BUILTIN_MATCH = 0.75;

/**
 * Maps a rig's bones to the canonical humanoid. With 'detect', a built-in map is used when the rig
 * carries at least 75 % of its names (after that map's normalisation), else the automatic mapper.
 * Unaddressable bones (unnamed, duplicated, reserved characters) are never mapped.
 */
export function mapRigBones(rig: RigDescription, choice: BoneMapChoice = 'detect'): RigBoneMap {
  if (typeof choice === 'object') {
    const canonical = new Map<CanonicalBone, number>();
    const notes: string[] = [];
    for (const [bone, name] of Object.entries(choice)) {
      const index = rig.index.get(name);
      if (!CANONICAL_BONES.includes(bone)) notes.push(`"${bone}" is not a canonical bone name; ignored`);
      else if (index === undefined) notes.push(`custom map: the rig has no bone "${name}" (for ${bone})`);
      else if (!isAddressable(rig, index))
        notes.push(`custom map: bone "${name}" (for ${bone}) cannot be addressed (duplicate or reserved characters)`);
      else canonical.set(bone, index);
    }
    return withAttachments(rig, { mapName: 'custom', canonical, notes });
  }
  if (choice === 'auto') {
    const auto = autoMapBones(rig);
    return withAttachments(rig, { mapName: 'auto', canonical: auto.map, notes: auto.notes });
  }
  const candidates = choice === 'detect' ? BUILTIN_BONE_MAPS : BUILTIN_BONE_MAPS.filter((m) => m.name === choice);
  let best: { map: BuiltinBoneMap; canonical: Map<CanonicalBone, number>; score: number } | null = null;
  for (const builtin of candidates) {
    const byNormalized = new Map<string, number>();
    rig.bones.forEach((bone, i) => {
      if (!isAddressable(rig, i)) return;
      const normalized = builtin.normalize(bone.originalName || bone.name);
      if (!byNormalized.has(normalized)) byNormalized.set(normalized, i);
    });
    const canonical = new Map<CanonicalBone, number>();
    for (const [bone, name] of builtin.map) {
      const index = byNormalized.get(name);
      if (index !== undefined) canonical.set(bone, index);
    }
    const score = canonical.size / builtin.map.size;
    if (!best || score > best.score) best = { map: builtin, canonical, score };
  }
  if (best && (best.score >= BUILTIN_MATCH || choice !== 'detect')) {
    const notes = best.score < 1 ? [`${best.map.name} map: ${Math.round(best.score * 100)} % of its bones found`] : [];
    notes.push(...applySpineRule(rig, best.canonical));
    return withAttachments(rig, { mapName: best.map.name, canonical: best.canonical, notes });
  }
  const auto = autoMapBones(rig);
  return withAttachments(rig, { mapName: 'auto', canonical: auto.map, notes: auto.notes });
}

/** Limb links, bone → the chain bone before it, that a bone may be attached to from outside the hierarchy. */
const CHAIN_LINKS: ReadonlyArray<readonly [CanonicalBone, CanonicalBone]> = SIDES.flatMap((s) => [
  [`${s}LowerArm`, `${s}UpperArm`] as const,
  [`${s}Hand`, `${s}LowerArm`] as const,
  [`${s}LowerLeg`, `${s}UpperLeg`] as const,
  [`${s}Foot`, `${s}LowerLeg`] as const,
]);

/** Fills a map's {@link RigBoneMap.attachments}: mapped limb bones that do not descend from their chain's previous bone. */
function withAttachments(rig: RigDescription, map: Omit<RigBoneMap, 'attachments'>): RigBoneMap {
  const attachments = new Map<number, number>();
  const isAncestor = (a: number, b: number): boolean => {
    for (let p = rig.bones[b]!.parent; p >= 0; p = rig.bones[p]!.parent) if (p === a) return true;
    return false;
  };
  for (const [bone, before] of CHAIN_LINKS) {
    const child = map.canonical.get(bone);
    const parent = map.canonical.get(before);
    // A chain bone above its own predecessor is a broken map, not an attachment (it would loop).
    if (child === undefined || parent === undefined || isAncestor(parent, child)) continue;
    let loops = false;
    for (let p = parent; p >= 0 && !loops; p = attachments.get(p) ?? rig.bones[p]!.parent) loops = p === child;
    if (!loops) attachments.set(child, parent);
  }
  return { ...map, attachments };
}

/**
 * A rig's bones in an order where every bone comes after its parent and after the chain bone it is
 * attached to ({@link RigBoneMap.attachments}); the plain parent-first order when nothing is attached.
 */
export function evaluationOrder(rig: RigDescription, attachments: ReadonlyMap<number, number>): number[] {
  if (attachments.size === 0) return rig.bones.map((_, i) => i);
  const order: number[] = [];
  const state = new Uint8Array(rig.bones.length);
  const visit = (i: number): void => {
    // Done, or on the current path (which cannot happen: attachments never loop, see withAttachments).
    if (state[i] !== 0) return;
    state[i] = 1;
    const parent = rig.bones[i]!.parent;
    if (parent >= 0) visit(parent);
    const chain = attachments.get(i);
    if (chain !== undefined) visit(chain);
    state[i] = 2;
    order.push(i);
  };
  rig.bones.forEach((_, i) => visit(i));
  return order;
}

/** The bone a bone follows: the chain bone it is attached to, else its parent (-1 at the top). */
export function chainParentOf(rig: RigDescription, map: Pick<RigBoneMap, 'attachments'>, index: number): number {
  return map.attachments.get(index) ?? rig.bones[index]!.parent;
}

/** One mapped bone: the same canonical part in both rigs. */
export interface BonePair {
  /** The canonical part. */
  canonical: CanonicalBone;
  /** Its bone index in the source rig. */
  source: number;
  /** Its bone index in the target rig. */
  target: number;
}

/** The joined map between two rigs. */
export interface BoneMapping {
  /** The source rig's map. */
  source: RigBoneMap;
  /** The target rig's map. */
  target: RigBoneMap;
  /** Pairs in the target's parent-first order (an attached bone after the chain bone it follows). */
  pairs: BonePair[];
  /** Target bone index → its pair. */
  byTarget: Map<number, BonePair>;
  /** Source bones no target bone takes (helper bones, bones the target lacks): their tracks are dropped. */
  droppedSource: string[];
  /** Target bones nothing drives (face rig, helpers): they keep their bind pose relative to their parent. */
  unmappedTarget: string[];
  /** What mapping found wrong (missing required bones are errors; the rest warnings). */
  problems: RigProblem[];
}

/** Options of {@link buildBoneMapping}. */
export interface BoneMappingOptions {
  /** How the source's bones are mapped. Default 'detect' (a built-in map when the names match, else 'auto'). */
  sourceMap?: BoneMapChoice;
  /** How the target's bones are mapped. Default 'detect'. */
  targetMap?: BoneMapChoice;
}

/**
 * Joins the source's and the target's canonical maps into bone pairs. Missing required bones are
 * errors (nothing can retarget); missing core bones and the rigs' own problems are warnings.
 */
export function buildBoneMapping(source: RigDescription, target: RigDescription, options: BoneMappingOptions = {}): BoneMapping {
  const sourceMap = mapRigBones(source, options.sourceMap);
  const targetMap = mapRigBones(target, options.targetMap);
  const problems: RigProblem[] = [
    ...source.problems.map((p) => ({ ...p, message: `source rig "${source.name}": ${p.message}` })),
    ...target.problems.map((p) => ({ ...p, message: `target rig "${target.name}": ${p.message}` })),
  ];
  for (const [label, rig, map] of [
    ['source', source, sourceMap],
    ['target', target, targetMap],
  ] as const) {
    for (const note of map.notes) problems.push({ severity: 'warning', message: `${label} rig "${rig.name}": ${note}` });
    const missingRequired = REQUIRED_BONES.filter((b) => !map.canonical.has(b));
    if (missingRequired.length)
      problems.push({
        severity: 'error',
        message: `${label} rig "${rig.name}" has no ${missingRequired.join(', ')} bone (${map.mapName} map); nothing can be retargeted`,
      });
    const missingCore = CORE_BONES.filter((b) => !map.canonical.has(b) && !REQUIRED_BONES.includes(b));
    if (missingCore.length)
      problems.push({ severity: 'warning', message: `${label} rig "${rig.name}" (${map.mapName} map) lacks ${missingCore.join(', ')}` });
  }
  const pairs: BonePair[] = [];
  for (const [canonical, targetIndex] of targetMap.canonical) {
    const sourceIndex = sourceMap.canonical.get(canonical);
    if (sourceIndex !== undefined && canonical !== 'root') pairs.push({ canonical, source: sourceIndex, target: targetIndex });
  }
  // Parents first, and a bone attached to a chain after the chain bone it follows.
  const rank = new Map(evaluationOrder(target, targetMap.attachments).map((bone, r) => [bone, r]));
  pairs.sort((a, b) => rank.get(a.target)! - rank.get(b.target)!);
  const usedSource = new Set(pairs.map((p) => p.source));
  const usedTarget = new Set(pairs.map((p) => p.target));
  return {
    source: sourceMap,
    target: targetMap,
    pairs,
    byTarget: new Map(pairs.map((p) => [p.target, p])),
    droppedSource: source.bones.filter((_, i) => !usedSource.has(i)).map((b) => b.name),
    unmappedTarget: target.bones.filter((_, i) => !usedTarget.has(i)).map((b) => b.name),
    problems,
  };
}

/**
 * The bones a retarget must map in both rigs to be trusted: hips, spine and both arm and leg chains.
 * A mapping that lacks one fails the commands and turns the page red, however the clips look.
 */
export const JUDGED_BONES: readonly CanonicalBone[] = [
  'hips',
  'spine',
  ...(['left', 'right'] as const).flatMap((s) => [`${s}UpperArm`, `${s}LowerArm`, `${s}Hand`, `${s}UpperLeg`, `${s}LowerLeg`, `${s}Foot`]),
];

/** Core bones ({@link JUDGED_BONES}) left unmapped, one sentence each naming the rig; empty when none. */
export function coreBoneGaps(mapping: BoneMapping, sourceName: string, targetName: string): string[] {
  const gaps: string[] = [];
  for (const [label, name, map] of [
    ['source', sourceName, mapping.source],
    ['target', targetName, mapping.target],
  ] as const) {
    const missing = JUDGED_BONES.filter((b) => !map.canonical.has(b));
    if (missing.length)
      gaps.push(
        `${label} rig "${name}" (${map.mapName} map) has no ${missing.join(', ')}: the core body (hips, spine, both arm and leg chains) must map; pass --${label}-map FILE.json to name them`,
      );
  }
  return gaps;
}

/** The joined map as lines "canonical: source → target" (unpaired bones say which side lacks them). */
export function formatBoneMap(mapping: BoneMapping, source: RigDescription, target: RigDescription): string[] {
  const lines: string[] = [];
  for (const bone of CANONICAL_BONES) {
    const s = mapping.source.canonical.get(bone);
    const t = mapping.target.canonical.get(bone);
    if (s === undefined && t === undefined) continue;
    const sourceName = s === undefined ? '—' : source.bones[s]!.originalName || source.bones[s]!.name;
    const targetName = t === undefined ? '—' : target.bones[t]!.originalName || target.bones[t]!.name;
    lines.push(`  ${bone.padEnd(18)} ${sourceName} → ${targetName}`);
  }
  return lines;
}

/** A rig's map as a JSON-ready object, canonical → bone name (what `--map FILE.json` reads back). */
export function boneMapToJson(map: RigBoneMap, rig: RigDescription): Record<CanonicalBone, string> {
  const out: Record<CanonicalBone, string> = {};
  for (const bone of CANONICAL_BONES) {
    const index = map.canonical.get(bone);
    if (index !== undefined) out[bone] = rig.bones[index]!.name;
  }
  return out;
}
