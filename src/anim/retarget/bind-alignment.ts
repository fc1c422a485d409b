import { Matrix4, Quaternion, Vector3 } from 'three';
import { ALIGNMENT, TORSO_LINE_DEG } from './canonical.ts';
import { evaluationOrder, type BoneMapping } from './bone-map.ts';
import { bindLocalPose, forwardKinematics, rotationOf, type LocalPose } from './kinematics.ts';
import type { RigDescription } from './rig-description.ts';

/**
 * Step 2 of retargeting: the target's **reference pose**, the target posed like the source's bind
 * pose (an A-pose target raised into the T-pose of a T-pose source, a different facing turned
 * around). Both rigs then share one reference orientation, and a frame's motion is carried over as
 * the source bone's world-space rotation *away from its bind*, applied to the target bone's
 * reference: `target(t) = source(t) · sourceBind⁻¹ · targetReference`. At the source's bind pose
 * that is the reference itself, so the A-to-T difference is applied once, here, and never added to
 * every frame's rotation.
 */
export interface ReferencePose {
  /** Target local pose: aligned bones turned, every other bone at its bind local transform. */
  local: LocalPose;
  /** Model-space matrices of the reference pose. */
  world: Matrix4[];
  /** Model-space rotation of each target bone in the reference pose (scale removed). */
  worldRotation: Quaternion[];
  worldPosition: Vector3[];
  /** World-space rotation applied to each aligned target bone (by target index). */
  alignment: Map<number, Quaternion>;
  /**
   * What alignment could not remove, per aligned target bone: the angle (radians) left between its
   * primary direction and the source's (≈ 0 unless a direction is degenerate).
   */
  residual: Map<number, number>;
}

const axis = new Vector3();
const UP = new Vector3(0, 1, 0);

/** Turns a bone about its head (world' = T(head) · R(turn) · T(−head) · world) and stores its new local rotation. */
function applyTurn(
  world: Matrix4,
  head: Vector3,
  turn: Quaternion,
  parentWorld: Matrix4,
  local: LocalPose,
  bone: number,
  position: Vector3,
  scale: Vector3,
): void {
  const pivot = new Matrix4()
    .makeTranslation(head.x, head.y, head.z)
    .multiply(new Matrix4().makeRotationFromQuaternion(turn))
    .multiply(new Matrix4().makeTranslation(-head.x, -head.y, -head.z));
  world.premultiply(pivot);
  new Matrix4().copy(parentWorld).invert().multiply(world).decompose(position, local.rotation[bone]!, scale);
  local.rotation[bone]!.normalize();
}

/**
 * A rig's facing in its bind pose (model space, horizontal): left = left bone − right bone over the
 * upper arms and the feet, forward = left × up; the thighs when neither pair maps. Null when no pair
 * gives a direction.
 */
export function bindFacing(rig: RigDescription, canonical: ReadonlyMap<string, number>): Vector3 | null {
  const left = new Vector3();
  for (const parts of [['UpperArm', 'Foot'], ['UpperLeg']]) {
    for (const part of parts) {
      const l = canonical.get(`left${part}`);
      const r = canonical.get(`right${part}`);
      if (l === undefined || r === undefined) continue;
      const line = rig.bones[l]!.worldPosition.clone().sub(rig.bones[r]!.worldPosition).setY(0);
      if (line.lengthSq() > 1e-12) left.add(line.normalize());
    }
    if (left.lengthSq() > 1e-12) break;
  }
  if (left.lengthSq() < 1e-12) return null;
  return left.normalize().cross(UP).normalize();
}

/** The turn about the vertical that carries the target's bind facing onto the source's (none when either has no facing). */
export function facingTurn(source: RigDescription, target: RigDescription, mapping: BoneMapping): Quaternion {
  const from = bindFacing(target, mapping.target.canonical);
  const to = bindFacing(source, mapping.source.canonical);
  if (!from || !to) return new Quaternion();
  return new Quaternion().setFromAxisAngle(UP, Math.atan2(from.clone().cross(to).y, from.dot(to)));
}

/** Aligns the target's mapped bones, top-down, to the source's bind directions. */
export function alignBindPose(source: RigDescription, target: RigDescription, mapping: BoneMapping): ReferencePose {
  const local = bindLocalPose(target);
  const world = target.bones.map(() => new Matrix4());
  const alignment = new Map<number, Quaternion>();
  const residual = new Map<number, number>();
  const sourceIndex = mapping.source.canonical;
  const targetIndex = mapping.target.canonical;
  // Below in the chain: a descendant, or a bone attached (through its chain) to one.
  const isDescendant = (rig: RigDescription, attached: ReadonlyMap<number, number>, ancestor: number, bone: number): boolean => {
    for (let p = attached.get(bone) ?? rig.bones[bone]!.parent; p >= 0; p = attached.get(p) ?? rig.bones[p]!.parent)
      if (p === ancestor) return true;
    return false;
  };
  const attachments = mapping.target.attachments;
  /** A canonical bone both rigs map, below `sourceBone`/`targetBone` in each. */
  const shared = (canonical: string, sourceBone: number, targetBone: number): { s: number; t: number } | null => {
    const s = sourceIndex.get(canonical);
    const t = targetIndex.get(canonical);
    if (s === undefined || t === undefined || !mapping.byTarget.has(t)) return null;
    if (!isDescendant(source, mapping.source.attachments, sourceBone, s) || !isDescendant(target, attachments, targetBone, t)) return null;
    return { s, t };
  };

  /** True when `c` lies within TORSO_LINE_DEG of the line to `line` from the bone, in both rigs' bind poses (or either direction is degenerate). */
  const onTorsoLine = (s: number, t: number, c: { s: number; t: number }, line: { s: number; t: number }): boolean => {
    const limit = Math.cos((TORSO_LINE_DEG * Math.PI) / 180);
    for (const [rig, from, to, along] of [
      [source, s, c.s, line.s],
      [target, t, c.t, line.t],
    ] as const) {
      const a = rig.bones[to]!.worldPosition.clone().sub(rig.bones[from]!.worldPosition);
      const b = rig.bones[along]!.worldPosition.clone().sub(rig.bones[from]!.worldPosition);
      if (a.lengthSq() < 1e-12 || b.lengthSq() < 1e-12) continue;
      if (a.normalize().dot(b.normalize()) < limit) return false;
    }
    return true;
  };
  const parentWorld = new Matrix4();
  const localMatrix = new Matrix4();
  const head = new Vector3();
  const scratch = new Vector3();
  const scale = new Vector3();
  for (const i of evaluationOrder(target, attachments)) {
    const bone = target.bones[i]!;
    if (bone.parent >= 0) parentWorld.multiplyMatrices(world[bone.parent]!, bone.parentOffset);
    else parentWorld.copy(bone.parentOffset);
    const chain = attachments.get(i);
    if (chain !== undefined) {
      // An attached bone moves with its chain bone: it keeps its bind place in that bone's frame.
      head.copy(bone.worldPosition).applyMatrix4(target.bones[chain]!.worldMatrix.clone().invert()).applyMatrix4(world[chain]!);
      local.position[i]!.copy(head).applyMatrix4(parentWorld.clone().invert());
    }
    localMatrix.compose(local.position[i]!, local.rotation[i]!, local.scale[i]!);
    world[i]!.multiplyMatrices(parentWorld, localMatrix);
    const pair = mapping.byTarget.get(i);
    if (pair?.canonical === 'hips') {
      // The pelvis keeps its rest pose in the character's own frame: turned only about the vertical,
      // from the target's facing onto the source's. Aligning it by the torso line instead tilts it
      // by however far the rigs place their first spine joint apart (18° on Mesh2Motion's rigs) and
      // deforms the hip area of the mesh in every frame, idle included; the spine bones above it
      // take the source's torso directions.
      const turn = facingTurn(source, target, mapping);
      head.setFromMatrixPosition(world[i]!);
      applyTurn(world[i]!, head, turn, parentWorld, local, i, scratch, scale);
      alignment.set(i, turn);
      residual.set(i, 0);
      continue;
    }
    const spec = pair ? ALIGNMENT.get(pair.canonical) : undefined;
    if (!pair || !spec) continue;
    // A candidate at the bone's own head in either rig (mocap's LowerBack on its Hips) gives no
    // direction: passed over for the next one up, so the bone is still turned and rolled.
    const apart = (c: { s: number; t: number }): boolean =>
      source.bones[c.s]!.worldPosition.distanceToSquared(source.bones[pair.source]!.worldPosition) >= 1e-12 &&
      target.bones[c.t]!.worldPosition.distanceToSquared(bone.worldPosition) >= 1e-12;
    const candidates = spec.primary
      .map((c) => shared(c, pair.source, i))
      .filter((x): x is { s: number; t: number } => x !== null && apart(x));
    const primary = spec.alongTorso ? candidates.find((c) => onTorsoLine(pair.source, i, c, candidates.at(-1)!)) : candidates[0];
    if (!primary) continue;
    head.setFromMatrixPosition(world[i]!);
    // Where a bind-relative descendant sits now: the bones in between are still at bind.
    const now = (t: number, out: Vector3): Vector3 =>
      out.copy(target.bones[t]!.worldPosition).applyMatrix4(target.bones[i]!.worldMatrix.clone().invert()).applyMatrix4(world[i]!);
    const sourceHead = source.bones[pair.source]!.worldPosition;
    const wantPrimary = source.bones[primary.s]!.worldPosition.clone().sub(sourceHead);
    const havePrimary = now(primary.t, scratch).clone().sub(head);
    if (wantPrimary.lengthSq() < 1e-12 || havePrimary.lengthSq() < 1e-12) continue;
    wantPrimary.normalize();
    const turn = new Quaternion().setFromUnitVectors(havePrimary.normalize(), wantPrimary);
    if (spec.secondary) {
      const a = shared(spec.secondary[0], pair.source, i);
      const b = shared(spec.secondary[1], pair.source, i);
      if (a && b) {
        const want = source.bones[a.s]!.worldPosition.clone().sub(source.bones[b.s]!.worldPosition);
        const have = now(a.t, new Vector3()).sub(now(b.t, new Vector3())).applyQuaternion(turn);
        // Compare both in the plane across the primary direction, then roll about it.
        want.addScaledVector(wantPrimary, -want.dot(wantPrimary));
        have.addScaledVector(wantPrimary, -have.dot(wantPrimary));
        if (want.lengthSq() > 1e-10 && have.lengthSq() > 1e-10) {
          want.normalize();
          have.normalize();
          const roll = Math.atan2(axis.crossVectors(have, want).dot(wantPrimary), have.dot(want));
          turn.premultiply(new Quaternion().setFromAxisAngle(wantPrimary, roll));
        }
      }
    }
    applyTurn(world[i]!, head, turn, parentWorld, local, i, scratch, scale);
    alignment.set(i, turn);
    const after = now(primary.t, new Vector3()).sub(head).normalize();
    residual.set(i, Math.acos(Math.min(1, Math.max(-1, after.dot(wantPrimary)))));
  }
  // Final pass: the reference pose's matrices from its local pose.
  forwardKinematics(target, local, world);
  return {
    local,
    world,
    worldRotation: world.map((m) => rotationOf(m)),
    worldPosition: world.map((m) => new Vector3().setFromMatrixPosition(m)),
    alignment,
    residual,
  };
}
