/**
 * A VirtualSkeleton is one live crowd avatar's animation rig: a full clone of the template with
 * its own AnimationMixer running the template's clips, whose meshes are stripped right after
 * cloning so only bones (and their parent nodes) remain. It never enters the scene. After the
 * mixer runs, {@link VirtualSkeleton.writePose} writes `bone.matrixWorld × boneInverse` for every
 * crowd bone, as three 4-float rows (the affine part), into a slot of a shared Float32Array.
 *
 * World matrices are computed here along a precomputed parent-first list of just the nodes the
 * bones depend on, instead of `updateMatrixWorld()` over the whole clone: same result, less work.
 * The clone root's own transform is ignored (the crowd places each avatar), the template's
 * `rootMatrix` (scale) is applied in its place. Uses three's scene graph and animation; no renderer.
 */
import { AnimationMixer, LoopOnce, LoopRepeat, Matrix4, Object3D, type AnimationAction, type Bone } from 'three';
import type { AnimSample } from './anim-state.ts';
import type { CrowdTemplate } from './template.ts';

/** Floats per bone in every bone buffer: the 3×4 affine rows of its skinning matrix. */
export const FLOATS_PER_BONE = 12;

export class VirtualSkeleton {
  readonly root: Object3D;
  readonly mixer: AnimationMixer;
  /** Cloned bones in crowd bone order. */
  readonly bones: Bone[];
  private readonly template: CrowdTemplate;
  private readonly actions: AnimationAction[];
  /** Parent-first nodes the bones depend on, their parent's index in this list (-1: the root). */
  private readonly chain: Object3D[];
  private readonly chainParent: Int32Array;
  private readonly chainWorld: Matrix4[];
  /** Index in `chain` of each crowd bone. */
  private readonly boneChainIndex: Int32Array;
  private readonly scratch = new Matrix4();
  private activeClip = -1;
  private activePrevious = -1;

  constructor(template: CrowdTemplate) {
    this.template = template;
    const original = template.root;
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
    this.root = root;

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
    this.chainWorld = chain.map(() => new Matrix4());
    this.boneChainIndex = Int32Array.from(this.bones, (bone) => indexOf.get(bone)!);

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
   */
  writePose(target: Float32Array, offset: number): number {
    const chain = this.chain;
    const world = this.chainWorld;
    const parent = this.chainParent;
    const rootMatrix = this.template.rootMatrix;
    for (let i = 0; i < chain.length; i++) {
      const node = chain[i]!;
      const local = node.matrix;
      local.compose(node.position, node.quaternion, node.scale);
      const p = parent[i]!;
      world[i]!.multiplyMatrices(p < 0 ? rootMatrix : world[p]!, local);
    }
    const inverses = this.template.boneInverses;
    const m = this.scratch.elements;
    let o = offset;
    for (let b = 0; b < this.bones.length; b++) {
      this.scratch.multiplyMatrices(world[this.boneChainIndex[b]!]!, inverses[b]!);
      // Column-major elements → row-major 3×4 rows.
      target[o] = m[0]!;
      target[o + 1] = m[4]!;
      target[o + 2] = m[8]!;
      target[o + 3] = m[12]!;
      target[o + 4] = m[1]!;
      target[o + 5] = m[5]!;
      target[o + 6] = m[9]!;
      target[o + 7] = m[13]!;
      target[o + 8] = m[2]!;
      target[o + 9] = m[6]!;
      target[o + 10] = m[10]!;
      target[o + 11] = m[14]!;
      o += FLOATS_PER_BONE;
    }
    return o - offset;
  }

  dispose(): void {
    this.mixer.stopAllAction();
    for (const c of this.template.clips) this.mixer.uncacheClip(c.clip);
    this.mixer.uncacheRoot(this.root);
  }
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
