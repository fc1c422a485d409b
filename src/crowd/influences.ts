/**
 * Reduces per-vertex skin influences to the four the crowd shader reads. Files may carry more
 * (glTF JOINTS_1/WEIGHTS_1…): the strongest four are kept and renormalised to sum to one, repeated
 * bones are merged first, and bone indices are remapped into the crowd's bone order. Pure logic.
 */

/** One set of four influences per vertex, as glTF stores them. */
export interface InfluenceSet {
  indices: ArrayLike<number>;
  weights: ArrayLike<number>;
  /** Components per vertex (4 in every real file). */
  itemSize: number;
}

export interface LimitedInfluences {
  indices: Uint16Array;
  weights: Float32Array;
  /** Vertices that had more than four non-zero influences. */
  clamped: number;
  /** Vertices with no weight at all (bound rigidly to `fallbackBone`). */
  unweighted: number;
}

/**
 * @param sets influence sets in file order (JOINTS_0/WEIGHTS_0 first)
 * @param vertexCount vertices in the geometry
 * @param remap maps a file bone index to the crowd's bone index (identity when omitted)
 * @param fallbackBone crowd bone for vertices whose weights are all zero
 */
export function limitInfluences(
  sets: ReadonlyArray<InfluenceSet>,
  vertexCount: number,
  remap?: ArrayLike<number>,
  fallbackBone = 0,
): LimitedInfluences {
  const indices = new Uint16Array(vertexCount * 4);
  const weights = new Float32Array(vertexCount * 4);
  const bone: number[] = [];
  const weight: number[] = [];
  let clamped = 0;
  let unweighted = 0;
  for (let v = 0; v < vertexCount; v++) {
    bone.length = 0;
    weight.length = 0;
    for (const set of sets) {
      for (let k = 0; k < set.itemSize; k++) {
        const w = Number(set.weights[v * set.itemSize + k]);
        if (!(w > 0)) continue;
        const fileIndex = Number(set.indices[v * set.itemSize + k]);
        const b = remap ? remap[fileIndex] : fileIndex;
        if (b === undefined || b < 0)
          throw new RangeError(`vertex ${v} is weighted to bone ${fileIndex}, which the skeleton does not have`);
        const existing = bone.indexOf(b);
        if (existing >= 0) weight[existing]! += w;
        else {
          bone.push(b);
          weight.push(w);
        }
      }
    }
    if (bone.length > 4) {
      clamped++;
      // Selection of the four largest; n is tiny (≤ 16), so a simple sort of indices is fine.
      const order = bone.map((_, i) => i).sort((a, b) => weight[b]! - weight[a]!);
      const keptBones = order.slice(0, 4).map((i) => bone[i]!);
      const keptWeights = order.slice(0, 4).map((i) => weight[i]!);
      bone.length = 0;
      weight.length = 0;
      bone.push(...keptBones);
      weight.push(...keptWeights);
    }
    let sum = 0;
    for (const w of weight) sum += w;
    if (sum <= 0) {
      unweighted++;
      indices[v * 4] = fallbackBone;
      weights[v * 4] = 1;
      continue;
    }
    for (let k = 0; k < bone.length; k++) {
      indices[v * 4 + k] = bone[k]!;
      weights[v * 4 + k] = weight[k]! / sum;
    }
  }
  return { indices, weights, clamped, unweighted };
}
