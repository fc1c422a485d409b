import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertValidAssetId, isValidAssetId } from '../../../src/assets/asset-id.ts';
import { MemoryCatalogCache } from '../../../src/assets/catalog-cache.ts';
import { CatalogClient, type CatalogState } from '../../../src/assets/catalog-client.ts';
import { parseCatalog, pickGltfDownload } from '../../../src/assets/catalog-parse.ts';
import { AssetError } from '../../../src/assets/errors.ts';
import { parseApiBaseUrl, PolyHavenApi, POLY_HAVEN_API } from '../../../src/assets/polyhaven-api.ts';
import { SearchIndex } from '../../../src/assets/search-index.ts';
import { freePort } from '../../../scripts/free-port.ts';
import { INVALID_CATALOG_KEY } from '../../fixtures/polyhaven/catalog.ts';
import { startPolyHavenFixture, type PolyHavenFixture } from '../../harness/polyhaven-fixture.ts';

let fixture: PolyHavenFixture;
beforeAll(async () => void (fixture = await startPolyHavenFixture()));
afterAll(() => fixture.close());
beforeEach(() => {
  fixture.apiDown = false;
  fixture.requests.length = 0;
});

describe('asset ids', { timeout: 30_000 }, () => {
  it('accepts what the API accepts and nothing else', () => {
    for (const good of ['wooden_crate_01', 'A-b_9', 'x'.repeat(50)]) expect(isValidAssetId(good)).toBe(true);
    for (const bad of ['', 'x'.repeat(51), '../files/x', 'a/b', 'a b', 'a?b', 'a#b', 'a%2Fb', 'ä', 42, null])
      expect(isValidAssetId(bad)).toBe(false);
    expect(() => assertValidAssetId('../etc')).toThrow(/not a Poly Haven asset id.*nothing was requested/);
  });

  it('never builds a request URL for a bad id', () => {
    const api = new PolyHavenApi({ baseUrl: fixture.url });
    expect(() => api.filesUrl('a/../../b')).toThrow(AssetError);
    expect(api.filesUrl('wooden_crate_01')).toBe(`${fixture.url}/files/wooden_crate_01`);
  });
});

describe('API base URL', { timeout: 30_000 }, () => {
  it('defaults to the real API and checks overrides', () => {
    expect(new PolyHavenApi().catalogUrl()).toBe(`${POLY_HAVEN_API}/assets?t=models`);
    expect(parseApiBaseUrl('http://127.0.0.1:9/')).toBe('http://127.0.0.1:9');
    expect(() => parseApiBaseUrl('ftp://x')).toThrow(/http\(s\)/);
    expect(() => parseApiBaseUrl('not a url')).toThrow(/not an absolute URL/);
    expect(() => parseApiBaseUrl('https://x/?a=1')).toThrow(/query/);
  });
});

describe('catalog parsing', { timeout: 30_000 }, () => {
  it('keeps valid entries, drops (and reports) invalid ids, merges taxonomy into categories', async () => {
    const json = await (await fetch(`${fixture.url}/assets?t=models`)).json();
    const parsed = parseCatalog(json);
    expect(parsed.entries.length).toBe(Object.keys(json).length - 1);
    expect(parsed.rejected).toEqual([{ key: INVALID_CATALOG_KEY, reason: 'not a valid asset id' }]);
    const crate = parsed.entries.find((e) => e.id === 'wooden_crate_01')!;
    expect(crate.name).toBe('Wooden Crate 01');
    expect(crate.categories).toEqual(expect.arrayContaining(['props', 'containers', 'crates']));
    expect(crate.thumbnailUrl).toBe(`${fixture.url}/thumbs/wooden_crate_01.png?width=256&height=256`);
    expect(() => parseCatalog([1, 2])).toThrow(/not a JSON object keyed by asset id/);
  });

  it('picks the asked resolution, else the nearest lower, else the smallest offered', () => {
    const file = (res: string) => ({
      gltf: { url: `https://cdn/x_${res}.gltf`, size: 10, include: { 'x.bin': { url: 'https://cdn/x.bin', size: 5 } } },
    });
    const files = { blend: {}, gltf: { '1k': file('1k'), '2k': file('2k'), '4k': file('4k') } };
    expect(pickGltfDownload(files, '2k').url).toBe('https://cdn/x_2k.gltf');
    expect(pickGltfDownload(files, '8k').resolution).toBe('4k');
    expect(pickGltfDownload({ gltf: { '2k': file('2k') } }, '1k').resolution).toBe('2k');
    expect(pickGltfDownload(files, '1k')).toMatchObject({ include: { 'x.bin': 'https://cdn/x.bin' }, bytes: 15 });
    expect(() => pickGltfDownload({ blend: {} }, '1k', 'x')).toThrow(expect.objectContaining({ kind: 'no-gltf' }));
    expect(() => pickGltfDownload({ gltf: { '1k': { gltf: { url: 'javascript:alert(1)' } } } }, '1k')).toThrow(
      expect.objectContaining({ kind: 'corrupt' }),
    );
    expect(() =>
      pickGltfDownload({ gltf: { '1k': { gltf: { url: 'https://cdn/x.gltf', include: { 'x.bin': { url: '/relative.bin' } } } } } }, '1k'),
    ).toThrow(/x\.bin/);
  });
});

describe('catalog client', { timeout: 30_000 }, () => {
  const api = () => new PolyHavenApi({ baseUrl: fixture.url });

  it('fetches once with progress, then serves the cached copy inside the freshness window', async () => {
    const cache = new MemoryCatalogCache();
    const states: CatalogState[] = [];
    const client = new CatalogClient({ api: api(), cache });
    client.on('change', (s) => states.push(s));
    const state = await client.load();
    expect(state).toMatchObject({ status: 'ready', source: 'network', rejected: 1 });
    expect(state.entries.length).toBeGreaterThan(100);
    const progress = states.filter((s) => s.progress).map((s) => s.progress!);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)!.total).toBeGreaterThan(1000);
    expect(progress.at(-1)!.done).toBe(progress.at(-1)!.total);

    const again = new CatalogClient({ api: api(), cache });
    expect(await again.load()).toMatchObject({ status: 'ready', source: 'cache' });
    expect(fixture.requests.filter((r) => r.path.startsWith('/assets'))).toHaveLength(1);
  });

  it('refetches a cached copy older than the window', async () => {
    const cache = new MemoryCatalogCache();
    let now = 1_000_000;
    await new CatalogClient({ api: api(), cache, now: () => now, maxAgeMs: 1000 }).load();
    now += 1001;
    const state = await new CatalogClient({ api: api(), cache, now: () => now, maxAgeMs: 1000 }).load();
    expect(state.source).toBe('network');
    expect(fixture.requests.filter((r) => r.path.startsWith('/assets'))).toHaveLength(2);
  });

  it('API down with a cached copy: stale, still searchable, a clear error; retry recovers', async () => {
    const cache = new MemoryCatalogCache();
    await new CatalogClient({ api: api(), cache }).load();
    fixture.apiDown = 503;
    const client = new CatalogClient({ api: api(), cache });
    const state = await client.load({ force: true });
    expect(state.status).toBe('stale');
    expect(state.error?.kind).toBe('http');
    expect(state.error?.retryable).toBe(true);
    expect(state.error?.message).toMatch(/HTTP 503.*retry/);
    expect(new SearchIndex(state.entries).search('barrel').hits[0]!.entry.id).toBe('wooden_barrel_01');
    fixture.apiDown = false;
    expect(await client.load({ force: true })).toMatchObject({ status: 'ready', source: 'network', error: null });
  });

  it('API down and nothing cached: error, no entries', async () => {
    fixture.apiDown = 503;
    const state = await new CatalogClient({ api: api() }).load();
    expect(state).toMatchObject({ status: 'error', entries: [] });
    expect(state.error).toBeInstanceOf(AssetError);
  });

  it('offline (nothing listening): a network error that says so', async () => {
    const port = await freePort();
    const state = await new CatalogClient({ api: new PolyHavenApi({ baseUrl: `http://127.0.0.1:${port}` }) }).load();
    expect(state.status).toBe('error');
    expect(state.error?.kind).toBe('network');
    expect(state.error?.message).toMatch(/cannot reach the Poly Haven catalog/);
  });

  it('a body that is not JSON is reported as corrupt, not thrown raw', async () => {
    const fakeFetch = (async () => new Response('<html>maintenance</html>', { status: 200 })) as typeof fetch;
    const state = await new CatalogClient({ api: new PolyHavenApi({ baseUrl: 'https://api.example', fetch: fakeFetch }) }).load();
    expect(state.error?.kind).toBe('corrupt');
    expect(state.error?.message).toMatch(/not valid JSON/);
  });

  it('shares one request between concurrent loads', async () => {
    const client = new CatalogClient({ api: api() });
    const [a, b] = await Promise.all([client.load(), client.load()]);
    expect(a).toBe(b);
    expect(fixture.requests.filter((r) => r.path.startsWith('/assets'))).toHaveLength(1);
  });
});
