import { Matrix4, Quaternion, Vector3, type Bone } from 'three';
import { buildHumanoidPieces, DEFAULT_PALETTE } from './humanoid-body.ts';
import { qx, type Pose } from './pose.ts';
import { buildSkeleton, type SkeletonDef } from './skeleton-def.ts';

/**
 * The ground-contact rule of every baked clip (`bakeClip`): the built-in humanoid's own clips and the
 * animation library's alike. The pose functions ground a step by its ankles (the lower ankle at its
 * bind height), which lets a foot pitched toes-down at toe-off put the ball of the foot 60–100 mm
 * under the floor, and a heel strike the heel 20 mm; every rig the clips are retargeted onto would
 * inherit that. Here the floor is judged by the **sole**: points on the underside of each shoe
 * (heel, mid-foot, ball, toe), carried by the foot and ball bones as the shoe's skin is. Per frame,
 * after the ankle grounding of `grounded` clips:
 *
 * 1. a foot whose sole goes below the floor is pitched about its own lateral axis, by the smallest
 *    angle (up to 1.2 rad) that puts its lowest sole point back on the floor (the ball rolls up at
 *    toe-off, the heel comes up at heel strike);
 * 2. whatever is still below raises the pelvis: a foot whose ankle itself is too low to clear, and,
 *    in clips that `clearFloor` (sitting, rolling), any joint and the mannequin's skin itself (its
 *    low-detail mesh, skinned on the CPU) below the bind pose's lowest vertex: a back that rolls
 *    over the floor stays on it.
 *
 * The floor is the root bone's height (in-place and root-motion clips alike; a ladder climb carries
 * its floor up with the root). A clip with `contact: 'ankle'` keeps the ankle rule alone (and, with
 * `clearFloor`, joints above the bind pose's lowest joint): what the pose functions give by
 * themselves.
 */

/** How a baked clip meets the floor: by the shoes' soles (default) or by the lower ankle alone. */
export type FloorContact = 'sole' | 'ankle';

/** What {@link GroundContact.place} needs of a clip. */
export interface ContactOptions {
  /** Keep the lower ankle at its bind height by moving the pelvis (in-place locomotion). */
  grounded: boolean;
  /** No joint (and, by the sole rule, no vertex of the mannequin's skin) below the bind pose's lowest. */
  clearFloor: boolean;
  /** See {@link FloorContact}. */
  contact: FloorContact;
}

/** Sole points of one foot in the bind pose, relative to its ankle (`foot_*` head), metres: `[y, z]`. */
const FOOT_SOLE: ReadonlyArray<readonly [number, number]> = [
  // The shoe (src/rig/humanoid-body.ts) runs heel to toe along the foot, its underside on the floor.
  [-0.07, -0.09],
  [-0.082, -0.05],
  [-0.085, 0.02],
  [-0.085, 0.08],
];
/** Sole points carried by the ball (toe) bone, relative to its head: `[y, z]`. */
const BALL_SOLE: ReadonlyArray<readonly [number, number]> = [
  [-0.022, 0.0],
  [-0.012, 0.05],
  [0.005, 0.085],
];

/** The widest pitch correction tried (radians, about 69°): a crouch’s back foot needs most of it. */
const MAX_PITCH = 1.2;

interface SolePoint {
  bone: Bone;
  /** Bind-pose model-space position. */
  bind: Vector3;
}

/** A skeleton to pose and the sole points on it: one per rig, see {@link groundContact}. */
export class GroundContact {
  private readonly bones: Map<string, Bone>;
  private readonly root: Bone;
  private readonly bindRotation = new Map<Bone, Quaternion>();
  private readonly bindInverse = new Map<Bone, Matrix4>();
  private readonly feet: Array<{ foot: Bone; points: SolePoint[] }> = [];
  private readonly pelvisBind: Vector3;
  private readonly ankleBind: number;
  /** The lowest joint of the bind pose above the root (the floor clearance of `clearFloor`). */
  private readonly clearance: number;
  private readonly def: SkeletonDef;
  private readonly boneList: readonly Bone[];
  private skin: SkinSurface | null = null;

  constructor(def: SkeletonDef) {
    this.def = def;
    const built = buildSkeleton(def);
    this.boneList = built.bones;
    this.bones = built.byName;
    this.root = built.root;
    this.root.updateMatrixWorld(true);
    for (const bone of built.bones) {
      this.bindRotation.set(bone, bone.quaternion.clone());
      this.bindInverse.set(bone, bone.matrixWorld.clone().invert());
    }
    const head = (name: string): Vector3 => new Vector3(...def.bones.find((b) => b.name === name)!.head);
    const rootHead = new Vector3(...def.bones[0]!.head);
    this.pelvisBind = head('pelvis').sub(rootHead);
    this.ankleBind = def.bones.find((b) => b.name === 'foot_l')?.head[1] ?? 0;
    this.clearance = Math.min(...def.bones.slice(1).map((b) => b.head[1] - rootHead.y));
    for (const side of ['l', 'r']) {
      const foot = this.bones.get(`foot_${side}`);
      const ball = this.bones.get(`ball_${side}`);
      if (!foot || !ball) continue;
      const ankle = head(`foot_${side}`);
      const toe = head(`ball_${side}`);
      const points: SolePoint[] = [
        ...FOOT_SOLE.map(([y, z]) => ({ bone: foot, bind: new Vector3(ankle.x, ankle.y + y, ankle.z + z) })),
        ...BALL_SOLE.map(([y, z]) => ({ bone: ball, bind: new Vector3(toe.x, toe.y + y, toe.z + z) })),
      ];
      this.feet.push({ foot, points });
    }
  }

  /**
   * Meets the floor with one pose (see the module comment): pitches its feet in place (their
   * rotations in `pose` change) and returns the pelvis position relative to the root bone. Rigs
   * without `foot_*`/`ball_*` bones keep the ankle rule only.
   */
  place(pose: Pose, options: ContactOptions): Vector3 {
    const pelvis = this.pelvisBind.clone().add(pose.pelvisOffset);
    if (options.grounded) {
      this.set(pose, pelvis);
      pelvis.y += this.ankleBind - this.lowerAnkle();
    }
    if (options.contact === 'ankle') {
      if (options.clearFloor) {
        this.set(pose, pelvis);
        pelvis.y += Math.max(0, this.clearance - this.lowestJoint());
      }
      return pelvis;
    }
    this.set(pose, pelvis);
    for (const foot of this.feet) {
      if (this.lowestSole(foot) >= 0) continue;
      const base = foot.foot.quaternion.clone();
      const pitched = (angle: number): number => {
        foot.foot.quaternion.copy(base).multiply(qx(angle));
        foot.foot.updateMatrixWorld(true);
        return this.lowestSole(foot);
      };
      // Turn the way that raises the lowest sole point (toes up when the ball is under, toes down
      // when the heel is), by the smallest angle that clears the floor: step out, then bisect.
      const dir = pitched(0.05) >= pitched(-0.05) ? 1 : -1;
      let angle = 0;
      for (let step = 0.05; step <= MAX_PITCH + 1e-9; step += 0.05) {
        if (pitched(dir * step) < 0) continue;
        let [lo, hi] = [step - 0.05, step];
        for (let i = 0; i < 12; i++) {
          const mid = (lo + hi) / 2;
          if (pitched(dir * mid) >= 0) hi = mid;
          else lo = mid;
        }
        angle = dir * hi;
        break;
      }
      // A foot that no pitch within reach clears (upside down in a roll, an ankle under the
      // floor) keeps its pose: the pelvis lifts it below.
      pitched(angle);
      pose.rotations.set(foot.foot.name, foot.foot.quaternion.clone());
    }
    let lift = 0;
    for (const foot of this.feet) lift = Math.max(lift, -this.lowestSole(foot));
    if (options.clearFloor) lift = Math.max(lift, this.clearance - this.lowestJoint());
    pelvis.y += lift;
    if (options.clearFloor) {
      // The skin last: the lift above moves every bone the same, so one more lift settles it.
      this.set(pose, pelvis);
      pelvis.y += this.skinBelow();
    }
    return pelvis;
  }

  /** Poses the skeleton: bind rotations, then the pose's, with the pelvis at `pelvis` (root frame). */
  private set(pose: Pose, pelvis: Vector3): void {
    for (const [bone, q] of this.bindRotation) bone.quaternion.copy(q);
    for (const [name, q] of pose.rotations) this.bones.get(name)?.quaternion.copy(q);
    this.bones.get('pelvis')!.position.copy(pelvis);
    this.root.updateMatrixWorld(true);
  }

  /** Height above the root of the lower ankle (the root's own height on a rig without feet). */
  private lowerAnkle(): number {
    let low = Infinity;
    for (const name of ['foot_l', 'foot_r']) {
      const bone = this.bones.get(name);
      if (bone) low = Math.min(low, bone.matrixWorld.elements[13]!);
    }
    return (Number.isFinite(low) ? low : this.rootY()) - this.rootY();
  }

  private rootY(): number {
    return this.root.matrixWorld.elements[13]!;
  }

  /** Lowest sole point of one foot above the root, as the bones place it now. */
  private lowestSole(foot: { points: SolePoint[] }): number {
    let low = Infinity;
    for (const point of foot.points) {
      const bone = point.bone;
      scratch.copy(point.bind).applyMatrix4(this.bindInverse.get(bone)!).applyMatrix4(bone.matrixWorld);
      low = Math.min(low, scratch.y);
    }
    return low - this.rootY();
  }

  /** How far the skin goes below its bind pose's lowest vertex (0 when it does not), metres. */
  private skinBelow(): number {
    this.skin ??= new SkinSurface(this.def, this.boneList, this.bindInverse);
    return Math.max(0, this.skin.floor - (this.skin.lowest() - this.rootY()));
  }

  /** Lowest joint above the root. */
  private lowestJoint(): number {
    let low = Infinity;
    for (const bone of this.bones.values()) if (bone !== this.root) low = Math.min(low, bone.matrixWorld.elements[13]!);
    return low - this.rootY();
  }
}

/** The mannequin's low-detail skin, for `clearFloor` clips. */
class SkinSurface {
  private readonly positions: Float32Array;
  private readonly indices: Uint16Array;
  private readonly weights: Float32Array;
  /** Lowest vertex of the bind pose above the root. */
  readonly floor: number;
  private readonly matrices: Matrix4[];

  private readonly bones: readonly Bone[];
  private readonly bindInverse: ReadonlyMap<Bone, Matrix4>;

  constructor(def: SkeletonDef, bones: readonly Bone[], bindInverse: ReadonlyMap<Bone, Matrix4>) {
    this.bones = bones;
    this.bindInverse = bindInverse;
    const positions: number[] = [];
    const indices: number[] = [];
    const weights: number[] = [];
    for (const piece of buildHumanoidPieces(DEFAULT_PALETTE, 'low', def)) {
      const position = piece.geometry.getAttribute('position');
      const index = piece.geometry.getAttribute('skinIndex');
      const weight = piece.geometry.getAttribute('skinWeight');
      // Every vertex: a sample of them misses the chin and the nose as a roll brings them down.
      for (let i = 0; i < position.count; i += SKIN_STRIDE) {
        positions.push(position.getX(i), position.getY(i), position.getZ(i));
        for (let c = 0; c < 4; c++) {
          indices.push(index.getComponent(i, c));
          weights.push(weight.getComponent(i, c));
        }
      }
      piece.geometry.dispose();
    }
    this.positions = Float32Array.from(positions);
    this.indices = Uint16Array.from(indices);
    this.weights = Float32Array.from(weights);
    this.matrices = bones.map(() => new Matrix4());
    let floor = Infinity;
    for (let i = 1; i < positions.length; i += 3) floor = Math.min(floor, positions[i]!);
    this.floor = floor - def.bones[0]!.head[1];
  }

  /** Lowest skinned vertex (model frame) as the bones place it now. */
  lowest(): number {
    this.bones.forEach((bone, b) => this.matrices[b]!.multiplyMatrices(bone.matrixWorld, this.bindInverse.get(bone)!));
    let low = Infinity;
    const p = this.positions;
    for (let v = 0; v < p.length / 3; v++) {
      let y = 0;
      for (let c = 0; c < 4; c++) {
        const w = this.weights[v * 4 + c]!;
        if (w === 0) continue;
        const e = this.matrices[this.indices[v * 4 + c]!]!.elements;
        y += w * (e[1]! * p[v * 3]! + e[5]! * p[v * 3 + 1]! + e[9]! * p[v * 3 + 2]! + e[13]!);
      }
      low = Math.min(low, y);
    }
    return low;
  }
}

/** Every how many vertices of the low-detail mannequin {@link SkinSurface} keeps (every third missed the jaw by 27 mm in a roll). */
const SKIN_STRIDE = 1;

const scratch = new Vector3();
const probes = new WeakMap<SkeletonDef, GroundContact>();

/** The ground-contact probe of a rig, built once per rig definition. */
export function groundContact(rig: SkeletonDef): GroundContact {
  let probe = probes.get(rig);
  if (!probe) probes.set(rig, (probe = new GroundContact(rig)));
  return probe;
}
