/**
 * What a visitor sees of the world's states and controls, on this machine's software rasteriser
 * (WebGPU on SwiftShader): the quality tier chosen for it, named in a notice with links to the
 * others and in the HUD's first rows; the pause card and the mute indicator; a key-hint line whose
 * every entry is answered; and a layout where no panel covers another, the tools, the centre band
 * or the other player — at 640×360 and at 1280×720. Two page loads: the visitor (auto quality,
 * voice joined) and the other player (a second browser context in the same room).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, hudText, launchChromium, MEDIA_ARGS, openPage, waitForCairn } from '../harness/browser.ts';

const base = inject('serverUrl');
const tag = `${process.pid}-${Date.now().toString(36)}`;
const room = `ui-${tag}`;
// The world the edits server keeps cells for (WORLD_SEEDS, default 1): any other seed's edit cells
// are refused (4404), so the brush's strokes would never be shared and Ctrl+Z would have nothing to undo.
const seed = 1;

interface Box {
  name: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

interface PlayerState {
  x: number;
  y: number;
  z: number;
  state: string;
  facing: number;
}

const overlaps = (a: Box, b: Box) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

/** Waits for `count` more rendered frames. */
async function frames(page: Page, count = 2): Promise<void> {
  await page.evaluate((n) => window.cairn.stage!.frames(n), count);
}

async function player(page: Page): Promise<PlayerState> {
  return page.evaluate(() => ({ ...window.cairn.world!.player.state }));
}

/**
 * Every panel, toggle, indicator and overlay box on screen, by name (hidden ones left out). The
 * look toggle and panel are found by their own classes wherever they are, each element once.
 */
async function layoutBoxes(page: Page): Promise<Box[]> {
  return page.evaluate(() => {
    const selectors: Record<string, string> = {
      hud: '.cairn-hud',
      notice: '.cairn-notice:not([hidden])',
      lookToggle: '.cairn-look-toggle',
      tool: '.cairn-dock-tools .cairn-tool',
      look: '.cairn-look',
      brush: '.cairn-scatter',
      assets: '.cairn-assets',
      hints: '.cairn-help',
      gallery: '.cairn-home',
    };
    const boxes: Box[] = [];
    const seen = new Set<Element>();
    for (const [name, selector] of Object.entries(selectors))
      for (const element of document.querySelectorAll<HTMLElement>(selector)) {
        if (seen.has(element)) continue;
        seen.add(element);
        const r = element.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) continue;
        boxes.push({
          name: `${name} ${element.textContent!.trim().slice(0, 24)}`,
          left: r.left,
          top: r.top,
          right: r.right,
          bottom: r.bottom,
        });
      }
    return boxes;
  });
}

/**
 * Checks the layout rule (src/world/dock.ts): every box inside the window, no two overlapping, none
 * in the centre band (the middle third of the width, above the bottom line), and every tool
 * reachable (the element at its centre is the tool itself).
 */
async function expectLayout(page: Page, size: { width: number; height: number }): Promise<Box[]> {
  const boxes = await layoutBoxes(page);
  const names = boxes.map((b) => b.name.split(' ')[0]);
  for (const expected of ['hud', 'lookToggle', 'tool', 'look', 'brush', 'assets', 'hints', 'gallery'])
    expect(names, expected).toContain(expected);
  // Join voice's group, the brush toggle and the mute indicator are all there.
  expect(boxes.filter((b) => b.name.startsWith('tool')).length).toBeGreaterThanOrEqual(4);
  const bottomLine = Math.min(...boxes.filter((b) => b.name.startsWith('hints') || b.name.startsWith('gallery')).map((b) => b.top));
  const band: Box = { name: 'centre band', left: size.width / 3, top: 0, right: (2 * size.width) / 3, bottom: bottomLine };
  for (const box of boxes) {
    expect(
      box.left >= -0.5 && box.top >= -0.5 && box.right <= size.width + 0.5 && box.bottom <= size.height + 0.5,
      `${box.name} on screen`,
    ).toBe(true);
    if (!box.name.startsWith('hints')) expect(overlaps(box, band), `${box.name} clear of the centre band`).toBe(false);
  }
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) expect(overlaps(boxes[i]!, boxes[j]!), `${boxes[i]!.name} / ${boxes[j]!.name}`).toBe(false);
  const covered = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('.cairn-dock-tools .cairn-tool, .cairn-look-toggle')]
      .filter((e) => e.getClientRects().length > 0)
      .filter((e) => {
        const r = e.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !hit || !e.contains(hit);
      })
      .map((e) => e.textContent),
  );
  expect(covered).toEqual([]);
  return boxes;
}

describe('the world’s states and controls, as a visitor sees them', () => {
  let browser: Browser;
  let otherContext: BrowserContext;
  let page: Page;
  let other: Page;
  let errors: string[];
  const small = { width: 640, height: 360 };
  const large = { width: 1280, height: 720 };

  beforeAll(async () => {
    browser = await launchChromium({ args: MEDIA_ARGS });
    // No ?quality: the world chooses for this machine (a software rasteriser).
    page = await openPage(browser, small);
    errors = collectPageErrors(page);
    await page.goto(`${base}/?room=${room}&seed=${seed}&voice=1`);
    await waitForCairn(page, 120_000);
    otherContext = await browser.newContext({ viewport: { width: 160, height: 90 } });
    other = await otherContext.newPage();
    other.setDefaultTimeout(120_000);
    // The other player only has to stand in the room: a bare map without the shadow pass.
    await other.goto(`${base}/?room=${room}&seed=${seed}&quality=low&ambient=0&people=0&shared=0&voice=off`);
    await waitForCairn(other, 120_000);
  });

  afterAll(async () => {
    await otherContext?.close();
    await browser?.close();
  });

  it('chooses the low tier on SwiftShader and says so: a notice with links to the other tiers, the HUD’s first rows, cairn.stats', async () => {
    const quality = await page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.quality)));
    expect(quality).toMatchObject({ tier: 'low', asked: false, software: true, people: 8, shadows: false });
    expect(quality.reason).toMatch(/software rasteriser \(.*swiftshader.*\)/i);
    // The tier's content is there: vegetation and people.
    await page.waitForFunction(() => {
      const a = window.cairn.ambient;
      return !!a?.scatter && !!a.crowd;
    });

    const notice = page.locator('.cairn-notice', { hasText: 'Quality: low' });
    await expect.poll(() => notice.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await notice.innerText()).toMatch(/no GPU/);
    const links = await notice.locator('.actions a').evaluateAll((as) =>
      as.map((a) => {
        const url = new URL((a as HTMLAnchorElement).href);
        const r = a.getBoundingClientRect();
        // A link a person can click: the element at its centre is the link.
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return { quality: url.searchParams.get('quality'), room: url.searchParams.get('room'), clickable: hit === a };
      }),
    );
    expect(links).toEqual([
      { quality: 'off', room, clickable: true },
      { quality: 'full', room, clickable: true },
    ]);

    // In the compact HUD's visible rows (above its "H: more" fade), not only in the clipped rest.
    expect(await hudText(page)).toMatch(/quality\s+low \(no GPU\)/);
    const row = await page.evaluate(() => {
      const hud = document.querySelector('.cairn-hud')!;
      const line = [...hud.querySelectorAll('div')].find((d) => d.textContent!.startsWith('quality'))!;
      return {
        hud: hud.getBoundingClientRect().bottom,
        row: line.getBoundingClientRect().bottom,
        compact: hud.hasAttribute('data-compact'),
      };
    });
    expect(row.compact).toBe(true);
    expect(row.row).toBeLessThanOrEqual(row.hud - 18);
    // The notice stays until dismissed (the page took longer than any fade to get here); × dismisses it.
    await notice.locator('button').click();
    expect(await notice.count()).toBe(0);
  });

  it('answers every key and gesture the hint line lists, and the hint line lists them all', async () => {
    const canvasPoint = { x: small.width / 2, y: small.height * 0.7 };
    const drag = async (options: { alt?: boolean } = {}) => {
      if (options.alt) await page.keyboard.down('Alt');
      await page.mouse.move(canvasPoint.x, canvasPoint.y);
      await page.mouse.down();
      await page.mouse.move(canvasPoint.x + 60, canvasPoint.y, { steps: 4 });
      await page.mouse.up();
      if (options.alt) await page.keyboard.up('Alt');
    };
    const hold = async (keys: string[], until: () => Promise<boolean>) => {
      for (const key of keys) await page.keyboard.down(key);
      await expect.poll(until, { timeout: 60_000, interval: 200 }).toBe(true);
      for (const key of [...keys].reverse()) await page.keyboard.up(key);
    };
    const stat = <T>(fn: () => T) => page.evaluate(fn);

    const checks: Record<string, () => Promise<void>> = {
      'KeyW KeyA KeyS KeyD': async () => {
        for (const key of ['KeyW', 'KeyA', 'KeyS', 'KeyD']) {
          const start = await player(page);
          await hold([key], async () => {
            const now = await player(page);
            return Math.hypot(now.x - start.x, now.z - start.z) > 0.3;
          });
        }
      },
      Shift: () => hold(['Shift', 'KeyW'], async () => (await player(page)).state === 'run'),
      Space: async () => {
        await page.keyboard.press('Space');
        await expect.poll(async () => (await player(page)).state, { timeout: 30_000, interval: 100 }).toBe('jump');
      },
      drag: async () => {
        const yaw = await stat(() => window.cairn.world!.cameraRig.yaw);
        await drag();
        const after = await stat(() => window.cairn.world!.cameraRig.yaw);
        expect(Math.abs(after - yaw)).toBeGreaterThan(0.05);
      },
      wheel: async () => {
        const distance = await stat(() => window.cairn.world!.cameraRig.distance);
        await page.mouse.move(canvasPoint.x, canvasPoint.y);
        await page.mouse.wheel(0, 300);
        await expect
          .poll(() => stat(() => window.cairn.world!.cameraRig.distance), {
            timeout: 10_000,
          })
          .toBeGreaterThan(distance + 0.5);
      },
      KeyL: async () => {
        const panel = page.locator('.cairn-look');
        const toggle = page.locator('.cairn-look-toggle');
        expect(await panel.isVisible()).toBe(false);
        await page.keyboard.press('KeyL');
        expect(await panel.isVisible()).toBe(true);
        expect(await toggle.getAttribute('aria-pressed')).toBe('true');
        // Typing an L into the panel's name field does not close it.
        await panel.locator('input[name="name"]').focus();
        await page.keyboard.press('KeyL');
        expect(await panel.isVisible()).toBe(true);
        await page.keyboard.press('Backspace');
        await panel.locator('input[name="name"]').blur();
        await page.keyboard.press('KeyL');
        expect(await panel.isVisible()).toBe(false);
        expect(await toggle.getAttribute('aria-pressed')).toBe('false');
      },
      KeyB: async () => {
        await page.keyboard.press('KeyB');
        await expect.poll(() => page.locator('.cairn-scatter-toggle').getAttribute('aria-pressed'), { timeout: 60_000 }).toBe('true');
        await page.waitForSelector('.cairn-scatter:not([hidden])');
        await page.evaluate(() => {
          const tool = window.cairn.scatter!;
          const seen: boolean[] = ((window as unknown as { strokes: boolean[] }).strokes = []);
          tool.brush.on('strokeStart', (e) => seen.push(e.erasing));
        });
        // Drag paints, Alt-drag erases, [ and ] size the brush.
        await drag();
        await drag({ alt: true });
        expect(await stat(() => (window as unknown as { strokes: boolean[] }).strokes)).toEqual([false, true]);
        const radius = () => stat(() => window.cairn.scatter!.brush.radius);
        const r0 = await radius();
        await page.keyboard.press('BracketRight');
        expect(await radius()).toBe(r0 + 1);
        await page.keyboard.press('BracketLeft');
        expect(await radius()).toBe(r0);
      },
      'Ctrl+KeyZ': async () => {
        // The paint stroke above (and the erase) reached the cell; Ctrl+Z takes back the newest.
        await expect.poll(() => stat(() => window.cairn.stats.sharedScatter!.sent), { timeout: 60_000 }).toBeGreaterThan(0);
        const undone = await stat(() => window.cairn.stats.sharedScatter!.undone);
        await page.keyboard.press('Control+KeyZ');
        await expect.poll(() => stat(() => window.cairn.stats.sharedScatter!.undone), { timeout: 60_000 }).toBe(undone + 1);
      },
      KeyV: async () => {
        await expect.poll(() => stat(() => window.cairn.stats.voice!.mic.state), { timeout: 60_000 }).toBe('live');
        await page.keyboard.down('KeyV');
        await expect.poll(() => stat(() => window.cairn.stats.voice!.ptt.pressed), { timeout: 10_000 }).toBe(true);
        await page.keyboard.up('KeyV');
        await expect.poll(() => stat(() => window.cairn.stats.voice!.ptt.pressed), { timeout: 10_000 }).toBe(false);
      },
      KeyM: async () => {
        const indicator = page.locator('.cairn-muted');
        expect(await indicator.isVisible()).toBe(false);
        await page.keyboard.press('KeyM');
        expect(await stat(() => window.cairn.stats.audio!.muted)).toBe(true);
        await expect.poll(() => indicator.isVisible(), { timeout: 10_000 }).toBe(true);
        expect(await indicator.innerText()).toMatch(/Muted/);
        // Clicking the indicator unmutes.
        await indicator.click();
        expect(await stat(() => window.cairn.stats.audio!.muted)).toBe(false);
        await expect.poll(() => indicator.isVisible(), { timeout: 10_000 }).toBe(false);
      },
      KeyP: async () => {
        const card = page.locator('.cairn-state-card');
        expect(await card.isVisible()).toBe(false);
        await page.keyboard.press('KeyP');
        expect(await card.isVisible()).toBe(true);
        expect(await card.innerText()).toMatch(/Paused[\s\S]*press P to resume/i);
        expect(await stat(() => window.cairn.stats.audio!.paused)).toBe(true);
        expect(await stat(() => window.cairn.world!.player.enabled)).toBe(false);
        // Clicking the card resumes.
        await card.click();
        expect(await card.isVisible()).toBe(false);
        expect(await stat(() => window.cairn.stats.audio!.paused)).toBe(false);
        expect(await stat(() => window.cairn.world!.player.enabled)).toBe(true);
      },
      KeyH: async () => {
        const compact = () => page.locator('.cairn-hud').evaluate((e) => e.hasAttribute('data-compact'));
        expect(await compact()).toBe(true);
        await page.keyboard.press('KeyH');
        expect(await compact()).toBe(false);
        await page.keyboard.press('KeyH');
        expect(await compact()).toBe(true);
      },
      Backslash: async () => {
        await page.keyboard.press('Backslash');
        await expect.poll(() => stat(() => window.cairn.stats.anim!.reference), { timeout: 60_000 }).toBe(true);
        await page.keyboard.press('Backslash');
        await expect.poll(() => stat(() => window.cairn.stats.anim!.reference), { timeout: 10_000 }).toBe(false);
      },
      assets: async () => {
        await page.locator('.cairn-assets-toggle').click();
        await page.waitForSelector('.cairn-assets:not([hidden])', { timeout: 60_000 });
      },
    };

    const hints = await page
      .locator('.cairn-help [data-input]')
      .evaluateAll((items) => items.map((item) => ({ input: (item as HTMLElement).dataset.input!, text: item.textContent!.trim() })));
    // Every hint has a check here, and every check is a hint: a key added to the world without a
    // hint (or a hint for a key nobody answers) fails.
    expect(hints.map((h) => h.input).sort()).toEqual(Object.keys(checks).sort());
    expect(hints.map((h) => h.text).join(' · ')).toMatch(/L[\s\S]*B[\s\S]*Alt[\s\S]*-drag[\s\S]*Ctrl\+Z[\s\S]*V[\s\S]*M[\s\S]*P[\s\S]*H/);
    for (const hint of hints) {
      try {
        await checks[hint.input]!();
      } catch (error) {
        throw new Error(`hint "${hint.text}" (${hint.input}) is not answered: ${(error as Error).message}`, { cause: error });
      }
    }
    // The hint line fits the bottom line of a 640 px window: three lines at most, beside the gallery link.
    const help = await page.locator('.cairn-help').boundingBox();
    expect(help!.height).toBeLessThanOrEqual(60);
    expect(help!.x + help!.width).toBeLessThanOrEqual(small.width);
  });

  it('keeps the panels, the tools and the other player apart at 640×360 and at 1280×720', async () => {
    // Everything open at once: the brush panel, the asset panel, the look panel, voice (joined), the
    // mute indicator.
    await page.keyboard.press('KeyL');
    expect(await page.locator('.cairn-look').isVisible()).toBe(true);
    await page.keyboard.press('KeyM');
    await expect.poll(() => page.locator('.cairn-muted').isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.locator('.cairn-scatter').isVisible()).toBe(true);
    expect(await page.locator('.cairn-assets').isVisible()).toBe(true);
    expect(await page.locator('.cairn-voice button[data-kind="join"]').innerText()).toBe('Leave voice');

    // The other player stands a few metres ahead and to the right of the visitor, as a person
    // walking up beside them would.
    const spot = await page.evaluate(() => {
      const world = window.cairn.world!;
      const s = world.player.state;
      const yaw = world.cameraRig.yaw;
      return { x: s.x + Math.sin(yaw) * 4 - Math.cos(yaw) * 1.5, z: s.z + Math.cos(yaw) * 4 + Math.sin(yaw) * 1.5 };
    });
    await other.evaluate((p) => {
      const world = window.cairn.world!;
      world.player.enabled = false;
      world.player.state = { ...world.player.state, x: p.x, z: p.z, y: world.heightmap.sampleHeight(p.x, p.z) };
    }, spot);
    const otherId = await other.evaluate(() => window.cairn.net!.transport.selfId);
    expect(otherId).not.toBeNull();
    await page.waitForFunction(
      ({ id, p }) => {
        const peer = window.cairn.net!.table.peers.get(id)?.newest();
        return !!peer && Math.hypot(peer.x - p.x, peer.z - p.z) < 0.5;
      },
      { id: otherId!, p: spot },
      { timeout: 60_000, polling: 250 },
    );

    for (const size of [small, large]) {
      await page.setViewportSize(size);
      await frames(page, 3);
      await page.evaluate(() => window.cairn.hud!.refresh());
      await expectLayout(page, size);
      // The other player's feet and head, projected on this visitor's screen: on screen, in the
      // centre band, and nothing but the canvas there.
      const seen = await page.evaluate(
        ({ id, w, h }) => {
          const camera = window.cairn.camera!;
          const peer = window.cairn.net!.table.peers.get(id)!.newest()!;
          return [0.1, 1.6].map((up) => {
            const v = camera.position
              .clone()
              .set(peer.x, peer.y + up, peer.z)
              .project(camera);
            const x = ((v.x + 1) / 2) * w;
            const y = ((1 - v.y) / 2) * h;
            return { x, y, front: v.z < 1, hit: document.elementFromPoint(x, y)?.tagName ?? null };
          });
        },
        { id: otherId!, w: size.width, h: size.height },
      );
      for (const point of seen) {
        expect(point.front).toBe(true);
        expect(point.x).toBeGreaterThan(size.width / 3);
        expect(point.x).toBeLessThan((2 * size.width) / 3);
        expect(point.y).toBeGreaterThan(0);
        expect(point.y).toBeLessThan(size.height);
        expect(point.hit, JSON.stringify(point)).toBe('CANVAS');
      }
    }
    await page.keyboard.press('KeyM');
    expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  });
});
