/**
 * Turns one skinned piece of a character into geometry the crowd shader can draw:
 * - positions and normals move into bind space (the mesh's bind matrix applied once, here);
 * - skin influences are cut to the strongest four, renormalised, and remapped to crowd bones;
 * - morph targets are removed. This one matters: three's `NodeMaterial.setupPosition` injects
 *   morph code whenever `geometry.morphAttributes` has entries, and on an instanced crowd draw
 *   that WGSL fails with "cannot index type 'f32'". Crowd avatars do not run facial morphs;
 * - tangents are dropped (they would not be skinned; three derives a frame where a normal map needs one).
 * Uses three's math and geometry classes only; no renderer, so Node tests cover it.
 */
import { BufferAttribute, BufferGeometry, Float32BufferAttribute, Matrix3, Uint16BufferAttribute, Vector3, type SkinnedMesh } from 'three';
import { limitInfluences, type InfluenceSet } from './influences.ts';

export interface PreparedGeometry {
  geometry: BufferGeometry;
  /** Morph targets (summed over position/normal/color) that were removed. */
  morphTargetsRemoved: number;
  /** Vertices that had more than four influences. */
  clampedVertices: number;
  /** Vertices with no weights (bound rigidly to the fallback bone). */
  unweightedVertices: number;
}

/** Attributes carried over as they are (besides position, normal and skinning). */
const KEPT_ATTRIBUTES = ['uv', 'uv1', 'color'] as const;

/** Extra influence sets, as three's loaders name them (GLTFLoader lower-cases JOINTS_1 → joints_1). */
function influenceSets(geometry: BufferGeometry): InfluenceSet[] {
  const sets: InfluenceSet[] = [];
  const add = (indexName: string, weightName: string): void => {
    const index = geometry.getAttribute(indexName);
    const weight = geometry.getAttribute(weightName);
    if (!index || !weight) return;
    if (index.count !== weight.count || index.itemSize !== weight.itemSize)
      throw new RangeError(
        `${indexName}/${weightName} do not match (${index.count}×${index.itemSize} vs ${weight.count}×${weight.itemSize})`,
      );
    sets.push({
      indices: readComponents(index as BufferAttribute),
      weights: readComponents(weight as BufferAttribute),
      itemSize: index.itemSize,
    });
  };
  add('skinIndex', 'skinWeight');
  for (let set = 1; set < 8; set++) {
    add(`joints_${set}`, `weights_${set}`);
    add(`skinIndex${set}`, `skinWeight${set}`);
  }
  return sets;
}

/** Attribute components as plain numbers, de-normalising normalized integer weights. */
function readComponents(attribute: BufferAttribute): ArrayLike<number> {
  if (!attribute.normalized && !(attribute as { isInterleavedBufferAttribute?: boolean }).isInterleavedBufferAttribute)
    return attribute.array as ArrayLike<number>;
  const out = new Float32Array(attribute.count * attribute.itemSize);
  for (let i = 0; i < attribute.count; i++)
    for (let k = 0; k < attribute.itemSize; k++) out[i * attribute.itemSize + k] = attribute.getComponent(i, k);
  return out;
}

/**
 * @param mesh the skinned piece (its `bindMatrix` and geometry are read, not changed)
 * @param remap file bone index (in `mesh.skeleton.bones`) → crowd bone index
 * @param fallbackBone crowd bone for vertices with no weights
 */
export function prepareCrowdGeometry(mesh: SkinnedMesh, remap: ArrayLike<number>, fallbackBone = 0): PreparedGeometry {
  const source = mesh.geometry;
  const position = source.getAttribute('position');
  if (!position) throw new RangeError(`piece "${mesh.name || '(unnamed)'}" has no positions`);
  const count = position.count;
  const sets = influenceSets(source);
  if (sets.length === 0) throw new RangeError(`piece "${mesh.name || '(unnamed)'}" has no skinIndex/skinWeight attributes`);
  const influences = limitInfluences(sets, count, remap, fallbackBone);

  const geometry = new BufferGeometry();
  geometry.name = `crowd-${mesh.name || 'piece'}`;
  const bind = mesh.bindMatrix;
  const normalMatrix = new Matrix3().getNormalMatrix(bind);
  const v = new Vector3();
  const positions = new Float32Array(count * 3);
  for (let i = 0; i < count; i++) {
    v.fromBufferAttribute(position, i).applyMatrix4(bind);
    v.toArray(positions, i * 3);
  }
  geometry.setAttribute('position', new Float32BufferAttribute(positions, 3));
  const normal = source.getAttribute('normal');
  if (normal) {
    const normals = new Float32Array(count * 3);
    for (let i = 0; i < count; i++) {
      v.fromBufferAttribute(normal, i).applyMatrix3(normalMatrix).normalize();
      v.toArray(normals, i * 3);
    }
    geometry.setAttribute('normal', new Float32BufferAttribute(normals, 3));
  }
  for (const name of KEPT_ATTRIBUTES) {
    const attribute = source.getAttribute(name);
    if (attribute) geometry.setAttribute(name, (attribute as BufferAttribute).clone());
  }
  geometry.setAttribute('skinIndex', new Uint16BufferAttribute(influences.indices, 4));
  geometry.setAttribute('skinWeight', new Float32BufferAttribute(influences.weights, 4));
  if (source.index) geometry.setIndex(source.index.clone());
  if (!normal) geometry.computeVertexNormals();
  for (const group of source.groups) geometry.addGroup(group.start, group.count, group.materialIndex);
  geometry.setDrawRange(source.drawRange.start, source.drawRange.count);

  let morphTargetsRemoved = 0;
  for (const targets of Object.values(source.morphAttributes)) morphTargetsRemoved += targets.length;
  // The trap: leave this empty, or three injects morph code into the crowd's vertex shader.
  geometry.morphAttributes = {};
  geometry.morphTargetsRelative = false;
  geometry.computeBoundingBox();
  geometry.computeBoundingSphere();
  return { geometry, morphTargetsRemoved, clampedVertices: influences.clamped, unweightedVertices: influences.unweighted };
}
