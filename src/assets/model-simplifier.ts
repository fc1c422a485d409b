import { withDefaults } from '../core/options.ts';
import { BufferAttribute, BufferGeometry, type Mesh, type Object3D } from 'three';
import {
  SIMPLIFY_INDEX_DEFAULTS,
  simplifyIndexBySlices,
  type IndexSlice,
  type SimplifyFunction,
  type SimplifyIndexOptions,
} from './simplify-index.ts';

/** One mesh under simplification: its live geometry and the untouched original it rebuilds from. */
export interface SimplifiedMesh {
  /** The mesh, whose geometry's index is rewritten. */
  mesh: Mesh;
  /**
   * A clone of the geometry as loaded: the same vertex attributes (simplification never changes
   * vertices, so they are shared, not copied) with its own copy of the index, groups and draw range.
   * Never rendered, so it costs no GPU memory.
   */
  original: BufferGeometry;
  /** The original index as 32-bit, what the simplifier reads. */
  originalIndex: Uint32Array;
  /** Packed xyz per vertex. */
  positions: Float32Array;
  /** The material slots (geometry.groups, or the whole draw range as one slot). */
  slices: IndexSlice[];
  /** Whether the geometry had groups (else its draw range is one slot). */
  hadGroups: boolean;
  /** Triangles as loaded. */
  originalTriangles: number;
  /** Triangles drawn now. */
  triangles: number;
}

/** What one {@link ModelSimplifier.setRatio} did. */
export interface SimplifyReport {
  /** The ratio asked for (0 < ratio ≤ 1). */
  ratio: number;
  /** Triangles as loaded, over every mesh. */
  trianglesBefore: number;
  /** Triangles after, over every mesh. */
  trianglesAfter: number;
  /** Largest relative error over all slices. */
  error: number;
  /** Ms it took. */
  ms: number;
}

/** Options for {@link ModelSimplifier}: the same as for one index (maxError, lockBorder). */
export type ModelSimplifierOptions = SimplifyIndexOptions;

function isTriangleMesh(object: Object3D): object is Mesh {
  const mesh = object as Mesh & { isInstancedMesh?: boolean };
  return (
    mesh.isMesh === true &&
    (mesh.geometry as BufferGeometry | undefined)?.isBufferGeometry === true &&
    mesh.geometry.getAttribute('position') !== undefined
  );
}

function packPositions(geometry: BufferGeometry): Float32Array {
  const position = geometry.getAttribute('position');
  const out = new Float32Array(position.count * 3);
  for (let i = 0; i < position.count; i++) {
    out[i * 3] = position.getX(i);
    out[i * 3 + 1] = position.getY(i);
    out[i * 3 + 2] = position.getZ(i);
  }
  return out;
}

/**
 * Non-destructive simplification of every mesh under a model. Attach it right after loading,
 * before the first render: it gives non-indexed geometries an index and widens 8-bit indices, so
 * later changes only rewrite index contents. `setRatio` then rebuilds each index from the kept
 * original, slot by slot, into the same index buffer (same size, so the GPU buffer is reused, not
 * reallocated): ratio 0.5 after 0.1 is as good as 0.5 straight away, and ratio 1 is the original.
 */
export class ModelSimplifier {
  /** Every mesh simplified (a shared geometry once). */
  readonly meshes: SimplifiedMesh[] = [];
  private currentRatio = 1;

  private readonly simplify: SimplifyFunction;
  private readonly options: Required<ModelSimplifierOptions>;

  constructor(root: Object3D, simplify: SimplifyFunction, options: ModelSimplifierOptions = {}) {
    this.simplify = simplify;
    this.options = withDefaults(SIMPLIFY_INDEX_DEFAULTS, options);
    const seen = new Set<BufferGeometry>();
    root.traverse((object) => {
      if (!isTriangleMesh(object)) return;
      if (seen.has(object.geometry)) return; // shared geometry: simplify it once
      seen.add(object.geometry);
      this.meshes.push(this.attach(object));
    });
  }

  private attach(mesh: Mesh): SimplifiedMesh {
    const geometry = mesh.geometry;
    const vertexCount = geometry.getAttribute('position').count;
    let index = geometry.getIndex();
    if (!index || index.array instanceof Uint8Array) {
      const array =
        vertexCount > 65535 ? new Uint32Array(index ? index.count : vertexCount) : new Uint16Array(index ? index.count : vertexCount);
      for (let i = 0; i < array.length; i++) array[i] = index ? index.getX(i) : i;
      index = new BufferAttribute(array, 1);
      geometry.setIndex(index);
    }
    const originalIndex = Uint32Array.from(index.array as ArrayLike<number>);
    const original = new BufferGeometry();
    original.name = `${geometry.name || mesh.name || 'geometry'} (original)`;
    for (const [name, attribute] of Object.entries(geometry.attributes)) original.setAttribute(name, attribute);
    original.setIndex(new BufferAttribute(originalIndex.slice(), 1));
    for (const group of geometry.groups) original.addGroup(group.start, group.count, group.materialIndex);
    original.setDrawRange(geometry.drawRange.start, geometry.drawRange.count);
    const hadGroups = geometry.groups.length > 0;
    const drawEnd = Math.min(originalIndex.length, geometry.drawRange.start + geometry.drawRange.count);
    const slices = hadGroups
      ? geometry.groups.map((g) => ({ start: g.start, count: g.count, materialIndex: g.materialIndex ?? 0 }))
      : [{ start: geometry.drawRange.start, count: drawEnd - geometry.drawRange.start, materialIndex: 0 }];
    const triangles = slices.reduce((sum, s) => sum + Math.floor(Math.max(0, Math.min(s.count, originalIndex.length - s.start)) / 3), 0);
    return {
      mesh,
      original,
      originalIndex,
      positions: packPositions(geometry),
      slices,
      hadGroups,
      originalTriangles: triangles,
      triangles,
    };
  }

  /** The ratio of the last {@link setRatio} (1: as loaded). */
  get ratio(): number {
    return this.currentRatio;
  }

  /** Triangles as loaded, over every mesh. */
  get originalTriangles(): number {
    return this.meshes.reduce((sum, m) => sum + m.originalTriangles, 0);
  }

  /** Triangles drawn now, over every mesh. */
  get triangles(): number {
    return this.meshes.reduce((sum, m) => sum + m.triangles, 0);
  }

  /**
   * Rebuilds every mesh's index at `ratio` (0 < ratio ≤ 1) of its original triangles, per slot.
   * Ratio 1 restores the original exactly.
   */
  setRatio(ratio: number): SimplifyReport {
    if (!(ratio > 0 && ratio <= 1)) throw new RangeError(`simplification ratio must be in (0, 1], got ${ratio}`);
    const start = performance.now();
    const before = this.originalTriangles;
    let error = 0;
    for (const m of this.meshes) {
      const geometry = m.mesh.geometry;
      const index = geometry.getIndex()!;
      const target = index.array as Uint16Array | Uint32Array;
      if (ratio === 1) {
        target.set(m.originalIndex);
        geometry.clearGroups();
        for (const group of m.original.groups) geometry.addGroup(group.start, group.count, group.materialIndex);
        geometry.setDrawRange(m.original.drawRange.start, m.original.drawRange.count);
        m.triangles = m.originalTriangles;
      } else {
        const result = simplifyIndexBySlices(m.originalIndex, m.positions, m.slices, ratio, this.simplify, this.options);
        target.set(result.index);
        if (m.hadGroups) {
          geometry.clearGroups();
          for (const slice of result.slices) geometry.addGroup(slice.start, slice.count, slice.materialIndex);
          geometry.setDrawRange(0, Infinity);
        } else {
          geometry.setDrawRange(0, result.index.length);
        }
        m.triangles = result.triangles;
        error = Math.max(error, result.error);
      }
      index.needsUpdate = true;
    }
    this.currentRatio = ratio;
    return { ratio, trianglesBefore: before, trianglesAfter: this.triangles, error, ms: performance.now() - start };
  }

  /** Forgets the originals and keeps the current simplification as it is (the model stays usable). */
  detach(): void {
    this.meshes.length = 0;
  }

  /** Puts every original index back and forgets the originals (the model stays usable). */
  dispose(): void {
    if (this.currentRatio !== 1) this.setRatio(1);
    this.meshes.length = 0;
  }
}
