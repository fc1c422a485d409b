/**
 * A ready-made procedural control for the live path: the head turns (yaw only, within a limit)
 * towards a point, such as the camera or the local player. It is what makes an avatar worth a
 * live slot: the GPU path plays clips, it cannot aim a head at someone who moves.
 */
import type { XZ } from '../core/math.ts';
import type { ClipSampler } from './clip-sampler.ts';
import type { CrowdAgent, LiveControl } from './crowd.ts';
import type { CrowdTemplate } from './template.ts';

/** Options of {@link headLookAt}. */
export interface HeadLookAtOptions {
  /** Where to look, read every time the pose is sampled (world x, z). */
  target: () => XZ;
  /** Most head turn either way, radians. Default 1.1 (63°). */
  maxYaw?: number;
  /** Node to turn. Default: the first bone whose name contains "head" (else "neck"). */
  node?: string;
}

/** Finds the node a head look-at turns: "head", else "neck" (case-insensitive), or null. */
export function findHeadNode(template: CrowdTemplate): string | null {
  const names = template.bones.map((bone) => bone.name);
  return names.find((n) => /head/i.test(n) && !/top|end|nub/i.test(n)) ?? names.find((n) => /neck/i.test(n)) ?? null;
}

/** A look-at control for `template`'s rig, or null when it has no head or neck bone. */
export function headLookAt(template: CrowdTemplate, options: HeadLookAtOptions): LiveControl | null {
  const node = options.node ?? findHeadNode(template);
  if (!node) return null;
  const maxYaw = options.maxYaw ?? 1.1;
  let index = -2;
  return {
    reason: 'look-at',
    apply(sampler: ClipSampler, agent: CrowdAgent) {
      if (index === -2) index = sampler.clips.nodeIndex(node);
      if (index < 0) return;
      const target = options.target();
      let yaw = Math.atan2(target.x - agent.x, target.z - agent.z) - agent.facing;
      yaw = Math.atan2(Math.sin(yaw), Math.cos(yaw));
      yaw = Math.max(-maxYaw, Math.min(maxYaw, yaw));
      // Pre-multiply the sampled local rotation by a turn about the parent's up axis.
      const h = Math.sin(yaw / 2);
      const c = Math.cos(yaw / 2);
      const q = sampler.quaternion;
      const o = index * 4;
      const x = q[o]!;
      const y = q[o + 1]!;
      const z = q[o + 2]!;
      const w = q[o + 3]!;
      q[o] = c * x + h * z;
      q[o + 1] = c * y + h * w;
      q[o + 2] = c * z - h * x;
      q[o + 3] = c * w - h * y;
    },
  };
}
