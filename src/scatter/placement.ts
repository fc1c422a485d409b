import type { XYZ } from '../core/math.ts';
import { withDefaults } from '../core/options.ts';
import { Mulberry32 } from '../core/rng.ts';
import { SpatialHash2D } from '../core/spatial-hash.ts';
import { familyOf, type ScatterPick, type ScatterPreset } from './preset.ts';

/**
 * The placement engine: pure logic (no three, no DOM). A dab of the brush samples
 * `densityPerM2 × area` candidate points in the brush disk, reads height and slope from the CPU
 * heightmap, narrows the preset's picks to those whose conditions pass, picks one by weight, and
 * keeps it only if no instance of the same family is within the pick's `minSpacing`.
 *
 * Determinism: a seeded Mulberry32 makes every choice, each candidate draws exactly
 * {@link DRAWS_PER_CANDIDATE} numbers whether it is kept or not, and a kept candidate's spacing
 * reservation enters the spatial hash at once — before anything asynchronous (loading the prop's
 * asset) happens. So `(seed, dabs)` always gives the same placements.
 */

/** The ground the engine reads: Cairn's `Heightmap` satisfies it. Slopes in degrees. */
export interface GroundSampler {
  /** Height of the water surface (m): nothing is placed below it. */
  readonly waterLevel: number;
  /** Height of the ground (m) at (x, z). */
  sampleHeight(x: number, z: number): number;
  /** Degrees, 0 = flat. */
  sampleSlope(x: number, z: number): number;
  /** Unit surface normal at (x, z), written into `out` when given. */
  sampleNormal(x: number, z: number, out?: XYZ): XYZ;
  /** Whether (x, z) lies on the ground (inside the map). */
  contains(x: number, z: number): boolean;
}

/** Why a candidate was not placed. */
export type RejectionCause = 'outside' | 'water' | 'altitude' | 'slope' | 'spacing' | 'noProp';
/** Every {@link RejectionCause}, in the order the HUD lists them. */
export const REJECTION_CAUSES: readonly RejectionCause[] = ['slope', 'altitude', 'spacing', 'water', 'outside', 'noProp'];
/** Rejected candidates per cause. */
export type RejectionCounts = Record<RejectionCause, number>;

/** One brush dab: a disk on the ground. */
export interface Dab {
  /** East position of the dab's centre (m). */
  x: number;
  /** South position of the dab's centre (m). */
  z: number;
  /** Metres. */
  radius: number;
}

/** A placed instance: everything needed to draw it, decided synchronously. */
export interface Placement {
  /** Session-unique, increasing in placement order. */
  id: number;
  /** The prop drawn (a catalog id). */
  propId: string;
  /** The pick's category. */
  category: string;
  /** The spacing family it keeps apart from. */
  family: string;
  /** East position (m). */
  x: number;
  /** Height: the ground's at (x, z) (m). */
  y: number;
  /** South position (m). */
  z: number;
  /** Ground slope at the point, degrees. */
  slope: number;
  /** Uniform scale, within the preset's scale jitter. */
  scale: number;
  /** Radians about the (possibly tilted) up axis. */
  yaw: number;
  /** The instance's up vector: the surface normal when the pick aligns to slope, else +Y. */
  up: XYZ;
}

/** Options of a {@link PlacementEngine}. */
export interface PlacementEngineOptions {
  /** Seed of the RNG that makes every choice. */
  seed: number;
  /** The ground candidates are read from. */
  ground: GroundSampler;
  /** Prop ids in a category, in a stable order (the catalog's registration order). */
  propsIn: (category: string) => readonly string[];
  /**
   * Spatial hash cell size in metres. Default: per family, twice the spacing of the pick that
   * first uses it (clamped to 1–16 m), so a spacing query visits about four cells of a few items.
   */
  cellSize?: number;
  /** Upper bound on candidates in one dab (a huge brush at a high density). Default 20,000. */
  maxCandidatesPerDab?: number;
  /**
   * Only candidates inside this square (minus {@link edgeMargin}) are kept; the others are
   * skipped without counting as candidates or rejections, though they still draw their numbers.
   * Shared edits give each 64 m cell an engine of its own, so what a cell holds depends on its
   * strokes alone. Default: no bounds.
   */
  bounds?: PlacementBounds;
  /** Metres inside {@link bounds} where nothing is kept, so neighbouring squares' instances keep apart. Default 0. */
  edgeMargin?: number;
  /** The first placement's id (ids count up from it). Default 1. */
  firstId?: number;
}

/** A square (or rectangle) of ground: x in [minX, maxX), z in [minZ, maxZ). */
export interface PlacementBounds {
  /** West edge (m), inclusive. */
  minX: number;
  /** North edge (m), inclusive. */
  minZ: number;
  /** East edge (m), exclusive. */
  maxX: number;
  /** South edge (m), exclusive. */
  maxZ: number;
}

/** Defaults of {@link PlacementEngineOptions} (seed, ground and props have none; the cell size follows each family's spacing). */
export const PLACEMENT_ENGINE_DEFAULTS: Required<Omit<PlacementEngineOptions, 'seed' | 'ground' | 'propsIn' | 'cellSize' | 'bounds'>> & {
  /** Only candidates inside this square are kept; null: anywhere. */
  bounds: PlacementBounds | null;
} = {
  maxCandidatesPerDab: 20_000,
  bounds: null,
  edgeMargin: 0,
  firstId: 1,
};

/** Random numbers each candidate consumes, kept or not: radius, angle, pick, prop, scale, yaw. */
export const DRAWS_PER_CANDIDATE = 6;

/** Pure, seeded placement of brush dabs on a ground (see the file's comment): the same dabs give the same instances. */
export class PlacementEngine {
  /** The seeded generator that makes every choice. */
  readonly rng: Mulberry32;
  /** Candidates rejected, by cause, since the engine started (or {@link resetCounts}). */
  readonly rejections: RejectionCounts = emptyCounts();
  /** Candidates sampled since the engine started (or {@link resetCounts}). */
  candidates = 0;
  /** Instances placed since the engine started (or {@link resetCounts}). */
  placed = 0;
  /** Categories a preset asked for that the catalog has no props for (reported, skipped). */
  readonly missingCategories = new Set<string>();

  private readonly ground: GroundSampler;
  private readonly propsIn: (category: string) => readonly string[];
  private readonly cellSize: number | undefined;
  private readonly maxCandidates: number;
  private readonly bounds: PlacementBounds | null;
  private readonly margin: number;
  private readonly families = new Map<string, SpatialHash2D>();
  /** Every live instance, for the eraser. */
  private readonly all: SpatialHash2D;
  private readonly live = new Map<number, Placement>();
  private nextId = 1;
  // Scratch, reused per candidate (no allocation in the loop).
  private readonly passing: ScatterPick[] = [];

  constructor(options: PlacementEngineOptions) {
    this.rng = new Mulberry32(options.seed);
    this.ground = options.ground;
    this.propsIn = options.propsIn;
    this.cellSize = options.cellSize;
    const resolved = withDefaults(PLACEMENT_ENGINE_DEFAULTS, options);
    this.maxCandidates = resolved.maxCandidatesPerDab;
    this.bounds = resolved.bounds;
    this.margin = resolved.edgeMargin;
    this.nextId = resolved.firstId;
    this.all = new SpatialHash2D(this.cellSize ?? 8);
  }

  /** Live instances by id. */
  get instances(): ReadonlyMap<number, Placement> {
    return this.live;
  }

  /** Candidates a dab of this radius samples with this preset (fractional part resolved by the RNG). */
  candidateCount(preset: ScatterPreset, radius: number): number {
    return Math.min(this.maxCandidates, preset.densityPerM2 * Math.PI * radius * radius);
  }

  /**
   * Samples one dab and returns what it placed. Synchronous: the placements' spacing
   * reservations are in the hash when this returns.
   */
  dab(dab: Dab, preset: ScatterPreset, out: Placement[] = []): Placement[] {
    return this.runCandidates(dab, preset, this.startDab(dab, preset), out);
  }

  /**
   * The first half of {@link PlacementEngine.dab}, for callers that spread a dab over time slices: draws the
   * fractional candidate's coin and returns how many candidates the dab has (0 for a bad disk).
   * Then {@link runCandidates} (or {@link skipCandidates}) that many, in any number of calls.
   */
  startDab(dab: Dab, preset: ScatterPreset): number {
    if (!(dab.radius > 0) || !Number.isFinite(dab.x) || !Number.isFinite(dab.z)) return 0;
    const expected = this.candidateCount(preset, dab.radius);
    const count = Math.floor(expected);
    // The fractional candidate is decided by one draw, so small brushes still place on average.
    return this.rng.next() < expected - count ? count + 1 : count;
  }

  /** Samples `count` of a dab's candidates (after {@link startDab}) and appends what they placed to `out`. */
  runCandidates(dab: Dab, preset: ScatterPreset, count: number, out: Placement[] = []): Placement[] {
    const anyUnderwaterPick = preset.picks.some((p) => p.altMin < 0);
    for (let c = 0; c < count; c++) {
      const placement = this.candidate(dab, preset, anyUnderwaterPick);
      if (placement) out.push(placement);
    }
    return out;
  }

  /** Passes over `count` candidates in O(1): the numbers they would draw are skipped, nothing is placed. */
  skipCandidates(count: number): void {
    this.rng.skip(count * DRAWS_PER_CANDIDATE);
  }

  /** Whether a disk reaches the engine's {@link PlacementEngineOptions.bounds} (always, without bounds). */
  reaches(dab: Dab): boolean {
    const b = this.bounds;
    if (!b) return true;
    return (
      dab.x + dab.radius >= b.minX + this.margin &&
      dab.x - dab.radius < b.maxX - this.margin &&
      dab.z + dab.radius >= b.minZ + this.margin &&
      dab.z - dab.radius < b.maxZ - this.margin
    );
  }

  /** Removes an instance (eraser, eviction): frees its spacing reservation. */
  remove(id: number): Placement | undefined {
    const placement = this.live.get(id);
    if (!placement) return undefined;
    this.live.delete(id);
    this.all.remove(id);
    this.families.get(placement.family)?.remove(id);
    return placement;
  }

  /** Ids of live instances within `radius` of (x, z), in increasing id order (deterministic). */
  idsWithin(x: number, z: number, radius: number): number[] {
    const ids = this.all.queryRadius(x, z, radius);
    return ids.sort((a, b) => a - b);
  }

  /** Zeroes the candidate, placement and rejection counts. */
  resetCounts(): void {
    for (const cause of REJECTION_CAUSES) this.rejections[cause] = 0;
    this.candidates = 0;
    this.placed = 0;
  }

  /** Forgets every instance and reservation (the counts stay readable). */
  dispose(): void {
    this.live.clear();
    this.all.clear();
    this.families.clear();
  }

  private candidate(dab: Dab, preset: ScatterPreset, anyUnderwaterPick: boolean): Placement | null {
    const rng = this.rng;
    // Always draw the same count, kept or not, so one candidate's fate never shifts the next's numbers.
    const u = rng.next();
    const v = rng.next();
    const pickRoll = rng.next();
    const propRoll = rng.next();
    const scaleRoll = rng.next();
    const yawRoll = rng.next();

    const r = dab.radius * Math.sqrt(u);
    const angle = v * Math.PI * 2;
    const x = dab.x + r * Math.cos(angle);
    const z = dab.z + r * Math.sin(angle);
    const b = this.bounds;
    if (b && (x < b.minX + this.margin || x >= b.maxX - this.margin || z < b.minZ + this.margin || z >= b.maxZ - this.margin)) return null;
    this.candidates++;
    const ground = this.ground;
    if (!ground.contains(x, z)) return this.reject('outside');
    const y = ground.sampleHeight(x, z);
    const altitude = y - ground.waterLevel;
    if (altitude < 0 && !anyUnderwaterPick) return this.reject('water');
    const slope = ground.sampleSlope(x, z);

    // Narrow the picks to those whose conditions pass here.
    const passing = this.passing;
    passing.length = 0;
    let altitudeOk = false;
    let propless = false;
    let total = 0;
    for (const pick of preset.picks) {
      if (altitude < pick.altMin || altitude > pick.altMax) continue;
      altitudeOk = true;
      if (slope < pick.slopeMin || slope > pick.slopeMax) continue;
      if (this.propsIn(pick.category).length === 0) {
        this.missingCategories.add(pick.category);
        propless = true;
        continue;
      }
      passing.push(pick);
      total += pick.weight;
    }
    if (passing.length === 0) {
      if (!altitudeOk) return this.reject(altitude < 0 ? 'water' : 'altitude');
      return this.reject(propless ? 'noProp' : 'slope');
    }

    // Pick one by weight.
    let roll = pickRoll * total;
    let pick = passing[passing.length - 1]!;
    for (const candidate of passing) {
      roll -= candidate.weight;
      if (roll < 0) {
        pick = candidate;
        break;
      }
    }

    // Per-family minimum spacing, in a radius query on the family's spatial hash.
    const family = familyOf(pick);
    let hash = this.families.get(family);
    if (!hash) this.families.set(family, (hash = new SpatialHash2D(this.cellSize ?? Math.min(16, Math.max(1, 2 * pick.minSpacing)))));
    if (pick.minSpacing > 0 && hash.anyWithin(x, z, pick.minSpacing)) return this.reject('spacing');

    const props = this.propsIn(pick.category);
    const propId = props[Math.min(props.length - 1, Math.floor(propRoll * props.length))]!;
    const [scaleMin, scaleMax] = preset.scaleJitter;
    const up = pick.alignToSlope ? ground.sampleNormal(x, z, { x: 0, y: 1, z: 0 }) : { x: 0, y: 1, z: 0 };
    const placement: Placement = {
      id: this.nextId++,
      propId,
      category: pick.category,
      family,
      x,
      y,
      z,
      slope,
      scale: scaleMin + (scaleMax - scaleMin) * scaleRoll,
      yaw: (yawRoll * 2 - 1) * preset.yawJitter,
      up,
    };
    // The reservation enters the hash now, before the prop's asset is even looked at.
    hash.insert(placement.id, x, z);
    this.all.insert(placement.id, x, z);
    this.live.set(placement.id, placement);
    this.placed++;
    return placement;
  }

  private reject(cause: RejectionCause): null {
    this.rejections[cause]++;
    return null;
  }
}

/** Zero rejections of every cause. */
export function emptyCounts(): RejectionCounts {
  return { slope: 0, altitude: 0, spacing: 0, water: 0, outside: 0, noProp: 0 };
}
