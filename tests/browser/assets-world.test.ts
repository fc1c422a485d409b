import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, launchChromium, openPage, waitForCairn } from '../harness/browser.ts';
import { countDifferentPixels, decodePng } from '../harness/png.ts';
import { startPolyHavenFixture, type PolyHavenFixture } from '../harness/polyhaven-fixture.ts';

const base = inject('serverUrl');
const frames = (page: Page, n = 3): Promise<void> => page.evaluate((count) => window.cairn.stage!.frames(count), n);

describe('assets in the world', () => {
  let fixture: PolyHavenFixture;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    fixture = await startPolyHavenFixture();
    browser = await launchChromium();
    page = await openPage(browser, { width: 800, height: 480 });
    errors = collectPageErrors(page);
    // What the assets page's "Place in world" opens; the brush kept local (`shared=0`), so the test
    // reads its strokes' placements from the layer's own session (shared strokes are placed per cell).
    await page.goto(`${base}/?place=wooden_crate_01&res=1k&shared=0&api=${encodeURIComponent(fixture.url)}`, {
      waitUntil: 'domcontentloaded',
      timeout: 120_000,
    });
    await waitForCairn(page);
    await page.waitForFunction(() => window.cairn.stats.assets?.placed === 1, undefined, {
      timeout: 90_000,
      polling: 200,
    });
    await frames(page, 3);
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it('?place= puts the model on the terrain in front of the player, and the world draws it', async () => {
    const placed = await page.evaluate(() => {
      const { object: root, id } = window.cairn.assets!.controller!.placed[0]!;
      const heightmap = window.cairn.heightmap!;
      // Bounds by hand (no three import in the page context): every vertex, in world space.
      let minY = Infinity;
      let sumX = 0;
      let sumZ = 0;
      let n = 0;
      root.updateMatrixWorld(true);
      root.traverse((o) => {
        const mesh = o as import('three').Mesh;
        if (!mesh.isMesh) return;
        const p = mesh.geometry.getAttribute('position');
        const e = mesh.matrixWorld.elements;
        for (let i = 0; i < p.count; i++) {
          const x = p.getX(i),
            y = p.getY(i),
            z = p.getZ(i);
          minY = Math.min(minY, e[1]! * x + e[5]! * y + e[9]! * z + e[13]!);
          sumX += e[0]! * x + e[4]! * y + e[8]! * z + e[12]!;
          sumZ += e[2]! * x + e[6]! * y + e[10]! * z + e[14]!;
          n++;
        }
      });
      const x = sumX / n;
      const z = sumZ / n;
      const player = window.cairn.stats.player!;
      return { id, minY, ground: heightmap.sampleHeight(x, z), distance: Math.hypot(x - player.x, z - player.z) };
    });
    expect(placed.id).toBe('wooden_crate_01');
    expect(Math.abs(placed.minY - placed.ground)).toBeLessThan(0.05);
    expect(placed.distance).toBeGreaterThan(3);
    expect(placed.distance).toBeLessThan(5);

    // In view: beside the camera's line through the player, so the body does not hide it.
    const onScreen = await page.evaluate(() => {
      const { object } = window.cairn.assets!.controller!.placed[0]!;
      const camera = window.cairn.stage!.camera;
      const position = object.getWorldPosition(object.position.clone()).project(camera);
      const player = window.cairn.stats.player!;
      const body = object.position
        .clone()
        .set(player.x, player.y + 1, player.z)
        .project(camera);
      return { x: position.x, y: position.y, bodyX: body.x };
    });
    expect(Math.abs(onScreen.x)).toBeLessThan(1);
    expect(Math.abs(onScreen.y)).toBeLessThan(1);
    expect(onScreen.x - onScreen.bodyX).toBeGreaterThan(0.1);
    const withModel = decodePng(await page.screenshot());
    const draws = await page.evaluate(() => window.cairn.stats.drawCalls);
    await page.evaluate(() => void (window.cairn.assets!.controller!.placed[0]!.object.visible = false));
    await frames(page, 2);
    const without = decodePng(await page.screenshot());
    expect(draws - (await page.evaluate(() => window.cairn.stats.drawCalls))).toBeGreaterThanOrEqual(2);
    expect(countDifferentPixels(withModel, without)).toBeGreaterThan(300);
    await page.evaluate(() => void (window.cairn.assets!.controller!.placed[0]!.object.visible = true));
    expect(fixture.requests.find((r) => r.path === '/files/wooden_crate_01')?.referer).toBe(`${base}/`);
  });

  it('hands a previewed model to the scatter brush; its presets then place it', async () => {
    // The scatter plugin's own shortcut (its button sits under other plugins' toolbars at this size).
    await page.locator('canvas').click({ position: { x: 400, y: 120 } });
    await page.keyboard.press('KeyB');
    await page.waitForFunction(() => !!window.cairn.scatter?.layer, undefined, { timeout: 60_000 });
    await page.locator('.cairn-assets-toggle').click();
    await page.waitForFunction(() => window.cairn.stats.assets!.catalog === 'ready', undefined, {
      timeout: 60_000,
    });
    await page.locator('.cairn-assets input[type=search]').fill('mossy');
    const card = page.locator('.cairn-asset-card[data-id="mossy_rock_01"]');
    await card.click();
    await page.waitForFunction(() => window.cairn.stats.assets!.model === 'mossy_rock_01', undefined, {
      timeout: 60_000,
    });
    const select = page.locator('.cairn-assets select[data-action="add-to-scatter"]');
    expect(await select.inputValue()).toBe('rock'); // guessed from "rocks" / "stone"
    await page.locator('.cairn-assets button[data-action="add-to-scatter"]').click();
    await expect
      .poll(() => page.locator('.cairn-assets .status').innerText(), { timeout: 10_000 })
      .toMatch(/Added polyhaven-mossy_rock_01 to scatter category "rock"/);

    const result = await page.evaluate(async () => {
      const layer = window.cairn.scatter!.layer;
      const inRock = [...layer.catalog.propsIn('rock')];
      const baked = await layer.catalog.resolve('polyhaven-mossy_rock_01');
      await layer.choosePreset('cliff-scree');
      for (const z of [-40, -20, 0, 20, 40]) layer.paint(140, z, 14);
      await layer.whenIdle();
      const snapshot = layer.snapshot();
      return {
        inRock,
        near: baked.parts.reduce((n, p) => n + p.triangles[0]!, 0),
        ours: snapshot.filter((p) => p.propId === 'polyhaven-mossy_rock_01').length,
        total: snapshot.length,
      };
    });
    expect(result.inRock).toContain('polyhaven-mossy_rock_01');
    expect(result.near).toBe(fixture.trianglesOf('mossy_rock_01'));
    expect(result.total).toBeGreaterThan(0);
    expect(result.ours).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
