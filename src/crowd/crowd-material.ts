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
 *
 * Animation is evaluated here, per vertex, from the instance's animation record
 * (instance-layout.ts) and one crowd-clock uniform: each clip's time is `phase + clock × speed`
 * wrapped or clamped to the clip (from a small clip table: first row, frames, duration, loop),
 * giving two baked rows and the blend between them; during a crossfade both clips are sampled
 * and blended per bone with the smoothstep weight. A live avatar (slot ≥ 0) reads this frame's
 * pose from the live buffer instead. Four influences per vertex.
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
import {
  attribute,
  Break,
  clamp,
  cos,
  cross,
  distance,
  dot,
  float,
  floor,
  Fn,
  If,
  instancedDynamicBufferAttribute,
  int,
  Loop,
  materialColor,
  max,
  min,
  mix,
  normalGeometry,
  normalize,
  normalLocal,
  positionGeometry,
  select,
  sin,
  vec3,
  vec4,
  vertexColor,
} from 'three/tsl';
import type { BakedLocalTables, BoneFetch, TslNode } from './bone-buffers.ts';
import { ANIM_FLOATS, POSE_FLOATS } from './instance-layout.ts';

export interface CrowdSkinningInputs {
  /** Per instance: x, y, z, facing. */
  pose: InstancedInterleavedBuffer;
  /** Per instance: the animation record (instance-layout.ts). */
  anim: InstancedInterleavedBuffer;
  live: BoneFetch;
  baked: BoneFetch;
  /** Float uniform: seconds since the crowd's epoch. */
  clock: TslNode;
  /** vec4 uniform array, one per clip: first row, frames, duration, loop (1) or once (0). */
  clips: TslNode;
  /** Local transforms and the rig, for crossfades blended joint by joint. */
  locals: BakedLocalTables;
  /** The template's uniform root scale. */
  rootScale: number;
  /** Longest parent chain of a bone (loop bound). */
  depth: number;
  /** Per-avatar variants (variant-table.ts): the vec4 table and vec4s per variant; its build scales the skinned pose. */
  variants?: { table: TslNode; stride: number };
}

/** Quaternion product a × b. */
const qmul = (a: TslNode, b: TslNode): TslNode =>
  vec4(b.xyz.mul(a.w).add(a.xyz.mul(b.w)).add(cross(a.xyz, b.xyz)), a.w.mul(b.w).sub(dot(a.xyz, b.xyz)));
/** v rotated by unit quaternion q. */
const qrotate = (q: TslNode, v: TslNode): TslNode => v.add(cross(q.xyz, cross(q.xyz, v).add(v.mul(q.w))).mul(2));
/** Normalised lerp along the shorter arc (slerp's midpoint, and within a hair of it at 30 fps). */
const nlerp = (a: TslNode, b: TslNode, t: TslNode): TslNode => {
  const flip: TslNode = dot(a, b).lessThan(0);
  const near: TslNode = select(flip, b.negate(), b);
  const mixed: TslNode = mix(a, near, t);
  return normalize(mixed);
};

/** The animation record's three vec4s, for the material's other stages (palette). */
export function animRecordNodes(anim: InstancedInterleavedBuffer): [TslNode, TslNode, TslNode] {
  return [0, 4, 8].map((offset) => instancedDynamicBufferAttribute(anim, 'vec4', ANIM_FLOATS, offset)) as [TslNode, TslNode, TslNode];
}

/** Builds the position node (and, as a side effect in the vertex stage, the skinned normal). */
export function crowdSkinningNode(inputs: CrowdSkinningInputs): TslNode {
  const { live, baked, clock, clips } = inputs;
  const place: TslNode = instancedDynamicBufferAttribute(inputs.pose, 'vec4', POSE_FLOATS, 0);
  const [current, previous, fade] = animRecordNodes(inputs.anim);

  /** Rows and blend of one clip at the crowd clock: instance-layout.ts recordClipFrame, on the GPU. */
  const clipFrame = (clip: TslNode, phase: TslNode, speed: TslNode): [TslNode, TslNode, TslNode] => {
    const info = clips.element(int(clip));
    const start = info.x;
    const frames = info.y;
    const duration = info.z;
    const safe = max(duration, float(1e-6));
    const t = phase.add(clock.mul(speed));
    const time = select(info.w.greaterThan(0.5), t.sub(floor(t.div(safe)).mul(safe)), clamp(t, float(0), duration));
    const position = clamp(time.div(safe), float(0), float(1)).mul(frames.sub(1)).toVar();
    const frame = min(floor(position), max(frames.sub(2), float(0))).toVar();
    const row0 = start.add(frame).toVar();
    const row1 = min(row0.add(1), start.add(frames).sub(1));
    return [int(row0), int(row1), clamp(position.sub(frame), float(0), float(1)).toVar()];
  };

  return Fn(() => {
    const skinIndex = attribute('skinIndex', 'uvec4');
    const skinWeight = attribute('skinWeight', 'vec4');
    const row0 = vec4(0).toVar('crowdSkinRow0');
    const row1 = vec4(0).toVar('crowdSkinRow1');
    const row2 = vec4(0).toVar('crowdSkinRow2');
    const components = ['x', 'y', 'z', 'w'] as const;
    const rows = [row0, row1, row2];
    const liveSlot = current.w;

    If(liveSlot.greaterThanEqual(0), () => {
      // Procedurally controlled avatar: this frame's pose from the live buffer.
      const slot = int(liveSlot);
      for (const c of components) {
        const texel = int(skinIndex[c]).mul(3);
        const w = skinWeight[c];
        for (const [r, target] of rows.entries()) target.addAssign(live(slot, texel.add(r)).mul(w));
      }
    }).Else(() => {
      const [a0, a1, blendA] = clipFrame(current.x, current.y, current.z);
      const s = clamp(clock.sub(fade.x).mul(fade.y), float(0), float(1));
      const weight = select(fade.y.greaterThan(0), s.mul(s).mul(float(3).sub(s.mul(2))), float(1)).toVar();
      If(weight.lessThan(1), () => {
        // Crossfade, joint by joint as three's mixer does: each chain node's local rotation is
        // the nlerp of both clips' (each between its two frames), its translation and scale the
        // lerp; the bone's transform is composed up its parent chain. Blending the finished
        // matrices instead would shorten a limb that the two clips swing in opposite directions.
        const [b0, b1, blendB] = clipFrame(previous.x, previous.y, previous.z);
        const { local, inverseBind, links } = inputs.locals;
        for (const c of components) {
          const bone = int(skinIndex[c]);
          const w = skinWeight[c];
          const q = vec4(0, 0, 0, 1).toVar();
          const t = vec3(0).toVar();
          const scale = float(1).toVar();
          const node = int(links(bone).y).toVar();
          Loop({ start: int(0), end: int(inputs.depth), type: 'int', condition: '<' }, () => {
            If(node.lessThan(0), () => {
              Break();
            });
            const qa = nlerp(local(a0, node, 0), local(a1, node, 0), blendA);
            const qb = nlerp(local(b0, node, 0), local(b1, node, 0), blendB);
            const ta = mix(local(a0, node, 1), local(a1, node, 1), blendA);
            const tb = mix(local(b0, node, 1), local(b1, node, 1), blendB);
            const ql: TslNode = nlerp(qb, qa, weight).toVar();
            const blended: TslNode = mix(tb, ta, weight);
            const tl: TslNode = blended.toVar();
            // Parent ∘ what is below: the chain is walked from the bone up.
            t.assign(tl.xyz.add(qrotate(ql, t).mul(tl.w)));
            q.assign(normalize(qmul(ql, q)));
            scale.assign(scale.mul(tl.w));
            node.assign(int(links(node).x));
          });
          // [root scale × scale × R(q) | root scale × t] × inverse bind, added with the influence's weight.
          const x2 = q.x.mul(2);
          const y2 = q.y.mul(2);
          const z2 = q.z.mul(2);
          const xx = q.x.mul(x2);
          const xy = q.x.mul(y2);
          const xz = q.x.mul(z2);
          const yy = q.y.mul(y2);
          const yz = q.y.mul(z2);
          const zz = q.z.mul(z2);
          const wx = q.w.mul(x2);
          const wy = q.w.mul(y2);
          const wz = q.w.mul(z2);
          const rotation = [
            [float(1).sub(yy.add(zz)), xy.sub(wz), xz.add(wy)],
            [xy.add(wz), float(1).sub(xx.add(zz)), yz.sub(wx)],
            [xz.sub(wy), yz.add(wx), float(1).sub(xx.add(yy))],
          ];
          const s = scale.mul(inputs.rootScale);
          const inv = [inverseBind(bone, 0), inverseBind(bone, 1), inverseBind(bone, 2)];
          const translation = [t.x, t.y, t.z];
          for (const [r, target] of rows.entries()) {
            const m = rotation[r]!;
            const row = inv[0]
              .mul(m[0])
              .add(inv[1].mul(m[1]))
              .add(inv[2].mul(m[2]))
              .mul(s)
              .add(vec4(0, 0, 0, translation[r]!.mul(inputs.rootScale)));
            target.addAssign(row.mul(w));
          }
        }
      }).Else(() => {
        for (const c of components) {
          const texel = int(skinIndex[c]).mul(3);
          const w = skinWeight[c];
          for (const [r, target] of rows.entries()) {
            const t = texel.add(r);
            target.addAssign(mix(baked(a0, t), baked(a1, t), blendA).mul(w));
          }
        }
      });
    });

    const p = vec4(positionGeometry, 1);
    let skinned: TslNode = vec3(dot(row0, p), dot(row1, p), dot(row2, p));
    const n = normalGeometry;
    let skinnedNormal: TslNode = vec3(dot(row0.xyz, n), dot(row1.xyz, n), dot(row2.xyz, n));
    if (inputs.variants) {
      // The variant's build: height along Y, width along X and Z, about the feet (normals by the inverse).
      const { table, stride } = inputs.variants;
      const base = int(fade.z.add(0.5)).mul(stride);
      const height = table.element(base).w;
      const width = table.element(base.add(1)).w;
      const scale = vec3(width, height, width);
      skinned = skinned.mul(scale);
      skinnedNormal = normalize(skinnedNormal.div(scale));
    }

    // Facing f turns the model's +Z to (sin f, 0, cos f).
    const c = cos(place.w);
    const s = sin(place.w);
    const turned = vec3(skinned.x.mul(c).add(skinned.z.mul(s)), skinned.y, skinned.z.mul(c).sub(skinned.x.mul(s)));
    normalLocal.assign(
      vec3(skinnedNormal.x.mul(c).add(skinnedNormal.z.mul(s)), skinnedNormal.y, skinnedNormal.z.mul(c).sub(skinnedNormal.x.mul(s))),
    );
    return turned.add(place.xyz);
  })();
}

/**
 * Per-avatar colours: palette entry `index` (from the animation record; 0 keeps the file's
 * colours) recolours the material: the palette colour at the original colour's brightness, so
 * shading, stripes and vertex-colour detail survive. `palette` is a vec4 uniform array.
 */
export function paletteColorNode(anim: InstancedInterleavedBuffer, palette: TslNode, vertexColors: boolean): TslNode {
  const [, previous] = animRecordNodes(anim);
  return Fn(() => {
    const base = vertexColors ? materialColor.mul(vertexColor().rgb) : materialColor;
    const index = int(previous.w.add(0.5));
    const lum = dot(base, vec3(0.2126, 0.7152, 0.0722));
    const tinted = palette.element(index).rgb.mul(lum.mul(2.2));
    return select(index.greaterThan(0), tinted, base);
  })();
}

/**
 * Per-avatar variant colours (variant-table.ts): a vertex whose colour is one of the template's
 * `regions` takes that region's colour from the avatar's variant (index in the animation
 * record's third vec4, z); other vertices, and variant 0, keep the file's colours. Then the
 * palette tint, when one applies. Only for materials with vertex colours (regions are matched by
 * vertex colour).
 */
export function variantColorNode(
  anim: InstancedInterleavedBuffer,
  table: TslNode,
  regions: ReadonlyArray<readonly [number, number, number]>,
  stride: number,
  tolerance: number,
  palette?: TslNode,
): TslNode {
  const [, previous, fade] = animRecordNodes(anim);
  return Fn(() => {
    const own = vertexColor().rgb;
    const base = int(fade.z.add(0.5)).mul(stride);
    const color = own.toVar();
    for (const [r, region] of regions.entries()) {
      const hit: TslNode = distance(own, vec3(region[0], region[1], region[2])).lessThan(tolerance * 1.732);
      color.assign(select(hit, table.element(base.add(r)).rgb, color));
    }
    const shaded = materialColor.mul(color);
    if (!palette) return shaded;
    const index = int(previous.w.add(0.5));
    const lum = dot(shaded, vec3(0.2126, 0.7152, 0.0722));
    return select(index.greaterThan(0), palette.element(index).rgb.mul(lum.mul(2.2)), shaded);
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
const SKIPPED = new Set([
  'uuid',
  'id',
  'type',
  'version',
  'userData',
  'positionNode',
  'isMaterial',
  'onBeforeCompile',
  'onBeforeRender',
  'customProgramCacheKey',
]);

/** A node material that looks like the file's material and skins with `positionNode`. */
export function createCrowdMaterial(source: Material, positionNode: TslNode, colorNode?: (vertexColors: boolean) => TslNode): NodeMaterial {
  let material: NodeMaterial;
  if ((source as NodeMaterial).isNodeMaterial) {
    material = (source as NodeMaterial).clone();
  } else {
    const NodeClass = NODE_CLASSES[source.type] ?? MeshStandardNodeMaterial;
    material = new NodeClass();
    // Copied by name between two unrelated classes, so through Reflect (three's material types have no index signature).
    for (const key of Object.keys(source)) {
      if (SKIPPED.has(key) || key.startsWith('is') || key.startsWith('_')) continue;
      const value: unknown = Reflect.get(source, key);
      if (typeof value === 'function') continue;
      if (key in material) Reflect.set(material, key, value);
    }
  }
  material.name = `crowd-${source.name || source.type}`;
  material.positionNode = positionNode;
  if (colorNode) {
    // The palette node multiplies vertex colours itself (before recolouring), so three must not again.
    material.colorNode = colorNode(material.vertexColors);
    material.vertexColors = false;
  }
  return material;
}
