/**
 * Distance LOD choice (pure). Level 0 is full detail, 1 is 50 %, 2 is 15 %. Bands by distance
 * from the camera: [0, 30) m, [30, 90) m, 90 m and beyond, with ±4 m hysteresis so an instance on
 * a band edge does not flicker between levels as the camera bobs.
 *
 * {@link LodSelector} re-evaluates at most `maxRateHz` times a second and only when the camera
 * has moved, over a dense structure-of-arrays (positions, levels) with swap-remove, and emits
 * each change as a `change` event whose payload object is reused — no allocation per evaluation.
 */
import { Emitter } from '../core/emitter.ts';
import { withDefaults } from '../core/options.ts';

/** Distance bands of the LOD levels. */
export interface LodBands {
  /** Distances where level n becomes level n + 1, increasing. Default [30, 90]. */
  edges: readonly number[];
  /** Metres beyond an edge before switching (both ways). Default 4. */
  hysteresis: number;
}

/** Cairn's bands: full detail to 30 m, 50 % to 90 m, 15 % beyond, ±4 m hysteresis. */
export const DEFAULT_LOD_BANDS: LodBands = { edges: [30, 90], hysteresis: 4 };

/**
 * The level for an instance at `distance` that is currently at `current` (-1: none yet, no
 * hysteresis). Moving to a coarser level needs `distance ≥ edge + hysteresis`; moving back to a
 * finer one needs `distance < edge − hysteresis`.
 */
export function chooseLod(distance: number, current: number, bands: LodBands = DEFAULT_LOD_BANDS): number {
  const edges = bands.edges;
  if (current < 0) {
    let level = 0;
    while (level < edges.length && distance >= edges[level]!) level++;
    return level;
  }
  let level = current;
  while (level < edges.length && distance >= edges[level]! + bands.hysteresis) level++;
  while (level > 0 && distance < edges[level - 1]! - bands.hysteresis) level--;
  return level;
}

/** Options of a {@link LodSelector}. */
export interface LodSelectorOptions {
  /** The distance bands. Default {@link DEFAULT_LOD_BANDS}. */
  bands?: LodBands;
  /** Most evaluations per second. Default 4. */
  maxRateHz?: number;
  /** Camera movement (metres) below which an evaluation is skipped. Default 0.5. */
  minCameraMove?: number;
  /** Initial capacity of the arrays (they double when full). Default 1024. */
  initialCapacity?: number;
}

/** Defaults of {@link LodSelectorOptions}: {@link DEFAULT_LOD_BANDS}, 4 Hz, 0.5 m, room for 1024. */
export const LOD_SELECTOR_DEFAULTS: Required<LodSelectorOptions> = {
  bands: DEFAULT_LOD_BANDS,
  maxRateHz: 4,
  minCameraMove: 0.5,
  initialCapacity: 1024,
};

/** One instance's level change. */
export interface LodChange {
  /** The instance's handle (as given to {@link LodSelector.add}). */
  handle: number;
  /** Its level before. */
  from: number;
  /** Its level now. */
  to: number;
}

/** What a {@link LodSelector} emits. */
export interface LodSelectorEvents extends Record<string, unknown> {
  /**
   * An instance's level changed, during {@link LodSelector.update}. The payload object is reused
   * for every change (no allocation per evaluation): read it, do not keep it.
   */
  change: LodChange;
}

export class LodSelector extends Emitter<LodSelectorEvents> {
  /** The distance bands. */
  readonly bands: LodBands;
  /** Evaluations that ran / were skipped (rate limit or still camera), for stats and tests. */
  evaluations = 0;
  /** Evaluations skipped (too soon, or the camera still). */
  skipped = 0;
  /** Level changes reported by the last evaluation. */
  lastChanges = 0;
  private readonly minInterval: number;
  private readonly minMove2: number;
  private readonly changed: LodChange = { handle: 0, from: 0, to: 0 };
  private xs: Float32Array;
  private ys: Float32Array;
  private zs: Float32Array;
  private levels: Uint8Array;
  private handles: Int32Array;
  /** handle → dense index. */
  private readonly indexOf = new Map<number, number>();
  private count = 0;
  private lastTime = -Infinity;
  private camX = Number.NaN;
  private camY = Number.NaN;
  private camZ = Number.NaN;

  constructor(options: LodSelectorOptions = {}) {
    super();
    const resolved = withDefaults(LOD_SELECTOR_DEFAULTS, options);
    this.bands = resolved.bands;
    this.minInterval = 1 / resolved.maxRateHz;
    const move = resolved.minCameraMove;
    this.minMove2 = move * move;
    const capacity = Math.max(16, resolved.initialCapacity);
    this.xs = new Float32Array(capacity);
    this.ys = new Float32Array(capacity);
    this.zs = new Float32Array(capacity);
    this.levels = new Uint8Array(capacity);
    this.handles = new Int32Array(capacity);
  }

  /** Instances tracked. */
  get size(): number {
    return this.count;
  }

  /**
   * Tracks an instance and returns its starting level, chosen from the last camera position
   * evaluated (level 0 before any evaluation).
   */
  add(handle: number, x: number, y: number, z: number): number {
    if (this.indexOf.has(handle)) throw new RangeError(`LodSelector: handle ${handle} is already tracked`);
    if (this.count === this.xs.length) this.grow();
    const i = this.count++;
    this.xs[i] = x;
    this.ys[i] = y;
    this.zs[i] = z;
    this.handles[i] = handle;
    const level = Number.isNaN(this.camX) ? 0 : chooseLod(Math.hypot(x - this.camX, y - this.camY, z - this.camZ), -1, this.bands);
    this.levels[i] = level;
    this.indexOf.set(handle, i);
    return level;
  }

  /** Stops tracking an instance; an unknown handle is ignored. */
  remove(handle: number): void {
    const i = this.indexOf.get(handle);
    if (i === undefined) return;
    const last = --this.count;
    if (i !== last) {
      this.xs[i] = this.xs[last]!;
      this.ys[i] = this.ys[last]!;
      this.zs[i] = this.zs[last]!;
      this.levels[i] = this.levels[last]!;
      const moved = this.handles[last]!;
      this.handles[i] = moved;
      this.indexOf.set(moved, i);
    }
    this.indexOf.delete(handle);
  }

  /** An instance's level, or -1 for a handle not tracked. */
  levelOf(handle: number): number {
    const i = this.indexOf.get(handle);
    return i === undefined ? -1 : this.levels[i]!;
  }

  /**
   * Re-evaluates every level if at least 1/maxRateHz seconds passed since the last evaluation
   * and the camera moved more than `minCameraMove` (or `force`). Returns true when it ran.
   */
  update(cameraX: number, cameraY: number, cameraZ: number, timeSeconds: number, force = false): boolean {
    if (!force) {
      if (timeSeconds - this.lastTime < this.minInterval) {
        this.skipped++;
        return false;
      }
      const dx = cameraX - this.camX;
      const dy = cameraY - this.camY;
      const dz = cameraZ - this.camZ;
      if (dx * dx + dy * dy + dz * dz < this.minMove2) {
        this.skipped++;
        return false;
      }
    }
    this.lastTime = timeSeconds;
    this.camX = cameraX;
    this.camY = cameraY;
    this.camZ = cameraZ;
    this.evaluations++;
    const bands = this.bands;
    const { xs, ys, zs, levels, handles } = this;
    let changes = 0;
    // Iterate from the end: a change listener may not add or remove, but stay safe if one does.
    for (let i = this.count - 1; i >= 0; i--) {
      const dx = xs[i]! - cameraX;
      const dy = ys[i]! - cameraY;
      const dz = zs[i]! - cameraZ;
      const current = levels[i]!;
      const level = chooseLod(Math.sqrt(dx * dx + dy * dy + dz * dz), current, bands);
      if (level !== current) {
        levels[i] = level;
        changes++;
        const changed = this.changed;
        changed.handle = handles[i]!;
        changed.from = current;
        changed.to = level;
        this.emit('change', changed);
      }
    }
    this.lastChanges = changes;
    return true;
  }

  /** Stops tracking everything. */
  dispose(): void {
    this.count = 0;
    this.indexOf.clear();
  }

  private grow(): void {
    const capacity = this.xs.length * 2;
    const grow32 = (a: Float32Array): Float32Array => {
      const b = new Float32Array(capacity);
      b.set(a);
      return b;
    };
    this.xs = grow32(this.xs);
    this.ys = grow32(this.ys);
    this.zs = grow32(this.zs);
    const levels = new Uint8Array(capacity);
    levels.set(this.levels);
    this.levels = levels;
    const handles = new Int32Array(capacity);
    handles.set(this.handles);
    this.handles = handles;
  }
}
