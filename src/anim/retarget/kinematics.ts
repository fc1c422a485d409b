import { Matrix4, Quaternion, Vector3 } from 'three';
import type { RigDescription } from './rig-description.ts';

/** Local transforms of every bone of a rig: what a clip sets and forward kinematics reads. */
export interface LocalPose {
  position: Vector3[];
  rotation: Quaternion[];
  scale: Vector3[];
}

/** The rig's bind pose as a fresh, editable local pose. */
export function bindLocalPose(rig: RigDescription): LocalPose {
  return {
    position: rig.bones.map((b) => b.localPosition.clone()),
    rotation: rig.bones.map((b) => b.localRotation.clone()),
    scale: rig.bones.map((b) => b.localScale.clone()),
  };
}

/** Copies `from` into `to` (same rig). */
export function copyLocalPose(from: LocalPose, to: LocalPose): void {
  for (let i = 0; i < from.position.length; i++) {
    to.position[i]!.copy(from.position[i]!);
    to.rotation[i]!.copy(from.rotation[i]!);
    to.scale[i]!.copy(from.scale[i]!);
  }
}

const local = new Matrix4();

/** Model-space matrices of every bone from a local pose (parents first). `out` is reused. */
export function forwardKinematics(rig: RigDescription, pose: LocalPose, out: Matrix4[] = rig.bones.map(() => new Matrix4())): Matrix4[] {
  rig.bones.forEach((bone, i) => {
    local.compose(pose.position[i]!, pose.rotation[i]!, pose.scale[i]!);
    const world = out[i]!;
    if (bone.parent >= 0) world.multiplyMatrices(out[bone.parent]!, bone.parentOffset).multiply(local);
    else world.multiplyMatrices(bone.parentOffset, local);
  });
  return out;
}

const scratchPosition = new Vector3();
const scratchScale = new Vector3();

/** The rotation part of a model-space matrix (scale removed). */
export function rotationOf(matrix: Matrix4, out = new Quaternion()): Quaternion {
  matrix.decompose(scratchPosition, out, scratchScale);
  // A matrix with a little shear (non-uniform scale under a rotation) gives a quaternion slightly off
  // unit length, which angle measures would read as a rotation of 2·acos(|q|²): normalised here.
  return out.normalize();
}

/** The translation part of a matrix. */
export function positionOf(matrix: Matrix4, out = new Vector3()): Vector3 {
  return out.setFromMatrixPosition(matrix);
}

/** Angle (radians, 0..π) between two rotations. */
export function angleBetween(a: Quaternion, b: Quaternion): number {
  const d = Math.abs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
  return 2 * Math.acos(Math.min(1, d));
}
