import { AnimationClip, Matrix4, Quaternion, QuaternionKeyframeTrack, Vector3, VectorKeyframeTrack, type KeyframeTrack } from 'three';
import { alignBindPose, type ReferencePose } from './bind-alignment.ts';
import { buildBoneMapping, evaluationOrder, type BoneMapping, type BoneMappingOptions } from './bone-map.ts';
import { ClipSampler } from './clip-sampler.ts';
import { bindLocalPose, forwardKinematics, rotationOf } from './kinematics.ts';
import { computeScaleRatios, scaleHipsPosition, type ScaleRatios } from './position-scaling.ts';
import type { RigDescription, RigProblem } from './rig-description.ts';

/** Options of {@link createRetargetContext}. */
export interface RetargetOptions extends BoneMappingOptions {
  /**
   * Where root motion goes. 'hips' (default): the source's root and pelvis motion are summed into
   * the target's hips track, so knockbacks and climbs keep moving the body even though the
   * target's root bone stays put. 'in-place': the root's horizontal travel is removed (turns and
   * vertical motion stay), for characters whose controller moves them.
   */
  rootMotion?: 'hips' | 'in-place';
  /** Key rate (Hz) used when the source's keys are irregular or denser than 120 Hz. Default 30. */
  fps?: number;
}

/** Everything retargeting between two rigs needs, computed once for a whole library. */
export interface RetargetContext {
  /** The rig the clips are authored on. */
  source: RigDescription;
  /** The rig they are retargeted onto. */
  target: RigDescription;
  /** Step 1: bone pairs. */
  mapping: BoneMapping;
  /** Step 2: the target posed like the source's bind pose. */
  reference: ReferencePose;
  /** Step 3: the two position ratios. */
  ratios: ScaleRatios;
  /** Source and target hips bone indices. */
  hips: {
    /** In the source rig. */
    source: number;
    /** In the target rig. */
    target: number;
  };
  /** The source's top-most bone above its hips (its root motion), or -1 when the hips are the top. */
  sourceRoot: number;
  /** The resolved root-motion choice and key rate. */
  options: Required<Pick<RetargetOptions, 'rootMotion' | 'fps'>>;
  /** The source bind rotation inverses, by source bone index. */
  sourceBindInverse: Quaternion[];
  /** Target bones in the order a pose is built: parents and attached-to chain bones first. */
  targetOrder: number[];
  /**
   * For each attached target bone (`mapping.target.attachments`): where it sits in its chain
   * bone's frame in the reference pose. The retargeter keeps it there, frame by frame.
   */
  attachedOffsets: Map<number, Vector3>;
  /**
   * Target bones keyed densely (at {@link DENSE_KEY_RATE} or more) rather than at the source's key
   * times: the attached bones, and every bone whose nearest mapped ancestor is not the one its source
   * bone has (a thumb hung from the middle finger, a foot under the root). Keys interpolate in the
   * parent's frame, so a bone whose parent differs between the rigs would stray between sparse keys.
   */
  denseBones: Set<number>;
}

/** Thrown when two rigs cannot be retargeted at all; `problems` lists every reason. */
export class RetargetError extends Error {
  /** Every reason, one problem each. */
  readonly problems: RigProblem[];

  constructor(problems: RigProblem[]) {
    super(
      `cannot retarget:\n- ${problems
        .filter((p) => p.severity === 'error')
        .map((p) => p.message)
        .join('\n- ')}`,
    );
    this.problems = problems;
    this.name = 'RetargetError';
  }
}

/** Runs steps 1–3 for a pair of rigs. Throws {@link RetargetError} when the rigs cannot be paired. */
export function createRetargetContext(source: RigDescription, target: RigDescription, options: RetargetOptions = {}): RetargetContext {
  const mapping = buildBoneMapping(source, target, options);
  const errors = mapping.problems.filter((p) => p.severity === 'error');
  if (errors.length) throw new RetargetError(mapping.problems);
  const reference = alignBindPose(source, target, mapping);
  const attachedOffsets = new Map<number, Vector3>();
  for (const [bone, chain] of mapping.target.attachments)
    attachedOffsets.set(bone, reference.worldPosition[bone]!.clone().applyMatrix4(reference.world[chain]!.clone().invert()));
  const ratios = computeScaleRatios(source, mapping, reference);
  const hips = { source: mapping.source.canonical.get('hips')!, target: mapping.target.canonical.get('hips')! };
  let sourceRoot = hips.source;
  while (source.bones[sourceRoot]!.parent >= 0) sourceRoot = source.bones[sourceRoot]!.parent;
  return {
    source,
    target,
    mapping,
    reference,
    ratios,
    hips,
    sourceRoot: sourceRoot === hips.source ? -1 : sourceRoot,
    options: { rootMotion: options.rootMotion ?? 'hips', fps: options.fps ?? 30 },
    sourceBindInverse: source.bones.map((b) => b.worldRotation.clone().invert()),
    targetOrder: evaluationOrder(target, mapping.target.attachments),
    attachedOffsets,
    denseBones: denseBones(source, target, mapping),
  };
}

/** See {@link RetargetContext.denseBones}. */
function denseBones(source: RigDescription, target: RigDescription, mapping: BoneMapping): Set<number> {
  const dense = new Set<number>(mapping.target.attachments.keys());
  const bySource = new Map(mapping.pairs.map((p) => [p.source, p.canonical]));
  const byTarget = new Map(mapping.pairs.map((p) => [p.target, p.canonical]));
  const pairedParent = (rig: RigDescription, paired: ReadonlyMap<number, string>, bone: number): string | null => {
    for (let p = rig.bones[bone]!.parent; p >= 0; p = rig.bones[p]!.parent) if (paired.has(p)) return paired.get(p)!;
    return null;
  };
  for (const pair of mapping.pairs)
    if (pairedParent(source, bySource, pair.source) !== pairedParent(target, byTarget, pair.target)) dense.add(pair.target);
  return dense;
}

/** What happened to one clip. */
export interface ClipReport {
  /** The clip's name. */
  clip: string;
  /** Whether it was retargeted. */
  ok: boolean;
  /** Why the clip could not be retargeted (then `clip` is null in the result). */
  error?: string;
  /** What went wrong that did not stop it, one sentence each. */
  warnings: string[];
  /** Tracks in the source clip. */
  tracksIn: number;
  /** Source tracks that drive a mapped bone (or the root, whose motion goes to the hips). */
  tracksUsed: number;
  /** Tracks addressing no bone of the source rig. */
  ignoredTracks: string[];
  /** Tracks on source bones the target has no counterpart for (helpers): dropped. */
  droppedTracks: string[];
  /** Key times of the retargeted clip: the source's own, or a uniform grid at `fps` when those are irregular or denser than 120 Hz. */
  keys: number;
  /** Tracks in the retargeted clip. */
  tracksOut: number;
}

/** What {@link retargetClip} returns: the clip (null when it failed) and its report. */
export interface RetargetResult {
  /** The retargeted clip, or null when it could not be. */
  clip: AnimationClip | null;
  /** What happened to it. */
  report: ClipReport;
}

/** The least key rate (Hz) of the tracks of {@link RetargetContext.denseBones}. */
export const DENSE_KEY_RATE = 120;

/** Uniform key times over a clip. */
function uniformTimes(duration: number, fps: number): number[] {
  const count = Math.max(2, Math.round(duration * fps) + 1);
  return Array.from({ length: count }, (_, i) => (i / (count - 1)) * duration);
}

/**
 * Retargets one clip: samples the source at its key times, carries each mapped bone's world-space
 * rotation away from its bind onto the target's reference pose, converts to target local rotations
 * (through the target's own hierarchy, unmapped bones included), and writes the hips position with
 * the two ratios, and the position of each attached bone (a foot under the root) that keeps it at
 * the end of its chain. Never throws for a bad clip: the report says what is wrong.
 */
export function retargetClip(clip: AnimationClip, context: RetargetContext): RetargetResult {
  const { source, target, mapping, reference, ratios, hips } = context;
  const report: ClipReport = {
    clip: clip.name,
    ok: false,
    warnings: [],
    tracksIn: clip.tracks.length,
    tracksUsed: 0,
    ignoredTracks: [],
    droppedTracks: [],
    keys: 0,
    tracksOut: 0,
  };
  try {
    const sampler = new ClipSampler(source, clip);
    report.ignoredTracks = sampler.ignored;
    const mappedSource = new Set(mapping.pairs.map((p) => p.source));
    // A track matters if its bone is mapped or is an ancestor of the hips (root motion).
    const hipsAncestors = new Set<number>();
    for (let p = source.bones[hips.source]!.parent; p >= 0; p = source.bones[p]!.parent) hipsAncestors.add(p);
    const used = sampler.bound.filter((b) => mappedSource.has(b.bone) || hipsAncestors.has(b.bone));
    report.droppedTracks = sampler.bound.filter((b) => !used.includes(b)).map((b) => b.track.name);
    report.tracksUsed = used.length;
    if (clip.tracks.length === 0) throw new Error('the clip has no tracks');
    if (sampler.bound.length === 0) {
      throw new Error(
        `no track animates a bone of the source rig "${source.name}" (tracks: ${sampler.ignored.slice(0, 4).join(', ')}${sampler.ignored.length > 4 ? ', …' : ''})`,
      );
    }
    if (used.length === 0)
      throw new Error(
        `its tracks animate only bones the target has no counterpart for (${report.droppedTracks.slice(0, 4).join(', ')}${report.droppedTracks.length > 4 ? ', …' : ''})`,
      );
    if (!(clip.duration > 0)) report.warnings.push('zero duration: one key');
    if (report.ignoredTracks.length)
      report.warnings.push(`${report.ignoredTracks.length} track(s) address no bone of the source rig and were ignored`);

    let times = sampler.keyTimes().filter((t) => t >= 0 && t <= clip.duration + 1e-6);
    const duration = Math.max(0, clip.duration);
    if (times.length < 2 || times.length > duration * 120 + 2) times = duration > 0 ? uniformTimes(duration, context.options.fps) : [0];
    if (times[0]! > 1e-6) times.unshift(0);
    if (duration > 0 && times[times.length - 1]! < duration - 1e-6) times.push(duration);
    report.keys = times.length;

    const pairs = mapping.pairs;
    const dense = pairs.map((p) => context.denseBones.has(p.target));
    const hipsPositions = new Float32Array(times.length * 3);
    const sourcePose = bindLocalPose(source);
    const sourceWorld = source.bones.map(() => new Matrix4());
    const targetWorld = target.bones.map(() => new Matrix4());
    const targetLocal = reference.local;
    const sourceRotation = new Quaternion();
    const desired = new Quaternion();
    const parentRotation = new Quaternion();
    const parentMatrix = new Matrix4();
    const localMatrix = new Matrix4();
    const hipsWorld = new Vector3();
    const hipsLocal = new Vector3();
    const rootBind = context.sourceRoot >= 0 ? source.bones[context.sourceRoot]!.worldPosition : null;
    const rootNow = new Vector3();
    const sourceHipsBind = source.bones[hips.source]!.worldPosition;
    const targetHipsBind = reference.worldPosition[hips.target]!;
    const pairIndex = new Map(pairs.map((p, k) => [p.target, k]));
    // Attached bones (a foot under the root) get a position track that keeps them on their chain.
    const attached = [...context.attachedOffsets].filter(([bone]) => pairIndex.has(bone));
    const attachedIndex = new Map(attached.map(([bone], a) => [bone, a]));
    const attachedWorld = new Vector3();
    // Dense keys in between the source's for the dense bones: a position track is interpolated in a
    // straight line while the chain an attached bone follows swings on an arc, and a rotation key in
    // another parent's frame than the source's interpolates along another path.
    const frames: Array<{ time: number; key: number }> = [];
    times.forEach((time, f) => {
      if (context.denseBones.size && f > 0) {
        const previous = times[f - 1]!;
        const steps = Math.ceil((time - previous) * DENSE_KEY_RATE - 1e-6);
        for (let s = 1; s < steps; s++) frames.push({ time: previous + ((time - previous) * s) / steps, key: -1 });
      }
      frames.push({ time, key: f });
    });
    const attachedPositions = attached.map(() => new Float32Array(frames.length * 3));
    const rotations = pairs.map((_, k) => new Float32Array((dense[k] ? frames.length : times.length) * 4));

    frames.forEach(({ time, key: f }, frame) => {
      sampler.sample(time, sourcePose);
      forwardKinematics(source, sourcePose, sourceWorld);
      // Hips: the source hips' model-space position (root motion included), scaled.
      hipsWorld.setFromMatrixPosition(sourceWorld[hips.source]!);
      if (context.options.rootMotion === 'in-place') {
        if (rootBind) {
          rootNow.setFromMatrixPosition(sourceWorld[context.sourceRoot]!);
          hipsWorld.x -= rootNow.x - rootBind.x;
          hipsWorld.z -= rootNow.z - rootBind.z;
        } else {
          hipsWorld.x = sourceHipsBind.x;
          hipsWorld.z = sourceHipsBind.z;
        }
      }
      scaleHipsPosition(hipsWorld, sourceHipsBind, targetHipsBind, ratios, hipsWorld);
      for (const i of context.targetOrder) {
        const bone = target.bones[i]!;
        if (bone.parent >= 0) parentMatrix.multiplyMatrices(targetWorld[bone.parent]!, bone.parentOffset);
        else parentMatrix.copy(bone.parentOffset);
        const k = pairIndex.get(i);
        let position = targetLocal.position[i]!;
        let rotation = targetLocal.rotation[i]!;
        if (k !== undefined) {
          const pair = pairs[k]!;
          // target = source(t) · sourceBind⁻¹ · targetReference, then into the parent's frame.
          rotationOf(sourceWorld[pair.source]!, sourceRotation);
          desired.copy(sourceRotation).multiply(context.sourceBindInverse[pair.source]!).multiply(reference.worldRotation[i]!);
          rotationOf(parentMatrix, parentRotation);
          rotation = parentRotation.invert().multiply(desired).normalize();
          if (dense[k]) rotation.toArray(rotations[k]!, frame * 4);
          else if (f >= 0) rotation.toArray(rotations[k]!, f * 4);
          if (i === hips.target) {
            hipsLocal.copy(hipsWorld).applyMatrix4(localMatrix.copy(parentMatrix).invert());
            if (f >= 0) hipsLocal.toArray(hipsPositions, f * 3);
            position = hipsLocal;
          }
          const a = attachedIndex.get(i);
          if (a !== undefined) {
            const [, offset] = attached[a]!;
            attachedWorld.copy(offset).applyMatrix4(targetWorld[context.mapping.target.attachments.get(i)!]!);
            attachedWorld.applyMatrix4(localMatrix.copy(parentMatrix).invert());
            attachedWorld.toArray(attachedPositions[a]!, frame * 3);
            position = attachedWorld;
          }
        }
        localMatrix.compose(position, rotation, targetLocal.scale[i]!);
        targetWorld[i]!.multiplyMatrices(parentMatrix, localMatrix);
      }
    });

    const tracks: KeyframeTrack[] = [];
    const keyTimes = new Float32Array(times);
    const denseTimes = new Float32Array(frames.map((frame) => frame.time));
    pairs.forEach((pair, k) => {
      const values = rotations[k]!;
      // Keep neighbouring keys on the same hemisphere so slerp takes the short way.
      for (let f = 1; f < values.length / 4; f++) {
        const a = (f - 1) * 4;
        const b = f * 4;
        if (
          values[a]! * values[b]! + values[a + 1]! * values[b + 1]! + values[a + 2]! * values[b + 2]! + values[a + 3]! * values[b + 3]! <
          0
        ) {
          for (let c = 0; c < 4; c++) values[b + c] = -values[b + c]!;
        }
      }
      tracks.push(new QuaternionKeyframeTrack(`${target.bones[pair.target]!.name}.quaternion`, dense[k] ? denseTimes : keyTimes, values));
    });
    tracks.push(new VectorKeyframeTrack(`${target.bones[hips.target]!.name}.position`, keyTimes, hipsPositions));
    attached.forEach(([bone], a) => {
      if (bone !== hips.target)
        tracks.push(new VectorKeyframeTrack(`${target.bones[bone]!.name}.position`, denseTimes, attachedPositions[a]!));
    });
    const result = new AnimationClip(clip.name, duration, tracks);
    const data = { ...(clip.userData as Record<string, unknown>) };
    if (typeof data.speed === 'number') data.speed = data.speed * ratios.horizontal;
    if (typeof data.rigOffset === 'number') data.rigOffset = data.rigOffset * ratios.vertical;
    data.retargeted = { from: source.name, to: target.name, rootMotion: context.options.rootMotion };
    result.userData = data;
    report.tracksOut = tracks.length;
    report.ok = true;
    return { clip: result, report };
  } catch (error) {
    report.error = (error as Error).message;
    return { clip: null, report };
  }
}
