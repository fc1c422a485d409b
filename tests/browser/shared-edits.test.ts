/**
 * Shared edits as three visitors live them, each in its own Chromium context (its own session):
 * a first painter, a late joiner and a reloader, on `/?world=1` of a server this file starts
 * itself, so it can restart it in between. Light pages (the low tier without its forest and
 * people, so no shadow pass; 320×200): SwiftShader is slow and the machine is shared. Each context is in a browser of its own: one SwiftShader GPU
 * process did not give a third page a WebGPU device within minutes on a loaded machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import type { SharedScatterStats } from '../../src/scatter/index.ts';
import { launchChromium, waitForCairn } from '../harness/browser.ts';
import { startServer, type RunningServer } from '../harness/server.ts';

declare global {
  interface Window {
    longtasks?: number[];
  }
}

const persist = mkdtempSync(join(tmpdir(), 'cairn-shared-edits-'));
let server: RunningServer;
const browsers: Browser[] = [];
const contexts: BrowserContext[] = [];

async function visit(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(180_000);
  await page.addInitScript(() => {
    window.longtasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.longtasks!.push(entry.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`${server.url}/?world=1&quality=low&ambient=0&people=0`);
  await waitForCairn(page, 180_000);
  await ready(page);
  return page;
}

/** Waits until the page's edit cells are open, every snapshot arrived and is applied (and `also` holds). */
async function ready(page: Page, also = 'true'): Promise<void> {
  try {
    await page.waitForFunction(
      (condition) => {
        const shared = window.cairn.sharedScatter;
        if (!shared || !shared.settled || shared.stats.cells === 0 || shared.stats.cells < shared.stats.joined) return false;
        return new Function('shared', `return ${condition}`)(shared) as boolean;
      },
      also,
      { timeout: 180_000, polling: 250 },
    );
  } catch (error) {
    const now = await page.evaluate(() => {
      const shared = window.cairn.sharedScatter;
      return JSON.stringify({ settled: shared?.settled, stats: shared?.stats, notices: window.cairn.notices });
    });
    throw new Error(`${(error as Error).message}\nwaiting for ${also}; the page has ${now}`, { cause: error });
  }
}

const stats = (page: Page) => page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.sharedScatter!.stats)) as SharedScatterStats);
const hashes = (page: Page) => page.evaluate(() => window.cairn.sharedScatter!.cellHashes());
const stored = (page: Page, x: number, z: number) =>
  page.evaluate(([x, z]) => window.cairn.sharedScatter!.storedStrokes({ x: x!, z: z! }).map((s) => s.id), [x, z]);

/** A press of the brush along `dabs` (the brush's own path: strokeStart, the layer's paint, strokeEnd). */
async function drag(page: Page, dabs: Array<[number, number]>, radius = 5): Promise<void> {
  await page.evaluate(
    ([dabs, radius]) => {
      const tool = window.cairn.scatter!;
      tool.brush.emit('strokeStart', { x: dabs[0]![0], z: dabs[0]![1], erasing: false });
      for (const [x, z] of dabs) tool.layer.paint(x, z, radius);
      tool.brush.emit('strokeEnd', {});
    },
    [dabs, radius] as const,
  );
}

/** Waits until every page shows the same instances in every cell they share, then asserts it. */
async function agree(...pages: Page[]): Promise<void> {
  const all = async () => Promise.all(pages.map(hashes));
  await expect.poll(async () => new Set((await all()).map((h) => JSON.stringify(h))).size, { timeout: 120_000, interval: 500 }).toBe(1);
  const [first, ...rest] = await all();
  expect(Object.keys(first!).length).toBeGreaterThan(4);
  for (const other of rest) expect(other).toEqual(first);
}

beforeAll(async () => {
  server = await startServer({ assetsDir: inject('assetsDir'), persistDir: persist });
  for (let i = 0; i < 3; i++) {
    const browser = await launchChromium();
    browsers.push(browser);
    contexts.push(await browser.newContext({ viewport: { width: 320, height: 200 } }));
  }
});

afterAll(async () => {
  await Promise.all(browsers.map((b) => b.close()));
  await server?.stop();
  rmSync(persist, { recursive: true, force: true });
});

/** Notes how far the test got (a slow machine can take minutes; a failure then says where). */
const started = Date.now();
const step = (what: string) => console.log(`[shared-edits ${((Date.now() - started) / 1000).toFixed(0)} s] ${what}`);

describe('shared edits with three visitors, a reload and a server restart', () => {
  // Four page loads and a server restart on SwiftShader, on a shared two-core machine.
  it(
    'gives everyone the same forest, lets each paint and undo only their own, one undo per drag across a border',
    { timeout: 900_000 },
    async () => {
      const [painterContext, lateContext, reloaderContext] = contexts as [BrowserContext, BrowserContext, BrowserContext];
      // The first painter drags across x = 0 at the spawn (cells -1:0 and 0:0).
      const painter = await visit(painterContext);
      const reloader = await visit(reloaderContext);
      step('two pages up');
      await drag(painter, [
        [-12, 12],
        [-6, 12],
        [0, 13],
        [6, 14],
        [12, 14],
      ]);
      await ready(painter, 'shared.stats.stored === 1');
      const [across] = await stored(painter, -1, 0);
      expect(await stored(painter, 0, 0)).toContain(across);
      // The reloader paints one of its own, north of the spawn.
      await drag(reloader, [
        [20, -20],
        [26, -22],
      ]);
      await ready(reloader, 'shared.stats.stored === 1');
      step('both painted');

      // The late joiner arrives after both, sees the same forest, and paints with the real brush: B, then a drag on the canvas.
      const late = await visit(lateContext);
      await ready(late, 'shared.stats.strokes === 2');
      await agree(painter, reloader, late);
      step('late joiner agrees');
      await late.keyboard.press('KeyB');
      await late.waitForFunction(() => window.cairn.stats.scatter?.active === true);
      // Left of the brush panel (it covers the right of a 320 px window), on the ground below the horizon.
      await late.mouse.move(16, 150);
      await late.mouse.down();
      for (let i = 1; i <= 8; i++) await late.mouse.move(16 + i * 6, 150 + i);
      await late.mouse.up();
      await ready(late, 'shared.stats.stored === 1 && shared.stats.refused === 0');
      await ready(painter, 'shared.stats.received >= 2');
      await agree(painter, reloader, late);

      // Only the author undoes: the late joiner's Ctrl+Z takes its own stroke, and a second one takes nothing of the others'.
      await late.keyboard.press('Control+KeyZ');
      await ready(painter, 'shared.stats.undone === 1');
      await late.keyboard.press('Control+KeyZ');
      await ready(late, 'shared.stats.undone === 1');
      expect(await stored(late, -1, 0)).toContain(across);
      expect((await stats(late)).strokes).toBe(2);
      step('undo by the author only');

      // The server restarts (the same storage): every page reconnects and keeps the same forest.
      await server.stop();
      server = await startServer({ port: server.port, assetsDir: inject('assetsDir'), persistDir: persist });
      for (const page of [painter, reloader, late]) await ready(page, 'shared.stats.reconnects > 0');
      step('reconnected after the restart');
      await agree(painter, reloader, late);

      // A full cell at the spawn (a griefer's burst, from Node), then the reloader reloads: its page joins the full cell.
      const ip = '198.51.100.77';
      const sockets = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const response = await fetch(`${server.url}/api/session`, { method: 'POST', headers: { 'X-Test-Client-IP': ip } });
          const { token } = (await response.json()) as { token: string };
          const socket = new WebSocket(
            `${server.url.replace('http', 'ws')}/rooms/edits/${encodeURIComponent('world:edits:1:0:-1')}?session=${token}`,
            {
              headers: { 'X-Test-Client-IP': ip },
            },
          );
          await new Promise((resolve) => socket.once('open', resolve));
          return socket;
        }),
      );
      let n = 0;
      for (const socket of sockets)
        for (let k = 0; k < 8; k++) {
          const events: object[] = [
            { kind: 'preset', presetId: 'meadow' },
            { kind: 'reseed', seed: n },
          ];
          for (let i = 0; i < 94; i++) events.push({ kind: 'paint', x: 12 + ((i * 7 + k) % 40), z: -52 + ((i * 3 + n) % 40), radius: 10 });
          socket.send(JSON.stringify({ type: 'stroke', id: `full-cell-${n++}`, events }));
        }
      await ready(painter, 'shared.stats.strokes >= 4');
      for (const socket of sockets) socket.close();
      await reloader.reload();
      await waitForCairn(reloader, 180_000);
      await ready(reloader, 'shared.stats.strokes >= 4');
      step('reloaded onto a full cell');
      const applied = (await stats(reloader)).apply;
      const longtasks = await reloader.evaluate(() => window.longtasks!.filter((ms) => ms > 50).length);
      console.log(
        `shared edits, a reloaded page joining a full cell: ${applied.work} units of work in ${applied.slices} slices, ` +
          `at most ${applied.maxSliceWork} in one; longest slice ${applied.longestSliceMs.toFixed(1)} ms by its own timer; ` +
          `${longtasks} main-thread tasks over 50 ms on the whole page (rendering included, SwiftShader on a shared machine)`,
      );
      // The apply is sliced: no slice did more than a quarter of the work (one task doing it all is the naive path).
      expect(applied.slices).toBeGreaterThanOrEqual(4);
      expect(applied.maxSliceWork * 4).toBeLessThanOrEqual(applied.work);
      await agree(painter, reloader, late);

      // The reloader (a new page, the same session) undoes what it painted before the reload and the restart.
      await reloader.keyboard.press('Control+KeyZ');
      await ready(painter, 'shared.stats.undone === 2');
      // The first painter's one Ctrl+Z takes its whole drag, from both cells.
      await painter.keyboard.press('Control+KeyZ');
      await ready(late, 'shared.stats.undone === 3');
      // Each page hears the undo from both cells in its own time (the author's page too: it hides the drag until they confirm).
      for (const page of [painter, reloader, late])
        for (const [x, z] of [
          [-1, 0],
          [0, 0],
        ] as const)
          await expect.poll(() => stored(page, x, z), { timeout: 60_000, interval: 250 }).not.toContain(across);
      await agree(painter, reloader, late);
      for (const page of [painter, reloader, late]) expect((await stats(page)).refused).toBe(0);
    },
  );
});
