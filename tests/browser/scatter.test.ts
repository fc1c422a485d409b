import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, hudText, launchChromium, openPage, waitForCairn } from '../harness/browser.ts';

/**
 * The scatter brush in a real browser (Chromium, WebGPU on SwiftShader, the real Worker serving
 * the built pages): real pointer drags on the canvas, checked against the page's own heightmap.
 * Few page loads, a small viewport: SwiftShader renders about one frame a second here.
 */
const base = inject('serverUrl');

interface Instance {
  id: number;
  propId: string;
  category: string;
  family: string;
  x: number;
  y: number;
  z: number;
  rendered: boolean;
  level: number;
  /** Re-sampled in the page from the heightmap. */
  groundSlope: number;
  groundHeight: number;
}

interface ScatterStats {
  instances: number;
  rendered: number;
  pending: number;
  skipped: number;
  candidates: number;
  placed: number;
  rejections: Record<'slope' | 'altitude' | 'spacing' | 'water' | 'outside' | 'noProp', number>;
  liveBuckets: number;
  shadowBuckets: number;
  buckets: number;
  perLevel: number[];
  bake: { state: string; done: number; total: number };
  failedProps: Record<string, string>;
  invalidPresets: Record<string, string>;
  cursor: { x: number; z: number; samples: number } | null;
  events: number;
}

async function scatterStats(page: Page): Promise<ScatterStats> {
  return page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.scatter)));
}

async function frames(page: Page, count = 2): Promise<void> {
  await page.evaluate((n) => window.cairn.stage!.frames(n), count);
}

/** A left-button drag on the canvas through the given CSS-pixel points. */
async function drag(page: Page, points: Array<[number, number]>, modifiers: { alt?: boolean } = {}): Promise<void> {
  if (modifiers.alt) await page.keyboard.down('Alt');
  await page.mouse.move(points[0]![0], points[0]![1]);
  await page.mouse.down();
  for (const [x, y] of points.slice(1)) await page.mouse.move(x, y);
  await page.mouse.up();
  if (modifiers.alt) await page.keyboard.up('Alt');
}

function line(from: [number, number], to: [number, number], n = 4): Array<[number, number]> {
  return Array.from(
    { length: n + 1 },
    (_, i) => [from[0] + ((to[0] - from[0]) * i) / n, from[1] + ((to[1] - from[1]) * i) / n] as [number, number],
  );
}

async function instances(page: Page): Promise<Instance[]> {
  return page.evaluate(() => {
    const heightmap = window.cairn.heightmap!;
    return window.cairn
      .scatter!.layer.snapshot()
      .map((p) => ({ ...p, groundSlope: heightmap.sampleSlope(p.x, p.z), groundHeight: heightmap.sampleHeight(p.x, p.z) }));
  });
}

async function lookAt(page: Page, x: number, z: number, distance: number, pitch: number): Promise<void> {
  await page.evaluate(
    ([x, z, distance, pitch]) => window.cairn.view!.lookAt(x!, z!, { distance, pitch, yaw: Math.PI }),
    [x, z, distance, pitch],
  );
  await frames(page, 1);
}

describe('the scatter page', () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await openPage(browser, { width: 640, height: 400 });
    errors = collectPageErrors(page);
    await page.goto(`${base}/scatter.html?seed=5`);
    await waitForCairn(page);
    // Choosing the preset (Mixed Forest by default) bakes its props in the background.
    await page.waitForFunction(() => window.cairn.stats.scatter?.bake.state === 'ready', undefined, { timeout: 120_000, polling: 250 });
  });
  afterAll(async () => browser?.close());

  it('paints with real drags: trees keep off the cliff and out of the water, every rejection counted by cause', async () => {
    const s0 = await scatterStats(page);
    expect(s0.instances).toBe(0);
    expect(s0.bake.done).toBe(s0.bake.total);
    expect(s0.bake.total).toBeGreaterThanOrEqual(8);

    // Across the cliff band (it runs north–south near x = 142; screen-right is +x).
    await lookAt(page, 140, 0, 60, 1.25);
    await drag(page, line([170, 200], [470, 200]));
    // Across the lake shore, west of the landmark's water.
    await lookAt(page, -108, 60, 60, 1.25);
    await drag(page, line([170, 170], [470, 230]));
    await frames(page, 2);

    const s = await scatterStats(page);
    expect(s.instances).toBeGreaterThan(40);
    expect(s.pending).toBe(0);
    expect(s.rendered).toBe(s.instances);
    expect(s.rejections.slope).toBeGreaterThan(0);
    expect(s.rejections.water).toBeGreaterThan(0);
    expect(s.rejections.spacing).toBeGreaterThan(0);
    expect(s.placed + Object.values(s.rejections).reduce((a, b) => a + b, 0)).toBe(s.candidates);
    // The cursor found the ground by ray march.
    expect(s.cursor).not.toBeNull();
    expect(s.cursor!.samples).toBeGreaterThan(3);

    const all = await instances(page);
    const trees = all.filter((p) => p.family === 'tree');
    expect(trees.length).toBeGreaterThan(3);
    for (const tree of trees) expect(tree.groundSlope, `${tree.propId} #${tree.id}`).toBeLessThanOrEqual(30);
    for (const p of all) expect(p.groundHeight, `${p.propId} #${p.id} under water`).toBeGreaterThanOrEqual(0);
    // Steep ground did get something: rocks, leaning.
    expect(all.some((p) => p.category === 'rock' && p.groundSlope > 30)).toBe(true);

    // The HUD shows the same breakdown.
    const hud = await hudText(page);
    expect(hud).toContain(`slope ${s.rejections.slope}`);
    expect(hud).toContain(`water ${s.rejections.water}`);
  });

  it('draws all of it in about one draw call per live bucket (plus the shadow pass)', async () => {
    await lookAt(page, 20, -10, 110, 0.9);
    await frames(page, 2);
    const withScatter = await page.evaluate(() => window.cairn.stats.drawCalls);
    const s = await scatterStats(page);
    await page.evaluate(() => (window.cairn.scatter!.layer.object.visible = false));
    await frames(page, 2);
    const without = await page.evaluate(() => window.cairn.stats.drawCalls);
    await page.evaluate(() => (window.cairn.scatter!.layer.object.visible = true));
    const scatterDraws = withScatter - without;
    expect(scatterDraws).toBeGreaterThanOrEqual(1);
    expect(scatterDraws).toBeLessThanOrEqual(s.liveBuckets + s.shadowBuckets);
    // Instancing: far fewer draws than instances.
    expect(s.rendered).toBeGreaterThan(4 * scatterDraws);
  });

  it('erases with Alt-drag: nothing is left inside the erased disks', async () => {
    await lookAt(page, 140, 0, 60, 1.25);
    const before = await scatterStats(page);
    await drag(page, line([200, 200], [440, 200], 3), { alt: true });
    const after = await scatterStats(page);
    expect(after.instances).toBeLessThan(before.instances);
    const recording = await page.evaluate(() => window.cairn.scatter!.layer.recording());
    const erases = recording.events.filter((e) => e.kind === 'erase');
    expect(erases.length).toBeGreaterThan(0);
    const left = await instances(page);
    for (const e of erases) expect(left.filter((p) => Math.hypot(p.x - e.x, p.z - e.z) < e.radius - 1e-6)).toEqual([]);
  });

  it('replays the recorded session exactly', async () => {
    const original = await instances(page);
    const replayed = await page.evaluate(async () => {
      const layer = window.cairn.scatter!.layer;
      await layer.replay(layer.recording());
      return layer.snapshot().length;
    });
    expect(replayed).toBe(original.length);
    // Placement is the same; the LOD level is view state (no hysteresis history after a replay).
    const placement = (list: Instance[]): unknown[] => list.map(({ level: _level, ...rest }) => rest);
    expect(placement(await instances(page))).toEqual(placement(original));
  });

  it('reports an invalid preset file by name and field, and keeps working', async () => {
    const bad = {
      id: 'swamp',
      name: 'Swamp',
      densityPerM2: 0.2,
      scaleJitter: [1, 1],
      yawJitter: 1,
      picks: [{ category: 'reed', weight: 1, slopeMin: 0, slopeMax: 'flat', altMin: 0, altMax: 2, minSpacing: 1, alignToSlope: false }],
    };
    await page
      .locator('[data-role="preset-file"]')
      .setInputFiles({ name: 'swamp.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
    const notice = page.locator('.cairn-notice[data-level="error"]', { hasText: 'Swamp' });
    await expect.poll(() => notice.count(), { timeout: 20_000 }).toBe(1);
    expect(await notice.innerText()).toContain('picks[0].slopeMax: expected a number, got "flat"');
    expect(await page.locator('[data-preset="swamp"]').count()).toBe(0);
    expect((await scatterStats(page)).invalidPresets.Swamp).toMatch(/slopeMax/);
  });

  it('reports a prop that fails to load by name, skips its instances and still places the rest', async () => {
    await page.evaluate(() => {
      const layer = window.cairn.scatter!.layer;
      layer.catalog.register({ id: 'missing-fern', category: 'conifer', url: '/models/missing-fern.glb' });
    });
    const before = await scatterStats(page);
    await lookAt(page, -30, 20, 60, 1.25);
    // Low on the screen: the notices (the bad preset's, this prop's) cover the top of the canvas.
    await drag(page, line([170, 280], [470, 340]));
    await page.waitForFunction(() => window.cairn.stats.scatter!.pending === 0, undefined, {
      timeout: 60_000,
      polling: 200,
    });
    const after = await scatterStats(page);
    expect(after.failedProps['missing-fern']).toMatch(/missing-fern\.glb: HTTP 404/);
    expect(after.skipped).toBeGreaterThan(0);
    expect(after.rendered).toBeGreaterThan(before.rendered);
    expect(after.rendered + after.skipped).toBe(after.instances);
    const notice = page.locator('.cairn-notice[data-level="error"]', { hasText: 'missing-fern' });
    await expect.poll(() => notice.count(), { timeout: 20_000 }).toBe(1);
    // Nothing unexpected in the console: the 404 itself is the only error the browser logs.
    expect(errors.filter((e) => !/404|missing-fern/.test(e))).toEqual([]);
  });
});

describe('the scatter brush in the world', () => {
  it('stays off until switched on, then paints with left-drag while the camera rig ignores it and orbits on right-drag', async () => {
    const browser = await launchChromium();
    try {
      const page = await openPage(browser, { width: 640, height: 400 });
      const errors = collectPageErrors(page);
      await page.goto(`${base}/`);
      await waitForCairn(page);
      // The layer may already exist (it draws the strokes others shared), but the brush is off.
      expect(await page.evaluate(() => window.cairn.stats.scatter?.active ?? false)).toBe(false);
      expect(await page.evaluate(() => document.querySelector('canvas')!.dataset.tool ?? null)).toBeNull();

      // B switches it on (a locator click would wait for two stable animation frames, which
      // takes longer than its timeout when the loaded machine renders the world at 0.1 fps).
      expect(await page.locator('.cairn-scatter-toggle').getAttribute('aria-pressed')).toBe('false');
      await page.keyboard.press('KeyB');
      await page.waitForFunction(() => window.cairn.stats.scatter?.bake.state === 'ready', undefined, { timeout: 120_000, polling: 250 });
      expect(await page.evaluate(() => document.querySelector('canvas')!.dataset.tool)).toBe('scatter');
      expect(await page.locator('.cairn-scatter-toggle').getAttribute('aria-pressed')).toBe('true');
      const yaw = await page.evaluate(() => window.cairn.world!.cameraRig.yaw);
      await drag(page, line([120, 300], [330, 300], 3));
      const s = await page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.scatter)));
      expect(s.instances).toBeGreaterThan(0);
      expect(await page.evaluate(() => window.cairn.world!.cameraRig.yaw)).toBe(yaw);
      // The right button still orbits while the brush holds the left one.
      await page.mouse.move(320, 200);
      await page.mouse.down({ button: 'right' });
      await page.mouse.move(420, 200);
      await page.mouse.up({ button: 'right' });
      expect(await page.evaluate(() => window.cairn.world!.cameraRig.yaw)).not.toBeCloseTo(yaw, 2);

      // Off again: the canvas is the camera's.
      await page.keyboard.press('KeyB');
      await expect.poll(() => page.evaluate(() => document.querySelector('canvas')!.dataset.tool ?? null)).toBeNull();
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
