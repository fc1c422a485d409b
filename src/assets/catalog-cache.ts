/**
 * Where the catalog is kept between visits. The browser uses the Cache API
 * ({@link CacheStorageCatalogCache}); Node tools and tests use {@link MemoryCatalogCache}.
 */
export interface CachedCatalog {
  /** The raw API answer, as fetched. */
  json: unknown;
  /** When it was fetched (ms since the epoch). */
  savedAt: number;
}

/** Where a catalog is kept between visits, by key (the catalog URL). */
export interface CatalogCache {
  /** The catalog kept under `key`, or null (a miss, or a damaged entry). */
  get(key: string): Promise<CachedCatalog | null>;
  /** Keeps `value` under `key`, replacing what was there. */
  put(key: string, value: CachedCatalog): Promise<void>;
  /** Forgets what is kept under `key`. */
  delete(key: string): Promise<void>;
}

/** A cache in memory: lives as long as the object. */
export class MemoryCatalogCache implements CatalogCache {
  private readonly entries = new Map<string, CachedCatalog>();
  /** The catalog kept under `key`, or null. */
  async get(key: string): Promise<CachedCatalog | null> {
    return this.entries.get(key) ?? null;
  }
  /** Keeps `value` under `key`. */
  async put(key: string, value: CachedCatalog): Promise<void> {
    this.entries.set(key, value);
  }
  /** Forgets what is kept under `key`. */
  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

const SAVED_AT_HEADER = 'x-cairn-saved-at';

/**
 * The catalog in the browser's Cache API (persists across visits, survives going offline). The
 * key is the catalog URL, so different API base URLs never share a cache entry. Where the Cache
 * API is missing (insecure context) every call is a harmless miss.
 */
export class CacheStorageCatalogCache implements CatalogCache {
  /** The Cache API cache's name. */
  readonly cacheName: string;

  constructor(cacheName = 'cairn-assets-catalog-v1') {
    this.cacheName = cacheName;
  }

  private async open(): Promise<Cache | null> {
    if (typeof caches === 'undefined') return null;
    try {
      return await caches.open(this.cacheName);
    } catch {
      return null; // storage disabled or quota trouble: behave as an empty cache
    }
  }

  /** The catalog kept under `key`, or null (a miss, a damaged entry, or no Cache API). */
  async get(key: string): Promise<CachedCatalog | null> {
    const cache = await this.open();
    const response = await cache?.match(key);
    if (!response) return null;
    const savedAt = Number(response.headers.get(SAVED_AT_HEADER));
    try {
      return { json: await response.json(), savedAt: Number.isFinite(savedAt) ? savedAt : 0 };
    } catch {
      return null; // a damaged entry is a miss, never an error
    }
  }

  /** Keeps `value` under `key`, with when it was fetched. */
  async put(key: string, value: CachedCatalog): Promise<void> {
    const cache = await this.open();
    await cache?.put(
      key,
      new Response(JSON.stringify(value.json), {
        headers: { 'content-type': 'application/json', [SAVED_AT_HEADER]: String(value.savedAt) },
      }),
    );
  }

  /** Forgets what is kept under `key`. */
  async delete(key: string): Promise<void> {
    const cache = await this.open();
    await cache?.delete(key);
  }
}
