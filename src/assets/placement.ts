import type { XZ } from '../core/math.ts';
import { Box3, Vector3, type Object3D } from 'three';

const box = new Box3();
const size = new Vector3();
const center = new Vector3();

/** The model's bounds in its parent's space (after its own transform). */
export function modelBounds(root: Object3D): Box3 {
  root.updateMatrixWorld(true);
  const parent = root.parent;
  box.setFromObject(root, true);
  if (parent) {
    // setFromObject works in world space; bring it back to the parent's space.
    parent.updateMatrixWorld(true);
    box.applyMatrix4(parent.matrixWorld.clone().invert());
  }
  return box.clone();
}

/**
 * Moves `root` so its bounds are centred on (x, z) and rest on `groundY`: models come with their
 * own origins (often at the base, sometimes at the centre), this puts every one on the ground the
 * same way. Returns the bounds' size.
 */
export function restOn(root: Object3D, x: number, groundY: number, z: number): Vector3 {
  const bounds = modelBounds(root);
  if (bounds.isEmpty()) {
    root.position.set(x, groundY, z);
    return new Vector3();
  }
  bounds.getCenter(center);
  bounds.getSize(size);
  root.position.x += x - center.x;
  root.position.z += z - center.z;
  root.position.y += groundY - bounds.min.y;
  root.updateMatrixWorld(true);
  return size.clone();
}

/**
 * A point `distance` metres ahead of a position along a facing (atan2(wx, wz) convention), moved
 * `aside` metres to the right of that line (right = forward × up = (−cos, sin)).
 */
export function pointAhead(x: number, z: number, facing: number, distance: number, aside = 0): XZ {
  return {
    x: x + Math.sin(facing) * distance - Math.cos(facing) * aside,
    z: z + Math.cos(facing) * distance + Math.sin(facing) * aside,
  };
}
