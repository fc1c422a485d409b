/**
 * The brush cursor without raycasting the terrain mesh: march the pointer's ray over the CPU
 * heightmap's `sampleHeight`. Far above the ground the step is as long as it can be without
 * skipping a hill (the gap to the ground divided by how fast the ray and the steepest terrain can
 * close it); near the surface it never drops below a 0.4 m floor; once the ray is below the
 * ground, 12 bisection steps pin the crossing to (step / 4096). A few dozen height lookups instead
 * of intersecting 131,000 triangles.
 */

export interface HeightField {
  /** Height of the ground (m) at (x, z). */
  sampleHeight(x: number, z: number): number;
}

/** The parts of Cairn's Heightmap the bound needs (grid samples); optional for other fields. */
export interface GriddedHeightField extends HeightField {
  /** Samples per side of the grid. */
  readonly resolution: number;
  /** Metres between grid samples. */
  readonly spacing: number;
  /** Heights, row by row (resolution² samples). */
  readonly heights: Float32Array;
}

/** Options of {@link rayMarchHeightfield}. */
export interface RayMarchOptions {
  /** Shortest step near the surface, metres. Default 0.4. */
  minStep?: number;
  /** Bisection steps after the sign change. Default 12. */
  bisections?: number;
  /** Give up beyond this distance along the ray, metres. Default 2000. */
  maxDistance?: number;
  /**
   * Steepest terrain grade (rise per metre of run) anywhere; larger is safer, smaller is faster.
   * Default: measured from the heightmap's grid (see {@link maxGrade}), or 4 (≈76°) otherwise.
   */
  maxGrade?: number;
}

/** Where a ray meets the ground ({@link rayMarchHeightfield}). */
export interface RayHit {
  /** East position (m). */
  x: number;
  /** Height (m). */
  y: number;
  /** South position (m). */
  z: number;
  /** Distance along the (normalised) ray. */
  distance: number;
  /** Height lookups spent (for the benchmark and HUD). */
  samples: number;
}

const gradeCache = new WeakMap<Float32Array, number>();

/**
 * The steepest grade of a bilinear heightfield: within a cell, ∂h/∂x lies between the two x-edge
 * differences and ∂h/∂z between the z-edge ones, so the gradient is bounded by the largest of
 * each over the grid. Measured once per heights array.
 */
export function maxGrade(field: GriddedHeightField): number {
  const cached = gradeCache.get(field.heights);
  if (cached !== undefined) return cached;
  const n = field.resolution;
  const h = field.heights;
  let gx = 0;
  let gz = 0;
  for (let iz = 0; iz < n; iz++) {
    for (let ix = 0; ix < n; ix++) {
      const i = iz * n + ix;
      if (ix + 1 < n) gx = Math.max(gx, Math.abs(h[i + 1]! - h[i]!));
      if (iz + 1 < n) gz = Math.max(gz, Math.abs(h[i + n]! - h[i]!));
    }
  }
  const grade = Math.hypot(gx, gz) / field.spacing;
  gradeCache.set(field.heights, grade);
  return grade;
}

/**
 * First point where the ray from `origin` along `direction` meets the height field, or null
 * when it does not within `maxDistance` (pointing at the sky, or starting under the ground).
 * `direction` need not be normalised.
 */
export function rayMarchHeightfield(
  field: HeightField,
  origin: { x: number; y: number; z: number },
  direction: { x: number; y: number; z: number },
  options: RayMarchOptions = {},
): RayHit | null {
  const length = Math.hypot(direction.x, direction.y, direction.z);
  if (!(length > 0)) return null;
  const dx = direction.x / length;
  const dy = direction.y / length;
  const dz = direction.z / length;
  const minStep = options.minStep ?? 0.4;
  const bisections = options.bisections ?? 12;
  const maxDistance = options.maxDistance ?? 2000;
  const grade = options.maxGrade ?? ('heights' in field ? maxGrade(field as GriddedHeightField) : 4);
  const horizontal = Math.hypot(dx, dz);
  // How fast the gap between ray and ground can shrink per metre along the ray.
  const closing = Math.max(0, -dy) + grade * horizontal;

  let samples = 1;
  let t = 0;
  let gap = origin.y - field.sampleHeight(origin.x, origin.z);
  if (gap < 0) return null;
  // Straight up: the gap can never close.
  if (closing === 0) return null;
  let previousT = 0;
  while (t <= maxDistance) {
    if (gap <= 0) {
      // Bisect between the last point above and this one below.
      let lo = previousT;
      let hi = t;
      for (let i = 0; i < bisections; i++) {
        const mid = (lo + hi) / 2;
        samples++;
        const g = origin.y + dy * mid - field.sampleHeight(origin.x + dx * mid, origin.z + dz * mid);
        if (g > 0) lo = mid;
        else hi = mid;
      }
      const hitT = (lo + hi) / 2;
      const x = origin.x + dx * hitT;
      const z = origin.z + dz * hitT;
      samples++;
      return { x, y: field.sampleHeight(x, z), z, distance: hitT, samples };
    }
    // The ray cannot meet the ground sooner than gap / closing: step that far (not less than the floor).
    const step = Math.max(minStep, gap / closing);
    previousT = t;
    t += step;
    samples++;
    gap = origin.y + dy * t - field.sampleHeight(origin.x + dx * t, origin.z + dz * t);
  }
  return null;
}
