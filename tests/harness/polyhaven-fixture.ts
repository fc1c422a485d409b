/**
 * A stand-in for api.polyhaven.com and its CDN on loopback, for tests and offline work (this
 * machine cannot reach the real API). Same API shape: `GET /assets?t=models` (object keyed by id),
 * `GET /files/{id}` (format → resolution → file, with an `include` map), thumbnails, and multi-file
 * glTF downloads whose include URLs deliberately differ from "gltf folder + relative URI", so only
 * a loader that follows the include map finds its buffers and textures.
 *
 * Layout on the fixture:
 *   /dl/Models/gltf/{res}/{id}/{id}_{res}.gltf     the glTF (relative URIs: {id}.bin, textures/…)
 *   /dl/Models/buffers/{res}/{id}/{id}.bin         its buffer   ← include["{id}.bin"]
 *   /dl/Models/png/{res}/{id}/{id}_{mat}_diff_{res}.png   ← include["textures/{id}_{mat}_diff_{res}.png"]
 *
 * Tests control it directly: `apiDown` makes the API answer 503, `requests` logs every request with
 * its Referer. Start it with {@link startPolyHavenFixture}; run it by hand with bin/polyhaven-fixture.ts.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { catalogJson, findFixtureModel } from '../fixtures/polyhaven/catalog.ts';
import { buildFixtureGltf, FIXTURE_RESOLUTIONS, thumbnailPng } from '../fixtures/polyhaven/models.ts';

export interface FixtureRequest {
  method: string;
  /** Path and query, e.g. /files/wooden_crate_01. */
  path: string;
  status: number;
  referer: string | null;
}

export interface PolyHavenFixture {
  /** Base URL, e.g. http://127.0.0.1:40123 — pass as the API base (`?api=`). */
  url: string;
  /** Every request served, in order. */
  readonly requests: FixtureRequest[];
  /** When set (e.g. 503), /assets and /files answer with that status: the API is down. CDN files still work. */
  apiDown: number | false;
  /** Extra delay before answering /dl/ downloads, in ms (to observe loading states). Default 0. */
  downloadDelayMs: number;
  /** Triangle count of a model's glTF (for assertions). */
  trianglesOf(id: string, resolution?: string): number;
  close(): Promise<void>;
}

interface Served {
  body: Buffer;
  type: string;
}

const md5 = (data: Buffer): string => createHash('md5').update(data).digest('hex');
const ID = /^[A-Za-z0-9_-]{1,50}$/;

export async function startPolyHavenFixture(options: { port?: number } = {}): Promise<PolyHavenFixture> {
  const downloads = new Map<string, Served>();
  const filesJson = new Map<string, object>();
  const triangles = new Map<string, number>();
  let base = '';

  /** Builds (once) every download of a model and the /files answer that points at them. */
  const filesFor = (id: string): object | null => {
    const cached = filesJson.get(id);
    if (cached) return cached;
    const model = findFixtureModel(id);
    if (!model || model.fault === 'files-404') return null;
    const gltf: Record<string, object> = {};
    for (const res of FIXTURE_RESOLUTIONS) {
      const built = buildFixtureGltf(id, model.shape, res);
      triangles.set(`${id}@${res}`, built.triangles);
      const gltfPath = `/dl/Models/gltf/${res}/${id}/${id}_${res}.gltf`;
      const gltfBody =
        model.fault === 'corrupt-gltf'
          ? Buffer.from(
              '{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"accessors":[{"bufferView":0,"compo',
            )
          : Buffer.from(built.gltf);
      downloads.set(gltfPath, { body: gltfBody, type: 'model/gltf+json' });
      const include: Record<string, object> = {};
      for (const [relative, body] of built.files) {
        const path = relative.endsWith('.bin')
          ? `/dl/Models/buffers/${res}/${id}/${relative}`
          : `/dl/Models/png/${res}/${id}/${relative.split('/').pop()}`;
        downloads.set(path, { body, type: relative.endsWith('.bin') ? 'application/octet-stream' : 'image/png' });
        include[relative] = { url: `${base}${path}`, md5: md5(body), size: body.length };
      }
      gltf[res] = { gltf: { url: `${base}${gltfPath}`, md5: md5(gltfBody), size: gltfBody.length, include } };
    }
    // Other formats exist on the real API; the client must pick glTF among them.
    const blend = Object.fromEntries(
      FIXTURE_RESOLUTIONS.map((res) => [
        res,
        { blend: { url: `${base}/dl/Models/blend/${res}/${id}/${id}_${res}.blend`, md5: '0'.repeat(32), size: 1 } },
      ]),
    );
    const json = { blend, gltf };
    filesJson.set(id, json);
    return json;
  };

  const requests: FixtureRequest[] = [];
  const fixture: PolyHavenFixture = {
    url: '',
    requests,
    apiDown: false,
    downloadDelayMs: 0,
    trianglesOf(id, resolution = '1k') {
      filesFor(id);
      const count = triangles.get(`${id}@${resolution}`);
      if (count === undefined) throw new Error(`fixture has no model ${id} at ${resolution}`);
      return count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const send = (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: Buffer | string,
    type = 'text/plain; charset=utf-8',
    cache = 'no-store',
  ): void => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '', status, referer: req.headers.referer ?? null });
    res.writeHead(status, {
      'content-type': type,
      'content-length': String(bytes.length),
      'access-control-allow-origin': '*',
      'cache-control': cache,
    });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const path = url.pathname;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-headers': '*',
        'access-control-allow-methods': 'GET, HEAD',
      });
      res.end();
      return;
    }
    const api = path === '/assets' || path.startsWith('/files/');
    if (api && fixture.apiDown !== false) return send(req, res, fixture.apiDown, 'Service unavailable (fixture: apiDown)');
    if (path === '/assets') {
      const type = url.searchParams.get('t') ?? url.searchParams.get('type') ?? 'all';
      if (type !== 'models' && type !== 'all') return send(req, res, 400, `Unsupported type "${type}" (fixture serves models only)`);
      return send(req, res, 200, JSON.stringify(catalogJson(base)), 'application/json');
    }
    if (path.startsWith('/files/')) {
      const id = decodeURIComponent(path.slice('/files/'.length));
      if (!ID.test(id)) return send(req, res, 400, 'No asset with that ID');
      const json = filesFor(id);
      if (!json) return send(req, res, 404, `No asset with id ${id}`);
      return send(req, res, 200, JSON.stringify(json), 'application/json');
    }
    const thumb = /^\/thumbs\/([A-Za-z0-9_-]+)\.png$/.exec(path);
    if (thumb) {
      if (!findFixtureModel(thumb[1]!)) return send(req, res, 404, 'no such thumbnail');
      return send(req, res, 200, thumbnailPng(thumb[1]!), 'image/png', 'public, max-age=3600');
    }
    if (path.startsWith('/dl/')) {
      const id = path.split('/')[5];
      if (id && ID.test(id)) filesFor(id);
      const served = downloads.get(path);
      const answer = (): void =>
        served ? send(req, res, 200, served.body, served.type, 'public, max-age=3600') : send(req, res, 404, `not found: ${path}`);
      if (fixture.downloadDelayMs > 0) setTimeout(answer, fixture.downloadDelayMs);
      else answer();
      return;
    }
    send(req, res, 404, `not found: ${path}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  fixture.url = base;
  return fixture;
}
