import { PROCEDURAL_CLIPS } from '../../rig/clips.ts';
import { ankle, bend, curlHand, elbow, emptyPose, hip, knee, qx, relaxedArms, SIDES, upperArm, type Pose } from '../../rig/pose.ts';
import type { LibraryClipDef, RootSample } from './library-clip.ts';
import { TAU } from './pose-kit.ts';

/** Gait shape: leg swing, knee flexion in swing and stance, arm swing, elbow, lean, hip twist (radians). */
interface Gait {
  swing: number;
  kneeSwing: number;
  kneeStance: number;
  arm: number;
  elbow: number;
  lean: number;
  twist: number;
  /** Extra crouch: knee bend everywhere and a lower, forward-leaning body. */
  crouch?: number;
}

/** A forward gait cycle at phase p ∈ [0, 1) (the same shape as the mannequin's built-in walk). */
function forwardGait(p: number, g: Gait): Pose {
  const pose = emptyPose();
  const crouch = g.crouch ?? 0;
  for (const [side, s] of SIDES) {
    const phase = TAU * p + (s > 0 ? 0 : Math.PI);
    const swing = g.swing * Math.sin(phase);
    const flex = g.kneeStance + crouch * 1.1 + g.kneeSwing * Math.max(0, Math.cos(phase - 0.35)) ** 1.5;
    pose.rotations.set(`thigh_${side}`, hip(swing + flex * 0.25 + crouch * 0.45));
    pose.rotations.set(`calf_${side}`, knee(flex));
    pose.rotations.set(`foot_${side}`, ankle(-0.35 * swing - 0.3 * flex + 0.15 + crouch * 0.25));
    pose.rotations.set(`ball_${side}`, qx(-0.2 * Math.max(0, -Math.sin(phase))));
    pose.rotations.set(`upperarm_${side}`, upperArm(s, 1.3 - crouch * 0.2, -g.arm * Math.sin(phase) + g.elbow * 0.15));
    pose.rotations.set(`lowerarm_${side}`, elbow(s, g.elbow + 0.2 * g.elbow * Math.max(0, -Math.sin(phase))));
    curlHand(pose, side, s, 0.35 + g.elbow * 0.2);
  }
  const lean = g.lean + crouch * 0.5;
  pose.rotations.set('pelvis', bend(crouch * 0.2, g.twist * Math.sin(TAU * p)));
  pose.rotations.set('spine_01', bend(lean * 0.5, -g.twist * 0.5 * Math.sin(TAU * p)));
  pose.rotations.set('spine_03', bend(lean * 0.5, -g.twist * 0.5 * Math.sin(TAU * p)));
  pose.rotations.set('neck_01', bend(-lean * 0.6));
  pose.pelvisOffset.set(0, -crouch * 0.3, 0);
  return pose;
}

/** A sideways gait: legs open and close across the body; `s` of the leading side. */
function sideGait(p: number, g: Gait, direction: 1 | -1): Pose {
  const pose = emptyPose();
  for (const [side, s] of SIDES) {
    // The leading leg steps out while the trailing one closes in: abduction out of phase.
    const phase = TAU * p + (s === direction ? 0 : Math.PI);
    const open = g.swing * Math.max(0, Math.sin(phase));
    const lift = g.kneeSwing * Math.max(0, Math.sin(phase)) ** 2;
    pose.rotations.set(`thigh_${side}`, hip(0.08 + lift * 0.35, open * 0.9 - 0.03, s));
    pose.rotations.set(`calf_${side}`, knee(g.kneeStance + lift));
    pose.rotations.set(`foot_${side}`, ankle(0.1 - 0.3 * lift));
    pose.rotations.set(`upperarm_${side}`, upperArm(s, 1.25, 0.1 + g.elbow * 0.15));
    pose.rotations.set(`lowerarm_${side}`, elbow(s, g.elbow));
    curlHand(pose, side, s, 0.35 + g.elbow * 0.2);
  }
  pose.rotations.set('pelvis', bend(0, 0, 0.05 * direction * Math.sin(TAU * p * 2)));
  pose.rotations.set('spine_01', bend(g.lean * 0.5));
  pose.rotations.set('spine_03', bend(g.lean * 0.5, 0, -0.04 * direction));
  return pose;
}

const still = (): RootSample => ({ x: 0, y: 0, z: 0, yaw: 0 });
/** Constant-velocity root motion along model axes (m/s). */
const travel =
  (vx: number, vz: number) =>
  (t: number): RootSample => ({ x: vx * t, y: 0, z: vz * t, yaw: 0 });

function gaitClip(
  name: string,
  description: string,
  duration: number,
  speed: number,
  root: (t: number) => RootSample,
  pose: (p: number) => Pose,
): LibraryClipDef {
  return {
    name,
    description,
    category: 'locomotion',
    duration,
    loop: true,
    speed,
    grounded: true,
    root,
    pose: (time) => pose(time / duration),
  };
}

const JOG: Gait = { swing: 0.5, kneeSwing: 1.15, kneeStance: 0.14, arm: 0.42, elbow: 1.1, lean: 0.12, twist: 0.11 };
const SPRINT: Gait = { swing: 0.78, kneeSwing: 1.8, kneeStance: 0.28, arm: 0.75, elbow: 1.5, lean: 0.32, twist: 0.16 };
const WALK_BACK: Gait = { swing: 0.3, kneeSwing: 0.7, kneeStance: 0.08, arm: 0.2, elbow: 0.25, lean: -0.02, twist: 0.06 };
const RUN_BACK: Gait = { swing: 0.45, kneeSwing: 1.2, kneeStance: 0.2, arm: 0.35, elbow: 1.2, lean: 0.05, twist: 0.1 };
const STRAFE_WALK: Gait = { swing: 0.28, kneeSwing: 0.55, kneeStance: 0.08, arm: 0, elbow: 0.3, lean: 0.03, twist: 0 };
const STRAFE_RUN: Gait = { swing: 0.42, kneeSwing: 0.95, kneeStance: 0.2, arm: 0, elbow: 1.1, lean: 0.1, twist: 0 };
const CROUCH: Gait = { swing: 0.3, kneeSwing: 0.6, kneeStance: 0.1, arm: 0.15, elbow: 0.6, lean: 0.1, twist: 0.05, crouch: 0.7 };

/** A turn on the spot: small steps while the root yaws by `angle` over the clip. */
function turnClip(name: string, angle: number): LibraryClipDef {
  const duration = 1.0;
  return {
    name,
    description: `turn ${angle > 0 ? 'left' : 'right'} 90° on the spot (root rotation)`,
    category: 'locomotion',
    duration,
    loop: false,
    speed: 0,
    grounded: true,
    root: (t) => ({ x: 0, y: 0, z: 0, yaw: angle * (t / duration) ** 2 * (3 - 2 * (t / duration)) }),
    pose(time) {
      const p = time / duration;
      const pose = forwardGait(p, { swing: 0.12, kneeSwing: 0.6, kneeStance: 0.06, arm: 0.1, elbow: 0.25, lean: 0.02, twist: 0 });
      // The head leads into the turn.
      pose.rotations.set('neck_02', bend(0, Math.sign(angle) * 0.3 * Math.sin(Math.PI * p)));
      return pose;
    },
  };
}

/** Locomotion: idles, walks, jogs, runs and strafes in four directions, crouching, turning. */
export const LOCOMOTION_CLIPS: LibraryClipDef[] = [
  { ...PROCEDURAL_CLIPS.idle, name: 'idle', description: 'breathing idle, weight shifting', category: 'locomotion', root: still },
  {
    name: 'idle_alert',
    description: 'alert idle: knees soft, looking left and right',
    category: 'locomotion',
    duration: 3,
    loop: true,
    speed: 0,
    grounded: true,
    pose(time) {
      const p = time / 3;
      const pose = PROCEDURAL_CLIPS.idle.pose((time / 3) * 4);
      relaxedArms(pose, { down: 1.15, elbow: 0.55, curl: 0.5 });
      for (const [side] of SIDES) {
        pose.rotations.set(`thigh_${side}`, hip(0.12));
        pose.rotations.set(`calf_${side}`, knee(0.25));
        pose.rotations.set(`foot_${side}`, ankle(-0.12));
      }
      pose.rotations.set('spine_03', bend(0.08));
      pose.rotations.set('neck_02', bend(0, 0.5 * Math.sin(TAU * p), 0));
      return pose;
    },
  },
  gaitClip(
    'walk_fwd',
    'walk forward, 1.45 m/s',
    PROCEDURAL_CLIPS.walk.duration,
    PROCEDURAL_CLIPS.walk.speed,
    travel(0, PROCEDURAL_CLIPS.walk.speed),
    (p) => PROCEDURAL_CLIPS.walk.pose(p * PROCEDURAL_CLIPS.walk.duration),
  ),
  gaitClip('walk_back', 'walk backwards, 1.1 m/s', 1.2, 1.1, travel(0, -1.1), (p) => forwardGait(1 - p, WALK_BACK)),
  gaitClip('walk_left', 'side-step to the left, 1.0 m/s', 1.2, 1.0, travel(1.0, 0), (p) => sideGait(p, STRAFE_WALK, 1)),
  gaitClip('walk_right', 'side-step to the right, 1.0 m/s', 1.2, 1.0, travel(-1.0, 0), (p) => sideGait(p, STRAFE_WALK, -1)),
  gaitClip('jog_fwd', 'jog forward, 2.8 m/s', 0.8, 2.8, travel(0, 2.8), (p) => forwardGait(p, JOG)),
  gaitClip(
    'run_fwd',
    'run forward, 4.6 m/s',
    PROCEDURAL_CLIPS.run.duration,
    PROCEDURAL_CLIPS.run.speed,
    travel(0, PROCEDURAL_CLIPS.run.speed),
    (p) => PROCEDURAL_CLIPS.run.pose(p * PROCEDURAL_CLIPS.run.duration),
  ),
  gaitClip('run_back', 'run backwards, 2.6 m/s', 0.75, 2.6, travel(0, -2.6), (p) => forwardGait(1 - p, RUN_BACK)),
  gaitClip('run_left', 'strafe run to the left, 3 m/s', 0.7, 3.0, travel(3.0, 0), (p) => sideGait(p, STRAFE_RUN, 1)),
  gaitClip('run_right', 'strafe run to the right, 3 m/s', 0.7, 3.0, travel(-3.0, 0), (p) => sideGait(p, STRAFE_RUN, -1)),
  gaitClip('sprint', 'sprint, 7 m/s, leaning in', 0.56, 7.0, travel(0, 7.0), (p) => forwardGait(p, SPRINT)),
  {
    name: 'crouch_idle',
    description: 'crouched idle, breathing',
    category: 'locomotion',
    duration: 3,
    loop: true,
    speed: 0,
    grounded: true,
    pose(time) {
      const p = time / 3;
      const pose = forwardGait(0.25, { ...CROUCH, swing: 0, kneeSwing: 0 });
      pose.rotations.set('spine_03', bend(0.2 + 0.02 * Math.sin(TAU * p * 2)));
      pose.rotations.set('neck_01', bend(-0.4));
      return pose;
    },
  },
  gaitClip('crouch_walk', 'crouched walk, 0.9 m/s', 1.3, 0.9, travel(0, 0.9), (p) => forwardGait(p, CROUCH)),
  turnClip('turn_left', Math.PI / 2),
  turnClip('turn_right', -Math.PI / 2),
];
