import { withDefaults } from '../core/options.ts';
import { Emitter } from '../core/emitter.ts';
import { PlacementEngine, type GroundSampler, type Placement, type RejectionCounts } from './placement.ts';
import type { ScatterPreset } from './preset.ts';

/**
 * A scatter session: the seed, the presets, and the brush events applied in order. Pure logic:
 * everything the brush does goes through {@link ScatterSession.apply}, and the events are recorded,
 * so `(seed, events)` replays a session exactly — the same instances with the same ids, positions,
 * props, scales and yaws — whatever the timing of asset loads or frames was the first time.
 */

/** What the brush did. Positions are on the ground (metres), so a replay needs no camera. */
export type BrushEvent =
  | {
      /** Chooses the preset later dabs paint with. */
      kind: 'preset';
      /** The preset's id. */
      presetId: string;
    }
  /** Restarts the placement RNG at `seed` (shared strokes start with one, so each stands alone). */
  | {
      /** Restarts the placement RNG. */
      kind: 'reseed';
      /** The new seed. */
      seed: number;
    }
  | {
      /** Places instances in a disk. */
      kind: 'paint';
      /** East position of the centre (m). */
      x: number;
      /** South position of the centre (m). */
      z: number;
      /** Radius (m). */
      radius: number;
    }
  | {
      /** Removes instances in a disk. */
      kind: 'erase';
      /** East position of the centre (m). */
      x: number;
      /** South position of the centre (m). */
      z: number;
      /** Radius (m). */
      radius: number;
    };

/** A saved session: replay it with {@link ScatterSession.replay}. Plain JSON. */
export interface BrushRecording {
  /** The recording format's version. */
  version: 1;
  /** The session's seed. */
  seed: number;
  /** Every brush event, in order. */
  events: BrushEvent[];
}

/** Options of a {@link ScatterSession}. */
export interface ScatterSessionOptions {
  /** Seed of the placement RNG. */
  seed: number;
  /** The ground placements are read from. */
  ground: GroundSampler;
  /** Prop ids per category, stable order (from the catalog). */
  propsIn: (category: string) => readonly string[];
  /** Presets by id (validated). */
  presets: ReadonlyMap<string, ScatterPreset>;
  /**
   * Most live instances; past it the oldest are evicted first (FIFO). Default 50,000. Eviction
   * depends only on counts, so it replays exactly too.
   */
  maxInstances?: number;
}

/** What one brush event did. */
export interface SessionChange {
  /** Instances placed. */
  added: Placement[];
  /** Instances removed (erased, or evicted past the cap). */
  removed: Placement[];
}

/** What a {@link ScatterSession} emits. */
export interface SessionEvents extends Record<string, unknown> {
  /** After every applied event, with what it added and removed. */
  change: SessionChange & {
    /** The event applied. */
    event: BrushEvent;
  };
}

/** Defaults of {@link ScatterSessionOptions} (seed, ground, props and presets have none). */
export const SCATTER_SESSION_DEFAULTS: Required<Pick<ScatterSessionOptions, 'maxInstances'>> = { maxInstances: 50_000 };

/** Thrown for an event that cannot apply (unknown preset, painting before choosing one). */
export class BrushEventError extends Error {
  /** The error's name, for telling it apart from other errors. */
  override name = 'BrushEventError';
}

/** A brush session: the recorded events (choose, paint, erase) and the placements they produce, replayable exactly. */
export class ScatterSession extends Emitter<SessionEvents> {
  /** Seed of the placement RNG. */
  readonly seed: number;
  /** The placement engine every event goes through. */
  readonly engine: PlacementEngine;
  /** Most live instances before the oldest are evicted. */
  readonly maxInstances: number;
  private readonly presets: ReadonlyMap<string, ScatterPreset>;
  private readonly events: BrushEvent[] = [];
  private currentPreset: ScatterPreset | null = null;
  /** Live ids in placement order, for FIFO eviction: a queue with a moving head (O(1) pop). */
  private order: number[] = [];
  private head = 0;

  constructor(options: ScatterSessionOptions) {
    super();
    this.seed = options.seed >>> 0;
    this.presets = options.presets;
    this.maxInstances = withDefaults(SCATTER_SESSION_DEFAULTS, options).maxInstances;
    this.engine = new PlacementEngine({ seed: this.seed, ground: options.ground, propsIn: options.propsIn });
  }

  /** Rebuilds a session from a recording (same ground, catalog and presets assumed). */
  static replay(recording: BrushRecording, options: Omit<ScatterSessionOptions, 'seed'>): ScatterSession {
    if (recording.version !== 1) throw new BrushEventError(`unsupported recording version ${String(recording.version)}`);
    const session = new ScatterSession({ ...options, seed: recording.seed });
    for (const event of recording.events) session.apply(event);
    return session;
  }

  /** The chosen preset, or null before one is chosen. */
  get preset(): ScatterPreset | null {
    return this.currentPreset;
  }

  /** Live instances, by id. */
  get instances(): ReadonlyMap<number, Placement> {
    return this.engine.instances;
  }

  /** Candidates rejected, by cause. */
  get rejections(): RejectionCounts {
    return this.engine.rejections;
  }

  /** Events applied so far. */
  get eventCount(): number {
    return this.events.length;
  }

  /** The events so far, as a recording (a copy). */
  recording(): BrushRecording {
    return { version: 1, seed: this.seed, events: this.events.map((e) => ({ ...e })) };
  }

  /**
   * Applies one brush event synchronously and records it. Throws {@link BrushEventError} (and
   * records nothing) for an event that cannot apply, so a recording only holds events that did.
   */
  apply(event: BrushEvent): SessionChange {
    const change: SessionChange = { added: [], removed: [] };
    switch (event.kind) {
      case 'preset': {
        const preset = this.presets.get(event.presetId);
        if (!preset) throw new BrushEventError(`unknown preset "${event.presetId}"`);
        this.currentPreset = preset;
        break;
      }
      case 'reseed': {
        if (!Number.isInteger(event.seed) || event.seed < 0 || event.seed > 0xffffffff)
          throw new BrushEventError(`a reseed needs an unsigned 32-bit integer (got ${event.seed})`);
        this.engine.rng.setState(event.seed);
        break;
      }
      case 'paint': {
        if (!this.currentPreset) throw new BrushEventError('choose a preset before painting');
        assertDisk(event);
        this.engine.dab(event, this.currentPreset, change.added);
        for (const placement of change.added) this.order.push(placement.id);
        this.evictOverflow(change.removed);
        break;
      }
      case 'erase': {
        assertDisk(event);
        for (const id of this.engine.idsWithin(event.x, event.z, event.radius)) {
          const removed = this.engine.remove(id);
          if (removed) change.removed.push(removed);
        }
        break;
      }
      default:
        throw new BrushEventError(`unknown brush event ${JSON.stringify(event)}`);
    }
    this.events.push({ ...event });
    this.emit('change', { ...change, event });
    return change;
  }

  /** A canonical, comparable list of the live instances (for replay checks and tests). */
  snapshot(): Array<[id: number, propId: string, x: number, y: number, z: number, scale: number, yaw: number]> {
    return [...this.engine.instances.values()].sort((a, b) => a.id - b.id).map((p) => [p.id, p.propId, p.x, p.y, p.z, p.scale, p.yaw]);
  }

  /** Drops listeners and every instance. */
  dispose(): void {
    this.clear();
    this.engine.dispose();
    this.order = [];
    this.head = 0;
  }

  private evictOverflow(removed: Placement[]): void {
    while (this.engine.instances.size > this.maxInstances && this.head < this.order.length) {
      const id = this.order[this.head++]!;
      const placement = this.engine.remove(id);
      if (placement) removed.push(placement);
    }
    // Compact the queue now and then so it does not grow without bound.
    if (this.head > 4096 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head).filter((id) => this.engine.instances.has(id));
      this.head = 0;
    }
  }
}

function assertDisk(event: { x: number; z: number; radius: number }): void {
  if (!Number.isFinite(event.x) || !Number.isFinite(event.z) || !(event.radius > 0) || !Number.isFinite(event.radius)) {
    throw new BrushEventError(`a brush disk needs finite x, z and a radius > 0 (got ${event.x}, ${event.z}, r ${event.radius})`);
  }
}
