import { Group, Matrix4, PropertyBinding, Quaternion, Vector3, type Bone, type Object3D, type SkinnedMesh } from 'three';
import { buildSkeleton, type SkeletonDef } from '../../rig/skeleton-def.ts';

/**
 * A rig as the retargeter sees it: bones in parent-first order with their bind (rest) transforms,
 * both local and in model space (the frame of the object that holds the skeleton). Built from a
 * {@link SkeletonDef} or from any loaded three.js hierarchy (glTF, FBX), so the pipeline never
 * depends on where a rig came from.
 */
export interface RigBone {
  /** The bone's three.js object name (what animation tracks address). */
  name: string;
  /** The name as written in the file, when a loader changed it (GLTFLoader de-duplicates and sanitizes). */
  originalName: string;
  /** Index of the parent bone in {@link RigDescription.bones}, or -1 for a top-level bone. */
  parent: number;
  /**
   * Transform from the parent bone's frame (or the model frame for top-level bones) to the bone's
   * own three.js parent: identity unless non-bone nodes (an armature, a scaled group) sit between.
   */
  parentOffset: Matrix4;
  /** Bind position in the parent bone's frame. */
  localPosition: Vector3;
  /** Bind rotation in the parent bone's frame. */
  localRotation: Quaternion;
  /** Bind scale in the parent bone's frame. */
  localScale: Vector3;
  /** Bind transform in model space. */
  worldMatrix: Matrix4;
  /** Bind position in model space. */
  worldPosition: Vector3;
  /** Bind rotation in model space. */
  worldRotation: Quaternion;
}

/** Something wrong with a rig or a clip, named so a person can fix it. */
export interface RigProblem {
  /** An error stops retargeting; a warning is reported. */
  severity: 'error' | 'warning';
  /** What is wrong, for a person. */
  message: string;
  /** The bone it is about, when there is one. */
  bone?: string;
}

/** A rig as the retargeter sees it: its bones with their bind transforms, and what is wrong with it. */
export interface RigDescription {
  /** The rig's name, for messages. */
  name: string;
  /** Bones in parent-first order. */
  bones: RigBone[];
  /** Bone index by name (the first bone when a name is duplicated; see {@link problems}). */
  index: Map<string, number>;
  /** Names that more than one bone carries: tracks cannot address them unambiguously. */
  duplicateNames: Set<string>;
  /** What is wrong with the rig (duplicate names, bones tracks cannot address). */
  problems: RigProblem[];
  /** The three.js object holding the skeleton, when the description came from one. */
  object?: Object3D;
  /** The bones' three.js objects, in {@link bones} order, when the description came from objects. */
  objects?: Bone[];
}

/** Characters three.js track names cannot contain in a node name (PropertyBinding's reserved set). */
const RESERVED = /[[\].:/]/;

function finish(name: string, bones: RigBone[], problems: RigProblem[], extra: Partial<RigDescription> = {}): RigDescription {
  const index = new Map<string, number>();
  const duplicateNames = new Set<string>();
  const originals = new Map<string, number>();
  bones.forEach((bone, i) => {
    if (!bone.originalName) {
      const parent = bone.parent >= 0 ? `"${bones[bone.parent]!.originalName || bones[bone.parent]!.name}"` : 'the model root';
      problems.push({ severity: 'warning', message: `bone #${i} (child of ${parent}) has no name; it cannot be mapped`, bone: bone.name });
    } else if (originals.has(bone.originalName)) {
      duplicateNames.add(bone.name);
      duplicateNames.add(bone.originalName);
      problems.push({
        severity: 'warning',
        message: `duplicate bone name "${bone.originalName}" (bones #${originals.get(bone.originalName)} and #${i}); neither is mapped`,
        bone: bone.originalName,
      });
    } else {
      originals.set(bone.originalName, i);
    }
    if (bone.name && RESERVED.test(bone.name)) {
      problems.push({
        severity: 'warning',
        message: `bone name "${bone.name}" contains a character three.js track names cannot address ([ ] . : /); it is not mapped`,
        bone: bone.name,
      });
    }
    if (!index.has(bone.name)) index.set(bone.name, i);
  });
  if (bones.length === 0) problems.push({ severity: 'error', message: 'the rig has no bones' });
  return { name, bones, index, duplicateNames, problems, ...extra };
}

/** True when the bone can be addressed by name (named, unique, no reserved characters). */
export function isAddressable(rig: RigDescription, boneIndex: number): boolean {
  const bone = rig.bones[boneIndex]!;
  return (
    bone.originalName !== '' &&
    bone.name !== '' &&
    !rig.duplicateNames.has(bone.name) &&
    !rig.duplicateNames.has(bone.originalName) &&
    !RESERVED.test(bone.name)
  );
}

/**
 * The bones that carry skin weights (deform bones), by index; null when the rig has no skinned mesh
 * to tell from (mocap, a bare definition). IK targets and control bones usually carry none, so a
 * bone that sits where an IK target would but deforms the mesh is a deform bone all the same.
 */
export function deformingBones(rig: RigDescription): Set<number> | null {
  if (!rig.object || !rig.objects) return null;
  const indexOf = new Map<Object3D, number>(rig.objects.map((bone, i) => [bone, i]));
  const out = new Set<number>();
  let skinned = false;
  rig.object.traverse((node) => {
    const mesh = node as SkinnedMesh;
    if (!mesh.isSkinnedMesh) return;
    const indices = mesh.geometry.getAttribute('skinIndex');
    const weights = mesh.geometry.getAttribute('skinWeight');
    if (!indices || !weights) return;
    skinned = true;
    const bones = mesh.skeleton.bones;
    for (let v = 0; v < indices.count; v++) {
      for (let c = 0; c < indices.itemSize; c++) {
        if (weights.getComponent(v, c) <= 0) continue;
        const index = indexOf.get(bones[indices.getComponent(v, c)]!);
        if (index !== undefined) out.add(index);
      }
    }
  });
  return skinned ? out : null;
}

/**
 * Describes a skeleton definition. Problems that {@link buildSkeleton} would throw for (duplicate
 * names, unknown parents) are reported instead, so a broken definition yields a report, not a crash.
 */
export function rigFromDef(def: SkeletonDef): RigDescription {
  const problems: RigProblem[] = [];
  const known = new Set<string>();
  let roots = 0;
  for (const bone of def.bones) {
    if (bone.parent === null) roots++;
    else if (!known.has(bone.parent))
      problems.push({
        severity: 'error',
        message: `bone "${bone.name}" lists parent "${bone.parent}" that is not defined before it`,
        bone: bone.name,
      });
    known.add(bone.name);
  }
  if (roots !== 1) problems.push({ severity: 'error', message: `expected exactly one root bone, found ${roots}` });
  const names = def.bones.map((b) => b.name);
  if (problems.length === 0 && new Set(names).size === names.length && names.every((n) => n)) {
    const built = buildSkeleton(def);
    const container = new Group();
    container.name = def.name;
    container.add(built.root);
    return describeObjects(def.name, container, built.bones, problems);
  }
  // A definition three.js cannot build: describe it from the data alone (no objects).
  const bones: RigBone[] = [];
  const firstIndex = new Map<string, number>();
  for (const boneDef of def.bones) {
    const parent = boneDef.parent === null ? -1 : (firstIndex.get(boneDef.parent) ?? -1);
    const q = boneDef.rotation ? new Quaternion(...boneDef.rotation) : new Quaternion();
    const worldPosition = new Vector3(...boneDef.head);
    const worldRotation = parent >= 0 ? bones[parent]!.worldRotation.clone().multiply(q) : q.clone();
    const localPosition =
      parent >= 0
        ? worldPosition.clone().sub(bones[parent]!.worldPosition).applyQuaternion(bones[parent]!.worldRotation.clone().invert())
        : worldPosition.clone();
    bones.push({
      name: boneDef.name,
      originalName: boneDef.name,
      parent,
      parentOffset: new Matrix4(),
      localPosition,
      localRotation: q,
      localScale: new Vector3(1, 1, 1),
      worldMatrix: new Matrix4().compose(worldPosition, worldRotation, new Vector3(1, 1, 1)),
      worldPosition,
      worldRotation,
    });
    if (!firstIndex.has(boneDef.name)) firstIndex.set(boneDef.name, bones.length - 1);
  }
  return finish(def.name, bones, problems);
}

/**
 * Describes the bones of a loaded model. `bones` defaults to every Bone under `object`; the model
 * frame is `object`'s own (its transform is ignored), so a file's armature rotation or unit scale
 * is part of the rig. Bones are re-ordered parents first.
 */
export function rigFromObject(object: Object3D, name = object.name || 'model', bones?: readonly Bone[]): RigDescription {
  const list: Bone[] = [];
  if (bones) list.push(...bones);
  else object.traverse((node) => ((node as Bone).isBone ? list.push(node as Bone) : undefined));
  return describeObjects(name, object, list, []);
}

function describeObjects(name: string, container: Object3D, list: readonly Bone[], problems: RigProblem[]): RigDescription {
  const set = new Set(list);
  // Parent-first order: sort by depth under the container.
  const depth = (node: Object3D): number => {
    let d = 0;
    for (let p = node.parent; p && p !== container; p = p.parent) d++;
    return d;
  };
  const ordered = [...set].sort((a, b) => depth(a) - depth(b));
  const frame = container;
  frame.updateMatrixWorld(true);
  const toModel = frame.matrixWorld.clone().invert();
  const position = new Vector3();
  const rotation = new Quaternion();
  const scale = new Vector3();
  const indexOf = new Map<Bone, number>();
  const result: RigBone[] = [];
  for (const bone of ordered) {
    let parentBone: Bone | null = null;
    for (let p = bone.parent; p && p !== frame; p = p.parent) {
      if (set.has(p as Bone)) {
        parentBone = p as Bone;
        break;
      }
    }
    const parentIndex = parentBone ? indexOf.get(parentBone)! : -1;
    const worldMatrix = toModel.clone().multiply(bone.matrixWorld);
    worldMatrix.decompose(position, rotation, scale);
    // parentOffset: parent bone (or model) frame → the bone's three.js parent frame.
    const parentWorld = parentIndex >= 0 ? result[parentIndex]!.worldMatrix : new Matrix4();
    const threeParentWorld = bone.parent && bone.parent !== frame ? toModel.clone().multiply(bone.parent.matrixWorld) : new Matrix4();
    const parentOffset = parentWorld.clone().invert().multiply(threeParentWorld);
    indexOf.set(bone, result.length);
    result.push({
      name: bone.name,
      originalName: (bone.userData as { name?: string }).name ?? bone.name,
      parent: parentIndex,
      parentOffset,
      localPosition: bone.position.clone(),
      localRotation: bone.quaternion.clone(),
      localScale: bone.scale.clone(),
      worldMatrix,
      worldPosition: position.clone(),
      // Normalised: a sheared world matrix (non-uniform scale under a rotation) decomposes off unit length.
      worldRotation: rotation.clone().normalize(),
    });
  }
  return finish(name, result, problems, { object: frame, objects: ordered });
}

/** Parses a track name into the node it animates and the property; null when three cannot parse it. */
export function parseTrackTarget(trackName: string): {
  /** The node's name. */
  node: string;
  /** The property animated (`position`, `quaternion`, `scale`…). */
  property: string;
} | null {
  try {
    const parsed = PropertyBinding.parseTrackName(trackName);
    const node = parsed.objectName === 'bones' && parsed.objectIndex !== undefined ? String(parsed.objectIndex) : parsed.nodeName;
    return { node, property: parsed.propertyName };
  } catch {
    return null;
  }
}

/** Index of the bone a track addresses (by name, or by its sanitized name as loaders write it). */
export function boneIndexForTrack(rig: RigDescription, node: string): number | undefined {
  return rig.index.get(node) ?? rig.index.get(PropertyBinding.sanitizeNodeName(node));
}
