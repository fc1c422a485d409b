import { PROCEDURAL_CLIPS } from '../../rig/clips.ts';
import {
  ankle,
  bend,
  compose,
  curlHand,
  elbow,
  emptyPose,
  forearmRaise,
  hip,
  knee,
  qx,
  relaxedArms,
  SIDES,
  upperArm,
} from '../../rig/pose.ts';
import type { LibraryClipDef } from './library-clip.ts';
import { armForward, armUp, bump, envelope, openHand, pointingHand, ramp, TAU } from './pose-kit.ts';

const cheer: LibraryClipDef = {
  name: 'cheer',
  description: 'both fists pumping overhead',
  category: 'emote',
  duration: 1.5,
  loop: true,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / 1.5;
    const pump = 0.5 + 0.5 * Math.sin(TAU * p * 2);
    const pose = emptyPose();
    for (const [side, s] of SIDES) {
      pose.rotations.set(`upperarm_${side}`, armUp(s, 0.9 + 0.45 * pump, 0.15));
      pose.rotations.set(`lowerarm_${side}`, forearmRaise(s, 0.9 - 0.6 * pump));
      curlHand(pose, side, s, 1.3);
      pose.rotations.set(`thigh_${side}`, hip(0.1 * pump));
      pose.rotations.set(`calf_${side}`, knee(0.25 * pump));
    }
    pose.rotations.set('neck_01', bend(-0.25));
    return pose;
  },
};

const clap: LibraryClipDef = {
  name: 'clap',
  description: 'clapping in front of the chest',
  category: 'emote',
  duration: 1.0,
  loop: true,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / 1.0;
    const meet = 0.5 + 0.5 * Math.cos(TAU * p * 2);
    const pose = emptyPose();
    for (const [side, s] of SIDES) {
      pose.rotations.set(`upperarm_${side}`, compose(qx(-0.45), upperArm(s, 1.05)));
      pose.rotations.set(`lowerarm_${side}`, elbow(s, 1.35 + 0.25 * meet));
      openHand(pose, side, s);
    }
    pose.rotations.set('spine_03', bend(0.04));
    return pose;
  },
};

const bowGreeting: LibraryClipDef = {
  name: 'bow_greeting',
  description: 'a polite bow from the hips',
  category: 'emote',
  duration: 2.0,
  loop: false,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / 2;
    const down = envelope(p, 0.1, 0.4, 0.65, 0.95);
    const pose = emptyPose();
    relaxedArms(pose, { down: 1.35, elbow: 0.1, curl: 0.15 });
    pose.rotations.set('pelvis', bend(0.35 * down));
    pose.rotations.set('spine_01', bend(0.3 * down));
    pose.rotations.set('spine_03', bend(0.2 * down));
    pose.rotations.set('neck_01', bend(0.15 * down));
    for (const [side] of SIDES) {
      pose.rotations.set(`thigh_${side}`, hip(-0.3 * down));
      pose.rotations.set(`foot_${side}`, ankle(-0.05 * down));
    }
    pose.pelvisOffset.set(0, 0, -0.12 * down);
    return pose;
  },
};

const point: LibraryClipDef = {
  name: 'point',
  description: 'point ahead with the right index finger',
  category: 'emote',
  duration: 1.5,
  loop: false,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / 1.5;
    const out = envelope(p, 0.05, 0.35, 0.75, 1);
    const pose = PROCEDURAL_CLIPS.idle.pose(time);
    pose.rotations.set('upperarm_r', compose(armForward(-1, 1.4 * out), upperArm(-1, 1.3 * (1 - out) - 0.1 * out)));
    pose.rotations.set('lowerarm_r', elbow(-1, 0.2 * (1 - out)));
    if (out > 0.2) pointingHand(pose, 'r', -1);
    pose.rotations.set('neck_02', bend(0, -0.1 * out));
    return pose;
  },
};

const shrug: LibraryClipDef = {
  name: 'shrug',
  description: 'shrug: shoulders up, palms open',
  category: 'emote',
  duration: 1.2,
  loop: false,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / 1.2;
    const up = bump(p, 0.1, 0.9);
    const pose = emptyPose();
    for (const [side, s] of SIDES) {
      pose.rotations.set(`clavicle_${side}`, upperArm(s, -0.25 * up));
      pose.rotations.set(`upperarm_${side}`, upperArm(s, 1.3 + 0.25 * up, 0.15 * up));
      pose.rotations.set(`lowerarm_${side}`, compose(elbow(s, 1.3 * up + 0.2), qx(-0.9 * up)));
      openHand(pose, side, s);
    }
    pose.rotations.set('neck_02', bend(0.15 * up, 0, 0.15 * up));
    return pose;
  },
};

const salute: LibraryClipDef = {
  name: 'salute',
  description: 'military salute, right hand to the brow',
  category: 'emote',
  duration: 1.5,
  loop: false,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / 1.5;
    const up = envelope(p, 0.05, 0.3, 0.7, 0.95);
    const pose = emptyPose();
    relaxedArms(pose, { down: 1.38, elbow: 0.05, curl: 0.1 });
    pose.rotations.set('upperarm_r', compose(armForward(-1, 0.5 * up), upperArm(-1, 1.38 - 1.25 * up)));
    pose.rotations.set('lowerarm_r', elbow(-1, 0.05 + 2.2 * up));
    openHand(pose, 'r', -1);
    pose.rotations.set('spine_03', bend(-0.04 * up));
    return pose;
  },
};

const laugh: LibraryClipDef = {
  name: 'laugh',
  description: 'laughing: head back, shoulders shaking, hand on the belly',
  category: 'emote',
  duration: 1.6,
  loop: true,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / 1.6;
    const shake = Math.sin(TAU * p * 6);
    const pose = emptyPose();
    relaxedArms(pose, { down: 1.3, elbow: 0.3, curl: 0.3 });
    pose.rotations.set('upperarm_l', upperArm(1, 1.2, 0.35));
    pose.rotations.set('lowerarm_l', elbow(1, 1.6));
    pose.rotations.set('spine_03', bend(-0.12 + 0.03 * shake));
    pose.rotations.set('neck_01', bend(-0.25 + 0.05 * shake));
    for (const [side] of SIDES) pose.rotations.set(`calf_${side}`, knee(0.05));
    return pose;
  },
};

const sitGround: LibraryClipDef = {
  name: 'sit_ground',
  description: 'sit down cross-legged on the ground, then rest',
  category: 'emote',
  duration: 2.4,
  loop: false,
  speed: 0,
  grounded: false,
  clearFloor: true,
  pose(time) {
    const p = time / 2.4;
    const down = ramp(p, 0.05, 0.6);
    const pose = emptyPose();
    for (const [side, s] of SIDES) {
      pose.rotations.set(`thigh_${side}`, hip(1.45 * down, 0.75 * down, s));
      pose.rotations.set(`calf_${side}`, knee(2.3 * down));
      pose.rotations.set(`foot_${side}`, ankle(0.4 * down));
      pose.rotations.set(`upperarm_${side}`, upperArm(s, 1.3, 0.5 * down));
      pose.rotations.set(`lowerarm_${side}`, elbow(s, 0.7 * down + 0.2));
      curlHand(pose, side, s, 0.3);
    }
    pose.rotations.set('spine_01', bend(0.15 * down));
    pose.pelvisOffset.set(0, -0.82 * down, -0.1 * down);
    return pose;
  },
};

export const EMOTE_CLIPS: LibraryClipDef[] = [
  { ...PROCEDURAL_CLIPS.wave, name: 'wave', description: 'waving hello with the right hand', category: 'emote' },
  { ...PROCEDURAL_CLIPS.dance, name: 'dance', description: '120 bpm dance: bounce, sway, arms up', category: 'emote' },
  cheer,
  clap,
  bowGreeting,
  point,
  shrug,
  salute,
  laugh,
  sitGround,
];
