import type { Placement } from './placement.ts';

/**
 * Writes an instance's 4×4 matrix (column-major, as three.js stores it) into `out` at `offset`:
 * scale, then yaw about +Y, then the tilt that turns +Y to the instance's up vector, then the
 * translation. Pure arithmetic, no allocation, so the engine and the buckets share it in Node.
 */
export function writePlacementMatrix(
  p: Pick<Placement, 'x' | 'y' | 'z' | 'scale' | 'yaw' | 'up'>,
  out: Float32Array | number[],
  offset = 0,
): void {
  // Tilt quaternion: shortest arc from +Y to up = normalize(1 + up.y, cross(+Y, up)).
  const ux = p.up.x;
  const uy = p.up.y;
  const uz = p.up.z;
  let ax = uz;
  let ay = 0;
  let az = -ux;
  let aw = 1 + uy;
  const length = Math.hypot(ax, ay, az, aw);
  if (length < 1e-8) {
    // up is -Y: any half-turn about a horizontal axis.
    ax = 1;
    ay = 0;
    az = 0;
    aw = 0;
  } else {
    ax /= length;
    az /= length;
    aw /= length;
  }
  // Yaw quaternion about +Y.
  const half = p.yaw / 2;
  const by = Math.sin(half);
  const bw = Math.cos(half);
  // q = tilt * yaw (yaw applies first, in the prop's own frame).
  const qx = ax * bw - az * by;
  const qy = aw * by + ay * bw;
  const qz = az * bw + ax * by;
  const qw = aw * bw - ay * by;
  composeMatrix(qx, qy, qz, qw, p.scale, p.x, p.y, p.z, out, offset);
}

/** three.js's Matrix4.compose for a uniform scale, written out so it allocates nothing. */
export function composeMatrix(
  qx: number,
  qy: number,
  qz: number,
  qw: number,
  s: number,
  tx: number,
  ty: number,
  tz: number,
  out: Float32Array | number[],
  o = 0,
): void {
  const x2 = qx + qx;
  const y2 = qy + qy;
  const z2 = qz + qz;
  const xx = qx * x2;
  const xy = qx * y2;
  const xz = qx * z2;
  const yy = qy * y2;
  const yz = qy * z2;
  const zz = qz * z2;
  const wx = qw * x2;
  const wy = qw * y2;
  const wz = qw * z2;
  out[o] = (1 - (yy + zz)) * s;
  out[o + 1] = (xy + wz) * s;
  out[o + 2] = (xz - wy) * s;
  out[o + 3] = 0;
  out[o + 4] = (xy - wz) * s;
  out[o + 5] = (1 - (xx + zz)) * s;
  out[o + 6] = (yz + wx) * s;
  out[o + 7] = 0;
  out[o + 8] = (xz + wy) * s;
  out[o + 9] = (yz - wx) * s;
  out[o + 10] = (1 - (xx + yy)) * s;
  out[o + 11] = 0;
  out[o + 12] = tx;
  out[o + 13] = ty;
  out[o + 14] = tz;
  out[o + 15] = 1;
}
