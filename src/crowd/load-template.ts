/**
 * Bring your own character: fetch or read a skinned glTF/GLB/FBX and prepare it as a crowd
 * template. Every failure (network, parse, no skeleton, too many bones) comes back as one
 * CrowdTemplateError whose message names the file and the reason, for the page to show; nothing
 * is changed until a template exists. Reports progress while downloading and preparing.
 */
import { parseRig, rigFormatOf, RigLoadError } from '../rig/load.ts';
import { CrowdTemplate, CrowdTemplateError, type CrowdTemplateOptions } from './template.ts';

export type LoadPhase = 'download' | 'parse' | 'prepare';

export interface LoadTemplateOptions extends CrowdTemplateOptions {
  /** Called with the phase and 0..1 within it (download progress needs Content-Length). */
  onProgress?: (phase: LoadPhase, fraction: number) => void;
}

/** Fetches a model from a URL and prepares it. */
export async function loadCrowdTemplateFromUrl(url: string, options: LoadTemplateOptions = {}): Promise<CrowdTemplate> {
  const name = decodeURIComponent(url.split(/[?#]/)[0]!.split('/').pop() || url);
  try {
    rigFormatOf(url);
  } catch (error) {
    throw new CrowdTemplateError((error as Error).message);
  }
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new CrowdTemplateError(`${name}: could not be fetched (${(error as Error).message})`);
  }
  if (!response.ok) throw new CrowdTemplateError(`${name}: HTTP ${response.status} ${response.statusText}`.trim());
  const bytes = await readWithProgress(response, (f) => options.onProgress?.('download', f));
  return prepareTemplate(bytes, url, name, options);
}

/** Reads a dropped or chosen file and prepares it. */
export async function loadCrowdTemplateFromFile(file: File, options: LoadTemplateOptions = {}): Promise<CrowdTemplate> {
  try {
    rigFormatOf(file.name);
  } catch (error) {
    throw new CrowdTemplateError((error as Error).message);
  }
  options.onProgress?.('download', 0);
  const bytes = await file.arrayBuffer();
  options.onProgress?.('download', 1);
  return prepareTemplate(bytes, file.name, file.name, options);
}

async function prepareTemplate(bytes: ArrayBuffer, source: string, name: string, options: LoadTemplateOptions): Promise<CrowdTemplate> {
  options.onProgress?.('parse', 0);
  let rig;
  try {
    rig = await parseRig(bytes, source, { basePath: source.includes('/') ? source.slice(0, source.lastIndexOf('/') + 1) : '' });
  } catch (error) {
    // Name the file the way the user knows it (not the full URL).
    const message = error instanceof RigLoadError ? error.message.replace(error.source, name) : `${name}: ${(error as Error).message}`;
    throw new CrowdTemplateError(message);
  }
  options.onProgress?.('parse', 1);
  options.onProgress?.('prepare', 0);
  const template = new CrowdTemplate(rig, { ...options, name: options.name ?? name });
  options.onProgress?.('prepare', 1);
  return template;
}

async function readWithProgress(response: Response, onProgress: (fraction: number) => void): Promise<ArrayBuffer> {
  const total = Number(response.headers.get('content-length')) || 0;
  if (!response.body || total === 0) {
    onProgress(0);
    const buffer = await response.arrayBuffer();
    onProgress(1);
    return buffer;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    onProgress(Math.min(1, received / total));
  }
  const out = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out.buffer;
}
