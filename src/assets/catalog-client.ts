import { withDefaults } from '../core/options.ts';
import { Emitter } from '../core/emitter.ts';
import type { Progress } from '../core/progress.ts';
import { MemoryCatalogCache, type CatalogCache } from './catalog-cache.ts';
import { parseCatalog } from './catalog-parse.ts';
import { AssetError } from './errors.ts';
import type { PolyHavenApi } from './polyhaven-api.ts';
import type { CatalogEntry } from './polyhaven-types.ts';

/**
 * - `idle`: nothing asked yet; `loading`: fetching (entries may already hold the cached copy);
 * - `ready`: entries are current (fresh from the network, or a cache younger than the window);
 * - `stale`: the network failed, entries are the cached copy (still searchable), `error` says why;
 * - `error`: the network failed and there is no cached copy: nothing to search, `error` says why.
 */
export type CatalogStatus = 'idle' | 'loading' | 'ready' | 'stale' | 'error';

/** What a {@link CatalogClient} knows: its status, the entries and where they came from. */
export interface CatalogState {
  /** Where the catalog stands. */
  status: CatalogStatus;
  /** The usable entries (the cached copy while loading or stale; none on error). */
  entries: CatalogEntry[];
  /** Where `entries` came from. */
  source: 'network' | 'cache' | null;
  /** When `entries` were fetched from the network (ms since the epoch). */
  savedAt: number | null;
  /** Why the last fetch failed, or null. */
  error: AssetError | null;
  /** Download progress while loading, in bytes; `total` is null when the server does not say. */
  progress: Progress | null;
  /** Catalog keys left out because they are not valid ids or not assets. */
  rejected: number;
}

/** Options of a {@link CatalogClient}. */
export interface CatalogClientOptions {
  /** The API the catalog comes from. */
  api: PolyHavenApi;
  /** Default: a {@link MemoryCatalogCache} (pages pass a CacheStorageCatalogCache). */
  cache?: CatalogCache;
  /** How long a cached catalog is used without asking the network. Default 24 h. */
  maxAgeMs?: number;
  /** Clock, for tests. Default Date.now. */
  now?: () => number;
}

/** What a {@link CatalogClient} emits. */
export interface CatalogEvents extends Record<string, unknown> {
  /** Its state changed. */
  change: CatalogState;
}

/** How long a cached catalog is used without asking the network: 24 hours (ms). */
export const DEFAULT_CATALOG_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Fetches the model catalog once and keeps it: a cached copy younger than `maxAgeMs` is used
 * without a request; an older one is shown at once while the fresh one downloads; when the API
 * cannot be reached the cached copy stays searchable (`stale`) and `error` says why.
 */
export class CatalogClient extends Emitter<CatalogEvents> {
  /** The API the catalog comes from. */
  readonly api: PolyHavenApi;
  /** How long a cached catalog is used without asking the network (ms). */
  readonly maxAgeMs: number;
  private readonly cache: CatalogCache;
  private readonly now: () => number;
  private inFlight: Promise<CatalogState> | null = null;
  private abort: AbortController | null = null;
  private current: CatalogState = { status: 'idle', entries: [], source: null, savedAt: null, error: null, progress: null, rejected: 0 };

  constructor(options: CatalogClientOptions) {
    super();
    this.api = options.api;
    const defaults: Required<Omit<CatalogClientOptions, 'api'>> = {
      cache: new MemoryCatalogCache(),
      maxAgeMs: DEFAULT_CATALOG_MAX_AGE_MS,
      now: Date.now,
    };
    const resolved = withDefaults(defaults, options);
    this.cache = resolved.cache;
    this.maxAgeMs = resolved.maxAgeMs;
    this.now = resolved.now;
  }

  /** What the client knows now. */
  get state(): CatalogState {
    return this.current;
  }

  private set(patch: Partial<CatalogState>): void {
    this.current = { ...this.current, ...patch };
    this.emit('change', this.current);
  }

  /**
   * Loads the catalog (cache first, see the class comment). `force` skips the freshness window,
   * as the Refresh and Retry buttons do. Concurrent calls share one request.
   */
  load(options: { force?: boolean } = {}): Promise<CatalogState> {
    if (this.inFlight) return this.inFlight;
    this.inFlight = this.run(options.force === true).finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private async run(force: boolean): Promise<CatalogState> {
    const key = this.api.catalogUrl();
    this.set({ status: 'loading', error: null, progress: null });
    if (this.current.source === null) {
      const cached = await this.cache.get(key).catch(() => null);
      if (cached) {
        try {
          const parsed = parseCatalog(cached.json);
          const fresh = this.now() - cached.savedAt < this.maxAgeMs;
          this.set({ entries: parsed.entries, rejected: parsed.rejected.length, source: 'cache', savedAt: cached.savedAt });
          if (fresh && !force) {
            this.set({ status: 'ready' });
            return this.current;
          }
        } catch {
          await this.cache.delete(key).catch(() => undefined); // unreadable: forget it
        }
      }
    }
    this.abort = new AbortController();
    try {
      const json = await this.api.fetchCatalog({
        signal: this.abort.signal,
        onProgress: (progress) => this.set({ progress }),
      });
      const parsed = parseCatalog(json, 'the Poly Haven catalog');
      const savedAt = this.now();
      await this.cache.put(key, { json, savedAt }).catch(() => undefined); // a full disk must not lose a good catalog
      this.set({
        status: 'ready',
        entries: parsed.entries,
        rejected: parsed.rejected.length,
        source: 'network',
        savedAt,
        error: null,
        progress: null,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') return this.current;
      const assetError =
        error instanceof AssetError ? error : new AssetError('network', (error as Error).message, key, undefined, { cause: error });
      this.set({ status: this.current.entries.length > 0 ? 'stale' : 'error', error: assetError, progress: null });
    } finally {
      this.abort = null;
    }
    return this.current;
  }

  /** Stops a download in progress and forgets listeners. */
  dispose(): void {
    this.abort?.abort();
    this.clear();
  }
}
