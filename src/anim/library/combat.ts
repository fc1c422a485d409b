import { ankle, bend, compose, curlHand, elbow, emptyPose, hip, knee, qx, qz, relaxedArms, SIDES, type Pose } from '../../rig/pose.ts';
import type { LibraryClipDef } from './library-clip.ts';
import { armForward, armUp, bump, envelope, grip, openHand, ramp, TAU } from './pose-kit.ts';

/**
 * Sword and bow clips. The sword sits in the right hand, the bow in the left: those hands close
 * hard around the grip in every frame (the browser test checks the retargeted fingers do too).
 */

/** Fighting stance legs: feet apart, knees soft, left foot forward. */
function stance(pose: Pose, depth = 1): void {
  pose.rotations.set('thigh_l', hip(0.35 * depth, 0.12, 1));
  pose.rotations.set('calf_l', knee(0.45 * depth));
  pose.rotations.set('foot_l', ankle(-0.15 * depth));
  pose.rotations.set('thigh_r', hip(-0.2 * depth, 0.12, -1));
  pose.rotations.set('calf_r', knee(0.35 * depth));
  pose.rotations.set('foot_r', ankle(0.05));
  pose.rotations.set('spine_01', bend(0.08 * depth));
}

/** Sword arm (right) from a pose blend: `raise` lifts the arm overhead, `across` swings it in front. */
function swordArm(pose: Pose, raise: number, across: number, bendElbow: number): void {
  pose.rotations.set('upperarm_r', compose(armForward(-1, 0.6 + 0.9 * across), armUp(-1, -0.9 + 1.9 * raise)));
  pose.rotations.set('lowerarm_r', elbow(-1, bendElbow));
  pose.rotations.set('hand_r', compose(qx(-0.3), qz(0.2 * across)));
  grip(pose, 'r', -1, 1.3);
}

/** Off hand (left) in guard or relaxed. */
function offArm(pose: Pose, guard: number): void {
  pose.rotations.set('upperarm_l', compose(armForward(1, 0.5 * guard), armUp(1, -1.2 + 0.5 * guard)));
  pose.rotations.set('lowerarm_l', elbow(1, 0.4 + 0.9 * guard));
  curlHand(pose, 'l', 1, 0.5);
}

const swordIdle: LibraryClipDef = {
  name: 'sword_idle',
  description: 'sword guard stance, breathing, blade up',
  category: 'sword',
  duration: 2,
  loop: true,
  speed: 0,
  grounded: true,
  pose(time) {
    const breath = Math.sin((TAU * time) / 2);
    const pose = emptyPose();
    stance(pose);
    swordArm(pose, 0.35 + 0.02 * breath, 0.2, 1.2);
    offArm(pose, 0.6);
    pose.rotations.set('spine_03', bend(0.04 + 0.015 * breath, -0.15));
    pose.rotations.set('neck_02', bend(0, 0.15));
    return pose;
  },
};

/** A slash from (raise0, across0) to (raise1, across1) with a twist of the torso, over `duration`. */
function slash(
  name: string,
  description: string,
  duration: number,
  from: [number, number],
  to: [number, number],
  twist: number,
  stepForward = 0,
): LibraryClipDef {
  return {
    name,
    description,
    category: 'sword',
    duration,
    loop: false,
    speed: 0,
    grounded: true,
    root: stepForward ? (t) => ({ x: 0, y: 0, z: stepForward * ramp(t / duration, 0.3, 0.7), yaw: 0 }) : undefined,
    pose(time) {
      const p = time / duration;
      const windup = ramp(p, 0, 0.3);
      const strike = ramp(p, 0.35, 0.55);
      const recover = ramp(p, 0.7, 1);
      const k = windup * (1 - recover);
      const raise = 0.35 + (from[0] - 0.35) * k + (to[0] - from[0]) * strike * (1 - recover);
      const across = 0.2 + (from[1] - 0.2) * k + (to[1] - from[1]) * strike * (1 - recover);
      const pose = emptyPose();
      stance(pose, 1 + 0.3 * bump(p, 0.35, 0.8));
      swordArm(pose, raise, across, 1.2 - 0.9 * bump(p, 0.35, 0.65));
      offArm(pose, 0.6 - 0.3 * bump(p, 0.3, 0.7));
      const turn = twist * (k * -0.5 + strike * (1 - recover));
      pose.rotations.set('spine_01', bend(0.08 + 0.1 * strike * (1 - recover), turn * 0.5));
      pose.rotations.set('spine_03', bend(0.04, turn * 0.5 - 0.15));
      pose.rotations.set('neck_02', bend(0, -turn * 0.6 + 0.15));
      return pose;
    },
  };
}

const swordBlock: LibraryClipDef = {
  name: 'sword_block',
  description: 'high block: blade across above the head',
  category: 'sword',
  duration: 0.9,
  loop: false,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / 0.9;
    const up = envelope(p, 0, 0.25, 0.7, 1);
    const pose = emptyPose();
    stance(pose, 1 + 0.4 * up);
    swordArm(pose, 0.35 + 0.75 * up, 0.2 + 0.5 * up, 1.2 - 0.4 * up);
    offArm(pose, 0.6 + 0.4 * up);
    pose.rotations.set('spine_03', bend(-0.05 * up, -0.15));
    pose.rotations.set('neck_01', bend(-0.1 * up));
    return pose;
  },
};

/** Three slashes chained, stepping in on the last. */
function swordCombo(): LibraryClipDef {
  const parts = [
    slash('a', '', 0.8, [0.9, -0.2], [0.1, 1.0], 0.6),
    slash('b', '', 0.8, [0.6, 1.1], [0.3, -0.3], -0.7),
    slash('c', '', 1.0, [1.1, 0.3], [0.05, 0.4], 0.2),
  ];
  const duration = 2.6;
  return {
    name: 'sword_combo',
    description: 'three-hit combo: diagonal, backhand, overhead with a step in (root motion)',
    category: 'sword',
    duration,
    loop: false,
    speed: 0,
    grounded: true,
    root: (t) => ({ x: 0, y: 0, z: 0.6 * ramp(t, 1.75, 2.2), yaw: 0 }),
    pose(time) {
      if (time < 0.8) return parts[0]!.pose(time);
      if (time < 1.6) return parts[1]!.pose(time - 0.8);
      return parts[2]!.pose(Math.min(1, time - 1.6));
    },
  };
}

// ---------------------------------------------------------------- bow
/** Bow arm (left) points at the target; the right hand draws the string back to the cheek. */
function bowPose(draw: number, release = 0): Pose {
  const pose = emptyPose();
  pose.rotations.set('thigh_l', hip(0.05, 0.12, 1));
  pose.rotations.set('thigh_r', hip(-0.05, 0.12, -1));
  // Archer's stance: the torso turned side-on, the bow arm straight out towards +Z.
  pose.rotations.set('spine_01', bend(0, 0.3 * draw));
  pose.rotations.set('spine_03', bend(0, 0.35 * draw));
  pose.rotations.set('upperarm_l', armForward(1, 0.9 + 0.5 * draw, 0.1 * draw));
  pose.rotations.set('lowerarm_l', elbow(1, 0.15));
  grip(pose, 'l', 1, 1.2);
  const pull = draw * (1 - release);
  pose.rotations.set('upperarm_r', armForward(-1, 1.5 - 0.25 * pull + 0.5 * release, 0.1 * draw));
  pose.rotations.set('lowerarm_r', elbow(-1, 0.3 + 2.3 * pull));
  // Two fingers hook the string; they open on release.
  curlHand(pose, 'r', -1, 0.8 * (1 - release) + 0.1);
  pose.rotations.set('neck_02', bend(0, -0.35 * draw));
  return pose;
}

const bowDraw: LibraryClipDef = {
  name: 'bow_draw',
  description: 'raise the bow and draw the string to the cheek',
  category: 'bow',
  duration: 1.2,
  loop: false,
  speed: 0,
  grounded: true,
  pose: (time) => bowPose(ramp(time / 1.2, 0.05, 0.9)),
};

const bowAim: LibraryClipDef = {
  name: 'bow_aim',
  description: 'hold at full draw, aiming, slight sway',
  category: 'bow',
  duration: 1.5,
  loop: true,
  speed: 0,
  grounded: true,
  pose(time) {
    const pose = bowPose(1);
    const sway = Math.sin((TAU * time) / 1.5);
    pose.rotations.set('spine_03', bend(0.02 * sway, 0.35 + 0.03 * sway));
    return pose;
  },
};

const bowRelease: LibraryClipDef = {
  name: 'bow_release',
  description: 'release: the string hand flies back and opens, then the bow lowers',
  category: 'bow',
  duration: 0.9,
  loop: false,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / 0.9;
    const pose = bowPose(1 - ramp(p, 0.5, 1), ramp(p, 0, 0.12));
    if (p > 0.1) openHand(pose, 'r', -1);
    return pose;
  },
};

const swordSheathe: LibraryClipDef = {
  name: 'sword_sheathe',
  description: 'put the sword away over the left hip, then relax',
  category: 'sword',
  duration: 1.4,
  loop: false,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / 1.4;
    const cross = envelope(p, 0, 0.35, 0.6, 0.9);
    const pose = emptyPose();
    relaxedArms(pose);
    swordArm(pose, 0.35 - 0.6 * cross - 0.3 * ramp(p, 0.6, 1), 0.2 + 0.9 * cross - 0.4 * ramp(p, 0.6, 1), 1.2 - 0.7 * ramp(p, 0.5, 1));
    grip(pose, 'r', -1, 1.3 * (1 - ramp(p, 0.65, 0.85)) + 0.25);
    for (const [side] of SIDES) pose.rotations.set(`calf_${side}`, knee(0.05));
    pose.rotations.set('spine_03', bend(0.08 * cross, 0.25 * cross));
    return pose;
  },
};

export const SWORD_CLIPS: LibraryClipDef[] = [
  swordIdle,
  slash('sword_slash_1', 'diagonal slash, high right to low left', 0.8, [0.9, -0.2], [0.1, 1.0], 0.6),
  slash('sword_slash_2', 'backhand slash, left to right', 0.8, [0.6, 1.1], [0.3, -0.3], -0.7),
  slash('sword_slash_3', 'overhead strike with a step in (root motion)', 1.0, [1.1, 0.3], [0.05, 0.4], 0.2, 0.5),
  swordCombo(),
  swordBlock,
  swordSheathe,
];
export const BOW_CLIPS: LibraryClipDef[] = [bowDraw, bowAim, bowRelease];
