import type { BoneDef, SkeletonDef } from './skeleton-def.ts';

/**
 * Cairn's default humanoid rig: UE5-mannequin naming and hierarchy (root → pelvis → spine_01…05 →
 * neck_01/02 → head; clavicle → upperarm → lowerarm → hand → 5 fingers × 3; thigh → calf → foot →
 * ball; twist bones), 64 bones, bound in T-pose with every bone frame aligned to the model axes.
 * The character faces +Z, stands 1.8 m tall, and its left side is +X.
 */

type Vec3 = readonly [number, number, number];

const bones: BoneDef[] = [];
function bone(name: string, parent: string | null, head: Vec3): void {
  bones.push({ name, parent, head });
}

bone('root', null, [0, 0, 0]);
bone('pelvis', 'root', [0, 0.96, 0]);
bone('spine_01', 'pelvis', [0, 1.04, -0.005]);
bone('spine_02', 'spine_01', [0, 1.13, -0.01]);
bone('spine_03', 'spine_02', [0, 1.23, -0.01]);
bone('spine_04', 'spine_03', [0, 1.33, -0.005]);
bone('spine_05', 'spine_04', [0, 1.42, 0]);
bone('neck_01', 'spine_05', [0, 1.5, 0.005]);
bone('neck_02', 'neck_01', [0, 1.56, 0.01]);
bone('head', 'neck_02', [0, 1.62, 0.015]);

/** Side suffix and the sign of X on that side. */
const SIDES = [
  ['l', 1],
  ['r', -1],
] as const;

for (const [side, s] of SIDES) {
  const x = (v: number): number => s * v;
  bone(`clavicle_${side}`, 'spine_05', [x(0.03), 1.44, 0.02]);
  bone(`upperarm_${side}`, `clavicle_${side}`, [x(0.17), 1.44, -0.005]);
  bone(`upperarm_twist_01_${side}`, `upperarm_${side}`, [x(0.3), 1.44, -0.005]);
  bone(`lowerarm_${side}`, `upperarm_${side}`, [x(0.45), 1.44, -0.005]);
  bone(`lowerarm_twist_01_${side}`, `lowerarm_${side}`, [x(0.58), 1.44, -0.005]);
  bone(`hand_${side}`, `lowerarm_${side}`, [x(0.7), 1.44, -0.005]);
  // Thumb leaves the palm forward and out; the four fingers fan from the knuckles.
  bone(`thumb_01_${side}`, `hand_${side}`, [x(0.725), 1.425, 0.03]);
  bone(`thumb_02_${side}`, `thumb_01_${side}`, [x(0.755), 1.42, 0.055]);
  bone(`thumb_03_${side}`, `thumb_02_${side}`, [x(0.78), 1.418, 0.072]);
  const fingers: Array<[string, number, number]> = [
    ['index', 0.026, 1.0],
    ['middle', 0.007, 1.07],
    ['ring', -0.012, 1.0],
    ['pinky', -0.03, 0.82],
  ];
  for (const [finger, z, length] of fingers) {
    const base = 0.79;
    bone(`${finger}_01_${side}`, `hand_${side}`, [x(base), 1.44, z]);
    bone(`${finger}_02_${side}`, `${finger}_01_${side}`, [x(base + 0.042 * length), 1.44, z]);
    bone(`${finger}_03_${side}`, `${finger}_02_${side}`, [x(base + 0.07 * length), 1.44, z]);
  }
  bone(`thigh_${side}`, 'pelvis', [x(0.095), 0.92, 0]);
  bone(`thigh_twist_01_${side}`, `thigh_${side}`, [x(0.095), 0.72, 0]);
  bone(`calf_${side}`, `thigh_${side}`, [x(0.095), 0.5, 0.005]);
  bone(`calf_twist_01_${side}`, `calf_${side}`, [x(0.095), 0.3, 0]);
  bone(`foot_${side}`, `calf_${side}`, [x(0.095), 0.085, -0.01]);
  bone(`ball_${side}`, `foot_${side}`, [x(0.1), 0.025, 0.12]);
}

/** Cairn's default humanoid rig: 64 bones with UE5-mannequin names, bound in T-pose with axis-aligned bone frames; it faces +Z, stands 1.8 m tall, its left is +X. */
export const MANNEQUIN: SkeletonDef = { name: 'cairn-mannequin', bones };

/** Length of a finger's last phalanx past its joint, used to place fingertips (metres). */
export const FINGERTIP_LENGTH = 0.025;

/** The mannequin's standing hip height (pelvis above the floor), used by retargeting and crowds. */
export const MANNEQUIN_HIP_HEIGHT = 0.96;
