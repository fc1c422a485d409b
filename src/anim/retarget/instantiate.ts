import { Bone, Group, Object3D, type Matrix4 } from 'three';
import type { RigDescription } from './rig-description.ts';

/** A fresh three.js copy of a rig's bones in their bind pose, for playing clips on it headless. */
export interface RigInstance {
  /** The model frame: add clips' mixer here. Identity transform. */
  root: Group;
  /** Bones in {@link RigDescription.bones} order. */
  bones: Bone[];
}

/**
 * Rebuilds a rig's hierarchy from its description: one Bone per bone, named as the rig names it
 * (so the same tracks bind), with an extra node wherever the original had one between a bone and
 * its parent bone (an armature's rotation or unit scale).
 */
export function instantiateRig(rig: RigDescription): RigInstance {
  const root = new Group();
  root.name = `${rig.name} (instance)`;
  const bones: Bone[] = [];
  rig.bones.forEach((description) => {
    const bone = new Bone();
    bone.name = description.name;
    bone.position.copy(description.localPosition);
    bone.quaternion.copy(description.localRotation);
    bone.scale.copy(description.localScale);
    let parent: Object3D = description.parent >= 0 ? bones[description.parent]! : root;
    if (!isIdentity(description.parentOffset)) {
      const offset = new Object3D();
      offset.name = `${description.name}-offset`;
      description.parentOffset.decompose(offset.position, offset.quaternion, offset.scale);
      parent.add(offset);
      parent = offset;
    }
    parent.add(bone);
    bones.push(bone);
  });
  root.updateMatrixWorld(true);
  return { root, bones };
}

function isIdentity(matrix: Matrix4): boolean {
  return matrix.elements.every((value, i) => Math.abs(value - (i % 5 === 0 ? 1 : 0)) < 1e-9);
}
