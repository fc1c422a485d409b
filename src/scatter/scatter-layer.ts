import { withDefaults } from '../core/options.ts';
import type { Progress } from '../core/progress.ts';
import type { Object3D } from 'three';
import { Emitter } from '../core/emitter.ts';
import { BucketMeshes } from './bucket-meshes.ts';
import { PropCatalog, type ResolvedProp } from './catalog.ts';
import { BucketSet } from './instance-buckets.ts';
import { LodSelector, type LodBands, type LodChange } from './lod-select.ts';
import type { GroundSampler, Placement, RejectionCounts } from './placement.ts';
import { categoriesOf, loadPresets, PresetError, type PresetSource, type ScatterPreset } from './preset.ts';
import { BUILTIN_PRESET_DATA } from './presets/index.ts';
import { registerProceduralProps } from './props/register.ts';
import type { PropMaterials } from './props/materials.ts';
import { ScatterSession, type BrushEvent, type BrushRecording, type SessionChange } from './session.ts';
import { writePlacementMatrix } from './transform.ts';

/**
 * The scatter layer: a {@link ScatterSession} (pure, deterministic placement) drawn through
 * instanced buckets — one InstancedMesh per (prop, part, LOD level) — with distance LOD. It owns
 * no DOM and no renderer, so it runs in Node for benchmarks; the brush tool and pages drive it.
 *
 * Timing never changes placement: a stroke decides every instance synchronously; instances whose
 * prop is still loading wait in `pending` and enter their buckets when it resolves (or are
 * skipped, and reported by prop name, when it fails).
 */

/** Live figures, published as `window.cairn.stats.scatter` by the pages. */
export interface ScatterStats {
  /** Seed of the placement RNG. */
  seed: number;
  /** The chosen preset's id, or null before one is chosen. */
  preset: string | null;
  /** Instances placed and alive (logical, whether drawn yet or not): the session's and those added with addPlacements. */
  instances: number;
  /** Instances in buckets (drawn). */
  rendered: number;
  /** Waiting for their prop to finish baking. */
  pending: number;
  /** Not drawn because their prop failed to load or bake. */
  skipped: number;
  /** Candidates sampled (the session's engine). */
  candidates: number;
  /** Candidates placed (the session's engine). */
  placed: number;
  /** Candidates rejected, by cause. */
  rejections: RejectionCounts;
  /** Buckets created / holding instances / of those, casting shadows. */
  buckets: number;
  /** Buckets holding instances. */
  liveBuckets: number;
  /** Buckets holding instances that cast shadows. */
  shadowBuckets: number;
  /** Drawn instances per LOD level. */
  perLevel: number[];
  /** The LOD selector's figures. */
  lod: {
    /** Evaluations run. */
    evaluations: number;
    /** Evaluations skipped (too soon, or the camera still). */
    skipped: number;
    /** Level changes of the last evaluation. */
    lastChanges: number;
    /** Ms the last evaluation took. */
    lastMs: number;
  };
  /** The background bake of the chosen preset's props. */
  bake: {
    /** Idle before the first preset, baking, or ready. */
    state: 'idle' | 'baking' | 'ready';
    /** Props baked. */
    done: number;
    /** Props to bake. */
    total: number;
    /** The prop baking now (or baked last). */
    current: string;
    /** Ms the last bake took, start to ready. */
    ms: number;
  };
  /** Triangles per level of each baked prop part, e.g. { "proc:spruce/canopy": [144, 72, 20] }. */
  lodTriangles: Record<string, number[]>;
  /** Props that failed to load or bake, with the reason. */
  failedProps: Record<string, string>;
  /** Presets that failed validation, with every bad field. */
  invalidPresets: Record<string, string>;
  /** Categories presets asked for that no prop fills. */
  missingCategories: string[];
  /** Typed-array allocations by buckets (growth) and InstancedMesh swaps. */
  allocations: number;
  /** InstancedMesh swaps (a bucket outgrew its mesh). */
  meshSwaps: number;
  /** Brush events recorded. */
  events: number;
  /** ms the last paint/erase took, synchronous part (placement + bucket writes). */
  lastStrokeMs: number;
}

/** Options of a {@link ScatterLayer}. */
export interface ScatterLayerOptions {
  /** The ground the layer scatters on. */
  ground: GroundSampler;
  /** Default: a new catalog with Cairn's procedural props registered. */
  catalog?: PropCatalog;
  /** Raw preset JSON to validate and offer. Default: the five built-in presets. */
  presetData?: ReadonlyArray<PresetSource>;
  /** Seed of the placement RNG. Default 1. */
  seed?: number;
  /** FIFO eviction past this many instances. Default 50,000. */
  maxInstances?: number;
  /** Distance bands of the LOD levels. Default {@link DEFAULT_LOD_BANDS}. */
  lodBands?: LodBands;
  /** Whether props near the camera cast shadows. Default true. */
  shadows?: boolean;
  /** The coarsest LOD level that casts shadows. Default 1 (levels 0 and 1). */
  shadowLevels?: number;
  /** The layer's {@link ScatterLayer.object} is added here when given (e.g. the scene). */
  parent?: Object3D;
}

/**
 * Levels that cast shadows by default: 0 and 1 (to 90 m). The sun's shadow map covers ±36 m
 * around the focus, so farther levels would cost a shadow-pass draw and add nothing.
 */
const SHADOW_LEVELS = 1;

/**
 * Defaults of {@link ScatterLayerOptions} (the ground has none; without a catalog the layer makes
 * one with Cairn's procedural props; LOD bands are the {@link LodSelector}'s; no parent).
 */
export const SCATTER_LAYER_DEFAULTS: Required<
  Pick<ScatterLayerOptions, 'presetData' | 'seed' | 'maxInstances' | 'shadows' | 'shadowLevels'>
> = {
  presetData: BUILTIN_PRESET_DATA,
  seed: 1,
  maxInstances: 50_000,
  shadows: true,
  shadowLevels: SHADOW_LEVELS,
};

/**
 * Where a layer's {@link ScatterLayer.paint} and {@link ScatterLayer.erase} go instead of its own
 * session: shared edits (shared-scatter.ts) attach one, so whatever paints the layer — the brush,
 * a script — paints the shared world. Preset choices, replays and recordings stay the session's.
 */
export interface ScatterEditor {
  /** Paints a dab of `radius` metres at (x, z); returns what it added and removed. */
  paint(x: number, z: number, radius: number): SessionChange;
  /** Erases a dab of `radius` metres at (x, z); returns what it removed. */
  erase(x: number, z: number, radius: number): SessionChange;
}

/** What a {@link ScatterLayer} emits. */
export interface ScatterLayerEvents extends Record<string, unknown> {
  /** Something the user should see (bad preset, prop that failed): show it where they look. */
  problem: {
    /** One line: what went wrong. */
    title: string;
    /** The details (the bad fields, the prop's error). */
    detail: string;
  };
  /**
   * Background bake of the chosen preset's props: `done` of `total` props, `label` the prop baked
   * last (the first to bake, at the start); `state` 'ready' once every one is done.
   */
  progress: {
    /** Props baked of the preset's. */
    progress: Progress;
    /** Baking, or ready once every one is done. */
    state: 'baking' | 'ready';
  };
  /** After each applied brush event. */
  change: SessionChange & {
    /** The event applied. */
    event: BrushEvent;
  };
}

/** Rendering state of one prop: bucket ids per [level][part]. */
interface PropBuckets {
  prop: ResolvedProp;
  bucketIds: number[][];
}

interface Rendered {
  buckets: PropBuckets;
  entries: Int32Array;
  level: number;
}

/** A {@link ScatterSession} drawn through instanced buckets with distance LOD, under the `parent` you give it; no DOM, no renderer (see the file's comment). */
export class ScatterLayer extends Emitter<ScatterLayerEvents> {
  /** The props the layer draws. */
  readonly catalog: PropCatalog;
  /** The valid presets, by id. */
  readonly presets = new Map<string, ScatterPreset>();
  /** The instance buckets: one per prop part and level. */
  readonly buckets: BucketSet;
  /** The InstancedMeshes drawing the buckets, under {@link object}. */
  readonly meshes: BucketMeshes;
  /** Chooses each instance's LOD level by distance to the camera. */
  readonly lod: LodSelector;
  /** Live figures (`cairn.stats.scatter` on Cairn's pages). */
  readonly stats: ScatterStats;
  /** The brush session: seed, events, placements (a new one on {@link reset}). */
  session: ScatterSession;
  /** Takes paint and erase dabs instead of the session while set (see {@link ScatterEditor}). */
  editor: ScatterEditor | null = null;
  /** The ground every placement reads. */
  readonly ground: GroundSampler;
  private readonly maxInstances: number;
  private readonly shadows: boolean;
  private readonly shadowLevels: number;
  private readonly ownsCatalog: boolean;
  private readonly materials: PropMaterials | null = null;
  private readonly propBuckets = new Map<string, PropBuckets>();
  private readonly rendered = new Map<number, Rendered>();
  private readonly pending = new Map<string, Set<number>>();
  private readonly failed = new Map<string, Set<number>>();
  private readonly preloads = new Map<string, Promise<void>>();
  /** Placements drawn without a brush event (generated regions), by id. */
  private readonly external = new Map<number, Placement>();
  private readonly perLevel = [0, 0, 0];
  private readonly matrix = new Float32Array(16);
  private unsubscribeSession: () => void = () => undefined;
  private readonly unsubscribeCatalog: () => void;

  constructor(options: ScatterLayerOptions) {
    super();
    const resolved = withDefaults(SCATTER_LAYER_DEFAULTS, options);
    this.ground = options.ground;
    this.maxInstances = resolved.maxInstances;
    this.shadows = resolved.shadows;
    this.shadowLevels = resolved.shadowLevels;
    this.ownsCatalog = !options.catalog;
    this.catalog = options.catalog ?? new PropCatalog();
    if (!options.catalog) this.materials = registerProceduralProps(this.catalog);
    this.buckets = new BucketSet();
    this.meshes = new BucketMeshes(this.buckets);
    this.buckets.on('grow', ({ bucket }) => this.meshes.regrow(bucket));
    this.lod = new LodSelector({ bands: options.lodBands });
    this.lod.on('change', this.onLevelChange);
    options.parent?.add(this.meshes.object);

    this.stats = {
      seed: 0,
      preset: null,
      instances: 0,
      rendered: 0,
      pending: 0,
      skipped: 0,
      candidates: 0,
      placed: 0,
      rejections: { slope: 0, altitude: 0, spacing: 0, water: 0, outside: 0, noProp: 0 },
      buckets: 0,
      liveBuckets: 0,
      shadowBuckets: 0,
      perLevel: this.perLevel,
      lod: { evaluations: 0, skipped: 0, lastChanges: 0, lastMs: 0 },
      bake: { state: 'idle', done: 0, total: 0, current: '', ms: 0 },
      lodTriangles: {},
      failedProps: {},
      invalidPresets: {},
      missingCategories: [],
      allocations: 0,
      meshSwaps: 0,
      events: 0,
      lastStrokeMs: 0,
    };
    this.addPresets(resolved.presetData);
    // Buckets and their (hidden) meshes are made as soon as a prop is baked, off the stroke.
    const offResolved = this.catalog.on('resolved', (prop) => void this.bucketsFor(prop));
    const offFailed = this.catalog.on('failed', ({ id, error }) => {
      this.stats.failedProps[id] = error.message;
      this.emit('problem', {
        title: `Prop "${id}" could not be used`,
        detail: `${error.message}\nIts instances are skipped; everything else still places.`,
      });
    });
    // A prop registered later (the asset browser hands one over) into a category the chosen
    // preset uses is baked right away, so the next stroke does not wait for it.
    const offRegistered = this.catalog.on('registered', ({ id, category }) => {
      const preset = this.session?.preset;
      if (preset && preset.picks.some((pick) => pick.category === category)) this.catalog.resolve(id).catch(() => undefined);
    });
    this.unsubscribeCatalog = () => {
      offResolved();
      offFailed();
      offRegistered();
    };
    this.session = this.createSession(resolved.seed);
  }

  /** The scene handle: the object holding every bucket mesh. */
  get object(): Object3D {
    return this.meshes.object;
  }

  /**
   * Validates and adds presets. Invalid ones are reported by name (event `problem`,
   * `stats.invalidPresets`) and skipped; returns the errors.
   */
  addPresets(data: ReadonlyArray<PresetSource>): PresetError[] {
    const { presets, errors } = loadPresets(data);
    for (const preset of presets) {
      if (this.presets.has(preset.id)) {
        errors.push(new PresetError(preset.name, [{ path: 'id', message: `duplicate id "${preset.id}" (already loaded)` }]));
        continue;
      }
      this.presets.set(preset.id, preset);
    }
    for (const error of errors) {
      this.stats.invalidPresets[error.presetName] = error.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
      this.emit('problem', {
        title: `Preset "${error.presetName}" is invalid and was skipped`,
        detail: error.errors.map((e) => `${e.path}: ${e.message}`).join('\n'),
      });
    }
    return errors;
  }

  /**
   * Chooses a preset (recorded as a brush event) and starts baking every prop it can use in the
   * background. Returns the bake promise; a second call for the same preset joins it. Painting
   * does not wait for it.
   */
  choosePreset(id: string): Promise<void> {
    this.apply({ kind: 'preset', presetId: id });
    return this.preloadPreset(id);
  }

  /** Bakes a preset's props in the background (cached per preset); progress in stats.bake. */
  preloadPreset(id: string): Promise<void> {
    const preset = this.presets.get(id);
    if (!preset) return Promise.reject(new Error(`unknown preset "${id}"`));
    let promise = this.preloads.get(id);
    if (!promise) {
      const ids = categoriesOf(preset).flatMap((category) => this.catalog.propsIn(category));
      const bake = this.stats.bake;
      const start = performance.now();
      bake.state = 'baking';
      bake.done = 0;
      bake.total = ids.length;
      bake.current = ids[0] ?? '';
      this.emit('progress', { progress: { done: 0, total: ids.length, label: bake.current }, state: 'baking' });
      promise = this.catalog
        .preload(ids, (progress) => {
          bake.done = progress.done;
          bake.total = progress.total ?? ids.length;
          bake.current = progress.label ?? '';
          this.emit('progress', { progress, state: progress.done === progress.total ? 'ready' : 'baking' });
        })
        .then(() => {
          bake.state = 'ready';
          bake.ms = performance.now() - start;
        });
      this.preloads.set(id, promise);
    }
    return promise;
  }

  /**
   * Paints one dab at (x, z) — through the {@link editor} when one is attached. Returns what it
   * placed/evicted (logical; drawing may follow).
   */
  paint(x: number, z: number, radius: number): SessionChange {
    if (this.editor) return this.editor.paint(x, z, radius);
    return this.apply({ kind: 'paint', x, z, radius });
  }

  /** Erases a disk — through the {@link editor} when one is attached. */
  erase(x: number, z: number, radius: number): SessionChange {
    if (this.editor) return this.editor.erase(x, z, radius);
    return this.apply({ kind: 'erase', x, z, radius });
  }

  /** Applies one brush event (recorded). Throws BrushEventError for one that cannot apply. */
  apply(event: BrushEvent): SessionChange {
    const start = performance.now();
    const change = this.session.apply(event);
    if (event.kind !== 'preset') this.stats.lastStrokeMs = performance.now() - start;
    return change;
  }

  /** The session's recording: its seed and every brush event, to replay. */
  recording(): BrushRecording {
    return this.session.recording();
  }

  /**
   * Clears everything and replays a recording: the same instances, ids and transforms as the
   * session that recorded it (with the same catalog and presets). Resolves when every prop it
   * uses is drawn or has failed.
   */
  async replay(recording: BrushRecording): Promise<void> {
    this.reset(recording.seed);
    for (const event of recording.events) this.apply(event);
    await this.whenIdle();
  }

  /** Removes every instance and starts a new session (new seed optional). */
  reset(seed = this.session.seed): void {
    for (const id of [...this.rendered.keys()]) if (!this.external.has(id)) this.unrender(id);
    // Generated placements survive a reset; the session's waiting ones go with it.
    for (const map of [this.pending, this.failed]) {
      for (const [propId, set] of map) {
        for (const id of set) if (!this.external.has(id)) set.delete(id);
        if (set.size === 0) map.delete(propId);
      }
    }
    this.unsubscribeSession();
    this.session.dispose();
    this.session = this.createSession(seed);
    this.refreshStats();
  }

  /** Resolves when no instance is waiting for its prop. */
  async whenIdle(): Promise<void> {
    while (this.pending.size > 0) {
      const ids = [...this.pending.keys()];
      await Promise.allSettled(ids.map((id) => this.catalog.resolve(id)));
      await Promise.resolve();
    }
  }

  /**
   * Per frame: re-evaluates LOD (at most 4 Hz, only when the camera moved) and pushes bucket
   * changes to the meshes.
   */
  update(camera: { x: number; y: number; z: number }, timeSeconds: number): void {
    const start = performance.now();
    if (this.lod.update(camera.x, camera.y, camera.z, timeSeconds)) this.stats.lod.lastMs = performance.now() - start;
    this.meshes.sync();
    this.refreshStats();
  }

  /**
   * Draws placements decided elsewhere (a generated region of the world), outside the brush
   * session: they are not recorded and a {@link reset} keeps them. Their ids must not collide with
   * the session's (which count up from 1) nor with each other; {@link REGION_ID_BASE} is the
   * convention. Props still baking are waited for as for brush placements.
   */
  addPlacements(placements: readonly Placement[]): void {
    for (const placement of placements) {
      if (this.external.has(placement.id) || this.session.instances.has(placement.id))
        throw new RangeError(`ScatterLayer: placement id ${placement.id} is already drawn`);
      this.external.set(placement.id, placement);
      this.render(placement);
    }
    this.meshes.sync();
    this.refreshStats();
  }

  /** Stops drawing placements added with {@link addPlacements}; unknown ids are ignored. */
  removePlacements(ids: Iterable<number>): void {
    for (const id of ids) {
      if (!this.external.delete(id)) continue;
      this.unrender(id);
    }
    this.meshes.sync();
    this.refreshStats();
  }

  /** How many placements added with {@link addPlacements} are alive. */
  get externalCount(): number {
    return this.external.size;
  }

  /** Logical instances (sorted by id), with whether each is drawn and at which level. */
  snapshot(): Array<
    Placement & {
      /** Drawn now (its prop baked). */
      rendered: boolean;
      /** Its LOD level, or -1 when not drawn. */
      level: number;
    }
  > {
    return [...this.session.instances.values()]
      .sort((a, b) => a.id - b.id)
      .map((p) => ({ ...p, up: { ...p.up }, rendered: this.rendered.has(p.id), level: this.rendered.get(p.id)?.level ?? -1 }));
  }

  /** Frees the session, buckets, meshes, LOD and (when the layer made it) the catalog, and removes every listener. */
  dispose(): void {
    this.unsubscribeSession();
    this.unsubscribeCatalog();
    this.session.dispose();
    this.meshes.dispose();
    this.buckets.dispose();
    this.lod.dispose();
    if (this.ownsCatalog) {
      this.catalog.dispose();
      this.materials?.dispose();
    }
    this.external.clear();
    this.clear();
  }

  private createSession(seed: number): ScatterSession {
    const session = new ScatterSession({
      seed,
      ground: this.ground,
      propsIn: (category) => this.catalog.propsIn(category),
      presets: this.presets,
      maxInstances: this.maxInstances,
    });
    this.unsubscribeSession = session.on('change', (change) => this.onSessionChange(change));
    this.stats.seed = session.seed;
    return session;
  }

  private onSessionChange(change: SessionChange & { event: BrushEvent }): void {
    for (const placement of change.removed) this.unrender(placement.id);
    for (const placement of change.added) this.render(placement);
    this.meshes.sync();
    this.refreshStats();
    this.emit('change', change);
  }

  /** Draws a placement now if its prop is baked, else queues it (never blocks the stroke). */
  private render(placement: Placement): void {
    const prop = this.catalog.get(placement.propId);
    if (prop) {
      this.addToBuckets(placement, prop);
      return;
    }
    if (this.catalog.state(placement.propId) === 'failed') {
      this.queue(this.failed, placement.propId, placement.id);
      return;
    }
    const waiting = this.pending.get(placement.propId);
    if (waiting) {
      waiting.add(placement.id);
      return;
    }
    this.pending.set(placement.propId, new Set([placement.id]));
    this.catalog.resolve(placement.propId).then(
      (resolved) => this.flushPending(resolved.id, resolved),
      () => this.flushPending(placement.propId, null),
    );
  }

  /**
   * A prop finished baking (or failed): draw what waited for it. A reset drops the old session's
   * ids from `pending`, so every id still here belongs to the current session or is generated.
   */
  private flushPending(propId: string, prop: ResolvedProp | null): void {
    const ids = this.pending.get(propId);
    this.pending.delete(propId);
    if (!ids) return;
    for (const id of ids) {
      const placement = this.session.instances.get(id) ?? this.external.get(id);
      if (!placement) continue; // erased or evicted while its prop loaded
      if (prop) this.addToBuckets(placement, prop);
      else this.queue(this.failed, propId, id);
    }
    this.meshes.sync();
    this.refreshStats();
  }

  private queue(map: Map<string, Set<number>>, propId: string, id: number): void {
    let set = map.get(propId);
    if (!set) map.set(propId, (set = new Set()));
    set.add(id);
  }

  private addToBuckets(placement: Placement, prop: ResolvedProp): void {
    const buckets = this.bucketsFor(prop);
    writePlacementMatrix(placement, this.matrix);
    const level = this.lod.add(placement.id, placement.x, placement.y, placement.z);
    const ids = buckets.bucketIds[level]!;
    const entries = new Int32Array(ids.length);
    for (let part = 0; part < ids.length; part++) entries[part] = this.buckets.add(ids[part]!, this.matrix);
    this.rendered.set(placement.id, { buckets, entries, level });
    this.perLevel[level]!++;
  }

  private unrender(id: number): void {
    const rendered = this.rendered.get(id);
    if (!rendered) {
      for (const map of [this.pending, this.failed]) for (const set of map.values()) set.delete(id);
      return;
    }
    for (let part = 0; part < rendered.entries.length; part++) this.buckets.remove(rendered.entries[part]!);
    this.lod.remove(id);
    this.perLevel[rendered.level]!--;
    this.rendered.delete(id);
  }

  /** LOD change: move every part's entry to the bucket of the new level. Allocates nothing. */
  private readonly onLevelChange = ({ handle, from, to }: LodChange): void => {
    const rendered = this.rendered.get(handle);
    if (!rendered) return;
    const target = rendered.buckets.bucketIds[to]!;
    for (let part = 0; part < rendered.entries.length; part++) this.buckets.move(rendered.entries[part]!, target[part]!);
    rendered.level = to;
    this.perLevel[from]!--;
    this.perLevel[to]!++;
  };

  private bucketsFor(prop: ResolvedProp): PropBuckets {
    let buckets = this.propBuckets.get(prop.id);
    if (buckets) return buckets;
    const levels = prop.parts[0]!.levels.length;
    const bucketIds: number[][] = [];
    for (let level = 0; level < levels; level++) {
      bucketIds.push(
        prop.parts.map((part) => {
          const id = this.buckets.createBucket();
          this.meshes.attach(id, {
            geometry: part.levels[level]!,
            material: part.material,
            castShadow: this.shadows && level <= this.shadowLevels && part.castShadow,
            name: `${prop.id}/${part.name}/LOD${level}`,
          });
          return id;
        }),
      );
    }
    for (const part of prop.parts) this.stats.lodTriangles[`${prop.id}/${part.name}`] = part.triangles;
    buckets = { prop, bucketIds };
    this.propBuckets.set(prop.id, buckets);
    return buckets;
  }

  private refreshStats(): void {
    const s = this.stats;
    const engine = this.session.engine;
    s.preset = this.session.preset?.id ?? null;
    s.instances = this.session.instances.size + this.external.size;
    s.rendered = this.rendered.size;
    let pending = 0;
    for (const set of this.pending.values()) pending += set.size;
    let skipped = 0;
    for (const set of this.failed.values()) skipped += set.size;
    s.pending = pending;
    s.skipped = skipped;
    s.candidates = engine.candidates;
    s.placed = engine.placed;
    Object.assign(s.rejections, engine.rejections);
    s.buckets = this.buckets.buckets.length;
    s.liveBuckets = this.meshes.liveBuckets();
    s.shadowBuckets = this.meshes.shadowBuckets();
    s.lod.evaluations = this.lod.evaluations;
    s.lod.skipped = this.lod.skipped;
    s.lod.lastChanges = this.lod.lastChanges;
    s.missingCategories = [...engine.missingCategories];
    s.allocations = this.buckets.allocations;
    s.meshSwaps = this.meshes.swaps;
    s.events = this.session.eventCount;
  }
}
