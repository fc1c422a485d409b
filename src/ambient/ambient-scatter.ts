import { withDefaults } from '../core/options.ts';
import type { Object3D } from 'three';
import type { PropCatalog } from '../scatter/catalog.ts';
import type { Placement } from '../scatter/placement.ts';
import { categoriesOf } from '../scatter/preset.ts';
import {
  placeRegion,
  regionBounds,
  distanceToRegion,
  regionIndex,
  regionsPerSide,
  regionsWithin,
  resolveRegionPlan,
  type RegionKey,
  type RegionPlanOptions,
} from '../scatter/regions.ts';
import { ScatterLayer } from '../scatter/scatter-layer.ts';
import type { LodBands } from '../scatter/lod-select.ts';
import type { Heightmap } from '../world/terrain/heightmap.ts';
import { LANDMARKS } from '../world/terrain/generate.ts';
import { ambientPresetChooser, SPAWN_CLEARING } from './ambient-presets.ts';
import type { ScatterWorkerReply, ScatterWorkerRequest } from './scatter-worker.ts';

/** LOD edges for the ambient layer: full detail to 24 m, half to 70 m, 15 % beyond. */
export const AMBIENT_LOD_BANDS: LodBands = { edges: [24, 70], hysteresis: 4 };

/** Options of an {@link AmbientScatter}. */
export interface AmbientScatterOptions {
  /** The terrain the vegetation grows on. */
  ground: Heightmap;
  /** World seed. Default 1. */
  seed?: number;
  /** The layer's meshes go here (the scene). */
  parent?: Object3D;
  /** Regions whose nearest point is within this distance of the player are drawn. Default 200 m. */
  loadRadius?: number;
  /** Regions farther than this are dropped from the buckets (kept in memory). Default 240 m. */
  unloadRadius?: number;
  /** Region layout and density (see {@link RegionPlanOptions}). */
  plan?: Partial<Omit<RegionPlanOptions, 'seed' | 'worldSize'>>;
  /**
   * Small props (grass, flowers, pebbles, scree, reeds) are drawn only in regions within this
   * distance: beyond it they cover a pixel or two but cost as many triangles as a tree. Default 72 m.
   */
  detailRadius?: number;
  /** Categories drawn only within `detailRadius`. Default grass, flower, pebble, scree, reed. */
  detailCategories?: readonly string[];
  /** Place regions in a Worker. Default: true where `Worker` exists. */
  worker?: boolean;
  /** Whether props near the camera cast shadows. Default true. */
  shadows?: boolean;
}

interface ResolvedAmbientOptions {
  loadRadius: number;
  detailRadius: number;
  detailCategories: ReadonlySet<string>;
  unloadRadius: number;
  worker: boolean;
  shadows: boolean;
  plan: RegionPlanOptions;
}

/** Defaults of an {@link AmbientScatter}: seed 1, drawn within 200 m, dropped beyond 240 m, small props within 72 m, shadows on. */
const AMBIENT_SCATTER_DEFAULTS: Required<Omit<AmbientScatterOptions, 'ground' | 'parent' | 'plan' | 'worker'>> = {
  seed: 1,
  loadRadius: 200,
  unloadRadius: 240,
  detailRadius: 72,
  detailCategories: ['grass', 'flower', 'pebble', 'scree', 'reed'],
  shadows: true,
};

function resolveAmbientOptions(options: AmbientScatterOptions): ResolvedAmbientOptions {
  const { seed, loadRadius, unloadRadius, detailRadius, detailCategories, shadows } = withDefaults(AMBIENT_SCATTER_DEFAULTS, options);
  return {
    loadRadius,
    unloadRadius: Math.max(loadRadius + 16, unloadRadius),
    detailRadius,
    detailCategories: new Set(detailCategories),
    // A Worker where the platform has one, unless told.
    worker: options.worker ?? typeof Worker !== 'undefined',
    shadows,
    plan: resolveRegionPlan({
      clearings: [{ x: LANDMARKS.spawn.x, z: LANDMARKS.spawn.z, radius: SPAWN_CLEARING.empty }],
      ...options.plan,
      seed,
      worldSize: options.ground.worldSize,
    }),
  };
}

/** `cairn.stats.ambient`: the streamed world content. */
export interface AmbientScatterStats {
  /** The world seed. */
  seed: number;
  /** Regions on the map / placed so far / drawn now / waiting for the worker. */
  regions: {
    /** On the map. */
    total: number;
    /** Placed so far (kept in memory). */
    placed: number;
    /** Drawn now. */
    drawn: number;
    /** Waiting for the worker. */
    queued: number;
    /** Within the load radius of the focus. */
    wanted: number;
  };
  /** Instances drawn (all regions drawn now) and waiting for their prop's bake. */
  instances: number;
  /** Instances waiting for their prop's bake. */
  pending: number;
  /** Instances per LOD level. */
  perLevel: number[];
  /** Worker ms per region (last and total). */
  placeMs: {
    /** The last region's. */
    last: number;
    /** Every region's, summed. */
    total: number;
  };
  /** Props baked / to bake. */
  bake: {
    /** Props baked. */
    done: number;
    /** Props to bake. */
    total: number;
  };
  /** 'worker' or 'inline' (also after the Worker failed: `lastError` says why). */
  mode: 'worker' | 'inline';
  /** Why the Worker failed (placement then runs inline), or null. */
  lastError: string | null;
}

/**
 * Vegetation and rocks over the whole map, from the scatter presets, with nothing painted: the
 * map is cut into square regions, each placed off the main thread (a Worker; inline where there
 * is none, e.g. Node) from the world seed, and streamed in and out by distance from the player.
 * Drawn through one {@link ScatterLayer} (instanced buckets with distance LOD), whose catalog the
 * brush can share so props bake once. Regions once placed are kept, so walking back is free.
 */
export class AmbientScatter {
  /** The scatter layer the regions are drawn through. */
  readonly layer: ScatterLayer;
  /** Live figures (`cairn.stats.ambient`). */
  readonly stats: AmbientScatterStats;
  private readonly options: ResolvedAmbientOptions;
  private readonly ground: Heightmap;
  private readonly props: Record<string, readonly string[]> = {};
  /** Placed regions: the props drawn to `loadRadius` and the small ones drawn to `detailRadius`. */
  private readonly placed = new Map<number, { large: Placement[]; detail: Placement[] }>();
  private readonly drawn = new Set<number>();
  private readonly drawnDetail = new Set<number>();
  private readonly queued = new Map<number, RegionKey>();
  private readonly waiters: Array<() => void> = [];
  /** Null when placing inline: no Worker here, or the Worker failed (then inline takes over). */
  private worker: Worker | null = null;
  private readonly chooser: ReturnType<typeof ambientPresetChooser>;
  private focus: { x: number; z: number } | null = null;
  private busy = false;
  private disposed = false;

  constructor(options: AmbientScatterOptions) {
    this.options = resolveAmbientOptions(options);
    this.ground = options.ground;
    // Shadows from LOD 0 only (to 24 m) and coarser levels sooner than the brush's: a whole map of
    // props, most of it seen from afar.
    this.layer = new ScatterLayer({
      ground: options.ground,
      seed: this.options.plan.seed,
      parent: options.parent,
      shadows: this.options.shadows,
      shadowLevels: 0,
      lodBands: AMBIENT_LOD_BANDS,
    });
    this.chooser = ambientPresetChooser(this.options.plan.seed);
    // A fixed snapshot: props registered later (the asset browser) must not change the regions.
    for (const preset of this.layer.presets.values())
      for (const category of categoriesOf(preset)) this.props[category] = [...this.layer.catalog.propsIn(category)];
    const total = Object.values(this.props).reduce((n, ids) => n + ids.length, 0);
    this.stats = {
      seed: this.options.plan.seed,
      regions: { total: regionsPerSide(this.options.plan) ** 2, placed: 0, drawn: 0, queued: 0, wanted: 0 },
      instances: 0,
      pending: 0,
      perLevel: this.layer.stats.perLevel,
      placeMs: { last: 0, total: 0 },
      bake: { done: 0, total },
      mode: this.options.worker ? 'worker' : 'inline',
      lastError: null,
    };
    if (this.options.worker) {
      try {
        this.worker = new Worker(new URL('./scatter-worker.ts', import.meta.url), { type: 'module', name: 'cairn-ambient-scatter' });
      } catch (error) {
        this.workerFailed(`scatter worker: ${(error as Error).message}`);
      }
    }
    if (this.worker) {
      this.worker.onmessage = (event: MessageEvent<ScatterWorkerReply>) => this.onReply(event.data);
      // A Worker that cannot start (a bundler that did not emit it, a CSP without worker-src) or
      // throws: the regions are placed inline from then on, so the world still fills and ready() resolves.
      this.worker.onerror = (event) => {
        event.preventDefault();
        this.workerFailed(`scatter worker: ${event.message || 'failed to start'}`);
      };
      const init: ScatterWorkerRequest = {
        type: 'init',
        heights: options.ground.heights.slice(),
        resolution: options.ground.resolution,
        worldSize: options.ground.worldSize,
        waterLevel: options.ground.waterLevel,
        presets: [...this.layer.presets.values()],
        props: this.props,
        plan: this.options.plan,
      };
      this.worker.postMessage(init, [init.heights.buffer]);
    }
    // Props bake in the background (time-sliced); instances whose prop is not baked yet wait.
    const catalog: PropCatalog = this.layer.catalog;
    const ids = [...new Set(Object.values(this.props).flat())];
    void catalog.preload(ids, ({ done }) => (this.stats.bake.done = done)).catch((error: Error) => (this.stats.lastError = error.message));
  }

  /** The catalog the layer draws from (share it with the brush so props bake once). */
  get catalog(): PropCatalog {
    return this.layer.catalog;
  }

  /**
   * Per frame: streams regions around `focus` (the player) and updates LOD from `camera`.
   * Cheap when nothing changes: the region scan runs only when the focus crossed 8 m.
   */
  update(focus: { x: number; z: number }, camera: { x: number; y: number; z: number }, timeSeconds: number): void {
    if (this.disposed) return;
    if (!this.focus || Math.hypot(focus.x - this.focus.x, focus.z - this.focus.z) > 8) {
      this.focus = { x: focus.x, z: focus.z };
      this.stream();
    }
    this.layer.update(camera, timeSeconds);
    const s = this.stats;
    s.instances = this.layer.stats.rendered;
    s.pending = this.layer.stats.pending;
  }

  /** Resolves when every region near the last focus is drawn (props may still be baking). */
  settled(): Promise<void> {
    if (this.queued.size === 0 && this.focus) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Resolves when every region near the last focus is drawn and every prop they use is baked. */
  async ready(): Promise<void> {
    await this.settled();
    await this.layer.whenIdle();
  }

  /** Stops the Worker, frees the layer and forgets every region. */
  dispose(): void {
    this.disposed = true;
    this.worker?.terminate();
    this.layer.dispose();
    this.placed.clear();
    this.drawn.clear();
    this.drawnDetail.clear();
    this.queued.clear();
  }

  private stream(): void {
    const focus = this.focus!;
    const plan = this.options.plan;
    const side = regionsPerSide(plan);
    const distanceTo = (index: number): number =>
      distanceToRegion(regionBounds(plan, { rx: index % side, rz: Math.floor(index / side) }), focus.x, focus.z);
    // Drop far regions (and far regions' small props) from the buckets; 16 m of hysteresis.
    for (const index of [...this.drawnDetail]) {
      if (distanceTo(index) > this.options.detailRadius + 16) {
        this.layer.removePlacements(this.placed.get(index)!.detail.map((p) => p.id));
        this.drawnDetail.delete(index);
      }
    }
    for (const index of [...this.drawn]) {
      if (distanceTo(index) > this.options.unloadRadius) {
        this.layer.removePlacements(this.placed.get(index)!.large.map((p) => p.id));
        this.drawn.delete(index);
      }
    }
    // Forget queued regions that are no longer wanted; queue the wanted ones, nearest first.
    const wanted = regionsWithin(plan, focus.x, focus.z, this.options.loadRadius);
    this.stats.regions.wanted = wanted.length;
    const wantedIndices = new Set(wanted.map((key) => regionIndex(plan, key)));
    for (const index of [...this.queued.keys()]) if (!wantedIndices.has(index)) this.queued.delete(index);
    for (const key of wanted) {
      const index = regionIndex(plan, key);
      if (this.placed.has(index)) this.draw(index, key.distance);
      else this.queued.set(index, { rx: key.rx, rz: key.rz });
    }
    this.stats.regions.drawn = this.drawn.size;
    this.pump();
  }

  /** Draws what a placed region should show at this distance. */
  private draw(index: number, distance: number): void {
    const region = this.placed.get(index)!;
    if (!this.drawn.has(index)) {
      this.layer.addPlacements(region.large);
      this.drawn.add(index);
    }
    if (distance <= this.options.detailRadius && !this.drawnDetail.has(index)) {
      this.layer.addPlacements(region.detail);
      this.drawnDetail.add(index);
    }
  }

  /** One region at a time to the worker (or inline, one per task), nearest first. */
  private pump(): void {
    this.stats.regions.queued = this.queued.size;
    if (this.busy || this.disposed) return;
    const next = this.queued.values().next();
    if (next.done) {
      for (const resolve of this.waiters.splice(0)) resolve();
      return;
    }
    const key = next.value;
    this.busy = true;
    if (this.worker) {
      const request: ScatterWorkerRequest = { type: 'region', rx: key.rx, rz: key.rz };
      this.worker.postMessage(request);
      return;
    }
    setTimeout(() => {
      if (this.disposed) return;
      const start = performance.now();
      try {
        const placements = placeRegion(
          this.ground,
          this.layer.presets,
          (category) => this.props[category] ?? [],
          this.options.plan,
          this.chooser,
          key,
        );
        this.onReply({ type: 'region', rx: key.rx, rz: key.rz, placements, ms: performance.now() - start });
      } catch (error) {
        this.onReply({ type: 'error', message: (error as Error).message });
      }
    }, 0);
  }

  /** The Worker failed: say so, and place the region it held (and every later one) inline. */
  private workerFailed(message: string): void {
    this.stats.lastError = `${message}; placing regions on the main thread`;
    this.stats.mode = 'inline';
    this.worker?.terminate();
    this.worker = null;
    this.busy = false;
    this.pump();
  }

  private onReply(reply: ScatterWorkerReply): void {
    this.busy = false;
    if (this.disposed) return;
    if (reply.type === 'error') {
      this.stats.lastError = reply.message;
      this.queued.clear();
      this.pump();
      return;
    }
    const plan = this.options.plan;
    const index = regionIndex(plan, reply);
    const detail = this.options.detailCategories;
    this.placed.set(index, {
      large: reply.placements.filter((p) => !detail.has(p.category)),
      detail: reply.placements.filter((p) => detail.has(p.category)),
    });
    this.stats.regions.placed = this.placed.size;
    this.stats.placeMs.last = reply.ms;
    this.stats.placeMs.total += reply.ms;
    // Still wanted (the player may have walked on while it was placed)?
    if (this.queued.delete(index) && this.focus) {
      this.draw(index, distanceToRegion(regionBounds(plan, reply), this.focus.x, this.focus.z));
      this.stats.regions.drawn = this.drawn.size;
    }
    this.pump();
  }
}

declare module '../world/cairn-global.ts' {
  interface CairnStats {
    /** The ambient vegetation's figures and the quality tier it runs at (the world). */
    ambient?: AmbientScatterStats & {
      /** The quality tier the world runs the vegetation at. */
      quality: string;
    };
  }
}
