import type { AnimationClip, Interpolant, KeyframeTrack } from 'three';
import { bindLocalPose, copyLocalPose, type LocalPose } from './kinematics.ts';
import { boneIndexForTrack, parseTrackTarget, type RigDescription } from './rig-description.ts';

/** The factory `KeyframeTrack.setInterpolation` installs on each track at runtime. */
interface InterpolantFactory {
  createInterpolant(): Interpolant;
}

interface BoundTrack {
  track: KeyframeTrack;
  bone: number;
  property: 'position' | 'quaternion' | 'scale';
  interpolant: Interpolant;
}

/**
 * Evaluates a clip on a rig without a scene or a mixer: each track is bound to its bone once and
 * sampled with the track's own interpolant (slerp for quaternions), exactly as AnimationMixer would.
 * Bones without tracks stay at their bind transform.
 */
export class ClipSampler {
  /** Track names that address no bone of the rig, or a property other than position/quaternion/scale. */
  readonly ignored: string[] = [];
  /** Tracks bound to a bone. */
  readonly bound: readonly BoundTrack[];
  private readonly bind: LocalPose;

  readonly rig: RigDescription;
  readonly clip: AnimationClip;

  constructor(rig: RigDescription, clip: AnimationClip) {
    this.rig = rig;
    this.clip = clip;
    this.bind = bindLocalPose(rig);
    const bound: BoundTrack[] = [];
    for (const track of clip.tracks) {
      const target = parseTrackTarget(track.name);
      const bone = target ? boneIndexForTrack(rig, target.node) : undefined;
      const property = target?.property;
      if (bone === undefined || (property !== 'position' && property !== 'quaternion' && property !== 'scale')) {
        this.ignored.push(track.name);
        continue;
      }
      // createInterpolant is installed on every track by its constructor (setInterpolation picks
      // linear/slerp/discrete/cubic per the track); three's typings omit it, hence the one cast.
      const interpolant = (track as KeyframeTrack & InterpolantFactory).createInterpolant();
      bound.push({ track, bone, property, interpolant });
    }
    this.bound = bound;
  }

  /** Every distinct key time of the bound tracks, sorted (seconds). */
  keyTimes(): number[] {
    const times = new Set<number>();
    for (const { track } of this.bound) for (const t of track.times) times.add(Math.round(t * 1e6) / 1e6);
    return [...times].sort((a, b) => a - b);
  }

  /** Writes the clip's local pose at `time` into `out` (a pose of the same rig). */
  sample(time: number, out: LocalPose): LocalPose {
    copyLocalPose(this.bind, out);
    for (const { bone, property, interpolant } of this.bound) {
      const v = interpolant.evaluate(time) as ArrayLike<number>;
      if (property === 'quaternion') out.rotation[bone]!.set(v[0]!, v[1]!, v[2]!, v[3]!).normalize();
      else if (property === 'position') out.position[bone]!.set(v[0]!, v[1]!, v[2]!);
      else out.scale[bone]!.set(v[0]!, v[1]!, v[2]!);
    }
    return out;
  }
}
