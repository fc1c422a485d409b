import { AnimationClip, Quaternion, QuaternionKeyframeTrack, Vector3, VectorKeyframeTrack } from 'three';
import { bakeClip, type ProceduralClip } from '../../rig/clips.ts';
import { MANNEQUIN } from '../../rig/mannequin.ts';
import type { SkeletonDef } from '../../rig/skeleton-def.ts';

/** What a clip is for; the parity check holds locomotion to the tightest hip bound. */
export type ClipCategory = 'locomotion' | 'jump' | 'swim' | 'climb' | 'dodge' | 'hit' | 'sword' | 'bow' | 'emote';

/** Root bone transform at a time: model-space position (metres) and yaw (radians, facing convention). */
export interface RootSample {
  /** Position x (m, model space). */
  x: number;
  /** Position y (m). */
  y: number;
  /** Position z (m). */
  z: number;
  /** Yaw (radians). */
  yaw: number;
}

/**
 * A library clip authored on the mannequin: a procedural pose over time, plus root motion on the
 * root bone as real libraries carry it (the pelvis keeps only the bob and sway relative to it).
 */
export interface LibraryClipDef extends ProceduralClip {
  /** What the clip is for. */
  category: ClipCategory;
  /** One line for the page's clip list and the docs. */
  description: string;
  /** Root bone motion; absent for clips that stay in place. */
  root?: (time: number) => RootSample;
  /**
   * Vertical offset (metres) for the whole character while this clip plays, added to the height
   * the controller puts it at: swim clips sit the body in the water (deeper for treading water,
   * see `SWIM_RIG_OFFSETS`). Blended at 5 Hz by the driver, see `RigOffsetBlend`.
   */
  rigOffset?: number;
}

/**
 * `userData` of every library clip (and, scaled, of its retargeted copies). A type alias, not an
 * interface, so it is assignable to three's `Record<string, unknown>` userData as it stands.
 */
export type LibraryClipData = {
  /** Whether the clip loops. */
  loop: boolean;
  /** Ground speed the clip is authored for (m/s). */
  speed: number;
  /** What the clip is for. */
  category: ClipCategory;
  /** One line for the clip list and the docs. */
  description: string;
  /** True when the root bone carries motion. */
  rootMotion: boolean;
  /** Vertical offset (m) while the clip plays (swim clips). Absent: 0. */
  rigOffset?: number;
};

/** Options of {@link bakeLibraryClip}. */
export interface BakeLibraryOptions {
  /** Keys per second. Default 30. */
  fps?: number;
  /** Rig the clip is authored on. Default the mannequin. */
  def?: SkeletonDef;
  /** Keep root motion (default) or bake the clip in place (root tracks left out). */
  rootMotion?: boolean;
}

const UP = new Vector3(0, 1, 0);

/** Bakes a library clip: the rig's pose tracks (see `bakeClip`) plus root position/rotation tracks. */
export function bakeLibraryClip(def: LibraryClipDef, options: BakeLibraryOptions = {}): AnimationClip {
  const fps = options.fps ?? 30;
  const rig = options.def ?? MANNEQUIN;
  // Soles on or above the floor in every frame: bakeClip's ground-contact rule (src/rig/ground-contact.ts).
  const clip = bakeClip(def, rig, fps);
  const data: LibraryClipData = {
    loop: def.loop,
    speed: def.speed,
    category: def.category,
    description: def.description,
    rootMotion: false,
  };
  if (def.rigOffset !== undefined) data.rigOffset = def.rigOffset;
  if (def.root && options.rootMotion !== false) {
    const rootName = rig.bones[0]!.name;
    const rootHead = rig.bones[0]!.head;
    const times = clip.tracks[0]!.times;
    const positions = new Float32Array(times.length * 3);
    const rotations = new Float32Array(times.length * 4);
    let turns = false;
    const q = new Quaternion();
    times.forEach((time, f) => {
      const sample = def.root!(time);
      positions.set([rootHead[0] + sample.x, rootHead[1] + sample.y, rootHead[2] + sample.z], f * 3);
      q.setFromAxisAngle(UP, sample.yaw).toArray(rotations, f * 4);
      if (Math.abs(sample.yaw) > 1e-9) turns = true;
    });
    clip.tracks.push(new VectorKeyframeTrack(`${rootName}.position`, times, positions));
    if (turns) clip.tracks.push(new QuaternionKeyframeTrack(`${rootName}.quaternion`, times, rotations));
    data.rootMotion = true;
  }
  clip.userData = data;
  return clip;
}
