import { AnimationClip, QuaternionKeyframeTrack, VectorKeyframeTrack, type KeyframeTrack } from 'three';
import { groundContact, type FloorContact } from './ground-contact.ts';
import { MANNEQUIN } from './mannequin.ts';
import { ankle, bend, curlHand, elbow, emptyPose, forearmRaise, hip, knee, qx, relaxedArms, SIDES, upperArm, type Pose } from './pose.ts';
import type { SkeletonDef } from './skeleton-def.ts';

/** Names of the procedural clips every mannequin carries. */
export const HUMANOID_CLIPS = ['idle', 'walk', 'run', 'jump', 'wave', 'dance'] as const;
/** One of {@link HUMANOID_CLIPS}. */
export type HumanoidClipName = (typeof HUMANOID_CLIPS)[number];

/** A clip as a function of time: what {@link bakeClip} samples into keyframe tracks. */
export interface ProceduralClip {
  /** The clip's name. */
  name: string;
  /** Length (s). */
  duration: number;
  /** Whether it loops. */
  loop: boolean;
  /** Ground speed the clip is authored for (m/s), so locomotion can match playback rate to speed. */
  speed: number;
  /** Keep the lower foot on the floor by moving the pelvis (for in-place locomotion). */
  grounded: boolean;
  /**
   * Raise the pelvis wherever the pose would put any joint below the floor (sitting, rolling,
   * lying): no joint goes lower than the lowest joint of the bind pose. Default false.
   */
  clearFloor?: boolean;
  /**
   * How the bake meets the floor: `'sole'` (default) keeps every shoe's sole on or above it (see
   * src/rig/ground-contact.ts); `'ankle'` keeps the pose functions' ankle grounding alone.
   */
  contact?: FloorContact;
  /** The pose at `time` seconds. */
  pose(time: number): Pose;
}

const TAU = Math.PI * 2;

const idle: ProceduralClip = {
  name: 'idle',
  duration: 4,
  loop: true,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / this.duration;
    const pose = emptyPose();
    const breath = Math.sin(TAU * p * 2);
    relaxedArms(pose, { down: 1.32 + 0.02 * breath });
    pose.rotations.set('spine_03', bend(0.015 * breath));
    pose.rotations.set('spine_05', bend(-0.01 * breath));
    pose.rotations.set('neck_02', bend(0.03, 0.12 * Math.sin(TAU * p), 0));
    pose.rotations.set('pelvis', bend(0, 0, 0.02 * Math.sin(TAU * p)));
    for (const [side, s] of SIDES) {
      const shift = 0.02 * Math.sin(TAU * p) * s;
      pose.rotations.set(`thigh_${side}`, hip(0.02, shift, s));
      pose.rotations.set(`calf_${side}`, knee(0.04));
    }
    pose.pelvisOffset.set(0.012 * Math.sin(TAU * p), 0, 0);
    return pose;
  },
};

function locomotion(
  name: string,
  duration: number,
  speed: number,
  g: { swing: number; kneeSwing: number; kneeStance: number; arm: number; elbow: number; lean: number; twist: number },
): ProceduralClip {
  return {
    name,
    duration,
    loop: true,
    speed,
    grounded: true,
    pose(time) {
      const p = time / duration;
      const pose = emptyPose();
      for (const [side, s] of SIDES) {
        const phase = TAU * p + (s > 0 ? 0 : Math.PI);
        const swing = g.swing * Math.sin(phase);
        // The knee folds while the leg travels forward (cos > 0), most at mid-swing.
        const flex = g.kneeStance + g.kneeSwing * Math.max(0, Math.cos(phase - 0.35)) ** 1.5;
        pose.rotations.set(`thigh_${side}`, hip(swing + flex * 0.25));
        pose.rotations.set(`calf_${side}`, knee(flex));
        pose.rotations.set(`foot_${side}`, ankle(-0.35 * swing - 0.3 * flex + 0.15));
        pose.rotations.set(`ball_${side}`, qx(-0.2 * Math.max(0, -Math.sin(phase))));
        // Arms swing against the legs of the same side.
        pose.rotations.set(`upperarm_${side}`, upperArm(s, 1.3, -g.arm * Math.sin(phase) + g.elbow * 0.15));
        pose.rotations.set(`lowerarm_${side}`, elbow(s, g.elbow + 0.2 * g.elbow * Math.max(0, -Math.sin(phase))));
        curlHand(pose, side, s, 0.35 + g.elbow * 0.2);
      }
      pose.rotations.set('pelvis', bend(0, g.twist * Math.sin(TAU * p)));
      pose.rotations.set('spine_01', bend(g.lean * 0.5, -g.twist * 0.5 * Math.sin(TAU * p)));
      pose.rotations.set('spine_03', bend(g.lean * 0.5, -g.twist * 0.5 * Math.sin(TAU * p)));
      pose.rotations.set('neck_01', bend(-g.lean * 0.6));
      return pose;
    },
  };
}

const walk = locomotion('walk', 1.1, 1.45, {
  swing: 0.36,
  kneeSwing: 0.75,
  kneeStance: 0.06,
  arm: 0.3,
  elbow: 0.25,
  lean: 0.04,
  twist: 0.08,
});
const run = locomotion('run', 0.68, 4.6, { swing: 0.62, kneeSwing: 1.5, kneeStance: 0.22, arm: 0.55, elbow: 1.4, lean: 0.2, twist: 0.14 });

const jump: ProceduralClip = {
  name: 'jump',
  duration: 1.0,
  loop: false,
  speed: 0,
  grounded: false,
  pose(time) {
    const pose = emptyPose();
    const p = time / this.duration;
    // crouch (0–0.25) → push (0.25–0.4) → tuck in the air (0.4–0.8) → land and recover (0.8–1).
    const crouch =
      p < 0.25
        ? Math.sin((p / 0.25) * Math.PI * 0.5)
        : p < 0.4
          ? 1 - (p - 0.25) / 0.15
          : p < 0.8
            ? 0
            : Math.sin(((p - 0.8) / 0.2) * Math.PI);
    const tuck = p > 0.4 && p < 0.8 ? Math.sin(((p - 0.4) / 0.4) * Math.PI) : 0;
    const armsUp = p < 0.25 ? -0.4 * crouch : p < 0.8 ? Math.min(1, (p - 0.25) / 0.15) : 1 - (p - 0.8) / 0.2;
    for (const [side, s] of SIDES) {
      pose.rotations.set(`thigh_${side}`, hip(0.9 * crouch + 0.9 * tuck));
      pose.rotations.set(`calf_${side}`, knee(1.5 * crouch + 1.3 * tuck));
      pose.rotations.set(`foot_${side}`, ankle(-0.6 * crouch + 0.3 * tuck));
      pose.rotations.set(`upperarm_${side}`, upperArm(s, 1.3 - 0.5 * Math.max(0, armsUp), 1.2 * armsUp));
      pose.rotations.set(`lowerarm_${side}`, elbow(s, 0.3 + 0.3 * crouch));
      curlHand(pose, side, s, 0.4);
    }
    pose.rotations.set('spine_01', bend(0.35 * crouch));
    pose.rotations.set('spine_03', bend(0.15 * crouch - 0.05 * armsUp));
    pose.rotations.set('neck_01', bend(-0.3 * crouch));
    // Crouching lowers the hips: about the knees' drop.
    pose.pelvisOffset.set(0, -0.32 * crouch * crouch + 0.05 * tuck, -0.05 * crouch);
    return pose;
  },
};

const wave: ProceduralClip = {
  name: 'wave',
  duration: 2,
  loop: true,
  speed: 0,
  grounded: true,
  pose(time) {
    const pose = idle.pose(time);
    const p = time / this.duration;
    pose.rotations.set('upperarm_r', upperArm(-1, -0.55, 0.25));
    pose.rotations.set('lowerarm_r', forearmRaise(-1, 1.25 + 0.35 * Math.sin(TAU * p * 2)));
    pose.rotations.set('hand_r', bend(0, 0, 0.1 * Math.sin(TAU * p * 2)));
    curlHand(pose, 'r', -1, 0.05);
    pose.rotations.set('neck_02', bend(0.02, -0.2, 0.05));
    return pose;
  },
};

const dance: ProceduralClip = {
  name: 'dance',
  duration: 2,
  loop: true,
  speed: 0,
  grounded: true,
  pose(time) {
    const pose = emptyPose();
    const p = time / this.duration;
    const beat = Math.sin(TAU * p * 4); // 120 bpm
    const sway = Math.sin(TAU * p * 2);
    for (const [side, s] of SIDES) {
      const up = Math.sin(TAU * p * 2 + (s > 0 ? 0 : Math.PI));
      pose.rotations.set(`thigh_${side}`, hip(0.18 + 0.12 * Math.abs(beat), 0.06, s));
      pose.rotations.set(`calf_${side}`, knee(0.35 + 0.25 * Math.abs(beat)));
      pose.rotations.set(`foot_${side}`, ankle(-0.12));
      pose.rotations.set(`upperarm_${side}`, upperArm(s, 0.35 - 0.9 * up, 0.5));
      pose.rotations.set(`lowerarm_${side}`, forearmRaise(s, 0.9 + 0.5 * up));
      curlHand(pose, side, s, 0.5);
    }
    pose.rotations.set('pelvis', bend(0, 0.2 * sway, 0.12 * sway));
    pose.rotations.set('spine_02', bend(0.05, -0.12 * sway, -0.1 * sway));
    pose.rotations.set('spine_04', bend(0, -0.08 * sway, -0.05 * sway));
    pose.rotations.set('neck_02', bend(0.12 * beat, 0.1 * sway));
    return pose;
  },
};

/** The mannequin's procedural clips, as time functions. */
export const PROCEDURAL_CLIPS: Record<HumanoidClipName, ProceduralClip> = { idle, walk, run, jump, wave, dance };

/**
 * Samples a procedural clip into a three.js AnimationClip: one quaternion track per animated bone
 * and one position track for the pelvis. Loops repeat their first key at the end so they wrap
 * seamlessly. Every frame meets the floor by the rule of src/rig/ground-contact.ts: with
 * `grounded`, the pelvis moves so the lower ankle stays at its bind height; then a foot whose sole
 * would go under the floor pitches back onto it, and the pelvis rises for what is left.
 */
export function bakeClip(clip: ProceduralClip, def: SkeletonDef = MANNEQUIN, fps = 30): AnimationClip {
  const frames = Math.max(2, Math.round(clip.duration * fps) + 1);
  const times = new Float32Array(frames);
  const rotations = new Map<string, Float32Array>();
  const pelvis = new Float32Array(frames * 3);
  if (!def.bones.some((b) => b.name === 'pelvis')) throw new Error(`bakeClip: rig "${def.name}" has no pelvis bone`);
  const ground = groundContact(def);
  const contact = { grounded: clip.grounded, clearFloor: clip.clearFloor ?? false, contact: clip.contact ?? 'sole' };

  for (let f = 0; f < frames; f++) {
    const time = (f / (frames - 1)) * clip.duration;
    times[f] = time;
    const pose = clip.pose(clip.loop && f === frames - 1 ? 0 : time);
    // Before the rotations are read: the sole rule pitches the feet.
    ground.place(pose, contact).toArray(pelvis, f * 3);
    for (const [name, q] of pose.rotations) {
      let track = rotations.get(name);
      if (!track) rotations.set(name, (track = new Float32Array(frames * 4).fill(0).map((_, i) => (i % 4 === 3 ? 1 : 0))));
      q.toArray(track, f * 4);
    }
  }
  // Quaternion tracks must take the short way between keys.
  for (const track of rotations.values()) {
    for (let f = 1; f < frames; f++) {
      const a = (f - 1) * 4;
      const b = f * 4;
      if (track[a]! * track[b]! + track[a + 1]! * track[b + 1]! + track[a + 2]! * track[b + 2]! + track[a + 3]! * track[b + 3]! < 0) {
        for (let i = 0; i < 4; i++) track[b + i] = -track[b + i]!;
      }
    }
  }
  const tracks: KeyframeTrack[] = [...rotations].map(([name, values]) => new QuaternionKeyframeTrack(`${name}.quaternion`, times, values));
  tracks.push(new VectorKeyframeTrack('pelvis.position', times, pelvis));
  const result = new AnimationClip(clip.name, clip.duration, tracks);
  result.userData = { loop: clip.loop, speed: clip.speed };
  return result;
}

/** Bakes every mannequin clip. */
export function createHumanoidClips(def: SkeletonDef = MANNEQUIN, fps = 30): AnimationClip[] {
  return HUMANOID_CLIPS.map((name) => bakeClip(PROCEDURAL_CLIPS[name], def, fps));
}
