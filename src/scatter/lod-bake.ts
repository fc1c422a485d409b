import { MeshoptSimplifier, type SimplifierFlags } from 'meshoptimizer/simplifier';

/**
 * LOD baking with meshoptimizer (pure: typed arrays in, index buffers out; runs in Node and the
 * browser). Every level is simplified from the full mesh and indexes the SAME vertex buffer, so a
 * part's levels share one set of vertex attributes — the artist normals included — and differ
 * only in their index buffer.
 *
 * Flat-shaded low-poly props store split vertices (each face has its own copies, so each can
 * carry the face normal). To the simplifier every edge of such a mesh is an attribute seam; with
 * meshoptimizer 1.x, plain `simplify` and `LockBorder` remove nothing from them (measured: 320 → 320
 * triangles on a split icosphere). `Permissive` allows collapses across those seams and reaches
 * the targets (320 → 160 → 48), so it is the default here. Each level must have fewer triangles
 * than the one before it, or baking fails loudly with {@link LodBakeError}.
 */

/**
 * Fewest triangles a simplified level may keep before it counts as collapsed: below a tetrahedron's
 * four a piece has no volume left (a sliver, or nothing: it pops out at that distance).
 */
export const MIN_LEVEL_TRIANGLES = 4;

/** Fraction of the full triangle count each level aims for: full, 50 %, 15 %. */
export const LOD_RATIOS: readonly number[] = [1, 0.5, 0.15];

/** One mesh to simplify into LOD levels ({@link bakeLodLevels}). */
export interface LodBakeInput {
  /** xyz per vertex. */
  positions: Float32Array;
  /** Triangle list. */
  indices: Uint32Array;
  /** Name for messages (e.g. "spruce/part 1 (canopy)"). */
  label?: string;
}

/** Options of {@link bakeLodLevels}. */
export interface LodBakeOptions {
  /** Triangle fraction per level; the first must be 1. Default {@link LOD_RATIOS}. */
  ratios?: readonly number[];
  /** meshoptimizer flags. Default ['Permissive'] (see the module comment). */
  flags?: SimplifierFlags[];
  /** Relative error budget per level (fraction of the mesh extent). Default [0, 0.08, 0.35]. */
  targetErrors?: readonly number[];
  /** Throw when a level does not shrink. Default true. */
  strict?: boolean;
}

/** The LOD levels {@link bakeLodLevels} made from one mesh. */
export interface LodLevels {
  /** One triangle-list index buffer per level; level 0 is the input. */
  indices: Uint32Array[];
  /** Triangles per level. */
  triangles: number[];
  /** meshoptimizer's reported error per level (relative to the mesh extent). */
  errors: number[];
  /**
   * Per level: it collapsed, keeping fewer than {@link MIN_LEVEL_TRIANGLES} triangles (fewer than
   * the full mesh's when that has fewer): the piece turns into a sliver or vanishes at that distance.
   */
  degenerate: boolean[];
}

/** A level that did not shrink, or input the simplifier cannot use. Names the part and level. */
export class LodBakeError extends Error {
  /** The part the error is about (e.g. "spruce/part 1 (canopy)"). */
  readonly label: string;

  constructor(message: string, label: string) {
    super(`${label}: ${message}`);
    this.label = label;
    this.name = 'LodBakeError';
  }
}

/** Resolves when the simplifier's WebAssembly is ready (idempotent). */
export function simplifierReady(): Promise<void> {
  return MeshoptSimplifier.ready;
}

/** {@link bakeLodLevelsSync} after the simplifier is ready. */
export async function bakeLodLevels(input: LodBakeInput, options: LodBakeOptions = {}): Promise<LodLevels> {
  await MeshoptSimplifier.ready;
  return bakeLodLevelsSync(input, options);
}

/** Bakes the levels. The simplifier must be ready (await {@link simplifierReady} once first). */
export function bakeLodLevelsSync(input: LodBakeInput, options: LodBakeOptions = {}): LodLevels {
  const label = input.label ?? 'mesh';
  const ratios = options.ratios ?? LOD_RATIOS;
  const flags = options.flags ?? ['Permissive'];
  const targetErrors = options.targetErrors ?? [0, 0.08, 0.35];
  const strict = options.strict ?? true;
  const { positions, indices } = input;
  if (positions.length % 3 !== 0 || positions.length === 0)
    throw new LodBakeError(`positions must be xyz triples (got ${positions.length} floats)`, label);
  if (indices.length % 3 !== 0 || indices.length === 0)
    throw new LodBakeError(`indices must be a non-empty triangle list (got ${indices.length})`, label);
  const vertexCount = positions.length / 3;
  for (let i = 0; i < indices.length; i++) {
    if (indices[i]! >= vertexCount)
      throw new LodBakeError(`index ${indices[i]} at ${i} is past the last vertex (${vertexCount - 1})`, label);
  }
  if (ratios[0] !== 1) throw new LodBakeError('the first LOD ratio must be 1 (full detail)', label);

  const full = indices.length / 3;
  const levels: LodLevels = { indices: [indices], triangles: [full], errors: [0], degenerate: [false] };
  for (let level = 1; level < ratios.length; level++) {
    const targetIndexCount = Math.max(3, Math.floor(full * ratios[level]!) * 3);
    const [result, error] = MeshoptSimplifier.simplify(
      indices,
      positions,
      3,
      targetIndexCount,
      targetErrors[level] ?? targetErrors[targetErrors.length - 1]!,
      flags,
    );
    const triangles = result.length / 3;
    const previous = levels.triangles[level - 1]!;
    if (strict && triangles >= previous) {
      throw new LodBakeError(
        `LOD ${level} did not shrink: ${triangles} triangles, LOD ${level - 1} has ${previous} (target ${Math.round(full * ratios[level]!)}, flags [${flags.join(', ')}]). ` +
          'A mesh this small or this fragmented has nothing to remove.',
        label,
      );
    }
    levels.indices.push(result);
    levels.triangles.push(triangles);
    levels.errors.push(error);
    levels.degenerate.push(triangles < Math.min(MIN_LEVEL_TRIANGLES, full));
  }
  return levels;
}
