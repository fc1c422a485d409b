import { Quaternion } from 'three';
import { compose, curlHand, qx, qy, qz, type Pose } from '../../rig/pose.ts';

/**
 * Small building blocks for the library's procedural clips, on top of src/rig/pose.ts. Everything
 * is in the mannequin's world-aligned bind frames (faces +Z, left = +X); `s` is +1 left, −1 right.
 */

export const TAU = Math.PI * 2;

/** 0 → 1 with zero slope at both ends, for x in [a, b] (clamped outside). */
export function ramp(x: number, a: number, b: number): number {
  const t = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
}

/** A bump: 0 at a, 1 in the middle, 0 at b (half a sine), 0 outside. */
export function bump(x: number, a: number, b: number): number {
  if (x <= a || x >= b) return 0;
  return Math.sin(((x - a) / (b - a)) * Math.PI);
}

/** Rises over [a, b], holds, falls over [c, d]. */
export function envelope(x: number, a: number, b: number, c: number, d: number): number {
  return ramp(x, a, b) * (1 - ramp(x, c, d));
}

/**
 * Upper arm pointing forward from the T-pose: swung `angle` towards +Z in the horizontal plane,
 * then raised by `raise` (negative lowers it).
 */
export const armForward = (s: number, angle: number, raise = 0): Quaternion => compose(qx(-raise), qy(-s * angle));

/** Upper arm raised from the T-pose above the shoulder (positive = up, towards the head). */
export const armUp = (s: number, angle: number, forward = 0): Quaternion => compose(qx(-forward), qz(s * angle));

/** A hand closed around a grip (sword hilt, bow, ladder rung): fingers and thumb curled hard. */
export function grip(pose: Pose, side: string, s: number, amount = 1.25): void {
  curlHand(pose, side, s, amount);
}

/** A flat, open hand. */
export function openHand(pose: Pose, side: string, s: number): void {
  curlHand(pose, side, s, 0.04);
}

/** Index finger straight, the others curled (pointing). */
export function pointingHand(pose: Pose, side: string, s: number): void {
  curlHand(pose, side, s, 1.2);
  for (const joint of ['01', '02', '03']) pose.rotations.set(`index_${joint}_${side}`, qz(-s * 0.03));
}

/** Writes a rotation, composing it after (on top of) whatever the pose already holds for that bone. */
export function addRotation(pose: Pose, bone: string, rotation: Quaternion): void {
  const current = pose.rotations.get(bone);
  pose.rotations.set(bone, current ? current.clone().multiply(rotation) : rotation);
}
