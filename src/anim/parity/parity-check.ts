import { AnimationMixer, Box3, LoopOnce, Quaternion, Vector3, type AnimationClip, type SkinnedMesh } from 'three';
import type { RigDescription } from '../retarget/rig-description.ts';
import { bindFacing } from '../retarget/bind-alignment.ts';
import { chainParentOf } from '../retarget/bone-map.ts';
import { instantiateRig, type RigInstance } from '../retarget/instantiate.ts';
import { angleBetween, rotationOf } from '../retarget/kinematics.ts';
import { scaleHipsPosition } from '../retarget/position-scaling.ts';
import type { RetargetContext } from '../retarget/retarget-clip.ts';
import { withDefaults } from '../../core/options.ts';
import type { ProgressListener } from '../../core/progress.ts';

/**
 * The trajectory-parity check: plays a source clip on the source rig and its retargeted copy on the
 * target rig, both through three.js's own AnimationMixer (so track binding, interpolation and the
 * target's real hierarchy are all in the loop), samples every frame at 60 Hz, and compares every
 * mapped bone with the source after scaling.
 *
 * **Positions.** The target should put each mapped bone where the source's motion, carried on the
 * target's proportions, puts it: the hips at the two-ratio-scaled source hips, and every other bone
 * at its mapped parent's expected position plus the target's reference-pose segment turned by the
 * source parent's world motion. The difference splits into
 * - a **constant per-bone offset** — the bind delta, how far the target's reference bone sits from
 *   the proportionally scaled source bone (different shoulder width, a clavicle at another angle):
 *   it moves rigidly with the bone, changes nothing about the motion, and is reported, not bounded;
 * - **drift that changes frame to frame** — the residual minus its mean over the clip: a real error
 *   (a twist the retargeter added, a foot that slides, hips that bob wrongly), bounded.
 *
 * **Rotations.** The target bone's world rotation away from its reference is compared with the
 * source bone's away from its bind; the mean of the difference is the constant offset, the largest
 * angle from that mean is the drift.
 */

export interface ParityBounds {
  /** Largest frame-varying position drift of any mapped bone (metres). */
  positionDrift: number;
  /** Largest frame-varying rotation drift of any mapped bone (degrees). */
  rotationDriftDeg: number;
  /** Largest frame-varying vertical drift of the hips in locomotion clips (metres). */
  pelvisVerticalDrift: number;
  /**
   * Largest tilt (degrees) between the target pelvis's up axis and the source's, each carried by its
   * pelvis's motion away from its rest pose, in any frame ({@link ClipParity.pelvisTiltDeg}).
   */
  pelvisTiltDeg: number;
  /** Largest bind-alignment residual on any aligned bone (degrees). */
  alignmentResidualDeg: number;
  /** How far the source clip itself may push a mapped joint below its bind pose's lowest body joint (metres). */
  sourceFloorPenetration: number;
  /** How much further below the floor than the (scaled) source the target may put a mapped joint (metres). */
  floorPenetration: number;
  /** How much further than the (scaled) source a foot may slide while the source's foot is planted (metres per clip). */
  footSlide: number;
}

/**
 * The bounds `npm test` holds the built-in library to (measured values are far below; see
 * docs/anim.md), for a character of the mannequin's size ({@link PARITY_REFERENCE_HEIGHT} tall).
 * Lengths scale with the character ({@link scaleParityBounds}); angles do not.
 */
export const DEFAULT_PARITY_BOUNDS: ParityBounds = {
  positionDrift: 0.001,
  rotationDriftDeg: 0.25,
  pelvisVerticalDrift: 0.003,
  pelvisTiltDeg: 3,
  alignmentResidualDeg: 0.5,
  sourceFloorPenetration: 0.03,
  floorPenetration: 0.03,
  footSlide: 0.02,
};

/** The height (metres) the bounds' lengths are given for: the mannequin's, sole to crown. */
export const PARITY_REFERENCE_HEIGHT = 1.85;

/** A person's joints span about this share of their height: the mannequin's, 1.62 m of its 1.85 m (toe joint to head joint). */
const JOINT_SPAN_SHARE = 0.876;

const box = new Box3();

/**
 * A character's bind-pose height (metres): its meshes and bones when the description came from a
 * three.js object (skinned geometry where its bind matrix puts it), else its joints' span over
 * `JOINT_SPAN_SHARE` (a bare skeleton: mocap, a skeleton definition).
 */
export function characterHeight(rig: RigDescription): number {
  const ys = rig.bones.map((bone) => bone.worldPosition.y);
  const span = Math.max(...ys) - Math.min(...ys);
  const object = rig.object;
  if (!object) return span / JOINT_SPAN_SHARE;
  object.updateMatrixWorld(true);
  const inverse = object.matrixWorld.clone().invert();
  let low = Math.min(...ys);
  let high = Math.max(...ys);
  let meshes = 0;
  object.traverse((node) => {
    const mesh = node as SkinnedMesh;
    if (!mesh.isMesh || !mesh.geometry.getAttribute('position')) return;
    if (!mesh.geometry.boundingBox) mesh.geometry.computeBoundingBox();
    box
      .copy(mesh.geometry.boundingBox!)
      .applyMatrix4((mesh.isSkinnedMesh ? mesh.bindMatrix : mesh.matrixWorld).clone().premultiply(inverse));
    low = Math.min(low, box.min.y);
    high = Math.max(high, box.max.y);
    meshes++;
  });
  return meshes ? high - low : span / JOINT_SPAN_SHARE;
}

/** How much the length bounds are scaled for a pair: the target's height, and the source's (for the source's own floor), against {@link PARITY_REFERENCE_HEIGHT}. */
export interface BoundScale {
  /** The target's scale: its height over {@link PARITY_REFERENCE_HEIGHT}. */
  target: number;
  /** The source's scale, for the source's own floor bound. */
  source: number;
}

/**
 * The bounds for a pair of rigs: every length (drift, slide, floor) scaled by the character's size,
 * its height against {@link PARITY_REFERENCE_HEIGHT} ({@link characterHeight}); the angles as given. A millimetre
 * means one thing on a 0.5 m doll and another on a 4.5 m robot: the three.js robot's sprint drifts
 * 1.74 mm at the foot, 0.04 % of its height, where the mannequin's bound of 1 mm is 0.06 %. The
 * source's own floor scales with the source.
 */
export function scaleParityBounds(bounds: ParityBounds, scale: BoundScale): ParityBounds {
  return {
    ...bounds,
    positionDrift: bounds.positionDrift * scale.target,
    pelvisVerticalDrift: bounds.pelvisVerticalDrift * scale.target,
    floorPenetration: bounds.floorPenetration * scale.target,
    footSlide: bounds.footSlide * scale.target,
    sourceFloorPenetration: bounds.sourceFloorPenetration * scale.source,
  };
}

/** The pair's {@link BoundScale} (1 for a rig whose height cannot be read). */
export function boundScaleOf(context: RetargetContext): BoundScale {
  const of = (rig: RigDescription): number => {
    const height = characterHeight(rig);
    return height > 0 && Number.isFinite(height) ? height / PARITY_REFERENCE_HEIGHT : 1;
  };
  return { target: of(context.target), source: of(context.source) };
}

/**
 * Ratios and hip heights a humanoid retarget can plausibly have, outside which the units or the map
 * are wrong; and how far (degrees) the target's pelvis may face from the source's in the reference
 * pose (see {@link pelvisFacingDeg}).
 */
export const PLAUSIBLE = {
  /** Target-to-source scale ratios: [min, max]. */
  ratio: [0.2, 5],
  /** Hip heights (m): [min, max]. */
  hipHeight: [0.2, 3],
  /** Largest pelvis facing difference in the reference pose (degrees). */
  pelvisFacingDeg: 30,
} as const;

/** A figure and the bone it belongs to. */
export interface BoneFigure {
  /** The bone's name. */
  bone: string;
  /** The figure. */
  value: number;
}

/** One clip's parity figures against the bounds. */
export interface ClipParity {
  /** The clip's name. */
  clip: string;
  /** Its library category, or null. */
  category: string | null;
  /** Frames sampled. */
  frames: number;
  /** Mapped bones checked. */
  bones: number;
  /** Largest frame-varying position drift (m). */
  positionDrift: BoneFigure;
  /** Largest frame-varying rotation drift (degrees). */
  rotationDriftDeg: BoneFigure;
  /** Frame-varying vertical drift of the hips (m). */
  pelvisVerticalDrift: number;
  /**
   * The pelvis against the source's in the character's own frame (degrees, worst frame): the rest
   * pose's up axis carried by the target pelvis's rotation away from its rest pose, against the
   * same axis carried by the source pelvis's rotation away from its bind. A turn about the vertical
   * (one rig facing another way) leaves it at 0; a pelvis tilted off its rest pose reads its tilt
   * in every frame, idle included, and the hip area of the mesh bends with it.
   */
  pelvisTiltDeg: BoneFigure;
  /** Largest constant position offset, the bind delta (m): reported, harmless. */
  positionOffset: BoneFigure;
  /** Largest constant rotation offset (degrees): reported, harmless. */
  rotationOffsetDeg: BoneFigure;
  /** How far the source clip pushes its lowest mapped joint below the bind pose's lowest joint (m; 0 when never). */
  sourceFloorPenetration: BoneFigure;
  /** How much further below the floor than the scaled source the target's lowest mapped joint goes (m). */
  floorPenetration: BoneFigure;
  /** Foot travel beyond the scaled source's while the source's foot is planted (m, worst foot). */
  footSlide: BoneFigure;
  /** True when every figure is within bounds. */
  ok: boolean;
  /** Each figure out of bounds, in words. */
  failures: string[];
}

/** Options of a {@link ParityChecker}. */
export interface ParityOptions {
  /** Samples per second. Default 60. */
  sampleRate?: number;
  /**
   * Bounds for a character of the reference size ({@link PARITY_REFERENCE_HEIGHT} tall), over
   * {@link DEFAULT_PARITY_BOUNDS}; their lengths are scaled to the pair ({@link scaleParityBounds}).
   */
  bounds?: Partial<ParityBounds>;
}

const PARITY_DEFAULTS: Required<ParityOptions> = { sampleRate: 60, bounds: {} };

/** Reusable playback state for checking many clips of one rig pair. */
export class ParityChecker {
  /** The bounds this pair is held to (lengths scaled to the characters' size). */
  readonly bounds: ParityBounds;
  /** How much the length bounds were scaled. */
  readonly boundScale: BoundScale;
  /** Samples per second. */
  readonly sampleRate: number;
  private readonly source: RigInstance;
  private readonly target: RigInstance;
  private readonly sourceMixer: AnimationMixer;
  private readonly targetMixer: AnimationMixer;
  /** For each pair (target order): index of the nearest mapped ancestor's pair, or -1 (hips). */
  private readonly parentPair: number[];
  /** Reference-pose segment from the parent pair's bone to this pair's bone (model space). */
  private readonly segment: Vector3[];
  /** Bind delta of each pair's bone: reference position minus the per-segment-scaled source. */
  private readonly bindDelta: number[];
  private readonly hipsPair: number;

  /** The retarget context of the pair. */
  readonly context: RetargetContext;

  constructor(context: RetargetContext, options: ParityOptions = {}) {
    this.context = context;
    this.boundScale = boundScaleOf(context);
    const resolved = withDefaults(PARITY_DEFAULTS, options);
    this.bounds = scaleParityBounds(withDefaults(DEFAULT_PARITY_BOUNDS, resolved.bounds), this.boundScale);
    this.sampleRate = resolved.sampleRate;
    this.source = instantiateRig(context.source);
    this.target = instantiateRig(context.target);
    this.sourceMixer = new AnimationMixer(this.source.root);
    this.targetMixer = new AnimationMixer(this.target.root);
    const { pairs } = context.mapping;
    const pairOfTarget = new Map(pairs.map((p, k) => [p.target, k]));
    const reference = context.reference.worldPosition;
    const sourceBind = (k: number): Vector3 => context.source.bones[pairs[k]!.source]!.worldPosition;
    this.parentPair = pairs.map((pair) => {
      // Up the chain: an attached bone (a foot under the root) follows the bone it is attached to.
      const up = (i: number): number => chainParentOf(context.target, context.mapping.target, i);
      for (let p = up(pair.target); p >= 0; p = up(p)) {
        const k = pairOfTarget.get(p);
        if (k !== undefined) return k;
      }
      return -1;
    });
    this.hipsPair = pairOfTarget.get(context.hips.target)!;
    this.segment = pairs.map((pair, k) => {
      const parent = this.parentPair[k]!;
      return parent < 0 ? new Vector3() : reference[pair.target]!.clone().sub(reference[pairs[parent]!.target]!);
    });
    // Bind delta, accumulated down each chain: where the reference bone sits against the source
    // bone scaled segment by segment to the target's lengths.
    const scaledSource: Vector3[] = [];
    this.bindDelta = pairs.map((pair, k) => {
      const parent = this.parentPair[k]!;
      if (parent < 0) {
        scaledSource[k] = reference[pair.target]!.clone();
        return 0;
      }
      const sourceSegment = sourceBind(k).clone().sub(sourceBind(parent));
      const length = sourceSegment.length();
      const scale = length > 1e-9 ? this.segment[k]!.length() / length : 1;
      scaledSource[k] = scaledSource[parent]!.clone().addScaledVector(sourceSegment, scale);
      return scaledSource[k]!.distanceTo(reference[pair.target]!);
    });
  }

  /** Checks one clip against its retargeted copy (null when the copy does not exist). */
  check(sourceClip: AnimationClip, targetClip: AnimationClip | null): ClipParity {
    const category = ((sourceClip.userData as { category?: string } | undefined)?.category ?? null) as string | null;
    const result: ClipParity = {
      clip: sourceClip.name,
      category,
      frames: 0,
      bones: this.context.mapping.pairs.length,
      positionDrift: { bone: '', value: 0 },
      rotationDriftDeg: { bone: '', value: 0 },
      pelvisVerticalDrift: 0,
      pelvisTiltDeg: { bone: '', value: 0 },
      positionOffset: { bone: '', value: 0 },
      rotationOffsetDeg: { bone: '', value: 0 },
      sourceFloorPenetration: { bone: '', value: 0 },
      floorPenetration: { bone: '', value: 0 },
      footSlide: { bone: '', value: 0 },
      ok: false,
      failures: [],
    };
    if (!targetClip) {
      result.failures.push('the clip did not retarget');
      return result;
    }
    const { context } = this;
    const { pairs } = context.mapping;
    const frames = Math.max(1, Math.floor(sourceClip.duration * this.sampleRate + 1e-6) + 1);
    result.frames = frames;
    const positionError = pairs.map(() => new Float64Array(frames * 3));
    const rotationError = pairs.map(() => new Float64Array(frames * 4));
    const sourceAction = this.play(this.sourceMixer, sourceClip);
    const targetAction = this.play(this.targetMixer, targetClip);
    const sourceRotation = pairs.map(() => new Quaternion());
    const sourceMotion = pairs.map(() => new Quaternion());
    const expected = pairs.map(() => new Vector3());
    const actual = new Vector3();
    const targetRotation = new Quaternion();
    const hipsSource = new Vector3();
    const rootNow = new Vector3();
    const q = new Quaternion();
    const inverseMotion = new Quaternion();
    const sourceHipsBind = context.source.bones[context.hips.source]!.worldPosition;
    const targetHipsReference = context.reference.worldPosition[context.hips.target]!;
    const referenceInverse = pairs.map((p) => context.reference.worldRotation[p.target]!.clone().invert());
    const rootBind = context.sourceRoot >= 0 ? context.source.bones[context.sourceRoot]!.worldPosition : null;
    // Floors: the source's lowest body joint in its bind pose (the hips and every bone below them,
    // mapped or not: a map without toes must not raise the floor to the ankles), and the target's
    // lowest mapped joint in its reference pose (compared with the scaled source, mapped joints only).
    const sourceFloor = bodyFloor(context.source, context.hips.source);
    const targetFloor = Math.min(...pairs.map((p) => context.reference.worldPosition[p.target]!.y));
    let sourceLow = { bone: '', value: Infinity };
    let targetLow = { bone: '', value: Infinity };
    let expectedLow = Infinity;
    const feet = pairs.map((p, k) => (p.canonical === 'leftFoot' || p.canonical === 'rightFoot' ? k : -1)).filter((k) => k >= 0);
    const footTrack = feet.map(() => ({ expected: new Float64Array(frames * 3), actual: new Float64Array(frames * 3) }));
    const sourcePosition = new Vector3();
    const sourceUp = new Vector3();
    const targetUp = new Vector3();
    const targetHipsBindInverse = rotationOf(context.target.bones[context.hips.target]!.worldMatrix).invert();

    for (let f = 0; f < frames; f++) {
      const time = Math.min(f / this.sampleRate, sourceClip.duration);
      sourceAction.time = time;
      targetAction.time = Math.min(time, targetClip.duration);
      this.sourceMixer.update(0);
      this.targetMixer.update(0);
      this.source.root.updateMatrixWorld(true);
      this.target.root.updateMatrixWorld(true);
      hipsSource.setFromMatrixPosition(this.source.bones[context.hips.source]!.matrixWorld);
      if (context.options.rootMotion === 'in-place') {
        if (rootBind) {
          rootNow.setFromMatrixPosition(this.source.bones[context.sourceRoot]!.matrixWorld);
          hipsSource.x -= rootNow.x - rootBind.x;
          hipsSource.z -= rootNow.z - rootBind.z;
        } else {
          hipsSource.x = sourceHipsBind.x;
          hipsSource.z = sourceHipsBind.z;
        }
      }
      pairs.forEach((pair, k) => {
        rotationOf(this.source.bones[pair.source]!.matrixWorld, sourceRotation[k]!);
        // The source bone's world-space motion away from its bind.
        sourceMotion[k]!.copy(sourceRotation[k]!).multiply(context.sourceBindInverse[pair.source]!);
        const parent = this.parentPair[k]!;
        if (parent < 0) scaleHipsPosition(hipsSource, sourceHipsBind, targetHipsReference, context.ratios, expected[k]!);
        else expected[k]!.copy(this.segment[k]!).applyQuaternion(sourceMotion[parent]!).add(expected[parent]!);
        actual.setFromMatrixPosition(this.target.bones[pair.target]!.matrixWorld);
        sourcePosition.setFromMatrixPosition(this.source.bones[pair.source]!.matrixWorld);
        if (sourcePosition.y < sourceLow.value) sourceLow = { bone: context.source.bones[pair.source]!.name, value: sourcePosition.y };
        if (actual.y < targetLow.value) targetLow = { bone: context.target.bones[pair.target]!.name, value: actual.y };
        if (expected[k]!.y < expectedLow) expectedLow = expected[k]!.y;
        const foot = feet.indexOf(k);
        if (foot >= 0) {
          footTrack[foot]!.expected.set([expected[k]!.x, expected[k]!.y, expected[k]!.z], f * 3);
          footTrack[foot]!.actual.set([actual.x, actual.y, actual.z], f * 3);
        }
        const e = positionError[k]!;
        e[f * 3] = actual.x - expected[k]!.x;
        e[f * 3 + 1] = actual.y - expected[k]!.y;
        e[f * 3 + 2] = actual.z - expected[k]!.z;
        rotationOf(this.target.bones[pair.target]!.matrixWorld, targetRotation);
        if (k === this.hipsPair) {
          // Up axes carried by each pelvis's motion away from its rest pose (bind for the source).
          sourceUp.copy(UP).applyQuaternion(sourceMotion[k]!);
          targetUp.copy(UP).applyQuaternion(q.copy(targetRotation).multiply(targetHipsBindInverse));
          const tilt = (sourceUp.angleTo(targetUp) * 180) / Math.PI;
          if (tilt > result.pelvisTiltDeg.value) result.pelvisTiltDeg = { bone: context.target.bones[pair.target]!.name, value: tilt };
        }
        // (target motion away from its reference) · (source motion)⁻¹: identity when they agree.
        q.copy(targetRotation).multiply(referenceInverse[k]!).multiply(inverseMotion.copy(sourceMotion[k]!).invert());
        const r = rotationError[k]!;
        r[f * 4] = q.x;
        r[f * 4 + 1] = q.y;
        r[f * 4 + 2] = q.z;
        r[f * 4 + 3] = q.w;
      });
    }
    sourceAction.stop();
    targetAction.stop();
    this.sourceMixer.uncacheClip(sourceClip);
    this.targetMixer.uncacheClip(targetClip);

    pairs.forEach((pair, k) => {
      const name = context.target.bones[pair.target]!.name;
      const e = positionError[k]!;
      const mean = [0, 0, 0];
      for (let f = 0; f < frames; f++) for (let c = 0; c < 3; c++) mean[c]! += e[f * 3 + c]! / frames;
      let drift = 0;
      let vertical = 0;
      for (let f = 0; f < frames; f++) {
        const dx = e[f * 3]! - mean[0]!;
        const dy = e[f * 3 + 1]! - mean[1]!;
        const dz = e[f * 3 + 2]! - mean[2]!;
        drift = Math.max(drift, Math.hypot(dx, dy, dz));
        vertical = Math.max(vertical, Math.abs(dy));
      }
      if (drift > result.positionDrift.value) result.positionDrift = { bone: name, value: drift };
      if (k === this.hipsPair) result.pelvisVerticalDrift = vertical;
      const offset = this.bindDelta[k]! + Math.hypot(mean[0]!, mean[1]!, mean[2]!);
      if (offset > result.positionOffset.value) result.positionOffset = { bone: name, value: offset };
      // Rotation: the mean difference (sign-aligned average), then the largest angle from it.
      const r = rotationError[k]!;
      const meanQ = new Quaternion(0, 0, 0, 0);
      const first = new Quaternion(r[0], r[1], r[2], r[3]);
      const sample = new Quaternion();
      for (let f = 0; f < frames; f++) {
        sample.set(r[f * 4]!, r[f * 4 + 1]!, r[f * 4 + 2]!, r[f * 4 + 3]!);
        const sign = sample.dot(first) < 0 ? -1 : 1;
        meanQ.set(meanQ.x + sign * sample.x, meanQ.y + sign * sample.y, meanQ.z + sign * sample.z, meanQ.w + sign * sample.w);
      }
      meanQ.normalize();
      let rotationDrift = 0;
      for (let f = 0; f < frames; f++) {
        sample.set(r[f * 4]!, r[f * 4 + 1]!, r[f * 4 + 2]!, r[f * 4 + 3]!);
        rotationDrift = Math.max(rotationDrift, angleBetween(sample, meanQ));
      }
      const driftDeg = (rotationDrift * 180) / Math.PI;
      if (driftDeg > result.rotationDriftDeg.value) result.rotationDriftDeg = { bone: name, value: driftDeg };
      const offsetDeg = (angleBetween(meanQ, IDENTITY) * 180) / Math.PI;
      if (offsetDeg > result.rotationOffsetDeg.value) result.rotationOffsetDeg = { bone: name, value: offsetDeg };
    });

    // Floor: the source against its own bind floor; the target against where the scaled source goes.
    result.sourceFloorPenetration = { bone: sourceLow.bone, value: Math.max(0, sourceFloor - sourceLow.value) };
    result.floorPenetration = { bone: targetLow.bone, value: Math.max(0, Math.min(targetFloor, expectedLow) - targetLow.value) };
    // Foot slide: while the expected (scaled source) foot is planted, the target foot should travel no further.
    feet.forEach((k, i) => {
      const { expected: ex, actual: ac } = footTrack[i]!;
      let lowest = Infinity;
      for (let f = 0; f < frames; f++) lowest = Math.min(lowest, ex[f * 3 + 1]!);
      let slide = 0;
      for (let f = 1; f < frames; f++) {
        const expectedStep = Math.hypot(ex[f * 3]! - ex[f * 3 - 3]!, ex[f * 3 + 2]! - ex[f * 3 - 1]!);
        // Planted: within 30 mm of its lowest and slower than 0.3 m/s, for a character of the reference size.
        const planted =
          ex[f * 3 + 1]! - lowest < 0.03 * this.boundScale.target && expectedStep * this.sampleRate < 0.3 * this.boundScale.target;
        if (!planted) continue;
        const actualStep = Math.hypot(ac[f * 3]! - ac[f * 3 - 3]!, ac[f * 3 + 2]! - ac[f * 3 - 1]!);
        slide += Math.max(0, actualStep - expectedStep);
      }
      if (slide > result.footSlide.value) result.footSlide = { bone: context.target.bones[pairs[k]!.target]!.name, value: slide };
    });

    const b = this.bounds;
    if (result.sourceFloorPenetration.value > b.sourceFloorPenetration)
      result.failures.push(
        `the source clip itself puts ${result.sourceFloorPenetration.bone} ${mm(result.sourceFloorPenetration.value)} below its bind-pose floor (bound ${mm(b.sourceFloorPenetration)})`,
      );
    if (result.floorPenetration.value > b.floorPenetration)
      result.failures.push(
        `${result.floorPenetration.bone} goes ${mm(result.floorPenetration.value)} further below the floor than the scaled source (bound ${mm(b.floorPenetration)})`,
      );
    if (result.footSlide.value > b.footSlide)
      result.failures.push(
        `${result.footSlide.bone} slides ${mm(result.footSlide.value)} more than the scaled source while planted (bound ${mm(b.footSlide)})`,
      );
    if (result.positionDrift.value > b.positionDrift)
      result.failures.push(
        `position drift ${mm(result.positionDrift.value)} on ${result.positionDrift.bone} exceeds ${mm(b.positionDrift)}`,
      );
    if (result.rotationDriftDeg.value > b.rotationDriftDeg)
      result.failures.push(
        `rotation drift ${result.rotationDriftDeg.value.toFixed(3)}° on ${result.rotationDriftDeg.bone} exceeds ${b.rotationDriftDeg}°`,
      );
    if (result.pelvisTiltDeg.value > b.pelvisTiltDeg)
      result.failures.push(
        `the pelvis ${result.pelvisTiltDeg.bone} tilts ${result.pelvisTiltDeg.value.toFixed(1)}° from the source's in the character's frame (bound ${b.pelvisTiltDeg}°): its rest pose is not kept`,
      );
    if (category === 'locomotion' && result.pelvisVerticalDrift > b.pelvisVerticalDrift)
      result.failures.push(`pelvis vertical drift ${mm(result.pelvisVerticalDrift)} exceeds ${mm(b.pelvisVerticalDrift)}`);
    result.ok = result.failures.length === 0;
    return result;
  }

  private play(mixer: AnimationMixer, clip: AnimationClip) {
    mixer.stopAllAction();
    const action = mixer.clipAction(clip);
    action.setLoop(LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    return action;
  }
}

const IDENTITY = new Quaternion();

/** The lowest bind-pose joint height of the hips and the bones they carry (not a root at the origin). */
function bodyFloor(rig: RetargetContext['source'], hips: number): number {
  const inBody = rig.bones.map(() => false);
  let floor = Infinity;
  rig.bones.forEach((bone, i) => {
    // Bones are parent-first, so a parent's flag is set before its children's.
    inBody[i] = i === hips || (bone.parent >= 0 && inBody[bone.parent]!);
    if (inBody[i]) floor = Math.min(floor, bone.worldPosition.y);
  });
  return floor;
}
const mm = (metres: number): string => `${(metres * 1000).toFixed(2)} mm`;

/** The whole library's parity. */
export interface ParityReport {
  /** The source rig's name. */
  source: string;
  /** The target rig's name. */
  target: string;
  /** Samples per second. */
  sampleRate: number;
  /** The bounds the pair was held to: {@link DEFAULT_PARITY_BOUNDS} (or those given) with lengths scaled by {@link boundScale}. */
  bounds: ParityBounds;
  /** How much the length bounds were scaled for the characters' size (their hip heights against the mannequin's). */
  boundScale: BoundScale;
  /** Each clip's figures. */
  clips: ClipParity[];
  /** Largest bind-alignment residual (degrees) and its bone. */
  alignmentResidualDeg: BoneFigure;
  /** How far the target's pelvis faces from the source's in the reference pose (degrees; {@link pelvisFacingDeg}). */
  pelvisFacingDeg: number;
  /** The worst clip's pelvis tilt against the source's in the character's frame (degrees; {@link ClipParity.pelvisTiltDeg}). */
  pelvisTiltDeg: BoneFigure & {
    /** The clip it comes from. */
    clip: string;
  };
  /** True when every clip passed, the pair is plausible and the bind alignment is within its bound. */
  ok: boolean;
  /** Every failure, prefixed with its clip. */
  failures: string[];
  /** Milliseconds the check took. */
  ms: number;
}

/** Options of {@link checkLibraryParity}: the checker's, and who hears the progress. */
export interface CheckLibraryParityOptions extends ParityOptions {
  /** Hears `done` of `total` clips after each check, `label` the clip just checked. */
  onProgress?: ProgressListener;
}

/**
 * Checks every source clip against the retargeted clip of the same name. Clips that did not
 * retarget fail; the others are checked one by one (`onProgress` after each).
 */
export function checkLibraryParity(
  sourceClips: readonly AnimationClip[],
  targetClips: readonly AnimationClip[],
  context: RetargetContext,
  options: CheckLibraryParityOptions = {},
): ParityReport {
  const start = performance.now();
  const checker = new ParityChecker(context, options);
  const byName = new Map(targetClips.map((c) => [c.name, c]));
  const clips = sourceClips.map((clip, i) => {
    const result = checker.check(clip, byName.get(clip.name) ?? null);
    options.onProgress?.({ done: i + 1, total: sourceClips.length, label: clip.name });
    return result;
  });
  let residual: BoneFigure = { bone: '', value: 0 };
  for (const [bone, angle] of context.reference.residual) {
    const deg = (angle * 180) / Math.PI;
    if (deg > residual.value) residual = { bone: context.target.bones[bone]!.name, value: deg };
  }
  const failures = clips.flatMap((c) => c.failures.map((f) => `${c.clip}: ${f}`));
  failures.push(...plausibilityFailures(context));
  if (residual.value > checker.bounds.alignmentResidualDeg)
    failures.push(`bind alignment left ${residual.value.toFixed(2)}° on ${residual.bone} (bound ${checker.bounds.alignmentResidualDeg}°)`);
  return {
    source: context.source.name,
    target: context.target.name,
    sampleRate: checker.sampleRate,
    bounds: checker.bounds,
    boundScale: checker.boundScale,
    clips,
    alignmentResidualDeg: residual,
    pelvisFacingDeg: pelvisFacingDeg(context),
    pelvisTiltDeg: clips.reduce<BoneFigure & { clip: string }>(
      (worst, c) => (c.pelvisTiltDeg.value > worst.value ? { ...c.pelvisTiltDeg, clip: c.clip } : worst),
      { bone: '', value: 0, clip: '' },
    ),
    ok: failures.length === 0,
    failures,
    ms: performance.now() - start,
  };
}

/** Ratios or hip heights no humanoid pair has: wrong units (centimetres read as metres) or a wrong map. */
export function plausibilityFailures(context: RetargetContext): string[] {
  const out: string[] = [];
  const { ratios } = context;
  const [low, high] = PLAUSIBLE.ratio;
  for (const [name, value] of [
    ['horizontal', ratios.horizontal],
    ['vertical', ratios.vertical],
  ] as const) {
    if (!(value >= low && value <= high))
      out.push(
        `implausible ${name} ratio ${value.toPrecision(3)} (a humanoid pair lies within ${low}–${high}): check the units and the map`,
      );
  }
  const facing = pelvisFacingDeg(context);
  if (facing > PLAUSIBLE.pelvisFacingDeg)
    out.push(
      `the target's pelvis faces ${facing.toFixed(1)}° away from the source's in the reference pose (bound ${PLAUSIBLE.pelvisFacingDeg}°): the hips' bind alignment is wrong`,
    );
  const [hipLow, hipHigh] = PLAUSIBLE.hipHeight;
  for (const [label, height] of [
    ['source', ratios.sourceHipHeight],
    ['target', ratios.targetHipHeight],
  ] as const) {
    if (!(height >= hipLow && height <= hipHigh))
      out.push(
        `implausible ${label} hip height ${height.toPrecision(3)} m (expected ${hipLow}–${hipHigh} m): the file's units are not metres, or the hips are mapped wrongly`,
      );
  }
  return out;
}

const UP = new Vector3(0, 1, 0);

/**
 * How far (degrees) the target's pelvis faces from the source's: the turn bind alignment gives the
 * target's hips (reference rotation · bind rotation⁻¹) should carry the target's bind facing onto
 * the source's and keep the vertical vertical. The larger of the two angles; 0 when a rig has no
 * facing to read. The parity check's frames are measured against the reference pose, so a pelvis
 * turned the wrong way there (a flipped or missing facing turn) would pass them; with this figure
 * bounded and the hips' rotation drift bounded, the target's pelvis faces where the source's does
 * in every frame. Torso pitch between the rigs' rest poses (a hunched or leaning rig: 11° on
 * Quaternius's Male_Casual) and a skewed pelvis (4° on the zombie) stay well under the bound.
 */
export function pelvisFacingDeg(context: RetargetContext): number {
  const sourceFacing = bindFacing(context.source, context.mapping.source.canonical);
  const targetFacing = bindFacing(context.target, context.mapping.target.canonical);
  if (!sourceFacing || !targetFacing) return 0;
  const hips = context.hips.target;
  const turn = context.reference.worldRotation[hips]!.clone().multiply(rotationOf(context.target.bones[hips]!.worldMatrix).invert());
  const facing = targetFacing.applyQuaternion(turn).angleTo(sourceFacing);
  const up = UP.clone().applyQuaternion(turn).angleTo(UP);
  return (Math.max(facing, up) * 180) / Math.PI;
}
