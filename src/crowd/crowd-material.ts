/**
 * The crowd's skinning, as a node material's position function. Each piece is drawn as a plain
 * Mesh with `count` instances — not an InstancedMesh, not a SkinnedMesh — because of how three
 * r187 builds vertex stages (NodeMaterial.setupPosition):
 * - it injects its own skinning only for `isSkinnedMesh` objects; ours is never doubled since the
 *   crowd meshes are not skinned meshes;
 * - for an InstancedMesh it applies `instanceMatrix` to positionLocal/normalLocal *before*
 *   positionNode runs; we skin from `positionGeometry`/`normalGeometry` (the untouched attributes)
 *   and carry our own per-instance transform, so nothing is applied twice;
 * - `normalNode` is a fragment-stage, view-space override; the skinned normal is assigned to
 *   `normalLocal` here, in the vertex stage, where three's lighting picks it up;
 * - shadows: the shadow pass reuses `material.positionNode`, so shadows come from the same pose.
 * Four influences per vertex; each reads three vec4 rows per bone from the live buffer, or four
 * baked rows (two frames × two clips during a crossfade) blended per bone.
 */
import {
  MeshBasicNodeMaterial,
  MeshLambertNodeMaterial,
  MeshPhongNodeMaterial,
  MeshPhysicalNodeMaterial,
  MeshStandardNodeMaterial,
  MeshToonNodeMaterial,
  type InstancedInterleavedBuffer,
  type Material,
  type NodeMaterial,
} from 'three/webgpu';
import { attribute, cos, dot, Fn, If, instancedDynamicBufferAttribute, int, mix, normalGeometry, normalLocal, positionGeometry, sin, vec3, vec4 } from 'three/tsl';
import type { BoneFetch, TslNode } from './bone-buffers.ts';
import { INSTANCE_FLOATS } from './instance-layout.ts';

export interface CrowdSkinningInputs {
  instances: InstancedInterleavedBuffer;
  live: BoneFetch;
  baked: BoneFetch;
}

/** Builds the position node (and, as a side effect in the vertex stage, the skinned normal). */
export function crowdSkinningNode(inputs: CrowdSkinningInputs): TslNode {
  const { instances, live, baked } = inputs;
  const place: TslNode = instancedDynamicBufferAttribute(instances, 'vec4', INSTANCE_FLOATS, 0);
  const current: TslNode = instancedDynamicBufferAttribute(instances, 'vec4', INSTANCE_FLOATS, 4);
  const previous: TslNode = instancedDynamicBufferAttribute(instances, 'vec4', INSTANCE_FLOATS, 8);

  return Fn(() => {
    const skinIndex = attribute('skinIndex', 'uvec4');
    const skinWeight = attribute('skinWeight', 'vec4');
    const row0 = vec4(0).toVar('crowdSkinRow0');
    const row1 = vec4(0).toVar('crowdSkinRow1');
    const row2 = vec4(0).toVar('crowdSkinRow2');
    const components = ['x', 'y', 'z', 'w'] as const;
    const liveSlot = previous.w;

    const rows = [row0, row1, row2];
    const a0 = int(current.x);
    const a1 = int(current.y);
    const blendA = current.z;
    const fadeOut = current.w;
    const b0 = int(previous.x);
    const b1 = int(previous.y);
    const blendB = previous.z;

    If(liveSlot.greaterThanEqual(0), () => {
      // Near avatar: this frame's mixer pose from the live buffer.
      const slot = int(liveSlot);
      for (const c of components) {
        const texel = int(skinIndex[c]).mul(3);
        const w = skinWeight[c];
        for (const [r, target] of rows.entries()) target.addAssign(live(slot, texel.add(r)).mul(w));
      }
    })
      .ElseIf(fadeOut.greaterThan(0), () => {
        // Far avatar in a crossfade: two clips, two frames each, blended per bone.
        for (const c of components) {
          const texel = int(skinIndex[c]).mul(3);
          const w = skinWeight[c];
          for (const [r, target] of rows.entries()) {
            const t = texel.add(r);
            const into = mix(baked(a0, t), baked(a1, t), blendA);
            const outOf = mix(baked(b0, t), baked(b1, t), blendB);
            target.addAssign(mix(into, outOf, fadeOut).mul(w));
          }
        }
      })
      .Else(() => {
        // Far avatar: two baked frames of one clip.
        for (const c of components) {
          const texel = int(skinIndex[c]).mul(3);
          const w = skinWeight[c];
          for (const [r, target] of rows.entries()) {
            const t = texel.add(r);
            target.addAssign(mix(baked(a0, t), baked(a1, t), blendA).mul(w));
          }
        }
      });

    const p = vec4(positionGeometry, 1);
    const skinned = vec3(dot(row0, p), dot(row1, p), dot(row2, p));
    const n = normalGeometry;
    const skinnedNormal = vec3(dot(row0.xyz, n), dot(row1.xyz, n), dot(row2.xyz, n));

    // Facing f turns the model's +Z to (sin f, 0, cos f).
    const c = cos(place.w);
    const s = sin(place.w);
    const turned = vec3(skinned.x.mul(c).add(skinned.z.mul(s)), skinned.y, skinned.z.mul(c).sub(skinned.x.mul(s)));
    normalLocal.assign(vec3(skinnedNormal.x.mul(c).add(skinnedNormal.z.mul(s)), skinnedNormal.y, skinnedNormal.z.mul(c).sub(skinnedNormal.x.mul(s))));
    return turned.add(place.xyz);
  })();
}

/** Node-material classes for the material types characters ship with. */
const NODE_CLASSES: Record<string, new () => NodeMaterial> = {
  MeshStandardMaterial: MeshStandardNodeMaterial,
  MeshPhysicalMaterial: MeshPhysicalNodeMaterial,
  MeshLambertMaterial: MeshLambertNodeMaterial,
  MeshPhongMaterial: MeshPhongNodeMaterial,
  MeshBasicMaterial: MeshBasicNodeMaterial,
  MeshToonMaterial: MeshToonNodeMaterial,
};

/** Properties never copied from the file's material (identity, class flags, callbacks). */
const SKIPPED = new Set(['uuid', 'id', 'type', 'version', 'userData', 'positionNode', 'isMaterial', 'onBeforeCompile', 'onBeforeRender', 'customProgramCacheKey']);

/** A node material that looks like the file's material and skins with `positionNode`. */
export function createCrowdMaterial(source: Material, positionNode: TslNode): NodeMaterial {
  let material: NodeMaterial;
  if ((source as NodeMaterial).isNodeMaterial) {
    material = (source as NodeMaterial).clone();
  } else {
    const NodeClass = NODE_CLASSES[source.type] ?? MeshStandardNodeMaterial;
    material = new NodeClass();
    const target = material as unknown as Record<string, unknown>;
    for (const key of Object.keys(source)) {
      if (SKIPPED.has(key) || key.startsWith('is') || key.startsWith('_')) continue;
      const value = (source as unknown as Record<string, unknown>)[key];
      if (typeof value === 'function') continue;
      if (key in target) target[key] = value;
    }
  }
  material.name = `crowd-${source.name || source.type}`;
  material.positionNode = positionNode;
  return material;
}
