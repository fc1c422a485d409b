import { withDefaults } from '../core/options.ts';

/**
 * Group-wise index simplification, without three: each slice of an index buffer (a material slot,
 * `geometry.groups[i]`) is simplified on its own and the results are packed one after another, so
 * every slot keeps its material and its triangles. Always starts from the original index.
 */

/** A run of an index buffer drawn with one material: three's geometry group. */
export interface IndexSlice {
  /** First index of the run. */
  start: number;
  /** Indices in the run (three per triangle). */
  count: number;
  /** The material slot it is drawn with. */
  materialIndex: number;
}

/** The simplifier call, shaped like meshoptimizer's `MeshoptSimplifier.simplify`. */
export type SimplifyFunction = (
  indices: Uint32Array,
  positions: Float32Array,
  stride: number,
  targetIndexCount: number,
  targetError: number,
  flags?: Array<'LockBorder' | 'Sparse' | 'ErrorAbsolute' | 'Prune'>,
) => [Uint32Array, number];

/** Options of {@link simplifyIndexBySlices}. */
export interface SimplifyIndexOptions {
  /**
   * Largest allowed deviation, relative to the mesh's size (meshoptimizer's target_error).
   * Default 1: no limit, so the ratio decides the triangle count (the slider means "keep this
   * fraction"); lower it to stop early on shapes that cannot lose triangles without changing.
   */
  maxError?: number;
  /** Keep the border vertices of each slice where they are, so slots never open seams. Default true. */
  lockBorder?: boolean;
}

/** Defaults of {@link SimplifyIndexOptions}: no error limit (`maxError` 1), borders locked. */
export const SIMPLIFY_INDEX_DEFAULTS: Required<SimplifyIndexOptions> = { maxError: 1, lockBorder: true };

/** What {@link simplifyIndexBySlices} made of an index. */
export interface SimplifiedIndex {
  /** Packed indices: slice after slice, in the order given. */
  index: Uint32Array;
  /** Where each slice now lives in `index`, with its material slot unchanged. */
  slices: IndexSlice[];
  /** Triangles in `index`. */
  triangles: number;
  /** Largest relative error meshoptimizer reports over the slices. */
  error: number;
}

/**
 * Simplifies each slice of `index` to about `ratio` of its triangles.
 * @param index the ORIGINAL index buffer (never a previous result)
 * @param positions packed xyz per vertex
 * @param ratio fraction of triangles to keep, in (0, 1]; 1 returns the slices unchanged
 */
export function simplifyIndexBySlices(
  index: Uint32Array,
  positions: Float32Array,
  slices: readonly IndexSlice[],
  ratio: number,
  simplify: SimplifyFunction,
  options: SimplifyIndexOptions = {},
): SimplifiedIndex {
  if (!(ratio > 0 && ratio <= 1)) throw new RangeError(`simplification ratio must be in (0, 1], got ${ratio}`);
  const { maxError, lockBorder } = withDefaults(SIMPLIFY_INDEX_DEFAULTS, options);
  const lock: Array<'LockBorder' | 'Sparse'> = lockBorder ? ['LockBorder'] : [];
  const vertexCount = positions.length / 3;
  const parts: Uint32Array[] = [];
  const out: IndexSlice[] = [];
  let error = 0;
  let offset = 0;
  for (const slice of slices) {
    const start = Math.max(0, slice.start);
    const end = Math.min(index.length, start + Math.max(0, slice.count));
    const source = index.subarray(start, end - ((end - start) % 3));
    let result: Uint32Array;
    if (ratio === 1 || source.length < 3) {
      result = source;
    } else {
      const target = Math.max(3, Math.floor((source.length / 3) * ratio) * 3);
      // A slice that uses a small part of the vertex buffer is simplified much faster with 'Sparse'.
      const flags: Array<'LockBorder' | 'Sparse'> = slices.length > 1 && source.length < vertexCount ? [...lock, 'Sparse'] : lock;
      const [simplified, sliceError] = simplify(source, positions, 3, target, maxError, flags);
      result = simplified;
      error = Math.max(error, sliceError);
    }
    parts.push(result);
    out.push({ start: offset, count: result.length, materialIndex: slice.materialIndex });
    offset += result.length;
  }
  const packed = new Uint32Array(offset);
  let at = 0;
  for (const part of parts) {
    packed.set(part, at);
    at += part.length;
  }
  return { index: packed, slices: out, triangles: offset / 3, error };
}
