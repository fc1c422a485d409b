/** Small numeric helpers shared by every module. Metres, seconds, radians. */

/** A full turn in radians, 2π. */
export const TAU = Math.PI * 2;

/** A point or a direction on the ground plane, in Cairn's axes (metres for a point). */
export interface XZ {
  /** Towards the east (+X). */
  x: number;
  /** Towards the south (+Z). */
  z: number;
}

/** A point or a direction in Cairn's axes (metres for a point): {@link XZ} and up. */
export interface XYZ extends XZ {
  /** Up (+Y). */
  y: number;
}

/** `value` limited to [min, max]. */
export function clamp(value: number, min: number, max: number): number {
  return value < min ? min : value > max ? max : value;
}

/** Linear interpolation: `a` at t = 0, `b` at t = 1 (t is not clamped). */
export function lerp(a: number, b: number, t: number): number {
  return a + (b - a) * t;
}

/** Hermite smoothstep of x between edge0 and edge1. */
export function smoothstep(edge0: number, edge1: number, x: number): number {
  const t = clamp((x - edge0) / (edge1 - edge0), 0, 1);
  return t * t * (3 - 2 * t);
}

/** Wraps an angle to (-π, π]. */
export function wrapAngle(angle: number): number {
  let a = angle % TAU;
  if (a <= -Math.PI) a += TAU;
  else if (a > Math.PI) a -= TAU;
  return a;
}

/** Interpolates between two angles along the shorter arc. */
export function lerpAngle(a: number, b: number, t: number): number {
  return a + wrapAngle(b - a) * t;
}

/**
 * Frame-rate independent exponential approach: after `dt` seconds, `current` has moved towards
 * `target` as if by a first-order filter with the given rate (1/s).
 */
export function damp(current: number, target: number, rate: number, dt: number): number {
  return lerp(current, target, 1 - Math.exp(-rate * dt));
}

/** Same as {@link damp} for angles, along the shorter arc. */
export function dampAngle(current: number, target: number, rate: number, dt: number): number {
  return lerpAngle(current, target, 1 - Math.exp(-rate * dt));
}

/**
 * Cairn's facing convention, used everywhere: facing = atan2(wx, wz), so facing 0 looks down +Z and
 * forward = (sin(facing), 0, cos(facing)).
 */
export function facingFromDirection(wx: number, wz: number): number {
  return Math.atan2(wx, wz);
}

/** The unit forward vector on the ground plane for a facing (radians): (sin facing, cos facing), see {@link facingFromDirection}. */
export function forwardFromFacing(facing: number): XZ {
  return { x: Math.sin(facing), z: Math.cos(facing) };
}
