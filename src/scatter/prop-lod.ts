import { BufferAttribute, BufferGeometry, type InterleavedBufferAttribute } from 'three';
import { bakeLodLevelsSync, LOD_RATIOS, type LodBakeOptions } from './lod-bake.ts';
import type { PropPiece } from './props/prop-types.ts';

/**
 * Turns a prop piece into its LOD geometries (three glue over the pure baker): level geometries
 * share the piece's vertex attribute objects — one set of vertex buffers on the GPU, artist
 * normals untouched — and each has its own index buffer.
 */

/** A piece ready to draw at every level. */
export interface BakedPart {
  /** The piece's name, for messages and the LOD report. */
  name: string;
  /** The piece's material, shared by every level. */
  material: PropPiece['material'];
  /** One geometry per level (0 = full), all sharing the same attribute objects. */
  levels: BufferGeometry[];
  /** Triangles per level. */
  triangles: number[];
  /** Whether the full-detail level casts shadows. */
  castShadow: boolean;
}

interface Prepared {
  positions: Float32Array;
  indices: Uint32Array;
}

/** Per-geometry preprocessing (positions to a plain xyz array, a 32-bit index), done once. */
const prepared = new WeakMap<BufferGeometry, Prepared>();
/** Baked levels per geometry and options key: a geometry shared by several props is baked once. */
const baked = new WeakMap<BufferGeometry, Map<string, BakedPart>>();

/** Extracts positions (de-interleaved, de-quantised) and a Uint32 triangle index. Memoised. */
export function prepareGeometry(geometry: BufferGeometry): Prepared {
  const cached = prepared.get(geometry);
  if (cached) return cached;
  const position = geometry.getAttribute('position') as BufferAttribute | InterleavedBufferAttribute | undefined;
  if (!position) throw new Error('geometry has no position attribute');
  let positions: Float32Array;
  if (position instanceof BufferAttribute && position.array instanceof Float32Array && position.itemSize === 3 && !position.normalized) {
    positions = position.array;
  } else {
    positions = new Float32Array(position.count * 3);
    for (let i = 0; i < position.count; i++) positions.set([position.getX(i), position.getY(i), position.getZ(i)], i * 3);
  }
  let indices: Uint32Array;
  if (geometry.index) {
    indices = geometry.index.array instanceof Uint32Array ? geometry.index.array : Uint32Array.from(geometry.index.array);
  } else {
    indices = Uint32Array.from({ length: position.count }, (_, i) => i);
  }
  const result = { positions, indices };
  prepared.set(geometry, result);
  return result;
}

/**
 * Bakes a piece's levels (memoised per geometry and options). Throws `LodBakeError` naming
 * `label` when a level does not shrink.
 */
export function bakePiece(piece: PropPiece, label: string, options: LodBakeOptions = {}): BakedPart {
  const key = JSON.stringify([options.ratios ?? LOD_RATIOS, options.flags ?? null, options.targetErrors ?? null, options.strict ?? true]);
  let byOptions = baked.get(piece.geometry);
  const hit = byOptions?.get(key);
  if (hit) return { ...hit, name: piece.name ?? hit.name, material: piece.material, castShadow: piece.castShadow ?? true };
  const source = piece.geometry;
  const { positions, indices } = prepareGeometry(source);
  const levels = bakeLodLevelsSync({ positions, indices, label }, options);
  if (!source.boundingSphere) source.computeBoundingSphere();
  if (!source.boundingBox) source.computeBoundingBox();
  const geometries = levels.indices.map((index, level) => {
    const geometry = new BufferGeometry();
    geometry.name = `${label} LOD${level}`;
    for (const [name, attribute] of Object.entries(source.attributes)) geometry.setAttribute(name, attribute);
    geometry.setIndex(level === 0 && source.index ? source.index : new BufferAttribute(index, 1));
    // Same vertices, so the full mesh's bounds are safe (and cheap) for every level.
    geometry.boundingSphere = source.boundingSphere!.clone();
    geometry.boundingBox = source.boundingBox!.clone();
    return geometry;
  });
  const part: BakedPart = {
    name: piece.name ?? label,
    material: piece.material,
    levels: geometries,
    triangles: levels.triangles,
    castShadow: piece.castShadow ?? true,
  };
  if (!byOptions) baked.set(source, (byOptions = new Map()));
  byOptions.set(key, part);
  return part;
}
