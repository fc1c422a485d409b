import { Bone, Quaternion, Skeleton, Vector3 } from 'three';

/** One bone of a skeleton definition. */
export interface BoneDef {
  /** The bone's name. */
  name: string;
  /** Parent bone name, or null for the root. Parents are listed before their children. */
  parent: string | null;
  /** Bind-pose head position in model space (metres, +Y up, character facing +Z). */
  head: readonly [number, number, number];
  /**
   * Bind-pose local rotation as a quaternion [x, y, z, w]; identity when omitted. A rig bound in
   * T-pose with world-aligned bone frames (like the mannequin) omits it everywhere.
   */
  rotation?: readonly [number, number, number, number];
}

/** A skeleton as plain data: what a rig is before three.js objects exist. */
export interface SkeletonDef {
  /** The rig's name, for messages. */
  name: string;
  /** Its bones, parents first. */
  bones: readonly BoneDef[];
}

/**
 * Checks a definition: unique names, parents known and listed first, exactly one root. Throws an
 * Error listing every problem, so a hand-written rig fails with all its mistakes at once.
 */
export function validateSkeletonDef(def: SkeletonDef): void {
  const problems: string[] = [];
  const seen = new Set<string>();
  let roots = 0;
  for (const [index, bone] of def.bones.entries()) {
    if (!bone.name) problems.push(`bone #${index} has no name`);
    if (seen.has(bone.name)) problems.push(`duplicate bone name "${bone.name}"`);
    if (bone.parent === null) roots++;
    else if (!seen.has(bone.parent)) problems.push(`bone "${bone.name}" lists parent "${bone.parent}" that is not defined before it`);
    if (bone.head.length !== 3 || bone.head.some((v) => !Number.isFinite(v))) problems.push(`bone "${bone.name}" has a bad head position`);
    seen.add(bone.name);
  }
  if (roots !== 1) problems.push(`expected exactly one root bone, found ${roots}`);
  if (problems.length) throw new Error(`skeleton "${def.name}" is invalid:\n- ${problems.join('\n- ')}`);
}

/** A skeleton as three.js objects ({@link buildSkeleton}). */
export interface BuiltSkeleton {
  /** The root bone. */
  root: Bone;
  /** Every bone, in the definition's order. */
  bones: Bone[];
  /** Bones by name. */
  byName: Map<string, Bone>;
  /** The three.js skeleton over them. */
  skeleton: Skeleton;
}

/**
 * Builds three.js bones from a definition. Local positions are the head offsets expressed in the
 * parent's bind frame, so definitions with bind rotations (A-pose rigs) work as well as T-pose ones.
 */
export function buildSkeleton(def: SkeletonDef): BuiltSkeleton {
  validateSkeletonDef(def);
  const bones: Bone[] = [];
  const byName = new Map<string, Bone>();
  const worldRotation = new Map<string, Quaternion>();
  for (const boneDef of def.bones) {
    const bone = new Bone();
    bone.name = boneDef.name;
    const local = boneDef.rotation ? new Quaternion(...boneDef.rotation) : new Quaternion();
    bone.quaternion.copy(local);
    const head = new Vector3(...boneDef.head);
    if (boneDef.parent === null) {
      bone.position.copy(head);
      worldRotation.set(bone.name, local.clone());
    } else {
      const parent = byName.get(boneDef.parent)!;
      const parentDef = def.bones.find((b) => b.name === boneDef.parent)!;
      const parentRotation = worldRotation.get(parentDef.name)!;
      const offset = head.sub(new Vector3(...parentDef.head)).applyQuaternion(parentRotation.clone().invert());
      bone.position.copy(offset);
      parent.add(bone);
      worldRotation.set(bone.name, parentRotation.clone().multiply(local));
    }
    bones.push(bone);
    byName.set(bone.name, bone);
  }
  const root = bones[0]!;
  root.updateMatrixWorld(true);
  return { root, bones, byName, skeleton: new Skeleton(bones) };
}
