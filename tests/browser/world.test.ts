import type { Browser, Page } from 'playwright-core';
import type { Backend } from 'three/webgpu';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, hudText, launchChromium, openPage, waitForCairn } from '../harness/browser.ts';
import { saveDocPicture } from '../harness/pictures.ts';
import { openSocket, wsUrl } from '../harness/ws-client.ts';
import { countDifferentPixels, decodePng, type Image } from '../harness/png.ts';

const base = inject('serverUrl');
/** The README picture shows the full tier; a plain run uses the low one (SwiftShader is slow). */
const QUALITY = process.env.CAIRN_DOCS === '1' ? 'full' : 'low';

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

/** Waits until `count` more frames have rendered and the GPU has finished them (a screenshot then shows them). */
async function frames(page: Page, count = 3): Promise<void> {
  await page.evaluate((n) => window.cairn.stage!.frames(n, { gpu: true }), count);
}

/**
 * How long a changed scene may take to reach a screenshot: `frames()` waits for the GPU, and the
 * compositor can still show the frame before for a beat on a loaded machine.
 */
const SHOT_POLL = { timeout: 30_000, interval: 500 };

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
    // SwiftShader is a software rasteriser, where the world stays bare unless asked: the low tier.
    await page.goto(`${base}/?quality=${QUALITY}`);
    await waitForCairn(page);
    await frames(page, 3);
  });
  afterAll(async () => browser?.close());

  it('runs on the WebGPU backend with no shader or page errors', async () => {
    const s = await stats(page);
    expect(s.backend).toBe('WebGPU');
    expect(await page.evaluate(() => window.cairn.rendererStatus!.fallbackReason)).toBeNull();
    expect(s.shaderErrors).toBe(0);
    expect(errors).toEqual([]);
    // The HUD shows the same figures the page publishes, read together (the world streams in meanwhile).
    const { hud, triangles } = await page.evaluate(() => {
      window.cairn.hud!.refresh();
      return { hud: document.querySelector<HTMLElement>('.cairn-hud')!.innerText, triangles: window.cairn.stats.triangles };
    });
    expect(hud).toContain('WebGPU');
    expect(hud).toContain(triangles.toLocaleString('en-US'));
  });

  it('meets a visitor with vegetation over the map and people who keep out of the way', async () => {
    // Built after the first frames, off the main thread; nothing here waits on a timer.
    await page.waitForFunction(() => window.cairn.ambient?.scatter && window.cairn.ambient!.crowd, undefined, { timeout: 120_000 });
    await page.evaluate(() => window.cairn.ambient!.scatter!.ready());
    await frames(page, 2);
    const ambient = await page.evaluate(() => {
      const crowd = window.cairn.ambient!.crowd!;
      const player = window.cairn.stats.player!;
      return {
        ...JSON.parse(JSON.stringify(window.cairn.stats.ambient)),
        people: crowd.count,
        nearest: Math.min(...crowd.peers.peers.map((p) => Math.hypot(p.x - player.x, p.z - player.z))),
      };
    });
    expect(ambient.lastError).toBeNull();
    expect(ambient.mode).toBe('worker');
    expect(ambient.regions.total).toBe(64);
    // The low tier: everything within 110 m of the spawn (the full one: 200 m).
    expect(ambient.quality).toBe(QUALITY);
    expect(ambient.regions.drawn).toBe(ambient.regions.wanted);
    expect(ambient.regions.drawn).toBeGreaterThanOrEqual(16);
    expect(ambient.instances).toBeGreaterThan(1500);
    expect(ambient.people).toBe(8);
    expect(ambient.nearest).toBeGreaterThanOrEqual(1.59);
    // A person walking into the player is moved aside on the next frame.
    await page.evaluate(() => {
      const crowd = window.cairn.ambient!.crowd!;
      const player = window.cairn.stats.player!;
      Object.assign(crowd.peers.peers[0]!, { x: player.x + 0.3, z: player.z });
    });
    await frames(page, 2);
    const moved = await page.evaluate(() => {
      const peer = window.cairn.ambient!.crowd!.peers.peers[0]!;
      const player = window.cairn.stats.player!;
      return Math.hypot(peer.x - player.x, peer.z - player.z);
    });
    expect(moved).toBeGreaterThanOrEqual(1.5);
    // The scatter draws: hiding its layer changes the picture.
    const withScatter = await shot(page);
    await page.evaluate(() => (window.cairn.ambient!.scatter!.layer.object.visible = false));
    await frames(page, 2);
    await expect
      .poll(async () => countDifferentPixels(withScatter, await shot(page)), SHOT_POLL)
      .toBeGreaterThan(withScatter.width * withScatter.height * 0.02);
    await page.evaluate(() => (window.cairn.ambient!.scatter!.layer.object.visible = true));
    await frames(page, 2);
  });

  it('draws the terrain and the player (pixels change when each is hidden)', async () => {
    // The README's picture: people a few metres ahead among the trees, standing still.
    await page.evaluate(() => {
      const crowd = window.cairn.ambient!.crowd!;
      const world = window.cairn.world!;
      const spots: Array<[number, number, number, string]> = [
        [-3.2, -7, 0.6, 'idle'],
        [2.6, -9.5, -2.4, 'walk'],
        [5.5, -14, 2.9, 'dance'],
        [-7, -16, 1.2, 'walk'],
      ];
      spots.forEach(([x, z, facing, clip], i) => {
        const peer = crowd.peers.peers[i]!;
        Object.assign(peer, { x, z, y: world.heightmap.sampleHeight(x, z), facing, activity: clip, clip, timeLeft: 1e9 });
      });
      crowd.paused = true;
    });
    await frames(page, 3);
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

    await page.evaluate(() => (window.cairn.avatar!.humanoid!.object.visible = false));
    await frames(page, 2);
    const withoutPlayer = await stats(page);
    // Three skinned pieces, each in the main pass and the shadow pass.
    expect(withPlayer.drawCalls - withoutPlayer.drawCalls).toBeGreaterThanOrEqual(3);
    await expect.poll(async () => countDifferentPixels(all, await shot(page)), SHOT_POLL).toBeGreaterThan(800);
    await page.evaluate(() => (window.cairn.avatar!.humanoid!.object.visible = true));

    await page.evaluate(() => (window.cairn.world!.terrain.object.visible = false));
    await frames(page, 2);
    await expect.poll(async () => countDifferentPixels(all, await shot(page)), SHOT_POLL).toBeGreaterThan(all.width * all.height * 0.3);
    await page.evaluate(() => (window.cairn.world!.terrain.object.visible = true));
    // The rest of this file needs none of it: hidden, SwiftShader draws the frames it waits for faster.
    await page.evaluate(() => {
      const { crowd, scatter } = window.cairn.ambient!;
      crowd!.paused = false;
      crowd!.crowd.object.visible = false;
      scatter!.layer.object.visible = false;
    });
  });

  it('moves the player on WASD, away from the camera on W', async () => {
    await page.locator('canvas').click({ position: { x: 400, y: 400 } });
    const before = (await stats(page)).player;
    await page.keyboard.down('KeyW');
    await page.waitForFunction((z0) => window.cairn.stats.player && window.cairn.stats.player.z < z0 - 1, before.z, {
      timeout: 60_000,
      polling: 100,
    });
    await page.keyboard.up('KeyW');
    const after = (await stats(page)).player;
    // The camera starts looking north (−Z), so W walks north and the body faces that way.
    expect(after.z).toBeLessThan(before.z - 1);
    expect(Math.abs(after.x - before.x)).toBeLessThan(0.5);
    expect(Math.abs(Math.abs(after.facing) - Math.PI)).toBeLessThan(0.2);

    await page.keyboard.down('KeyD');
    await page.waitForFunction((x0) => window.cairn.stats.player!.x > x0 + 0.5, after.x, {
      timeout: 60_000,
      polling: 100,
    });
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

  it('keeps the HUD compact and out of the way of the key hints, notices and tools, even at 640×400', async () => {
    const rect = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((e) => JSON.parse(JSON.stringify(e.getBoundingClientRect())) as DOMRect);
    const apart = (a: DOMRect, b: DOMRect) => a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
    await page.setViewportSize({ width: 640, height: 400 });
    await frames(page, 2);
    await page.evaluate(() => window.cairn.hud!.refresh());
    const compact = await rect('.cairn-hud');
    expect(compact.height).toBeLessThanOrEqual(100);
    // Every figure is still in the HUD (clipped), so what tests read is what H shows.
    expect(await hudText(page)).toMatch(new RegExp(`World[\\s\\S]*regions\\s+\\d+ drawn / 64 \\(${QUALITY}\\)`, 'i'));
    for (const other of ['.cairn-help', '.cairn-home', '.cairn-scatter-toggle', '.cairn-assets-toggle'])
      expect(apart(compact, await rect(other)), other).toBe(true);
    expect(apart(await rect('.cairn-help'), await rect('.cairn-home'))).toBe(true);
    expect(await page.locator('.cairn-home').getAttribute('href')).toBe('/gallery.html');

    await page.keyboard.press('KeyH');
    const expanded = await rect('.cairn-hud');
    expect(expanded.height).toBeGreaterThan(compact.height + 100);
    expect(expanded.bottom).toBeLessThanOrEqual((await rect('.cairn-help')).top);
    // The shader error's notice (above) stacks under the HUD, never over it, and a drag that starts on it reaches the canvas.
    const notice = await rect('.cairn-notice');
    expect(notice.top).toBeGreaterThanOrEqual(expanded.bottom);
    await page.keyboard.press('KeyH');
    const under = await page.evaluate(() => {
      const n = document.querySelector('.cairn-notice')!.getBoundingClientRect();
      const hit = document.elementFromPoint(n.left + 30, n.top + n.height / 2);
      return {
        hit: hit?.tagName,
        style: getComputedStyle(document.querySelector('.cairn-notice')!).pointerEvents,
        select: getComputedStyle(document.querySelector('.cairn-notice')!).userSelect,
      };
    });
    expect(under).toEqual({ hit: 'CANVAS', style: 'none', select: 'none' });
    await page.setViewportSize({ width: 800, height: 480 });
    await frames(page, 2);
  });

  it('shares scatter strokes live with another visitor in the same cell, and undoes its own', async () => {
    await page.waitForFunction(() => (window.cairn.stats.sharedScatter?.cells ?? 0) > 0, undefined, {
      timeout: 60_000,
    });
    // The other visitor is a plain WebSocket client in cell 0:0 of world seed 1, with a session of its own.
    const { token } = (await (await fetch(`${base}/api/session`, { method: 'POST' })).json()) as { token: string };
    const other = await openSocket(wsUrl(base, `/rooms/edits/${encodeURIComponent('world:edits:1:0:0')}?session=${token}`));
    const received: Array<{
      type: string;
      author?: string | null;
      stroke?: { id: string; author: string; events: Array<{ kind: string; x?: number }> };
      id?: string;
    }> = [];
    other.on('message', (data) => received.push(JSON.parse(String(data))));
    await expect.poll(() => received.some((m) => m.type === 'snapshot')).toBe(true);
    const otherAuthor = received.find((m) => m.type === 'snapshot')!.author;
    expect(otherAuthor).toMatch(/^[0-9a-f]{16}$/);
    await page.evaluate(() => {
      const tool = window.cairn.scatter!;
      void tool.layer.choosePreset('mixed-forest');
      tool.brush.emit('strokeStart', { x: 20, z: 20, erasing: false });
      tool.layer.paint(20, 20, 6);
      tool.layer.paint(23, 20, 6);
      tool.brush.emit('strokeEnd', {});
    });
    const ours = () => received.filter((m) => m.type === 'stroke' && m.stroke!.events.some((e) => e.kind === 'paint' && e.x === 23));
    await expect.poll(() => ours().length, { timeout: 30_000 }).toBe(1);
    const painted = ours()[0]!.stroke!;
    // The page's strokes are stored under its own session, not the other visitor's.
    expect(painted.author, JSON.stringify(received)).toMatch(/^[0-9a-f]{16}$/);
    expect(painted.author).not.toBe(otherAuthor);
    expect(await page.evaluate(() => window.cairn.stats.sharedScatter!.author)).toBe(painted.author);
    expect(
      painted.events.map((e) => e.kind),
      JSON.stringify(received),
    ).toEqual(['preset', 'reseed', 'paint', 'paint']);

    const before = await page.evaluate(() => window.cairn.scatter!.layer.stats.instances);
    other.send(
      JSON.stringify({
        type: 'stroke',
        id: 'from-node-visitor',
        events: [
          { kind: 'preset', presetId: 'meadow' },
          { kind: 'reseed', seed: 42 },
          { kind: 'paint', x: 40, z: 40, radius: 8 },
        ],
      }),
    );
    await page.waitForFunction((n) => window.cairn.scatter!.layer.stats.instances > n, before, { timeout: 30_000 });
    expect(await page.evaluate(() => window.cairn.stats.sharedScatter!.received)).toBeGreaterThanOrEqual(1);

    await page.locator('canvas').click({ position: { x: 400, y: 300 } });
    await page.keyboard.press('Control+KeyZ');
    await expect.poll(() => received.find((m) => m.type === 'undo')?.id, { timeout: 30_000 }).toBe(painted.id);
    other.close();
  });
});

describe('the gallery', () => {
  it('links every page with its picture, and /examples leads to it', async () => {
    const examples = await fetch(`${base}/examples`);
    expect(examples.status).toBe(200);
    expect(await examples.text()).toContain('/gallery.html');
    const browser = await launchChromium({
      baseArgs: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    try {
      const page = await openPage(browser, { width: 960, height: 600 });
      const response = await page.goto(`${base}/gallery.html`);
      expect(response?.status()).toBe(200);
      await page.waitForFunction(() => [...document.images].every((img) => img.complete), undefined, { timeout: 30_000 });
      const cards = await page.$$eval('.cairn-gallery a', (links) =>
        links.map((a) => ({
          href: a.getAttribute('href'),
          page: (a as HTMLElement).dataset.page,
          width: a.querySelector('img')!.naturalWidth,
        })),
      );
      expect(cards.map((c) => c.page)).toEqual(['world', 'crowd', 'scatter', 'voice', 'retarget', 'assets', 'sfx']);
      for (const card of cards) expect(card.width, card.page).toBeGreaterThan(0);
      // Every page it links to exists and links back.
      for (const card of cards) {
        const html = await (await fetch(`${base}${card.href}`)).text();
        expect(html, card.href!).toContain('href="/gallery.html"');
      }
    } finally {
      await browser.close();
    }
  });
});

describe('the world page without WebGPU', () => {
  it('falls back to WebGL2 with a visible message when there is no adapter', async () => {
    // Plain headless Chromium without the WebGPU flags: navigator.gpu exists, requestAdapter() is null.
    const browser = await launchChromium({
      baseArgs: ['--no-sandbox', '--use-angle=swiftshader', '--disable-background-networking', '--disable-component-update'],
    });
    try {
      const page = await openPage(browser, { width: 640, height: 400 });
      await page.goto(`${base}/`);
      const s = await waitForCairn(page);
      expect(s.backend).toBe('WebGL2');
      const notice = page.locator('.cairn-notice[data-level="warn"]');
      await expect.poll(() => notice.innerText()).toMatch(/Running on WebGL2[\s\S]*requestAdapter\(\) returned no adapter/);
      expect(s.drawCalls).toBeGreaterThan(3);
      // The reason stays on the page (HUD and stats) for as long as the fallback runs, after the notice fades.
      expect(s.backendReason).toMatch(/requestAdapter\(\) returned no adapter/);
      await page.evaluate(() => document.querySelectorAll('.cairn-notice').forEach((n) => n.remove()));
      expect(await hudText(page)).toMatch(/backend\s*WebGL2\s*because\s*[^\n]*requestAdapter\(\) returned no adapter/);
    } finally {
      await browser.close();
    }
  });

  it('shows a clear full-page message when neither WebGPU nor WebGL2 exists', async () => {
    const browser = await launchChromium({
      baseArgs: ['--no-sandbox', '--disable-gpu', '--disable-webgl', '--disable-background-networking', '--disable-component-update'],
    });
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
