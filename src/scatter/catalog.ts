import type { ProgressListener } from '../core/progress.ts';
import { withDefaults } from '../core/options.ts';
import type { Object3D } from 'three';
import { Emitter } from '../core/emitter.ts';
import { loadGltfProp, piecesFromObject } from './gltf-prop.ts';
import type { LodBakeOptions } from './lod-bake.ts';
import { simplifierReady } from './lod-bake.ts';
import { bakePiece, type BakedPart } from './prop-lod.ts';
import type { PropPiece } from './props/prop-types.ts';

/**
 * The prop catalog: which props exist, in which category, and how to get their geometry. Presets
 * name categories, never props, so a different catalog needs no engine change. Other modules (the
 * asset browser) add props here:
 *
 * ```ts
 * catalog.register({ id: 'oak-01', category: 'broadleaf', pieces: [{ geometry, material }] });
 * catalog.register({ id: 'crate', category: 'prop', object3D: someGroup });
 * catalog.register({ id: 'fern', category: 'bush', url: '/models/fern.glb' });   // any glTF/GLB
 * catalog.register({ id: 'lazy', category: 'rock', load: async () => makePieces() });
 * ```
 *
 * Nothing is loaded or baked at registration. {@link PropCatalog.resolve} loads a prop and bakes
 * its LOD levels once (the in-flight promise is cached, so concurrent callers share it);
 * {@link PropCatalog.preload} does that for many props in the background with progress. A prop
 * that fails to load or bake is reported by name (`failed` event, {@link PropCatalog.failures})
 * and skipped; it never takes the others down.
 */

export interface PropRegistrationBase {
  /** Unique id (what recordings and stats name). */
  id: string;
  /** Category presets pick from (e.g. "conifer", "rock"). */
  category: string;
  /** Replace a prop already registered under this id. Default false (a duplicate id throws). */
  replace?: boolean;
}

/** A prop to register: its id and category, and where its geometry comes from (pieces, an object, a glTF URL, or a loader). */
export type PropRegistration = PropRegistrationBase &
  (
    | {
        /** The prop's meshes, or a function that builds them when the prop is first resolved. */
        pieces: PropPiece[] | (() => PropPiece[]);
      }
    | {
        /** An object whose meshes become the pieces (world transforms baked in). */
        object3D: Object3D;
      }
    | {
        /** A glTF or GLB file, loaded when the prop is first resolved. */
        url: string;
      }
    | {
        /** Loads the pieces or an object when the prop is first resolved. */
        load: () => Promise<PropPiece[] | Object3D>;
      }
  );

/** A prop loaded and baked: one {@link BakedPart} per piece. */
export interface ResolvedProp {
  /** The prop's id. */
  id: string;
  /** The prop's category. */
  category: string;
  /** One baked part per piece: its LOD levels' geometry and its material. */
  parts: BakedPart[];
  /** Milliseconds spent loading and baking. */
  bakeMs: number;
}

/** Where a prop stands: registered (nothing loaded), loading, ready, or failed. */
export type PropState = 'registered' | 'loading' | 'ready' | 'failed';

/** What a {@link PropCatalog} emits. */
export interface CatalogEvents extends Record<string, unknown> {
  /** A prop was registered (nothing loaded yet). */
  registered: {
    /** Its id. */
    id: string;
    /** Its category. */
    category: string;
  };
  /** A prop was loaded and baked. */
  resolved: ResolvedProp;
  /** A prop failed to load or bake; it is skipped. */
  failed: {
    /** Its id. */
    id: string;
    /** Why, naming the prop. */
    error: Error;
  };
}

/** Options of a {@link PropCatalog}. */
export interface PropCatalogOptions {
  /** LOD baking options for every prop (ratios, flags, strictness). */
  lod?: LodBakeOptions;
  /**
   * How baking gives the main thread back so frames keep rendering. Default: a macrotask
   * (MessageChannel where available, else setTimeout 0).
   */
  yieldToFrame?: () => Promise<void>;
  /** Longest stretch of baking (ms) before yielding. Default 8. */
  sliceMs?: number;
}

/** Defaults of {@link PropCatalogOptions}: the LOD bake's own defaults, a macrotask yield, 8 ms slices. */
export const PROP_CATALOG_DEFAULTS: Required<PropCatalogOptions> = {
  lod: {},
  yieldToFrame: defaultYield,
  sliceMs: 8,
};

/** Invalid registration (empty id/category, duplicate id, no source). */
export class CatalogError extends Error {
  /** The error's name, for telling it apart from other errors. */
  override name = 'CatalogError';
}

interface Entry {
  id: string;
  category: string;
  source: PropRegistration;
  state: PropState;
  promise?: Promise<ResolvedProp>;
  resolved?: ResolvedProp;
  error?: Error;
}

/** Which props exist, in which category, and how to get their geometry; `resolve` loads and bakes a prop's LOD levels once. */
export class PropCatalog extends Emitter<CatalogEvents> {
  private readonly entries = new Map<string, Entry>();
  private readonly byCategory = new Map<string, string[]>();
  private readonly lod: LodBakeOptions;
  private readonly yieldToFrame: () => Promise<void>;
  private readonly sliceMs: number;
  private sliceStart = 0;

  constructor(options: PropCatalogOptions = {}) {
    super();
    const resolved = withDefaults(PROP_CATALOG_DEFAULTS, options);
    this.lod = resolved.lod;
    this.yieldToFrame = resolved.yieldToFrame;
    this.sliceMs = resolved.sliceMs;
  }

  /** Adds a prop. Throws {@link CatalogError} for an unusable registration. */
  register(registration: PropRegistration): void {
    const { id, category } = registration;
    if (typeof id !== 'string' || id.trim() === '') throw new CatalogError('a prop needs a non-empty id');
    if (typeof category !== 'string' || category.trim() === '') throw new CatalogError(`prop "${id}" needs a non-empty category`);
    if (!('pieces' in registration) && !('object3D' in registration) && !('url' in registration) && !('load' in registration)) {
      throw new CatalogError(`prop "${id}" needs pieces, object3D, url or load`);
    }
    const existing = this.entries.get(id);
    if (existing) {
      if (!registration.replace) throw new CatalogError(`a prop "${id}" is already registered (pass replace: true to replace it)`);
      this.removeFromCategory(existing);
    }
    this.entries.set(id, { id, category, source: registration, state: 'registered' });
    // A fresh array per change: callers holding the old one see a consistent snapshot.
    this.byCategory.set(category, [...(this.byCategory.get(category) ?? []), id]);
    this.emit('registered', { id, category });
  }

  /** Registers any glTF/GLB file as a prop (loaded on first use). */
  registerGltf(registration: PropRegistrationBase & { url: string }): void {
    this.register(registration);
  }

  /** Prop ids in a category, in registration order (stable: the placement engine indexes it). */
  propsIn(category: string): readonly string[] {
    return this.byCategory.get(category) ?? EMPTY;
  }

  /** The categories with at least one prop, in order of first registration. */
  categories(): string[] {
    return [...this.byCategory.keys()];
  }

  /** Every prop id, in registration order. */
  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** Whether a prop with this id is registered. */
  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Where a prop stands, or undefined for an id not registered. */
  state(id: string): PropState | undefined {
    return this.entries.get(id)?.state;
  }

  /** A prop's category, or undefined for an id not registered. */
  categoryOf(id: string): string | undefined {
    return this.entries.get(id)?.category;
  }

  /** The baked prop if it is ready now (synchronous), else undefined. */
  get(id: string): ResolvedProp | undefined {
    return this.entries.get(id)?.resolved;
  }

  /** Props that failed, with the reason, by id. */
  failures(): Map<string, Error> {
    const out = new Map<string, Error>();
    for (const entry of this.entries.values()) if (entry.error) out.set(entry.id, entry.error);
    return out;
  }

  /**
   * Loads and bakes a prop once; concurrent and later calls get the same promise. Rejects with an
   * error naming the prop when it cannot load or a level does not shrink.
   */
  resolve(id: string): Promise<ResolvedProp> {
    const entry = this.entries.get(id);
    if (!entry) return Promise.reject(new CatalogError(`no prop "${id}" in the catalog`));
    if (!entry.promise) {
      entry.state = 'loading';
      entry.promise = this.loadAndBake(entry).then(
        (resolved) => {
          entry.state = 'ready';
          entry.resolved = resolved;
          this.emit('resolved', resolved);
          return resolved;
        },
        (error: unknown) => {
          const failure = new Error(`prop "${id}" failed: ${(error as Error)?.message ?? String(error)}`);
          entry.state = 'failed';
          entry.error = failure;
          this.emit('failed', { id, error: failure });
          throw failure;
        },
      );
    }
    return entry.promise;
  }

  /**
   * Resolves several props one after another (each yields between pieces); `onProgress` hears
   * `done` of `total` props after each, `label` the prop's id. Never rejects: failures are
   * returned (and were emitted as `failed`).
   */
  async preload(
    ids: readonly string[],
    onProgress?: ProgressListener,
  ): Promise<{
    /** Ids of the props resolved, in the order given. */
    ready: string[];
    /** The props that failed, with why. */
    failed: Array<{
      /** The prop's id. */
      id: string;
      /** Why, naming the prop. */
      error: Error;
    }>;
  }> {
    const ready: string[] = [];
    const failed: Array<{ id: string; error: Error }> = [];
    let done = 0;
    for (const id of ids) {
      try {
        await this.resolve(id);
        ready.push(id);
      } catch (error) {
        failed.push({ id, error: error as Error });
      }
      onProgress?.({ done: ++done, total: ids.length, label: id });
    }
    return { ready, failed };
  }

  /** Disposes every baked geometry. Materials belong to whoever made them. */
  dispose(): void {
    for (const entry of this.entries.values()) {
      for (const part of entry.resolved?.parts ?? []) for (const level of part.levels) level.dispose();
    }
    this.entries.clear();
    this.byCategory.clear();
    this.clear();
  }

  private async loadAndBake(entry: Entry): Promise<ResolvedProp> {
    const start = performance.now();
    await simplifierReady();
    if (performance.now() - this.sliceStart > this.sliceMs) {
      await this.yieldToFrame();
      this.sliceStart = performance.now();
    }
    const pieces = await this.piecesOf(entry);
    if (pieces.length === 0) throw new Error('has no pieces');
    const parts: BakedPart[] = [];
    for (let i = 0; i < pieces.length; i++) {
      // Off the click: bake in slices of a few ms, giving the main thread back between them.
      if (performance.now() - this.sliceStart > this.sliceMs) {
        await this.yieldToFrame();
        this.sliceStart = performance.now();
      }
      const piece = pieces[i]!;
      parts.push(bakePiece(piece, `${entry.id}/${piece.name ?? `part ${i}`}`, this.lod));
    }
    return { id: entry.id, category: entry.category, parts, bakeMs: performance.now() - start };
  }

  private async piecesOf(entry: Entry): Promise<PropPiece[]> {
    const source = entry.source;
    if ('pieces' in source) return typeof source.pieces === 'function' ? source.pieces() : source.pieces;
    if ('object3D' in source) return piecesFromObject(source.object3D, entry.id);
    if ('url' in source) return loadGltfProp(source.url);
    const loaded = await source.load();
    return Array.isArray(loaded) ? loaded : piecesFromObject(loaded, entry.id);
  }

  private removeFromCategory(entry: Entry): void {
    const ids = (this.byCategory.get(entry.category) ?? []).filter((id) => id !== entry.id);
    if (ids.length) this.byCategory.set(entry.category, ids);
    else this.byCategory.delete(entry.category);
  }
}

const EMPTY: readonly string[] = Object.freeze([]);

function defaultYield(): Promise<void> {
  if (typeof MessageChannel !== 'undefined') {
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve();
      };
      channel.port2.postMessage(0);
    });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}
