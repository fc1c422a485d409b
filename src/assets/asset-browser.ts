import { withDefaults } from '../core/options.ts';
import type { LoadingManager } from 'three';
import { Emitter } from '../core/emitter.ts';
import { progressFraction, type Progress } from '../core/progress.ts';
import { isValidAssetId } from './asset-id.ts';
import type { CatalogCache } from './catalog-cache.ts';
import type { DisposedCounts } from './dispose-object.ts';
import { CatalogClient, type CatalogState } from './catalog-client.ts';
import { AssetError } from './errors.ts';
import { loadPolyHavenModel, type LoadedModel } from './model-loader.ts';
import type { SimplifyReport } from './model-simplifier.ts';
import type { ModelSlot } from './model-slot.ts';
import type { PolyHavenApi } from './polyhaven-api.ts';
import { SearchIndex, type SearchResult } from './search-index.ts';

/** The state of one model request, as a card shows it. */
export interface ModelLoadEvent {
  /** The asset id. */
  id: string;
  /** Loading, loaded, or failed. */
  state: 'loading' | 'loaded' | 'error';
  /** The texture resolution asked for (once loaded: the one loaded). */
  resolution: string;
  /** Files done of those known so far, while loading. */
  progress?: Progress;
  /** The model, once loaded. */
  model?: LoadedModel;
  /** Why it failed, once failed. */
  error?: AssetError;
}

/** What an {@link AssetBrowser} emits. */
export interface AssetBrowserEvents extends Record<string, unknown> {
  /** The catalog's state changed (loading, ready, stale, error). */
  catalog: CatalogState;
  /** A search ran. */
  results: SearchResult;
  /** A model request moved on (loading with progress, loaded, failed). */
  load: ModelLoadEvent;
  /** The shown model was simplified. */
  simplify: SimplifyReport;
}

/** Options of an {@link AssetBrowser}. */
export interface AssetBrowserOptions {
  /** The API (or a mirror) the catalog and models come from. */
  api: PolyHavenApi;
  /** Where models go; the browser shows one at a time in it. */
  slot: ModelSlot;
  /** Catalog cache. Default: in memory (pages pass a CacheStorageCatalogCache). */
  cache?: CatalogCache;
  /** Catalog freshness window in ms. Default 24 h. */
  maxAgeMs?: number;
  /** Default texture resolution. Default '1k'. */
  resolution?: string;
  /** Cards per result list. Default 60. */
  limit?: number;
  /** Passed to the model loader (Node tools add an image handler here). */
  configureManager?: (manager: LoadingManager) => void;
}

/** Live figures for `cairn.stats.assets` (the HUD and tests read these). */
export interface AssetBrowserStats {
  /** Where the catalog stands. */
  catalog: CatalogState['status'];
  /** Catalog entries usable. */
  entries: number;
  /** Catalog keys left out (not valid ids, not assets). */
  rejected: number;
  /** Where the entries came from: the network, the cache, or null before any. */
  catalogSource: CatalogState['source'];
  /** Why the catalog could not be fetched, or null. */
  catalogError: string | null;
  /** 0..1 while the catalog downloads with a known size, null otherwise. */
  catalogProgress: number | null;
  /** The last query. */
  query: string;
  /** Entries that matched it. */
  results: number;
  /** Ms the last search took. */
  searchMs: number;
  /** Searches run. */
  searches: number;
  /** The id of the model shown, or null. */
  model: string | null;
  /** Where the shown model stands: none, loading, loaded, or the last load failed with nothing shown. */
  modelState: 'none' | 'loading' | 'loaded' | 'error';
  /** The id being loaded, or null. */
  loadingId: string | null;
  /** The texture resolution of the shown model (or the default before one). */
  resolution: string;
  /** Triangles of the shown model as loaded. */
  trianglesOriginal: number;
  /** Triangles drawn now (after simplification). */
  triangles: number;
  /** The simplification ratio now (1: as loaded). */
  ratio: number;
  /** Ms the last simplification took. */
  simplifyMs: number;
  /** Models loaded. */
  loads: number;
  /** Loads that failed. */
  loadErrors: number;
  /** The last failure, `id: message`, or null. */
  lastError: string | null;
  /** Totals the slot freed so far. */
  freed: DisposedCounts;
}

/**
 * The search-and-load logic behind the assets page and the world's asset panel, without DOM:
 * catalog (cached), search (sync, over the catalog), one-click loading into a {@link ModelSlot}
 * (a newer click supersedes an older one; a failed load leaves the previous model in place) and
 * simplification. UIs listen to its events and read {@link stats}.
 */
export class AssetBrowser extends Emitter<AssetBrowserEvents> {
  /** The API the catalog and models come from. */
  readonly api: PolyHavenApi;
  /** The catalog: fetched once, cached, kept. */
  readonly catalog: CatalogClient;
  /** Where the shown model lives (one at a time). */
  readonly slot: ModelSlot;
  /** The texture resolution a load asks for when none is given. */
  resolution: string;
  private index: SearchIndex;
  private readonly limit: number;
  private readonly configureManager: AssetBrowserOptions['configureManager'];
  private pending: { id: string; abort: AbortController } | null = null;
  private lastResult: SearchResult | null = null;
  private readonly figures: AssetBrowserStats;

  constructor(options: AssetBrowserOptions) {
    super();
    this.api = options.api;
    this.slot = options.slot;
    ({ resolution: this.resolution, limit: this.limit } = withDefaults({ resolution: '1k', limit: 60 }, options));
    this.configureManager = options.configureManager;
    this.catalog = new CatalogClient({ api: options.api, cache: options.cache, maxAgeMs: options.maxAgeMs });
    this.index = new SearchIndex([], { limit: this.limit });
    this.figures = {
      catalog: 'idle',
      entries: 0,
      rejected: 0,
      catalogSource: null,
      catalogError: null,
      catalogProgress: null,
      query: '',
      results: 0,
      searchMs: 0,
      searches: 0,
      model: null,
      modelState: 'none',
      loadingId: null,
      resolution: this.resolution,
      trianglesOriginal: 0,
      triangles: 0,
      ratio: 1,
      simplifyMs: 0,
      loads: 0,
      loadErrors: 0,
      lastError: null,
      freed: this.slot.freed,
    };
    let indexed: unknown = null;
    this.catalog.on('change', (state) => {
      const f = this.figures;
      f.catalog = state.status;
      f.entries = state.entries.length;
      f.rejected = state.rejected;
      f.catalogSource = state.source;
      f.catalogError = state.error?.message ?? null;
      f.catalogProgress = state.progress ? progressFraction(state.progress) : null;
      if (state.entries !== indexed) {
        indexed = state.entries;
        this.index = new SearchIndex(state.entries, { limit: this.limit });
        this.emit('catalog', state);
        this.search(this.figures.query);
      } else {
        this.emit('catalog', state);
      }
    });
  }

  /** Live figures (`cairn.stats.assets`). */
  get stats(): AssetBrowserStats {
    return this.figures;
  }

  /** The last search result. */
  get results(): SearchResult | null {
    return this.lastResult;
  }

  /** Loads (or refreshes, with force) the catalog; see {@link CatalogClient.load}. */
  loadCatalog(options: { force?: boolean } = {}): Promise<CatalogState> {
    return this.catalog.load(options);
  }

  /** Searches the loaded catalog now (pages debounce keystrokes before calling this). */
  search(query: string): SearchResult {
    const start = performance.now();
    const result = this.index.search(query);
    this.figures.searchMs = performance.now() - start;
    this.figures.searches++;
    this.figures.query = query;
    this.figures.results = result.total;
    this.lastResult = result;
    this.emit('results', result);
    return result;
  }

  /**
   * Loads a model into the slot, replacing (and freeing) the one shown. A newer call supersedes
   * this one. On failure the previous model stays, the error is emitted for the card, and the
   * promise rejects with an {@link AssetError}. Ids that do not match the API's pattern are
   * refused before any request.
   */
  async load(id: string, options: { resolution?: string } = {}): Promise<LoadedModel> {
    const resolution = options.resolution ?? this.resolution;
    if (!isValidAssetId(id)) {
      const error = new AssetError(
        'invalid-id',
        `${JSON.stringify(String(id)).slice(0, 70)} is not a Poly Haven asset id (letters, digits, _ and -, up to 50 characters); nothing was requested`,
      );
      this.fail(String(id), resolution, error);
      throw error;
    }
    this.pending?.abort.abort();
    const abort = new AbortController();
    this.pending = { id, abort };
    this.figures.loadingId = id;
    this.figures.modelState = 'loading';
    this.emit('load', { id, state: 'loading', resolution });
    let settled = false;
    try {
      const model = await loadPolyHavenModel(this.api, id, {
        resolution,
        signal: abort.signal,
        configureManager: this.configureManager,
        onProgress: (progress) =>
          void (!settled && !abort.signal.aborted && this.emit('load', { id, state: 'loading', resolution, progress })),
      });
      settled = true;
      this.slot.show(model);
      const f = this.figures;
      f.loads++;
      f.model = id;
      f.modelState = 'loaded';
      f.resolution = model.resolution;
      f.trianglesOriginal = model.triangles;
      f.triangles = model.triangles;
      f.ratio = 1;
      this.emit('load', { id, state: 'loaded', resolution: model.resolution, model });
      return model;
    } catch (error) {
      settled = true;
      const assetError =
        error instanceof AssetError ? error : new AssetError('corrupt', (error as Error).message, undefined, undefined, { cause: error });
      if (assetError.kind !== 'superseded') this.fail(id, resolution, assetError);
      throw assetError;
    } finally {
      if (this.pending?.abort === abort) {
        this.pending = null;
        this.figures.loadingId = null;
        if (this.figures.modelState === 'loading') this.figures.modelState = this.slot.current ? 'loaded' : 'none';
      }
    }
  }

  private fail(id: string, resolution: string, error: AssetError): void {
    this.figures.loadErrors++;
    this.figures.lastError = `${id}: ${error.message}`;
    if (!this.pending || this.pending.id === id) this.figures.modelState = this.slot.current ? 'loaded' : 'error';
    this.emit('load', { id, state: 'error', resolution, error });
  }

  /** Simplifies the shown model to `ratio` (0 < ratio ≤ 1) of its triangles, from its original. */
  setRatio(ratio: number): SimplifyReport | null {
    const report = this.slot.setRatio(ratio);
    if (!report) return null;
    this.figures.ratio = report.ratio;
    this.figures.triangles = report.trianglesAfter;
    this.figures.trianglesOriginal = report.trianglesBefore;
    this.figures.simplifyMs = report.ms;
    this.emit('simplify', report);
    return report;
  }

  /** Frees the shown model. */
  unload(): void {
    this.pending?.abort.abort();
    this.slot.clear();
    Object.assign(this.figures, { model: null, modelState: 'none', trianglesOriginal: 0, triangles: 0, ratio: 1 });
  }

  /** Aborts a load under way, frees the shown model and the catalog client, and removes every listener. */
  dispose(): void {
    this.pending?.abort.abort();
    this.catalog.dispose();
    this.slot.dispose();
    this.clear();
  }
}
