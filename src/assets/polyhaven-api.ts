import { withDefaults } from '../core/options.ts';
import { assertValidAssetId } from './asset-id.ts';
import type { ProgressListener } from '../core/progress.ts';
import { fetchJson } from './fetch-json.ts';

/** The real API. Tests and offline mirrors pass another base URL (option, or `?api=` on the pages). */
export const POLY_HAVEN_API = 'https://api.polyhaven.com';

/**
 * Checks an API base URL (from an option or `?api=`): absolute http(s), no query or fragment.
 * Returns it without a trailing slash; throws a RangeError saying what is wrong otherwise.
 */
export function parseApiBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError(`API base URL ${JSON.stringify(value)} is not an absolute URL (expected e.g. ${POLY_HAVEN_API})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RangeError(`API base URL must be http(s), got ${url.protocol}`);
  if (url.search || url.hash) throw new RangeError('API base URL must not have a query or fragment');
  return url.href.replace(/\/+$/, '');
}

/** Options of a {@link PolyHavenApi}. */
export interface PolyHavenApiOptions {
  /** Default {@link POLY_HAVEN_API}. */
  baseUrl?: string;
  /** Default globalThis.fetch. */
  fetch?: typeof fetch;
}

/** Defaults of a {@link PolyHavenApi}: {@link POLY_HAVEN_API}; `fetch` left out is globalThis.fetch at each call. */
const POLY_HAVEN_API_DEFAULTS: Required<Pick<PolyHavenApiOptions, 'baseUrl'>> = { baseUrl: POLY_HAVEN_API };

/**
 * The two API calls the assets module makes. Every request carries a Referer of this page's origin
 * (referrerPolicy 'origin'), as Poly Haven's terms ask apps to identify themselves; asset ids are
 * checked against the API's pattern before any URL is built.
 */
export class PolyHavenApi {
  /** The API's base URL, without a trailing slash. */
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch | undefined;
  /** Requests made, by kind, for the page's stats. */
  readonly requests = {
    /** Catalog requests. */
    catalog: 0,
    /** File-list requests. */
    files: 0,
  };

  constructor(options: PolyHavenApiOptions = {}) {
    this.baseUrl = parseApiBaseUrl(withDefaults(POLY_HAVEN_API_DEFAULTS, options).baseUrl);
    this.fetchImpl = options.fetch;
  }

  /** Whether this is the real Poly Haven API (the credit line links to it either way). */
  get isOfficial(): boolean {
    return this.baseUrl === POLY_HAVEN_API;
  }

  /** The catalog URL: every model (`/assets?t=models`). */
  catalogUrl(): string {
    return `${this.baseUrl}/assets?t=models`;
  }

  /** The file list URL; throws `invalid-id` before building anything for a bad id. */
  filesUrl(id: string): string {
    assertValidAssetId(id);
    return `${this.baseUrl}/files/${id}`;
  }

  /** Fetches the catalog's JSON (not yet checked); `onProgress` hears the bytes. */
  fetchCatalog(options: { signal?: AbortSignal; onProgress?: ProgressListener } = {}): Promise<unknown> {
    this.requests.catalog++;
    return fetchJson(this.catalogUrl(), { ...options, label: 'the Poly Haven catalog', fetch: this.fetchImpl });
  }

  /** Fetches a model's file list (`/files/{id}`, not yet checked); throws `invalid-id` before any request for a bad id. */
  fetchFiles(id: string, options: { signal?: AbortSignal } = {}): Promise<unknown> {
    const url = this.filesUrl(id);
    this.requests.files++;
    return fetchJson(url, { ...options, label: `the file list of "${id}"`, fetch: this.fetchImpl });
  }
}
