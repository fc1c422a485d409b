/**
 * The reference the crowd's own sampler is held to: a VirtualSkeleton is an animation rig driven
 * by three's AnimationMixer (the crowd itself samples with `ClipSampler`; tests compare the
 * two). It is a full clone of the template with
 * its own AnimationMixer running the template's clips, whose meshes are stripped right after
 * cloning so only bones (and their parent nodes) remain. It never enters the scene. After the
 * mixer runs, {@link VirtualSkeleton.writePose} writes `bone.matrixWorld × boneInverse` for every
 * crowd bone, as three 4-float rows (the affine part), into a slot of a shared Float32Array.
 *
 * World matrices are computed here along a precomputed parent-first list of just the nodes the
 * bones depend on, instead of `updateMatrixWorld()` over the whole clone: same result, less work
 * (node.matrix/matrixWorld of the clone are not kept up to date; nothing renders it).
 * The clone root's own transform is ignored (the crowd places each avatar), the template's
 * `rootMatrix` (scale) is applied in its place. Uses three's scene graph and animation; no renderer.
 */
import { AnimationMixer, LoopOnce, LoopRepeat, Matrix4, Object3D, type AnimationAction, type Bone } from 'three';
import type { AnimSample } from './anim-state.ts';
import type { CrowdTemplate } from './template.ts';

/** Floats per bone in every bone buffer: the 3×4 affine rows of its skinning matrix. */
export const FLOATS_PER_BONE = 12;

export class VirtualSkeleton {
  readonly object: Object3D;
  readonly mixer: AnimationMixer;
  /** Cloned bones in crowd bone order. */
  readonly bones: Bone[];
  private readonly template: CrowdTemplate;
  private readonly actions: AnimationAction[];
  /** Parent-first nodes the bones depend on, their parent's index in this list (-1: the root). */
  private readonly chain: Object3D[];
  private readonly chainParent: Int32Array;
  /** Row-major 3×4 world matrices of the chain nodes (affine: the last row is implied). */
  private readonly chainWorld: Float64Array;
  /** Index in `chain` of each crowd bone. */
  private readonly boneChainIndex: Int32Array;
  /** Root scale and inverse bind matrices, row-major 3×4. */
  private readonly rootAffine: Float64Array;
  private readonly inverseAffine: Float64Array;
  private activeClip = -1;
  private activePrevious = -1;

  constructor(template: CrowdTemplate) {
    this.template = template;
    const original = template.object;
    // Clone without the root's place in its parent, then map original nodes to their clones.
    const root = original.clone(true);
    const map = new Map<Object3D, Object3D>();
    parallelTraverse(original, root, (a, b) => map.set(a, b));
    this.bones = template.bones.map((bone) => {
      const clone = map.get(bone);
      if (!clone) throw new Error(`VirtualSkeleton: bone "${bone.name}" was not cloned`);
      return clone as Bone;
    });
    stripMeshes(root);
    root.position.set(0, 0, 0);
    root.quaternion.identity();
    root.scale.set(1, 1, 1);
    this.object = root;

    // Parent-first list of every node between the root and each bone.
    const needed = new Set<Object3D>();
    for (const bone of this.bones) for (let n: Object3D | null = bone; n && n !== root; n = n.parent) needed.add(n);
    const chain: Object3D[] = [];
    root.traverse((node) => {
      if (needed.has(node)) chain.push(node);
    });
    const indexOf = new Map(chain.map((node, i) => [node, i]));
    this.chain = chain;
    this.chainParent = Int32Array.from(chain, (node) => (node.parent && node.parent !== root ? indexOf.get(node.parent)! : -1));
    this.chainWorld = new Float64Array(chain.length * 12);
    this.boneChainIndex = Int32Array.from(this.bones, (bone) => indexOf.get(bone)!);
    this.rootAffine = toAffine([template.rootMatrix]);
    this.inverseAffine = toAffine(template.boneInverses);

    this.mixer = new AnimationMixer(root);
    this.actions = template.clips.map((c) => {
      const action = this.mixer.clipAction(c.clip);
      action.setLoop(c.loop ? LoopRepeat : LoopOnce, Infinity);
      action.clampWhenFinished = !c.loop;
      return action;
    });
  }

  /**
   * Poses the bones for a blend of up to two clips at explicit times. The mixer evaluates and
   * blends (its real work), but time comes from the sample, so the live pose equals the baked
   * pose for the same state and switching paths never pops.
   */
  pose(sample: AnimSample): void {
    const previous = sample.previousClip >= 0 && sample.weight < 1 ? sample.previousClip : -1;
    if (sample.clip !== this.activeClip || previous !== this.activePrevious) {
      for (const [i, action] of this.actions.entries()) {
        if (i === sample.clip || i === previous) {
          if (!action.isScheduled()) action.play();
        } else if (action.isScheduled()) action.stop();
      }
      this.activeClip = sample.clip;
      this.activePrevious = previous;
    }
    const current = this.actions[sample.clip];
    if (current) {
      current.time = sample.time;
      current.setEffectiveWeight(previous >= 0 ? sample.weight : 1);
    }
    if (previous >= 0) {
      const action = this.actions[previous]!;
      action.time = sample.previousTime;
      action.setEffectiveWeight(1 - sample.weight);
    }
    this.mixer.update(0);
  }

  /**
   * Writes every crowd bone's skinning matrix (`world × boneInverse`, with the template's root
   * scale in front) as 3 rows × 4 floats at `target[offset…]`. Returns the floats written.
   * The arithmetic is affine-only (3×4, no projective row) and inlined: this runs for every live
   * avatar that is due, so it is kept to ~2 × 64 small multiplies with no allocation.
   */
  writePose(target: Float32Array, offset: number): number {
    const chain = this.chain;
    const world = this.chainWorld;
    const parent = this.chainParent;
    const root = this.rootAffine;
    for (let i = 0; i < chain.length; i++) {
      const node = chain[i]!;
      const p = node.position;
      const q = node.quaternion;
      const sc = node.scale;
      // Local transform from position, quaternion, scale (as Matrix4.compose), row-major.
      const x2 = q.x + q.x;
      const y2 = q.y + q.y;
      const z2 = q.z + q.z;
      const xx = q.x * x2;
      const xy = q.x * y2;
      const xz = q.x * z2;
      const yy = q.y * y2;
      const yz = q.y * z2;
      const zz = q.z * z2;
      const wx = q.w * x2;
      const wy = q.w * y2;
      const wz = q.w * z2;
      const l00 = (1 - (yy + zz)) * sc.x;
      const l01 = (xy - wz) * sc.y;
      const l02 = (xz + wy) * sc.z;
      const l10 = (xy + wz) * sc.x;
      const l11 = (1 - (xx + zz)) * sc.y;
      const l12 = (yz - wx) * sc.z;
      const l20 = (xz - wy) * sc.x;
      const l21 = (yz + wx) * sc.y;
      const l22 = (1 - (xx + yy)) * sc.z;
      const parentIndex = parent[i]!;
      const a = parentIndex < 0 ? root : world;
      const ao = parentIndex < 0 ? 0 : parentIndex * 12;
      const o = i * 12;
      for (let r = 0; r < 3; r++) {
        const a0 = a[ao + r * 4]!;
        const a1 = a[ao + r * 4 + 1]!;
        const a2 = a[ao + r * 4 + 2]!;
        const a3 = a[ao + r * 4 + 3]!;
        world[o + r * 4] = a0 * l00 + a1 * l10 + a2 * l20;
        world[o + r * 4 + 1] = a0 * l01 + a1 * l11 + a2 * l21;
        world[o + r * 4 + 2] = a0 * l02 + a1 * l12 + a2 * l22;
        world[o + r * 4 + 3] = a0 * p.x + a1 * p.y + a2 * p.z + a3;
      }
    }
    const inverse = this.inverseAffine;
    const bones = this.boneChainIndex;
    let out = offset;
    for (let b = 0; b < bones.length; b++) {
      const wo = bones[b]! * 12;
      const io = b * 12;
      for (let r = 0; r < 3; r++) {
        const a0 = world[wo + r * 4]!;
        const a1 = world[wo + r * 4 + 1]!;
        const a2 = world[wo + r * 4 + 2]!;
        const a3 = world[wo + r * 4 + 3]!;
        target[out++] = a0 * inverse[io]! + a1 * inverse[io + 4]! + a2 * inverse[io + 8]!;
        target[out++] = a0 * inverse[io + 1]! + a1 * inverse[io + 5]! + a2 * inverse[io + 9]!;
        target[out++] = a0 * inverse[io + 2]! + a1 * inverse[io + 6]! + a2 * inverse[io + 10]!;
        target[out++] = a0 * inverse[io + 3]! + a1 * inverse[io + 7]! + a2 * inverse[io + 11]! + a3;
      }
    }
    return out - offset;
  }

  dispose(): void {
    this.mixer.stopAllAction();
    for (const c of this.template.clips) this.mixer.uncacheClip(c.clip);
    this.mixer.uncacheRoot(this.object);
  }
}

/** Row-major 3×4 affine parts of column-major 4×4 matrices, 12 numbers each. */
function toAffine(matrices: Matrix4[]): Float64Array {
  const out = new Float64Array(matrices.length * 12);
  matrices.forEach((m, i) => {
    const e = m.elements;
    for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) out[i * 12 + r * 4 + c] = e[c * 4 + r]!;
  });
  return out;
}

function parallelTraverse(a: Object3D, b: Object3D, callback: (a: Object3D, b: Object3D) => void): void {
  callback(a, b);
  for (let i = 0; i < a.children.length; i++) parallelTraverse(a.children[i]!, b.children[i]!, callback);
}

/**
 * Replaces every mesh under the root (skinned or not) with a bare Object3D of the same name and
 * transform, so nodes parented under a mesh keep their place and animation tracks still resolve.
 */
function stripMeshes(root: Object3D): void {
  const meshes: Object3D[] = [];
  root.traverse((node) => {
    if (node === root) return;
    const n = node as { isMesh?: boolean; isLine?: boolean; isPoints?: boolean };
    if (n.isMesh || n.isLine || n.isPoints) meshes.push(node);
  });
  for (const mesh of meshes) {
    const parent = mesh.parent!;
    const stand = new Object3D();
    stand.name = mesh.name;
    stand.position.copy(mesh.position);
    stand.quaternion.copy(mesh.quaternion);
    stand.scale.copy(mesh.scale);
    for (const child of [...mesh.children]) stand.add(child);
    parent.children[parent.children.indexOf(mesh)] = stand;
    stand.parent = parent;
    mesh.parent = null;
  }
}
