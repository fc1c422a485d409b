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
  qy,
  relaxedArms,
  SIDES,
  upperArm,
  type Pose,
} from '../../rig/pose.ts';
import type { LibraryClipDef } from './library-clip.ts';
import { addRotation, armUp, bump, envelope, grip, ramp, TAU } from './pose-kit.ts';

/** Legs in a tuck: hips and knees folded by `amount` (0..1). */
function tuck(pose: Pose, amount: number): void {
  for (const [side] of SIDES) {
    pose.rotations.set(`thigh_${side}`, hip(1.7 * amount));
    pose.rotations.set(`calf_${side}`, knee(2.2 * amount));
    pose.rotations.set(`foot_${side}`, ankle(0.3 * amount));
  }
}

// ---------------------------------------------------------------- jumps
const jumpForward: LibraryClipDef = {
  name: 'jump_forward',
  description: 'running jump: 2.2 m forward, 0.5 m up (root motion)',
  category: 'jump',
  duration: 1.1,
  loop: false,
  speed: 2.0,
  grounded: false,
  root(t) {
    const p = t / 1.1;
    const air = Math.min(1, Math.max(0, (p - 0.25) / 0.55));
    return { x: 0, y: 0.5 * Math.sin(Math.PI * air), z: 2.2 * ramp(p, 0.15, 0.9), yaw: 0 };
  },
  pose(time) {
    const p = time / 1.1;
    const pose = PROCEDURAL_CLIPS.jump.pose(p);
    // One leg leads in the air, the other trails: on top of the jump's own crouch, so the legs stay
    // bent while the hips are low at take-off and landing (straight legs there go through the floor).
    const air = bump(p, 0.25, 0.85);
    addRotation(pose, 'thigh_l', hip(0.6 * air));
    addRotation(pose, 'calf_l', knee(0.3 * air));
    addRotation(pose, 'thigh_r', hip(-0.45 * air));
    addRotation(pose, 'calf_r', knee(1.0 * air));
    return pose;
  },
};

const fallLoop: LibraryClipDef = {
  name: 'fall_loop',
  description: 'falling: arms up and out, legs pedalling',
  category: 'jump',
  duration: 0.8,
  loop: true,
  speed: 0,
  grounded: false,
  pose(time) {
    const p = time / 0.8;
    const pose = emptyPose();
    for (const [side, s] of SIDES) {
      const phase = TAU * p + (s > 0 ? 0 : Math.PI);
      pose.rotations.set(`upperarm_${side}`, armUp(s, 0.6 + 0.15 * Math.sin(phase), 0.2));
      pose.rotations.set(`lowerarm_${side}`, forearmRaise(s, 0.4 + 0.2 * Math.cos(phase)));
      curlHand(pose, side, s, 0.2);
      pose.rotations.set(`thigh_${side}`, hip(0.35 + 0.3 * Math.sin(phase)));
      pose.rotations.set(`calf_${side}`, knee(0.6 + 0.3 * Math.cos(phase)));
    }
    pose.rotations.set('spine_03', bend(-0.1));
    pose.rotations.set('neck_01', bend(0.2));
    return pose;
  },
};

const land: LibraryClipDef = {
  name: 'land',
  description: 'landing from a fall: absorb and stand up',
  category: 'jump',
  duration: 0.7,
  loop: false,
  speed: 0,
  grounded: true,
  pose(time) {
    const p = time / 0.7;
    const absorb = p < 0.2 ? ramp(p, 0, 0.2) : 1 - ramp(p, 0.25, 1);
    const pose = emptyPose();
    relaxedArms(pose, { down: 1.3 - 0.5 * absorb, elbow: 0.3 + 0.4 * absorb });
    for (const [side] of SIDES) {
      pose.rotations.set(`thigh_${side}`, hip(1.0 * absorb, 0.05, side === 'l' ? 1 : -1));
      pose.rotations.set(`calf_${side}`, knee(1.6 * absorb));
      pose.rotations.set(`foot_${side}`, ankle(-0.6 * absorb));
    }
    pose.rotations.set('spine_01', bend(0.4 * absorb));
    pose.rotations.set('neck_01', bend(-0.35 * absorb));
    return pose;
  },
};

// ---------------------------------------------------------------- swimming
/**
 * Rig offsets of the swim clips (metres), added to the height the controller puts the character at.
 * They assume a controller that floats a swimmer's feet 1.25 m below the surface, as Cairn's world
 * does: treading water sits 10 cm deeper (head and shoulders out), the crawl and the breaststroke
 * lift the horizontal body up to the surface.
 */
export const SWIM_RIG_OFFSETS = {
  /** The crawl: the body lifted 20 cm, up to the surface. */
  freestyle: 0.2,
  /** The breaststroke: lifted 15 cm. */
  breaststroke: 0.15,
  /** Treading water: 10 cm deeper, head and shoulders out. */
  tread: -0.1,
} as const;

const swimFreestyle: LibraryClipDef = {
  name: 'swim_freestyle',
  description: 'front crawl, 1.3 m/s: arms circling, flutter kick, breathing to the side',
  category: 'swim',
  duration: 1.4,
  loop: true,
  speed: 1.3,
  grounded: false,
  rigOffset: SWIM_RIG_OFFSETS.freestyle,
  root: (t) => ({ x: 0, y: 0, z: 1.3 * t, yaw: 0 }),
  pose(time) {
    const p = time / 1.4;
    const pose = emptyPose();
    // Lie face down: the pelvis tilts the whole body forward, then the body rolls with the stroke.
    pose.rotations.set('pelvis', compose(bend(1.45), qy(0.25 * Math.sin(TAU * p))));
    for (const [side, s] of SIDES) {
      // One full arm circle per cycle in the body's sagittal plane, the arms half a cycle apart.
      const stroke = TAU * p + (s > 0 ? 0 : Math.PI);
      pose.rotations.set(`upperarm_${side}`, compose(qx(-stroke), upperArm(s, Math.PI / 2)));
      pose.rotations.set(`lowerarm_${side}`, elbow(s, 0.5 * Math.max(0, Math.sin(stroke))));
      curlHand(pose, side, s, 0.15);
      const kick = Math.sin(TAU * p * 3 + (s > 0 ? 0 : Math.PI));
      pose.rotations.set(`thigh_${side}`, hip(0.22 * kick));
      pose.rotations.set(`calf_${side}`, knee(0.25 + 0.2 * kick));
      pose.rotations.set(`foot_${side}`, ankle(0.9));
    }
    // Breathe to the left every other stroke.
    pose.rotations.set('neck_02', bend(-0.4, 0.7 * bump(p, 0.05, 0.4), 0));
    pose.rotations.set('spine_03', bend(-0.1, -0.15 * Math.sin(TAU * p)));
    pose.pelvisOffset.set(0, 0, 0);
    return pose;
  },
};

const swimTread: LibraryClipDef = {
  name: 'swim_tread',
  description: 'treading water in place: sculling arms, eggbeater legs',
  category: 'swim',
  duration: 2.0,
  loop: true,
  speed: 0,
  grounded: false,
  rigOffset: SWIM_RIG_OFFSETS.tread,
  pose(time) {
    const p = time / 2;
    const pose = emptyPose();
    pose.rotations.set('pelvis', bend(0.15));
    for (const [side, s] of SIDES) {
      const scull = Math.sin(TAU * p * 2 + (s > 0 ? 0 : Math.PI / 2));
      pose.rotations.set(`upperarm_${side}`, upperArm(s, 0.85, 0.35 + 0.3 * scull));
      pose.rotations.set(`lowerarm_${side}`, compose(elbow(s, 0.9), qx(0.4 * scull)));
      pose.rotations.set(`hand_${side}`, qx(0.5 * scull));
      curlHand(pose, side, s, 0.1);
      // Eggbeater: each knee circles, the legs a quarter turn apart.
      const beat = TAU * p * 2 + (s > 0 ? 0 : Math.PI);
      pose.rotations.set(`thigh_${side}`, hip(0.9 + 0.15 * Math.sin(beat), 0.35 + 0.15 * Math.cos(beat), s));
      pose.rotations.set(`calf_${side}`, knee(1.4 + 0.35 * Math.sin(beat + 1)));
      pose.rotations.set(`foot_${side}`, ankle(0.3));
    }
    pose.rotations.set('spine_03', bend(-0.05));
    pose.rotations.set('neck_01', bend(-0.15, 0.2 * Math.sin(TAU * p)));
    pose.pelvisOffset.set(0, 0.03 * Math.sin(TAU * p * 4), 0);
    return pose;
  },
};

const swimBreaststroke: LibraryClipDef = {
  name: 'swim_breaststroke',
  description: 'breaststroke, 0.9 m/s: pull, kick, glide',
  category: 'swim',
  duration: 1.6,
  loop: true,
  speed: 0.9,
  grounded: false,
  rigOffset: SWIM_RIG_OFFSETS.breaststroke,
  root: (t) => ({ x: 0, y: 0, z: 0.9 * t, yaw: 0 }),
  pose(time) {
    const p = time / 1.6;
    const pull = bump(p, 0, 0.45);
    const recover = bump(p, 0.3, 0.7);
    const kick = bump(p, 0.45, 0.8);
    const pose = emptyPose();
    pose.rotations.set('pelvis', bend(1.35 - 0.25 * pull));
    for (const [side, s] of SIDES) {
      // Arms forward (overhead when prone), sweep out and back, then shoot forward again.
      pose.rotations.set(`upperarm_${side}`, compose(qx(-(Math.PI - 0.9 * pull - 0.4 * recover)), upperArm(s, Math.PI / 2 - 0.6 * pull)));
      pose.rotations.set(`lowerarm_${side}`, elbow(s, 1.3 * recover));
      curlHand(pose, side, s, 0.1);
      pose.rotations.set(`thigh_${side}`, hip(0.9 * recover - 0.1 * kick, 0.5 * kick, s));
      pose.rotations.set(`calf_${side}`, knee(0.2 + 1.8 * recover));
      pose.rotations.set(`foot_${side}`, ankle(0.8 - 1.2 * recover));
    }
    pose.rotations.set('neck_01', bend(-0.7 * pull - 0.2));
    return pose;
  },
};

// ---------------------------------------------------------------- climbing
const climbLadder: LibraryClipDef = {
  name: 'climb_ladder',
  description: 'climb a ladder, 0.5 m/s up: hands grip the rungs in turn',
  category: 'climb',
  duration: 1.2,
  loop: true,
  speed: 0,
  grounded: false,
  root: (t) => ({ x: 0, y: 0.5 * t, z: 0, yaw: 0 }),
  pose(time) {
    const p = time / 1.2;
    const pose = emptyPose();
    for (const [side, s] of SIDES) {
      const phase = TAU * p + (s > 0 ? 0 : Math.PI);
      const reach = 0.5 + 0.5 * Math.sin(phase);
      pose.rotations.set(`upperarm_${side}`, armUp(s, 0.7 + 0.6 * reach, 0.35));
      pose.rotations.set(`lowerarm_${side}`, elbow(s, 1.5 - 1.0 * reach));
      grip(pose, side, s, 1.1);
      const step = 0.5 + 0.5 * Math.sin(phase + Math.PI);
      pose.rotations.set(`thigh_${side}`, hip(0.2 + 1.0 * step));
      pose.rotations.set(`calf_${side}`, knee(0.3 + 1.2 * step));
      pose.rotations.set(`foot_${side}`, ankle(-0.2));
    }
    pose.rotations.set('spine_01', bend(0.1));
    pose.rotations.set('neck_01', bend(-0.25));
    pose.pelvisOffset.set(0, 0.04 * Math.sin(TAU * p * 2), -0.08);
    return pose;
  },
};

const climbLedge: LibraryClipDef = {
  name: 'climb_ledge',
  description: 'pull up onto a ledge: hang, pull, knee up, stand (root 1.6 m up, 0.45 m in)',
  category: 'climb',
  duration: 1.8,
  loop: false,
  speed: 0,
  grounded: false,
  root(t) {
    const p = t / 1.8;
    return { x: 0, y: 1.6 * ramp(p, 0.15, 0.75), z: 0.45 * ramp(p, 0.5, 0.95), yaw: 0 };
  },
  pose(time) {
    const p = time / 1.8;
    const hang = 1 - ramp(p, 0.15, 0.55);
    const pull = envelope(p, 0.15, 0.45, 0.55, 0.8);
    const knee1 = envelope(p, 0.45, 0.65, 0.75, 0.95);
    const pose = emptyPose();
    for (const [side, s] of SIDES) {
      // Arms overhead while hanging, hands pressing down beside the hips at the top.
      pose.rotations.set(`upperarm_${side}`, armUp(s, 1.3 * hang - 1.2 * (1 - hang) * (1 - ramp(p, 0.8, 1)), 0.3 + 0.4 * pull));
      pose.rotations.set(`lowerarm_${side}`, elbow(s, 1.6 * pull));
      grip(pose, side, s, 1.1 * (1 - ramp(p, 0.7, 0.9)) + 0.2);
    }
    pose.rotations.set('thigh_l', hip(1.4 * knee1 + 0.2 * pull));
    pose.rotations.set('calf_l', knee(1.8 * knee1 + 0.3 * pull));
    pose.rotations.set('thigh_r', hip(0.3 * pull + 0.5 * knee1));
    pose.rotations.set('calf_r', knee(0.4 * pull + 0.9 * knee1));
    pose.rotations.set('spine_01', bend(0.5 * knee1 + 0.15 * pull));
    pose.rotations.set('neck_01', bend(-0.3 * hang));
    return pose;
  },
};

// ---------------------------------------------------------------- dodges
function dodge(name: string, description: string, dx: number, dz: number): LibraryClipDef {
  const sideways = Math.abs(dx) > Math.abs(dz);
  return {
    name,
    description,
    category: 'dodge',
    duration: 0.7,
    loop: false,
    speed: 0,
    grounded: true,
    root: (t) => ({ x: dx * ramp(t / 0.7, 0.05, 0.7), y: 0, z: dz * ramp(t / 0.7, 0.05, 0.7), yaw: 0 }),
    pose(time) {
      const p = time / 0.7;
      const lean = bump(p, 0, 1);
      const pose = emptyPose();
      relaxedArms(pose, { down: 1.1, elbow: 0.8, curl: 0.6 });
      const dir = sideways ? Math.sign(dx) : Math.sign(dz);
      for (const [side, s] of SIDES) {
        const leading = sideways ? s === dir : s > 0;
        const step = leading ? bump(p, 0.05, 0.55) : bump(p, 0.35, 0.9);
        if (sideways) pose.rotations.set(`thigh_${side}`, hip(0.35 * lean + 0.2 * step, 0.35 * step * (leading ? 1 : 0.3), s));
        else pose.rotations.set(`thigh_${side}`, hip(0.4 * lean - 0.5 * step * (leading ? 1 : 0.2)));
        pose.rotations.set(`calf_${side}`, knee(0.6 * lean + 0.6 * step));
        pose.rotations.set(`foot_${side}`, ankle(-0.3 * lean));
      }
      if (sideways) pose.rotations.set('spine_01', bend(0.25 * lean, 0, 0.35 * dir * lean));
      else pose.rotations.set('spine_01', bend(0.4 * lean));
      pose.rotations.set('neck_01', bend(-0.2 * lean));
      return pose;
    },
  };
}

const rollForward: LibraryClipDef = {
  name: 'roll_forward',
  description: 'forward roll over the shoulder, 2.4 m (root motion)',
  category: 'dodge',
  duration: 1.0,
  loop: false,
  speed: 0,
  grounded: false,
  root: (t) => ({ x: 0, y: 0, z: 2.4 * ramp(t, 0.05, 0.95), yaw: 0 }),
  clearFloor: true,
  pose(time) {
    const p = time;
    const roll = ramp(p, 0.15, 0.8);
    const curl = bump(p, 0.05, 0.95);
    const pose = emptyPose();
    // The whole body turns one full circle forward about the hips, tucked.
    pose.rotations.set('pelvis', bend(TAU * roll));
    tuck(pose, curl);
    for (const [side, s] of SIDES) {
      pose.rotations.set(`upperarm_${side}`, upperArm(s, 1.2, 0.9 * curl));
      pose.rotations.set(`lowerarm_${side}`, elbow(s, 1.4 * curl));
      curlHand(pose, side, s, 0.7);
    }
    pose.rotations.set('spine_01', bend(0.45 * curl));
    pose.rotations.set('spine_03', bend(0.35 * curl));
    pose.rotations.set('neck_01', bend(0.5 * curl));
    // Hips drop to the floor while the body is upside down (clearFloor keeps every joint above it).
    pose.pelvisOffset.set(0, -0.62 * curl, 0);
    return pose;
  },
};

// ---------------------------------------------------------------- hit reactions
function hit(
  name: string,
  description: string,
  forward: number,
  side: number,
  twist: number,
  push: { x: number; z: number },
): LibraryClipDef {
  return {
    name,
    description,
    category: 'hit',
    duration: 0.6,
    loop: false,
    speed: 0,
    grounded: true,
    root: (t) => ({ x: push.x * ramp(t / 0.6, 0, 0.5), y: 0, z: push.z * ramp(t / 0.6, 0, 0.5), yaw: 0 }),
    pose(time) {
      const p = time / 0.6;
      // A sharp snap, then a damped return.
      const snap = p < 0.12 ? ramp(p, 0, 0.12) : Math.exp(-(p - 0.12) * 6) * Math.cos((p - 0.12) * 9);
      const pose = emptyPose();
      relaxedArms(pose, { down: 1.2 - 0.3 * snap, elbow: 0.4 + 0.4 * snap, curl: 0.5 });
      pose.rotations.set('spine_01', bend(forward * 0.5 * snap, twist * 0.5 * snap, side * 0.5 * snap));
      pose.rotations.set('spine_03', bend(forward * 0.5 * snap, twist * 0.5 * snap, side * 0.5 * snap));
      pose.rotations.set('neck_01', bend(forward * 0.6 * snap, 0, side * 0.4 * snap));
      for (const [s] of SIDES) {
        pose.rotations.set(`thigh_${s}`, hip(0.1 * Math.abs(snap)));
        pose.rotations.set(`calf_${s}`, knee(0.25 * Math.abs(snap)));
      }
      return pose;
    },
  };
}

const knockback: LibraryClipDef = {
  name: 'knockback',
  description: 'knocked back 1.8 m, stumbling to keep balance (root motion)',
  category: 'hit',
  duration: 1.2,
  loop: false,
  speed: 0,
  grounded: true,
  root: (t) => ({ x: 0, y: 0, z: -1.8 * (1 - (1 - Math.min(1, t / 1.0)) ** 3), yaw: 0 }),
  pose(time) {
    const p = time / 1.2;
    const reel = envelope(p, 0, 0.1, 0.5, 1);
    const pose = emptyPose();
    for (const [side, s] of SIDES) {
      pose.rotations.set(`upperarm_${side}`, upperArm(s, 0.6 + 0.6 * (1 - reel), 0.6 * reel));
      pose.rotations.set(`lowerarm_${side}`, elbow(s, 0.5 + 0.5 * reel));
      curlHand(pose, side, s, 0.3);
      // Stumbling steps backwards, alternating.
      const step = bump((p * 3 + (s > 0 ? 0 : 0.5)) % 1, 0, 1) * reel;
      pose.rotations.set(`thigh_${side}`, hip(0.2 * reel - 0.45 * step));
      pose.rotations.set(`calf_${side}`, knee(0.3 * reel + 0.7 * step));
      pose.rotations.set(`foot_${side}`, ankle(-0.1));
    }
    pose.rotations.set('spine_01', bend(-0.35 * reel));
    pose.rotations.set('spine_03', bend(-0.2 * reel));
    pose.rotations.set('neck_01', bend(0.45 * reel));
    return pose;
  },
};

const knockdown: LibraryClipDef = {
  name: 'knockdown',
  description: 'knocked down onto the back, 0.8 m back (root motion), lying still',
  category: 'hit',
  duration: 2.0,
  loop: false,
  speed: 0,
  grounded: false,
  root: (t) => ({ x: 0, y: 0, z: -0.8 * ramp(t / 2, 0, 0.4), yaw: 0 }),
  pose(time) {
    const p = time / 2;
    const fall = ramp(p, 0.05, 0.45);
    const bounce = bump(p, 0.4, 0.55);
    const pose = emptyPose();
    // Tip over backwards about the hips until lying face up, the hips settling near the floor.
    pose.rotations.set('pelvis', bend(-1.5 * fall));
    for (const [side, s] of SIDES) {
      pose.rotations.set(`upperarm_${side}`, upperArm(s, 1.2 - 0.9 * fall, 0.3 * bump(p, 0, 0.5)));
      pose.rotations.set(`lowerarm_${side}`, elbow(s, 0.3 + 0.2 * fall));
      curlHand(pose, side, s, 0.4);
      pose.rotations.set(`thigh_${side}`, hip(0.8 * bump(p, 0.05, 0.5) + 0.15 * fall, 0.1 * fall, s));
      pose.rotations.set(`calf_${side}`, knee(1.0 * bump(p, 0.05, 0.5) + 0.2 * fall));
    }
    pose.rotations.set('spine_01', bend(0.3 * bump(p, 0.05, 0.45) + 0.1 * bounce));
    pose.rotations.set('neck_01', bend(0.4 * bump(p, 0.05, 0.5)));
    pose.pelvisOffset.set(0, -0.8 * fall + 0.04 * bounce, 0);
    return pose;
  },
};

export const JUMP_CLIPS: LibraryClipDef[] = [
  { ...PROCEDURAL_CLIPS.jump, name: 'jump', description: 'standing jump in place: crouch, push, tuck, land', category: 'jump' },
  jumpForward,
  fallLoop,
  land,
];
export const SWIM_CLIPS: LibraryClipDef[] = [swimFreestyle, swimTread, swimBreaststroke];
export const CLIMB_CLIPS: LibraryClipDef[] = [climbLadder, climbLedge];
export const DODGE_CLIPS: LibraryClipDef[] = [
  dodge('dodge_left', 'side-step dodge to the left, 1.6 m', 1.6, 0),
  dodge('dodge_right', 'side-step dodge to the right, 1.6 m', -1.6, 0),
  dodge('dodge_back', 'hop back, 1.4 m', 0, -1.4),
  rollForward,
];
export const HIT_CLIPS: LibraryClipDef[] = [
  hit('hit_front', 'hit from the front: torso snaps back', -0.45, 0, 0, { x: 0, z: -0.15 }),
  hit('hit_back', 'hit from behind: torso snaps forward', 0.5, 0, 0, { x: 0, z: 0.15 }),
  hit('hit_left', 'hit from the left: bends away to the right', 0.05, -0.45, 0.25, { x: -0.12, z: 0 }),
  hit('hit_right', 'hit from the right: bends away to the left', 0.05, 0.45, -0.25, { x: 0.12, z: 0 }),
  knockback,
  knockdown,
];
