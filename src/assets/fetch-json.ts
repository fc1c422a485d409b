import type { ProgressListener } from '../core/progress.ts';
import { AssetError } from './errors.ts';

/** Options of {@link fetchJson}. */
export interface FetchJsonOptions {
  /** Referrer policy for the request. Default 'origin': Poly Haven's terms ask apps to identify themselves by Referer. */
  referrerPolicy?: ReferrerPolicy;
  /** Aborts the request; the promise then rejects with the fetch's own AbortError. */
  signal?: AbortSignal;
  /** Hears the download: `done` bytes received, `total` the Content-Length when the server says (else null). */
  onProgress?: ProgressListener;
  /** What to call the resource in messages, e.g. "the Poly Haven catalog". */
  label?: string;
  /** The fetch to use. Default globalThis.fetch. */
  fetch?: typeof fetch;
}

/**
 * GETs JSON with progress, turning every failure into an {@link AssetError} with a message a
 * person can act on: `network` (no answer), `not-found` (404), `http` (other status), `corrupt`
 * (not JSON). The body is streamed so `onProgress` can drive a progress bar.
 */
export async function fetchJson(url: string, options: FetchJsonOptions = {}): Promise<unknown> {
  const label = options.label ?? url;
  const doFetch = options.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await doFetch(url, {
      referrerPolicy: options.referrerPolicy ?? 'origin',
      signal: options.signal,
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new AssetError('network', `cannot reach ${label} (${(error as Error).message}); check the connection and retry`, url, undefined, {
      cause: error,
    });
  }
  if (response.status === 404) {
    throw new AssetError('not-found', `${label} was not found (HTTP 404)`, url, 404);
  }
  if (!response.ok) {
    throw new AssetError(
      'http',
      `${label} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}; the service may be down, retry later`,
      url,
      response.status,
    );
  }
  const text = await readText(response, options.onProgress, url, label);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AssetError('corrupt', `${label} is not valid JSON (${(error as Error).message})`, url, response.status, { cause: error });
  }
}

async function readText(response: Response, onProgress: ProgressListener | undefined, url: string, label: string): Promise<string> {
  const header = response.headers.get('content-length');
  // Content-Length counts encoded bytes; with gzip it is not the size we read, so no total then.
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const total = header !== null && !encoded && Number.isFinite(Number(header)) ? Number(header) : null;
  if (!response.body || !onProgress) {
    const text = await response.text();
    onProgress?.({ done: text.length, total });
    return text;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let loaded = 0;
  let text = '';
  onProgress({ done: 0, total });
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      loaded += value.byteLength;
      text += decoder.decode(value, { stream: true });
      onProgress({ done: loaded, total });
    }
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new AssetError(
      'network',
      `the connection dropped while downloading ${label} (${(error as Error).message})`,
      url,
      response.status,
      { cause: error },
    );
  }
  return text + decoder.decode();
}
