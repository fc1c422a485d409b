import type { Browser, Page } from 'playwright-core';
import type { Backend } from 'three/webgpu';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, hudText, launchChromium, openPage, waitForCairn } from '../harness/browser.ts';
import { saveDocPicture } from '../harness/pictures.ts';
import { countDifferentPixels, decodePng, type Image } from '../harness/png.ts';

const base = inject('serverUrl');

interface Stats {
  backend: string;
  drawCalls: number;
  triangles: number;
  frame: number;
  shaderErrors: number;
  player: { x: number; y: number; z: number; facing: number; state: string };
}

async function stats(page: Page): Promise<Stats> {
  return page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats)));
}

/** Waits until `count` more frames have rendered. */
async function frames(page: Page, count = 3): Promise<void> {
  await page.evaluate((n) => (window.cairn.stage as { frames(n: number): Promise<void> }).frames(n), count);
}

async function shot(page: Page): Promise<Image> {
  return decodePng(await page.screenshot());
}

describe('the world page on WebGPU', () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await openPage(browser, { width: 800, height: 480 });
    errors = collectPageErrors(page);
    await page.goto(`${base}/`);
    await waitForCairn(page);
    await frames(page, 3);
  });
  afterAll(async () => browser?.close());

  it('runs on the WebGPU backend with no shader or page errors', async () => {
    const s = await stats(page);
    expect(s.backend).toBe('WebGPU');
    expect(await page.evaluate(() => (window.cairn.rendererStatus as { fallbackReason: string | null }).fallbackReason)).toBeNull();
    expect(s.shaderErrors).toBe(0);
    expect(errors).toEqual([]);
    // The HUD shows the same figures the page publishes.
    const hud = await hudText(page);
    expect(hud).toContain('WebGPU');
    expect(hud).toContain(`${s.triangles.toLocaleString('en-US')}`.slice(0, 3));
  });

  it('draws the terrain and the player (pixels change when each is hidden)', async () => {
    const all = await shot(page);
    if (process.env.CAIRN_DOCS === '1') {
      // The README's picture, at a size where the HUD leaves room for the world.
      await page.setViewportSize({ width: 1280, height: 720 });
      await frames(page, 3);
      saveDocPicture('screenshot.png', await page.screenshot());
      await page.setViewportSize({ width: 800, height: 480 });
      await frames(page, 3);
    } else saveDocPicture('screenshot.png', await page.screenshot());
    const withPlayer = await stats(page);

    await page.evaluate(() => ((window.cairn.world as { player: { avatar: { humanoid: { object: { visible: boolean } } } } }).player.avatar.humanoid.object.visible = false));
    await frames(page, 2);
    const noPlayer = await shot(page);
    const withoutPlayer = await stats(page);
    // Three skinned pieces, each in the main pass and the shadow pass.
    expect(withPlayer.drawCalls - withoutPlayer.drawCalls).toBeGreaterThanOrEqual(3);
    const playerPixels = countDifferentPixels(all, noPlayer);
    expect(playerPixels).toBeGreaterThan(800);
    await page.evaluate(() => ((window.cairn.world as { player: { avatar: { humanoid: { object: { visible: boolean } } } } }).player.avatar.humanoid.object.visible = true));

    await page.evaluate(() => ((window.cairn.world as { terrain: { visible: boolean } }).terrain.visible = false));
    await frames(page, 2);
    const noTerrain = await shot(page);
    await page.evaluate(() => ((window.cairn.world as { terrain: { visible: boolean } }).terrain.visible = true));
    expect(countDifferentPixels(all, noTerrain)).toBeGreaterThan(all.width * all.height * 0.3);
  });

  it('moves the player on WASD, away from the camera on W', async () => {
    await page.locator('canvas').click({ position: { x: 400, y: 400 } });
    const before = (await stats(page)).player;
    await page.keyboard.down('KeyW');
    await page.waitForFunction((z0) => window.cairn.stats.player && (window.cairn.stats.player as { z: number }).z < z0 - 1, before.z, { timeout: 60_000, polling: 100 });
    await page.keyboard.up('KeyW');
    const after = (await stats(page)).player;
    // The camera starts looking north (−Z), so W walks north and the body faces that way.
    expect(after.z).toBeLessThan(before.z - 1);
    expect(Math.abs(after.x - before.x)).toBeLessThan(0.5);
    expect(Math.abs(Math.abs(after.facing) - Math.PI)).toBeLessThan(0.2);

    await page.keyboard.down('KeyD');
    await page.waitForFunction((x0) => (window.cairn.stats.player as { x: number }).x > x0 + 0.5, after.x, { timeout: 60_000, polling: 100 });
    await page.keyboard.up('KeyD');
    const strafed = (await stats(page)).player;
    // With the camera looking along −Z, screen-right (D) is +X.
    expect(strafed.x).toBeGreaterThan(after.x + 0.5);
  });

  it('shows the real WGSL compiler message when a shader fails', async () => {
    await page.evaluate(() => {
      const device = (window.cairn.renderer!.backend as Backend & { device: GPUDevice }).device;
      device.createShaderModule({ label: 'deliberately broken', code: 'fn broken() -> f32 {\n  let x: f32 = vec3f(1.0);\n  return x;\n}' });
    });
    await expect.poll(() => page.evaluate(() => window.cairn.stats.shaderErrors), { timeout: 10_000 }).toBe(1);
    const notice = await page.locator('.cairn-notice[data-level="error"]').innerText();
    expect(notice).toContain('deliberately broken');
    expect(notice).toMatch(/line 2:\d+: .*vec3/);
    expect(notice).toContain('let x: f32 = vec3f(1.0);');
  });
});

describe('the world page without WebGPU', () => {
  it('falls back to WebGL2 with a visible message when there is no adapter', async () => {
    // Plain headless Chromium without the WebGPU flags: navigator.gpu exists, requestAdapter() is null.
    const browser = await launchChromium({ baseArgs: ['--no-sandbox', '--use-angle=swiftshader', '--disable-background-networking', '--disable-component-update'] });
    try {
      const page = await openPage(browser, { width: 640, height: 400 });
      await page.goto(`${base}/`);
      const s = await waitForCairn(page);
      expect(s.backend).toBe('WebGL2');
      const notice = page.locator('.cairn-notice[data-level="warn"]');
      await expect.poll(() => notice.innerText()).toMatch(/Running on WebGL2[\s\S]*requestAdapter\(\) returned no adapter/);
      expect(s.drawCalls).toBeGreaterThan(3);
    } finally {
      await browser.close();
    }
  });

  it('shows a clear full-page message when neither WebGPU nor WebGL2 exists', async () => {
    const browser = await launchChromium({ baseArgs: ['--no-sandbox', '--disable-gpu', '--disable-webgl', '--disable-background-networking', '--disable-component-update'] });
    try {
      const page = await openPage(browser, { width: 640, height: 400 });
      const errors = collectPageErrors(page);
      await page.goto(`${base}/`);
      await page.waitForFunction(() => window.cairn?.fatal !== undefined || window.cairn?.ready === true, undefined, { timeout: 60_000 });
      const fatal = await page.evaluate(() => window.cairn.fatal);
      expect(fatal).toMatch(/WebGPU is unavailable[\s\S]*WebGL2 is not supported/);
      await expect.poll(() => page.locator('.cairn-fatal').innerText()).toMatch(/Cairn cannot start/);
      // One clear message, not a console flood.
      expect(errors.length).toBeLessThanOrEqual(1);
    } finally {
      await browser.close();
    }
  });
});
