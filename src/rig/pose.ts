import { Quaternion, Vector3 } from 'three';

/**
 * Joint rotations for rigs whose bind frames are aligned with the model axes (the mannequin):
 * the character faces +Z, its left is +X, +Y is up. `s` is the side's sign: +1 left, −1 right.
 * Every helper returns a new local quaternion; compose with {@link compose} (applied right to left).
 */

const X = new Vector3(1, 0, 0);
const Y = new Vector3(0, 1, 0);
const Z = new Vector3(0, 0, 1);

/** A rotation of `angle` radians about X. */
export const qx = (angle: number): Quaternion => new Quaternion().setFromAxisAngle(X, angle);
/** A rotation of `angle` radians about Y. */
export const qy = (angle: number): Quaternion => new Quaternion().setFromAxisAngle(Y, angle);
/** A rotation of `angle` radians about Z. */
export const qz = (angle: number): Quaternion => new Quaternion().setFromAxisAngle(Z, angle);

/** Product a·b·c… (the rightmost rotation applies first). */
export function compose(...rotations: Quaternion[]): Quaternion {
  const result = new Quaternion();
  for (const q of rotations) result.multiply(q);
  return result;
}

/** Upper arm: lowered from the T-pose by `down` (negative raises it), swung forward by `forward`. */
export const upperArm = (s: number, down: number, forward = 0): Quaternion => compose(qx(-forward), qz(-s * down));
/** Elbow flexion: the forearm folds forward when the arm hangs. */
export const elbow = (s: number, bend: number): Quaternion => qy(-s * bend);
/** Forearm raised within the arm's vertical plane (for waves and guards). */
export const forearmRaise = (s: number, angle: number): Quaternion => qz(s * angle);
/** Finger flexion towards the palm. */
export const fingerCurl = (s: number, angle: number): Quaternion => qz(-s * angle);
/** Thumb flexion across the palm. */
export const thumbCurl = (s: number, angle: number): Quaternion => compose(qy(s * angle * 0.6), qz(-s * angle * 0.5));
/** Hip flexion: positive swings the leg forward. */
export const hip = (forward: number, out = 0, s = 1): Quaternion => compose(qz(s * out), qx(-forward));
/** Knee flexion: positive folds the shin back. */
export const knee = (bend: number): Quaternion => qx(bend);
/** Ankle: positive points the toes down. */
export const ankle = (pitch: number): Quaternion => qx(pitch);
/** Spine or neck: lean forward (+), twist to the left (+), bend sideways to the left (+). */
export const bend = (forward: number, twist = 0, side = 0): Quaternion => compose(qy(twist), qx(forward), qz(-side));

/** A pose: local rotations by bone name, plus an optional pelvis offset from its bind position. */
export interface Pose {
  /** Local rotations by bone name (bones not listed keep their bind rotation). */
  rotations: Map<string, Quaternion>;
  /** Offset of the pelvis from its bind position (m). */
  pelvisOffset: Vector3;
}

/** A pose with no rotations and no offset (the bind pose). */
export function emptyPose(): Pose {
  return { rotations: new Map(), pelvisOffset: new Vector3() };
}

/** The two sides as bone-name suffix and the sign of +X on that side: left (`l`, +1), right (`r`, −1). */
export const SIDES = [
  ['l', 1],
  ['r', -1],
] as const;

/** Relaxed arms and hands hanging at the sides, written into `pose`. */
export function relaxedArms(pose: Pose, overrides: { down?: number; elbow?: number; curl?: number } = {}): void {
  for (const [side, s] of SIDES) {
    pose.rotations.set(`upperarm_${side}`, upperArm(s, overrides.down ?? 1.3, 0.05));
    pose.rotations.set(`lowerarm_${side}`, elbow(s, overrides.elbow ?? 0.2));
    curlHand(pose, side, s, overrides.curl ?? 0.25);
  }
}

/** Curls all five fingers of one hand by `amount` radians per joint. */
export function curlHand(pose: Pose, side: string, s: number, amount: number): void {
  for (const finger of ['index', 'middle', 'ring', 'pinky']) {
    for (const joint of ['01', '02', '03'])
      pose.rotations.set(`${finger}_${joint}_${side}`, fingerCurl(s, amount * (joint === '01' ? 0.8 : 1)));
  }
  for (const joint of ['01', '02', '03']) pose.rotations.set(`thumb_${joint}_${side}`, thumbCurl(s, amount * 0.7));
}
