import { PlacementEngine, type GroundSampler, type Placement } from './placement.ts';
import type { ScatterPreset } from './preset.ts';

/**
 * Scatter over a whole map, one square region at a time (pure: no three, no DOM, so it runs in a
 * Worker and in Node). A region is covered by a grid of dabs; each dab takes the preset that the
 * caller's `presetAt` chooses for the ground at its centre, at `densityScale` of the preset's
 * density. Every region has its own RNG seeded from (world seed, region), so a region's
 * placements depend on nothing but the seed, the ground, the presets and the prop lists: any
 * visitor, any order of loading, the same forest.
 *
 * Candidates within `edgeMargin` of the region's edge are rejected ('outside'), so instances of
 * neighbouring regions (which cannot see each other's spacing reservations) keep at least twice
 * that margin apart.
 */

/** Placement ids of generated regions start here, above any brush session's ids. */
export const REGION_ID_BASE = 1 << 30;
/** Ids per region: a region's placements are `REGION_ID_BASE + index × REGION_ID_SPAN + n`. */
export const REGION_ID_SPAN = 1 << 16;

/** A disk kept empty (the spawn point, a path). */
export interface Clearing {
  /** East position of the centre (m). */
  x: number;
  /** South position of the centre (m). */
  z: number;
  /** Radius (m). */
  radius: number;
}

/** How a map is cut into regions and scattered ({@link resolveRegionPlan} fills the defaults). */
export interface RegionPlanOptions {
  /** World seed: regions derive theirs from it. */
  seed: number;
  /** Edge length of the square map, metres, centred on the origin. */
  worldSize: number;
  /** Region edge, metres. Default 64. */
  regionSize: number;
  /** Distance between dab centres, metres. Default 16. */
  dabSpacing: number;
  /** Dab radius, metres. Default 10 (dabs overlap so the square is covered). */
  dabRadius: number;
  /** Multiplies every preset's density (the ambient world is sparser than a painted one). Default 0.5. */
  densityScale: number;
  /** Metres at each region edge where nothing is placed. Default 1.5. */
  edgeMargin: number;
  /** Disks kept empty. Default none. */
  clearings: readonly Clearing[];
}

/** Defaults of {@link RegionPlanOptions}: 64 m regions, dabs 16 m apart of 10 m radius, half density, 1.5 m edge margin, no clearings. */
export const REGION_PLAN_DEFAULTS: Omit<RegionPlanOptions, 'seed' | 'worldSize'> = {
  regionSize: 64,
  dabSpacing: 16,
  dabRadius: 10,
  densityScale: 0.5,
  edgeMargin: 1.5,
  clearings: [],
};

/** The one defaults resolver for {@link RegionPlanOptions}. */
export function resolveRegionPlan(options: Partial<RegionPlanOptions> & Pick<RegionPlanOptions, 'seed' | 'worldSize'>): RegionPlanOptions {
  const plan = { ...REGION_PLAN_DEFAULTS, ...options };
  if (!(plan.regionSize > 0) || !(plan.dabSpacing > 0) || !(plan.dabRadius > 0))
    throw new RangeError('regionSize, dabSpacing and dabRadius must be > 0');
  if (regionsPerSide(plan) ** 2 * REGION_ID_SPAN > 2 ** 31 - 1 - REGION_ID_BASE)
    throw new RangeError(`too many regions: ${regionsPerSide(plan)} per side`);
  return plan;
}

/** A region by its column (x) and row (z), from the map's north-west corner. */
export interface RegionKey {
  /** Column, from the west edge. */
  rx: number;
  /** Row, from the north edge. */
  rz: number;
}

/** A region's square on the ground (metres). */
export interface RegionBounds {
  /** West edge (m). */
  minX: number;
  /** North edge (m). */
  minZ: number;
  /** East edge (m). */
  maxX: number;
  /** South edge (m). */
  maxZ: number;
}

/** Regions along each side of the map (the last may be cut short by the map's edge). */
export function regionsPerSide(plan: Pick<RegionPlanOptions, 'worldSize' | 'regionSize'>): number {
  return Math.ceil(plan.worldSize / plan.regionSize);
}

/** A region's index, row by row from the north-west corner (what its RNG seed and ids derive from). */
export function regionIndex(plan: Pick<RegionPlanOptions, 'worldSize' | 'regionSize'>, key: RegionKey): number {
  return key.rz * regionsPerSide(plan) + key.rx;
}

/** A region's square, clipped to the map. */
export function regionBounds(plan: Pick<RegionPlanOptions, 'worldSize' | 'regionSize'>, key: RegionKey): RegionBounds {
  const min = -plan.worldSize / 2;
  const minX = min + key.rx * plan.regionSize;
  const minZ = min + key.rz * plan.regionSize;
  return { minX, minZ, maxX: Math.min(minX + plan.regionSize, -min), maxZ: Math.min(minZ + plan.regionSize, -min) };
}

/** Distance from (x, z) to the nearest point of a region (0 inside it). */
export function distanceToRegion(bounds: RegionBounds, x: number, z: number): number {
  const dx = Math.max(bounds.minX - x, 0, x - bounds.maxX);
  const dz = Math.max(bounds.minZ - z, 0, z - bounds.maxZ);
  return Math.hypot(dx, dz);
}

/** Regions whose nearest point is within `radius` of (x, z), nearest first (ties by index). */
export function regionsWithin(
  plan: Pick<RegionPlanOptions, 'worldSize' | 'regionSize'>,
  x: number,
  z: number,
  radius: number,
): Array<
  RegionKey & {
    /** Metres from (x, z) to the region's nearest point (0 inside it). */
    distance: number;
  }
> {
  const side = regionsPerSide(plan);
  const out: Array<RegionKey & { distance: number; index: number }> = [];
  for (let rz = 0; rz < side; rz++) {
    for (let rx = 0; rx < side; rx++) {
      const distance = distanceToRegion(regionBounds(plan, { rx, rz }), x, z);
      if (distance <= radius) out.push({ rx, rz, distance, index: rz * side + rx });
    }
  }
  out.sort((a, b) => a.distance - b.distance || a.index - b.index);
  return out.map(({ rx, rz, distance }) => ({ rx, rz, distance }));
}

/** A region's own seed: the world seed and the region mixed (a 32-bit hash, never 0). */
export function regionSeed(seed: number, key: RegionKey): number {
  let h = Math.imul((seed >>> 0) ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (key.rx + 0x632be5ab), 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 13) ^ (key.rz + 0x7f4a7c15), 0x27d4eb2f);
  h ^= h >>> 16;
  return h >>> 0 || 1;
}

/** Chooses the preset for ground at (x, z), or null to leave it empty. */
export type PresetChooser = (x: number, z: number, ground: GroundSampler) => string | null;

/**
 * Places one region. `propsIn` must be a fixed snapshot (props added later would change what a
 * region holds). Ids are `REGION_ID_BASE + index × REGION_ID_SPAN + n`, n counting from 1.
 */
export function placeRegion(
  ground: GroundSampler,
  presets: ReadonlyMap<string, ScatterPreset>,
  propsIn: (category: string) => readonly string[],
  plan: RegionPlanOptions,
  presetAt: PresetChooser,
  key: RegionKey,
): Placement[] {
  const bounds = regionBounds(plan, key);
  const margin = plan.edgeMargin;
  const clearings = plan.clearings;
  const inside: GroundSampler = {
    waterLevel: ground.waterLevel,
    sampleHeight: (x, z) => ground.sampleHeight(x, z),
    sampleSlope: (x, z) => ground.sampleSlope(x, z),
    sampleNormal: (x, z, out) => ground.sampleNormal(x, z, out),
    contains(x, z) {
      if (x < bounds.minX + margin || x >= bounds.maxX - margin || z < bounds.minZ + margin || z >= bounds.maxZ - margin) return false;
      for (const c of clearings) if ((x - c.x) ** 2 + (z - c.z) ** 2 < c.radius * c.radius) return false;
      return ground.contains(x, z);
    },
  };
  const engine = new PlacementEngine({ seed: regionSeed(plan.seed, key), ground: inside, propsIn });
  const scaled = new Map<string, ScatterPreset>();
  const presetFor = (id: string): ScatterPreset | undefined => {
    let preset = scaled.get(id);
    if (!preset) {
      const base = presets.get(id);
      if (!base) return undefined;
      preset = { ...base, densityPerM2: base.densityPerM2 * plan.densityScale };
      scaled.set(id, preset);
    }
    return preset;
  };
  const placed: Placement[] = [];
  const step = plan.dabSpacing;
  for (let z = bounds.minZ + step / 2; z < bounds.maxZ; z += step) {
    for (let x = bounds.minX + step / 2; x < bounds.maxX; x += step) {
      const id = presetAt(x, z, ground);
      const preset = id === null ? undefined : presetFor(id);
      if (preset) engine.dab({ x, z, radius: plan.dabRadius }, preset, placed);
    }
  }
  const base = REGION_ID_BASE + regionIndex(plan, key) * REGION_ID_SPAN;
  if (placed.length >= REGION_ID_SPAN) placed.length = REGION_ID_SPAN - 1;
  for (const placement of placed) placement.id += base;
  return placed;
}
