/**
 * Character files other players chose, fetched for the crowd with caps: the file's bytes (read as
 * they stream in, abandoned past the cap, whatever the server says its length is) and the
 * vertices it draws. The request carries no cookies and no referrer, so a model host learns no
 * more than the visitor's address. Every refusal comes back as a {@link CrowdTemplateError} whose
 * message says why, for the stats; the crowd draws the humanoid meanwhile and then.
 */
import { withDefaults } from '../core/options.ts';
import { CrowdTemplateError, type CrowdTemplate } from './template.ts';
import { loadCrowdTemplateFromBytes } from './load-template.ts';

/** Caps on a remote character file. */
export interface RemoteModelLimits {
  /** Most bytes fetched for one file. Default 16 MiB. */
  maxBytes?: number;
  /** Most vertices a file may draw (every piece together). Default 80,000. */
  maxVertices?: number;
  /** A file not loaded within this many ms is refused. Default 30,000. */
  timeoutMs?: number;
  /** Height a character is scaled to when its own is implausible (m). Default 1.75, as the player's own view (src/avatar/avatar-height.ts). */
  defaultHeight?: number;
}

export const REMOTE_MODEL_LIMITS: Required<RemoteModelLimits> = {
  maxBytes: 16 * 1024 * 1024,
  maxVertices: 80_000,
  timeoutMs: 30_000,
  defaultHeight: 1.75,
};

/** Reads at most `maxBytes` of a response body; throws (and cancels the download) past it. */
async function readCapped(response: Response, maxBytes: number, name: string): Promise<ArrayBuffer> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes)
    throw new CrowdTemplateError(
      `${name}: ${formatBytes(declared)} is over the ${formatBytes(maxBytes)} cap for other players' characters`,
    );
  if (!response.body) {
    const buffer = await response.arrayBuffer();
    if (buffer.byteLength > maxBytes)
      throw new CrowdTemplateError(`${name}: over the ${formatBytes(maxBytes)} cap for other players' characters`);
    return buffer;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      void reader.cancel();
      throw new CrowdTemplateError(`${name}: more than the ${formatBytes(maxBytes)} cap for other players' characters`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out.buffer;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/** Heights (m) a character keeps, as under the player's own `'auto'` rule (a chibi to an ogre); others are scaled to the default. */
const PLAUSIBLE_HEIGHT = [0.3, 4] as const;

/**
 * Fetches and prepares another player's character file as a crowd template, within `limits`.
 * A `.vrm` is read as the GLB it is. Clipless files get Cairn's library retargeted onto them (as
 * for any crowd character). Throws a {@link CrowdTemplateError} saying why a file is refused.
 */
export async function loadRemoteTemplate(url: string, limits: RemoteModelLimits = {}, signal?: AbortSignal): Promise<CrowdTemplate> {
  const caps = withDefaults(REMOTE_MODEL_LIMITS, limits);
  const file = decodeURIComponent(new URL(url).pathname.split('/').pop() || 'model');
  const name = /\.vrm$/i.test(file) ? `${file}.glb` : file;
  const timeout = AbortSignal.timeout(caps.timeoutMs);
  const abort = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer', mode: 'cors', signal: abort });
  } catch (error) {
    if (timeout.aborted) throw new CrowdTemplateError(`${file}: not loaded within ${caps.timeoutMs / 1000} s`);
    throw new CrowdTemplateError(`${file}: could not be fetched (CORS, or the host cannot be reached: ${(error as Error).message})`);
  }
  if (!response.ok) throw new CrowdTemplateError(`${file}: HTTP ${response.status}`);
  // The time cap holds for the body too: a host that trickles a small file never finishes it.
  const bytes = await readCapped(response, caps.maxBytes, file).catch((error: unknown) => {
    if (timeout.aborted) throw new CrowdTemplateError(`${file}: not loaded within ${caps.timeoutMs / 1000} s`);
    throw error;
  });
  let template = await loadCrowdTemplateFromBytes(bytes, url, name, { name: file });
  const vertices = template.report.sourceVertices;
  if (vertices > caps.maxVertices) {
    template.dispose();
    throw new CrowdTemplateError(
      `${file}: ${vertices.toLocaleString('en-US')} vertices, over the ${caps.maxVertices.toLocaleString('en-US')} cap for other players' characters`,
    );
  }
  const height = template.bounds.max.y - Math.min(0, template.bounds.min.y);
  if (!(height >= PLAUSIBLE_HEIGHT[0] && height <= PLAUSIBLE_HEIGHT[1])) {
    // Authored in centimetres or millimetres: stand it as tall as a person, as the player's own view does.
    template.dispose();
    template = await loadCrowdTemplateFromBytes(bytes, url, name, { name: file, targetHeight: caps.defaultHeight });
  }
  return template;
}
