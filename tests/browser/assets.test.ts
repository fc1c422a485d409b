import type { Browser, Page } from 'playwright-core';
import type { BufferGeometry, Material, Mesh } from 'three';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, launchChromium, openPage, waitForCairn } from '../harness/browser.ts';
import { countDifferentPixels, decodePng } from '../harness/png.ts';
import { startPolyHavenFixture, type PolyHavenFixture } from '../harness/polyhaven-fixture.ts';

const base = inject('serverUrl');

interface AssetStats {
  catalog: string;
  entries: number;
  rejected: number;
  catalogSource: string | null;
  query: string;
  results: number;
  searches: number;
  model: string | null;
  modelState: string;
  resolution: string;
  trianglesOriginal: number;
  triangles: number;
  ratio: number;
  loadErrors: number;
  thumbnails: { requested: number; loaded: number; failed: number; waiting: number };
  memory: { geometries: number; textures: number };
  freed: { geometries: number; materials: number; textures: number };
}

const assetStats = (page: Page): Promise<AssetStats> => page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.assets)));
const frameStats = (page: Page): Promise<{ drawCalls: number; triangles: number }> =>
  page.evaluate(() => ({ drawCalls: window.cairn.stats.drawCalls, triangles: window.cairn.stats.triangles }));
const frames = (page: Page, n = 3): Promise<void> => page.evaluate((count) => window.cairn.stage!.frames(count), n);
/** GPU memory straight from the renderer (not through the page's stats). */
const gpuMemory = (page: Page): Promise<{ geometries: number; textures: number }> =>
  page.evaluate(() => {
    const memory = window.cairn.renderer!.info.memory;
    return { geometries: memory.geometries, textures: memory.textures };
  });
const waitFor = (page: Page, predicate: string, timeout = 60_000): Promise<unknown> =>
  page.waitForFunction(predicate, undefined, { timeout, polling: 100 });
const cardNames = (page: Page): Promise<string[]> => page.locator('.cairn-asset-card .name').allInnerTexts();

describe('the assets page against the Poly Haven fixture', () => {
  let fixture: PolyHavenFixture;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let url: string;
  /** GPU memory before any model was loaded. */
  let baseline: { geometries: number; textures: number };

  beforeAll(async () => {
    fixture = await startPolyHavenFixture();
    browser = await launchChromium();
    page = await openPage(browser, { width: 800, height: 480 });
    errors = collectPageErrors(page);
    url = `${base}/assets.html?api=${encodeURIComponent(fixture.url)}`;
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 120_000 });
    await waitForCairn(page);
    await waitFor(page, `window.cairn.stats.assets?.catalog === 'ready'`);
    await frames(page, 2);
    baseline = await gpuMemory(page);
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it('loads the catalog with the page origin as Referer, drops the invalid id, and credits Poly Haven', async () => {
    const catalogRequest = fixture.requests.find((r) => r.path === '/assets?t=models')!;
    expect(catalogRequest.referer).toBe(`${base}/`);
    const s = await assetStats(page);
    expect(s).toMatchObject({ catalog: 'ready', entries: 119, rejected: 1, catalogSource: 'network' });
    const credit = page.locator('.cairn-assets .credit');
    expect(await credit.innerText()).toMatch(/Powered by Poly Haven/);
    expect(await credit.locator('a').getAttribute('href')).toBe('https://polyhaven.com');
    expect(fixture.requests.some((r) => r.path.includes('secret'))).toBe(false);
    expect(errors).toEqual([]);
  });

  it('renders the top 60 cards and loads thumbnails only as they scroll into view', async () => {
    expect(await page.locator('.cairn-asset-card').count()).toBe(60);
    await waitFor(page, `window.cairn.stats.assets.thumbnails.requested > 0`);
    await frames(page, 2);
    const visible = await page.evaluate(() => {
      const grid = document.querySelector('.cairn-assets .grid')!.getBoundingClientRect();
      return [...document.querySelectorAll('.cairn-asset-card img')].filter((img) => {
        const r = img.getBoundingClientRect();
        return r.bottom > grid.top - 48 && r.top < grid.bottom + 48;
      }).length;
    });
    const before = (await assetStats(page)).thumbnails;
    expect(before.requested).toBeGreaterThan(0);
    expect(before.requested).toBeLessThanOrEqual(visible);
    expect(before.requested).toBeLessThan(20);
    expect(before.waiting).toBe(60 - before.requested);
    const lastId = await page.locator('.cairn-asset-card').last().getAttribute('data-id');
    const thumbRequests = () => fixture.requests.filter((r) => r.path.startsWith('/thumbs/'));
    expect(thumbRequests().some((r) => r.path.startsWith(`/thumbs/${lastId}.png`))).toBe(false);
    expect(thumbRequests().length).toBeLessThanOrEqual(before.requested);
    expect(thumbRequests().every((r) => r.referer === `${base}/`)).toBe(true);

    await page.evaluate(() => {
      const grid = document.querySelector('.cairn-assets .grid')!;
      grid.scrollTop = grid.scrollHeight;
    });
    await expect.poll(() => thumbRequests().some((r) => r.path.startsWith(`/thumbs/${lastId}.png`)), { timeout: 30_000 }).toBe(true);
    await frames(page, 2); // stats are published after each frame
    const after = (await assetStats(page)).thumbnails;
    expect(after.requested).toBeGreaterThan(before.requested);
    expect(after.requested).toBeLessThan(60);
  });

  it('typing debounces into few searches, and the right card ranks first', async () => {
    const before = (await assetStats(page)).searches;
    await page.locator('.cairn-assets input[type=search]').pressSequentially('rock');
    await waitFor(page, `window.cairn.stats.assets.query === 'rock'`);
    await page.waitForTimeout(300); // past the debounce: no late search may still be pending
    const s = await assetStats(page);
    expect(s.searches - before).toBeGreaterThanOrEqual(1);
    expect(s.searches - before).toBeLessThan(4); // four keystrokes, fewer searches
    expect(s.results).toBe(4);
    // Name (exact word) beats name (prefix) beats category prefix beats tag, whatever the downloads.
    expect(await cardNames(page)).toEqual(['Mossy Rock 01', 'Rocking Chair 01', 'Boulder 01', 'Stone Lantern 01']);
    expect(await page.locator('.cairn-assets .count').innerText()).toBe('4 matches for "rock"');
  });

  it('one click loads the multi-file glTF through the include map, and it renders', async () => {
    const shotBefore = decodePng(await page.screenshot());
    const drawBefore = (await frameStats(page)).drawCalls;
    fixture.requests.length = 0;
    await page.locator('.cairn-asset-card').first().click();
    await waitFor(page, `window.cairn.stats.assets.modelState === 'loaded'`);
    await frames(page, 3);
    const s = await assetStats(page);
    expect(s).toMatchObject({ model: 'mossy_rock_01', resolution: '1k', trianglesOriginal: fixture.trianglesOf('mossy_rock_01') });
    const paths = fixture.requests.map((r) => r.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/files/mossy_rock_01',
        '/dl/Models/gltf/1k/mossy_rock_01/mossy_rock_01_1k.gltf',
        '/dl/Models/buffers/1k/mossy_rock_01/mossy_rock_01.bin',
        '/dl/Models/png/1k/mossy_rock_01/mossy_rock_01_stone_diff_1k.png',
        '/dl/Models/png/1k/mossy_rock_01/mossy_rock_01_moss_diff_1k.png',
      ]),
    );
    expect(fixture.requests.filter((r) => r.status !== 200)).toEqual([]);
    expect(fixture.requests.find((r) => r.path === '/files/mossy_rock_01')!.referer).toBe(`${base}/`);
    expect(await page.locator('.cairn-asset-card[data-id="mossy_rock_01"]').getAttribute('data-state')).toBe('loaded');

    // It is drawn: two more draw calls (one per material), and hiding it changes the picture.
    expect((await frameStats(page)).drawCalls).toBe(drawBefore + 2);
    const shown = decodePng(await page.screenshot());
    expect(countDifferentPixels(shotBefore, shown)).toBeGreaterThan(5000);
    const memory = await gpuMemory(page);
    expect(memory).toEqual({ geometries: baseline.geometries + 2, textures: baseline.textures + 2 });
    expect(s.memory).toEqual(memory); // the page publishes what the renderer says
  });

  it('the detail slider rebuilds from the original per material slot, and shows triangles before/after', async () => {
    const original = (await assetStats(page)).trianglesOriginal;
    const drawnBefore = (await frameStats(page)).triangles;
    await page.locator('.cairn-assets input[type=range]').fill('25');
    await waitFor(page, `window.cairn.stats.assets.ratio === 0.25`);
    await frames(page, 3);
    const s = await assetStats(page);
    expect(s.triangles).toBeLessThan(original * 0.3);
    expect(s.triangles).toBeGreaterThan(original * 0.1);
    // The renderer draws exactly the triangles the slider took away fewer.
    expect(drawnBefore - (await frameStats(page)).triangles).toBe(original - s.triangles);
    expect(await page.locator('.cairn-assets [data-role=triangles]').innerText()).toBe(
      `${original.toLocaleString('en-US')} → ${s.triangles.toLocaleString('en-US')} triangles`,
    );
    // Both material slots are still drawn.
    expect((await frameStats(page)).drawCalls).toBeGreaterThanOrEqual(4);
    const slots = await page.evaluate(() => {
      const root = window.cairn.scene!.getObjectByName('asset')!;
      const out: Array<[string, number]> = [];
      root.traverse((o) => {
        const mesh = o as Mesh<BufferGeometry, Material>;
        if (mesh.isMesh) out.push([mesh.material.name, mesh.geometry.drawRange.count]);
      });
      return out;
    });
    expect(slots.map(([name]) => name).sort()).toEqual(['mossy_rock_01_moss', 'mossy_rock_01_stone']);
    expect(slots.every(([, count]) => count > 0)).toBe(true);

    await page.locator('.cairn-assets input[type=range]').fill('100');
    await waitFor(page, `window.cairn.stats.assets.ratio === 1`);
    await frames(page, 2);
    expect((await assetStats(page)).triangles).toBe(original);
    expect((await frameStats(page)).triangles).toBe(drawnBefore);
  });

  it('loading the next model frees the previous one: GPU memory returns to the same counts', async () => {
    const withRock = await gpuMemory(page);
    await page.evaluate(() => window.cairn.assetsPage!.search('barrel'));
    await page.locator('.cairn-asset-card[data-id="wooden_barrel_01"]').click();
    await waitFor(page, `window.cairn.stats.assets.model === 'wooden_barrel_01' && window.cairn.stats.assets.modelState === 'loaded'`);
    await frames(page, 3);
    expect(await gpuMemory(page)).toEqual(withRock); // two geometries and two textures out, two and two in
    await page.evaluate(() => window.cairn.assetsPage!.load('oil_drum_01'));
    await frames(page, 2);
    expect(await gpuMemory(page)).toEqual(withRock);
    await frames(page, 1);
    expect((await assetStats(page)).freed).toEqual({ geometries: 4, materials: 4, textures: 4 });
    await page.evaluate(() => window.cairn.assetsPage!.unload());
    await frames(page, 2);
    expect(await gpuMemory(page)).toEqual(baseline);
    await page.evaluate(() => window.cairn.assetsPage!.load('mossy_rock_01'));
    await frames(page, 2);
  });

  it('a corrupt glTF or a 404 puts an error on that card and keeps the previous model', async () => {
    const drawBefore = (await frameStats(page)).drawCalls;
    await page.evaluate(() => window.cairn.assetsPage!.search('statue'));
    await page.locator('.cairn-asset-card[data-id="broken_statue"]').click();
    const broken = page.locator('.cairn-asset-card[data-id="broken_statue"]');
    await expect.poll(() => broken.getAttribute('data-state'), { timeout: 30_000 }).toBe('error');
    expect(await broken.locator('.state').innerText()).toMatch(/model file is broken/);

    await page.evaluate(() => window.cairn.assetsPage!.search('lamp'));
    const missing = page.locator('.cairn-asset-card[data-id="missing_lamp"]');
    await missing.click();
    await expect.poll(() => missing.getAttribute('data-state'), { timeout: 30_000 }).toBe('error');
    expect(await missing.locator('.state').innerText()).toMatch(/no asset "missing_lamp" \(HTTP 404\)/);

    fixture.requests.length = 0;
    const refused = await page.evaluate(() =>
      window.cairn.assetsPage!.load('../../files/secret').then(
        () => 'loaded',
        (e: { kind: string }) => e.kind,
      ),
    );
    expect(refused).toBe('invalid-id');
    expect(fixture.requests).toEqual([]);

    await frames(page, 2);
    const s = await assetStats(page);
    expect(s).toMatchObject({ model: 'mossy_rock_01', modelState: 'loaded' });
    expect(s.loadErrors).toBeGreaterThanOrEqual(3);
    expect((await frameStats(page)).drawCalls).toBe(drawBefore);
  });

  it('offers a resolution choice: 2k reloads the shown model with 2k textures', async () => {
    fixture.requests.length = 0;
    await page.locator('.cairn-assets header select').selectOption('2k');
    await waitFor(page, `window.cairn.stats.assets.resolution === '2k' && window.cairn.stats.assets.modelState === 'loaded'`);
    expect(fixture.requests.map((r) => r.path)).toContain('/dl/Models/png/2k/mossy_rock_01/mossy_rock_01_stone_diff_2k.png');
    expect(fixture.requests.some((r) => r.path.includes('_1k'))).toBe(false);
  });

  it('API down: a clear message and Retry, the cached catalog still searchable; Retry recovers', async () => {
    fixture.apiDown = 503;
    await page.locator('.cairn-assets [data-role=refresh]').click();
    await waitFor(page, `window.cairn.stats.assets.catalog === 'stale'`);
    const status = page.locator('.cairn-assets .status');
    expect(await status.innerText()).toMatch(/Poly Haven is unreachable: .*HTTP 503.*Showing the catalog cached/);
    expect(await status.getAttribute('data-tone')).toBe('warn');
    await page.locator('.cairn-assets input[type=search]').fill('barrel');
    await waitFor(page, `window.cairn.stats.assets.query === 'barrel'`);
    expect((await cardNames(page))[0]).toBe('Wooden Barrel 01');

    fixture.apiDown = false;
    await status.locator('button[data-role=retry]').click();
    await waitFor(page, `window.cairn.stats.assets.catalog === 'ready'`);
    expect(await status.innerText()).toBe('119 models');
  });

  it('a reload with the API down still has the catalog, from the Cache API', async () => {
    fixture.apiDown = 503;
    fixture.requests.length = 0;
    await page.goto(`${url}&q=crate`, { waitUntil: 'domcontentloaded', timeout: 120_000 });
    await waitForCairn(page);
    await waitFor(page, `window.cairn.stats.assets?.catalog === 'ready' && window.cairn.stats.assets.query === 'crate'`);
    const s = await assetStats(page);
    expect(s).toMatchObject({ catalogSource: 'cache', entries: 119 });
    expect(fixture.requests.filter((r) => r.path.startsWith('/assets'))).toEqual([]);
    expect((await cardNames(page))[0]).toBe('Wooden Crate 01');
    fixture.apiDown = false;
    // Only the deliberate failures were logged: the browser's own lines for the 404 and the 503s.
    expect(errors.filter((e) => !/status of (404|503)/.test(e))).toEqual([]);
  });
});
