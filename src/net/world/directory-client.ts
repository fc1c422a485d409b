import { withDefaults } from '../../core/options.ts';
import type { Cell, WorldEntry, WorldHop } from '../protocol/world.ts';

/** Options of a {@link DirectoryClient}. */
export interface DirectoryClientOptions {
  /** http(s) origin of the Worker, e.g. `https://cairn.example` (its /api/world). */
  origin: string;
  /** fetch implementation. Default the global one. */
  fetch?: typeof fetch;
  /**
   * Gives up on a request after this many ms, so a Worker that hangs (restarting, overloaded)
   * cannot stall the client. Default 10,000.
   */
  requestTimeoutMs?: number;
}

/** {@link DirectoryClientOptions} with every default filled in. */
export type ResolvedDirectoryClientOptions = Required<DirectoryClientOptions>;

/** The defaults, applied once. Throws for an origin that is not http(s). */
export function resolveDirectoryClientOptions(options: DirectoryClientOptions): ResolvedDirectoryClientOptions {
  const origin = options.origin.replace(/\/$/, '');
  if (!/^https?:\/\//.test(origin)) throw new Error(`WorldTransport: origin "${options.origin}" must be http:// or https://`);
  const { fetch: doFetch, requestTimeoutMs } = withDefaults<Omit<ResolvedDirectoryClientOptions, 'origin'>>(
    { fetch: fetch.bind(globalThis), ...DIRECTORY_CLIENT_DEFAULTS },
    options,
  );
  return { origin, fetch: doFetch, requestTimeoutMs };
}

/** Defaults of a {@link DirectoryClient}: 10 s requests; `fetch` left out is the global one. */
const DIRECTORY_CLIENT_DEFAULTS = { requestTimeoutMs: 10_000 };

/** An answer with when it was asked for and read (local `Date.now()` ms), for the server clock. */
export interface Timed<T> {
  /** The answer's body. */
  body: T;
  /** Local `Date.now()` when the request was sent (ms). */
  sentAt: number;
  /** Local `Date.now()` when the answer was read (ms). */
  readAt: number;
}

/** A refused or failed directory request; `status` is the HTTP status when there was one. */
export class DirectoryError extends Error {
  /** The HTTP status, or null when no answer came (network error, timeout). */
  readonly status: number | null;

  constructor(message: string, status: number | null, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
    this.name = 'DirectoryError';
  }
}

/**
 * The world directory's HTTP API (`POST /api/world/enter`, `POST /api/world/hop`): one identity
 * per player, a token per cell. Each request gives up after `requestTimeoutMs`; a non-2xx answer
 * throws a {@link DirectoryError} with its status (4xx: refused, retrying will not help; 5xx: a
 * busy or restarting Worker). Holds no state.
 */
export class DirectoryClient {
  /** The resolved options. */
  readonly options: ResolvedDirectoryClientOptions;

  constructor(options: DirectoryClientOptions) {
    this.options = resolveDirectoryClientOptions(options);
  }

  /** `http(s)://host/api/world`. */
  get url(): string {
    return `${this.options.origin}/api/world`;
  }

  /** Enters the world at `at` (m): a new identity and a token for the cell there. */
  enter(at: { x: number; z: number }): Promise<Timed<WorldEntry>> {
    return this.post<WorldEntry>('/api/world/enter', at);
  }

  /** A token for `cell` (a neighbour of the token's cell, or the same cell to renew it). */
  hop(token: string, cell: Cell): Promise<Timed<WorldHop>> {
    return this.post<WorldHop>('/api/world/hop', { token, cell });
  }

  private async post<T>(path: string, body: unknown): Promise<Timed<T>> {
    const { origin, fetch: fetchImpl, requestTimeoutMs } = this.options;
    let response: Response;
    const sentAt = Date.now();
    try {
      response = await fetchImpl(`${origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
    } catch (error) {
      if ((error as Error).name === 'TimeoutError')
        throw new DirectoryError(`${path}: no answer within ${requestTimeoutMs} ms`, null, { cause: error });
      throw error;
    }
    const text = await response.text();
    if (!response.ok) throw new DirectoryError(`${path}: HTTP ${response.status} ${text.trim()}`, response.status);
    return { body: JSON.parse(text) as T, sentAt, readAt: Date.now() };
  }
}
