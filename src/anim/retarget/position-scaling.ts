import { Vector3 } from 'three';
import { SIDES } from './canonical.ts';
import type { BoneMapping } from './bone-map.ts';
import type { ReferencePose } from './bind-alignment.ts';
import type { RigDescription } from './rig-description.ts';

/**
 * Step 3 of retargeting: how far the target's hips travel for a metre of the source's. Two ratios,
 * because a stride and a crouch scale differently:
 * - **horizontal** motion (steps, root motion, knockbacks) by the rigs' **limb proportion**, the
 *   leg length ratio: a longer leg covers more ground per stride;
 * - **vertical** hip offset (bob, crouch, jump) by the **hip-to-floor height** ratio, so the hips
 *   drop as deep, relative to the body, as the source's.
 */
export interface ScaleRatios {
  horizontal: number;
  vertical: number;
  sourceLegLength: number;
  targetLegLength: number;
  sourceHipHeight: number;
  targetHipHeight: number;
  /** What the ratios fell back on, if anything (e.g. no legs mapped). */
  notes: string[];
}

/** Thigh → knee → ankle length, averaged over the sides both rigs map; null when no leg is mapped. */
function legLength(positions: readonly Vector3[], canonical: ReadonlyMap<string, number>): number | null {
  const lengths: number[] = [];
  for (const side of SIDES) {
    const chain = [`${side}UpperLeg`, `${side}LowerLeg`, `${side}Foot`].map((c) => canonical.get(c));
    if (chain.some((i) => i === undefined)) continue;
    const [a, b, c] = chain.map((i) => positions[i!]!);
    lengths.push(a!.distanceTo(b!) + b!.distanceTo(c!));
  }
  return lengths.length ? lengths.reduce((s, v) => s + v, 0) / lengths.length : null;
}

/**
 * Height of the hips above the floor. The floor is the model's y = 0 when the feet stand on it
 * (the usual export); a rig whose origin is elsewhere uses its lowest foot or toe bone.
 */
export function hipHeight(positions: readonly Vector3[], canonical: ReadonlyMap<string, number>): number {
  const hips = positions[canonical.get('hips')!]!;
  let lowest = Infinity;
  for (const side of SIDES) {
    for (const part of ['Foot', 'Toes']) {
      const i = canonical.get(`${side}${part}`);
      if (i !== undefined) lowest = Math.min(lowest, positions[i]!.y);
    }
  }
  const floor = Number.isFinite(lowest) && lowest < 0 ? lowest : 0;
  return hips.y - floor;
}

/** The two ratios for a mapping (target reference pose against source bind pose). */
export function computeScaleRatios(source: RigDescription, mapping: BoneMapping, reference: ReferencePose): ScaleRatios {
  const notes: string[] = [];
  const sourcePositions = source.bones.map((b) => b.worldPosition);
  const sourceHip = hipHeight(sourcePositions, mapping.source.canonical);
  const targetHip = hipHeight(reference.worldPosition, mapping.target.canonical);
  const vertical = sourceHip > 1e-6 ? targetHip / sourceHip : 1;
  if (sourceHip <= 1e-6) notes.push('source hips sit at the floor; vertical ratio 1');
  const sourceLeg = legLength(sourcePositions, mapping.source.canonical);
  const targetLeg = legLength(reference.worldPosition, mapping.target.canonical);
  let horizontal = vertical;
  if (sourceLeg && targetLeg) horizontal = targetLeg / sourceLeg;
  else notes.push('legs not mapped on both rigs; horizontal motion uses the hip height ratio');
  return {
    horizontal,
    vertical,
    sourceLegLength: sourceLeg ?? 0,
    targetLegLength: targetLeg ?? 0,
    sourceHipHeight: sourceHip,
    targetHipHeight: targetHip,
    notes,
  };
}

/**
 * The target hips' model-space position for a source hips position: the source's displacement
 * from its bind, x/z scaled by the horizontal ratio and y by the vertical one, added to the
 * target's reference hips position.
 */
export function scaleHipsPosition(
  sourceHips: Vector3,
  sourceBind: Vector3,
  targetBind: Vector3,
  ratios: Pick<ScaleRatios, 'horizontal' | 'vertical'>,
  out = new Vector3(),
): Vector3 {
  return out.set(
    targetBind.x + (sourceHips.x - sourceBind.x) * ratios.horizontal,
    targetBind.y + (sourceHips.y - sourceBind.y) * ratios.vertical,
    targetBind.z + (sourceHips.z - sourceBind.z) * ratios.horizontal,
  );
}
