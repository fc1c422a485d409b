/**
 * Players who look like themselves, with names, as two visitors see each other in the real world
 * page (two Chromium contexts, the real Worker): in a relay room and in the open world's cells,
 * each chooses a name and a look with `?name=` and `?look=` — one a humanoid variant (a red
 * shirt), the other a character file (Kenney's CC0 character) — and each sees the other's: the
 * template and variant in the crowd's stats, the red shirt on screen, the name as a label over
 * the other player. The character file is served for the host `models.example` by routing, as a
 * model on the web would be. Four page loads at 400×260.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, launchChromium, waitForCairn } from '../harness/browser.ts';
import { saveDocPicture, saveFailurePicture } from '../harness/pictures.ts';
import { chestOnScreen, isRed, lookAlong, seenPlayer as seen, serveModels, shareAround } from '../harness/looks.ts';

const base = inject('serverUrl');
const run = Date.now().toString(36);
const FIXTURES = join(import.meta.dirname, '../fixtures/import');
const MODEL_URL = 'https://models.example/kenney-character-male-a.glb';
const MODEL = readFileSync(join(FIXTURES, 'kenney-character-male-a.glb'));
const TEXTURE = readFileSync(join(FIXTURES, 'Textures/colormap.png'));
/** Ada: the humanoid, tall build, outfit 1 (a red shirt). Bo: the character file, and a name beyond ASCII. */
const ADA = { name: 'Ada', look: '2.1.3.1' };
const BO = { name: 'Bo 🧑‍🚀', look: MODEL_URL };

interface Figures {
  selfId: number | null;
  peers: number;
  profiles: number;
}

const net = (page: Page): Promise<Figures> => page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.net)) as Figures);

async function open(page: Page, query: string): Promise<Page> {
  await page.goto(`${base}/${query}`);
  await waitForCairn(page, 180_000);
  return page;
}

describe('players who look like themselves, with names', () => {
  let browser: Browser;
  let pageA: Page;
  let pageB: Page;
  let errorsA: string[];
  let errorsB: string[];
  beforeAll(async () => {
    browser = await launchChromium();
    const contexts = [
      await browser.newContext({ viewport: { width: 400, height: 260 } }),
      await browser.newContext({ viewport: { width: 400, height: 260 } }),
    ];
    for (const context of contexts)
      await serveModels(context, 'models.example', {
        '.glb': { body: MODEL, type: 'model/gltf-binary' },
        'colormap.png': { body: TEXTURE, type: 'image/png' },
      });
    [pageA, pageB] = await Promise.all(contexts.map((context) => context.newPage()));
    errorsA = collectPageErrors(pageA!);
    errorsB = collectPageErrors(pageB!);
  });
  afterAll(async () => browser?.close());

  /** What a page knows of the others' looks, for the log when a check times out. */
  const explain = (page: Page): Promise<string> =>
    page.evaluate(() =>
      JSON.stringify({ net: window.cairn.stats.net, look: window.cairn.stats.look, looks: window.cairn.stats.crowd?.looks }),
    );

  /** {@link checkEachOther}, with what each page knew logged when a check fails. */
  async function expectEachOther(a: Page, b: Page): Promise<void> {
    try {
      await checkEachOther(a, b);
    } catch (error) {
      console.log(`[looks] failed; A knew ${await explain(a).catch(String)}; B knew ${await explain(b).catch(String)}`);
      throw error;
    }
  }

  /** Both pages see each other's chosen look and name once each stands in the other's view. */
  async function checkEachOther(a: Page, b: Page): Promise<void> {
    await expect.poll(async () => (await net(a)).profiles, { timeout: 120_000 }).toBeGreaterThanOrEqual(1);
    await expect.poll(async () => (await net(b)).profiles, { timeout: 120_000 }).toBeGreaterThanOrEqual(1);
    const idA = (await net(a)).selfId!;
    const idB = (await net(b)).selfId!;
    // A's own character is its humanoid variant; B's its file (once loaded here).
    await expect.poll(() => a.evaluate(() => window.cairn.stats.look!.shared), { timeout: 60_000 }).toBe('humanoid:2.1.3.1');
    await expect.poll(() => b.evaluate(() => window.cairn.stats.look!.shared), { timeout: 120_000 }).toBe(`model:${MODEL_URL}`);
    // B sees A in A's variant of the humanoid template.
    await expect
      .poll(async () => (await seen(b, idA)).look, { timeout: 60_000 })
      .toEqual({ kind: 'humanoid', build: 2, skin: 1, hair: 3, outfit: 1 });
    const atB = await seen(b, idA);
    expect(atB.template).toBe('humanoid');
    expect(atB.variant).toBeGreaterThan(0);
    // A sees B drawn by the file's own crowd (the humanoid stood in while it loaded). Polled: a page
    // busy loading a file on SwiftShader can miss frames long enough for a peer to drop and return.
    const looksOf = (page: Page) => page.evaluate(() => window.cairn.stats.crowd!.looks!);
    await expect.poll(async () => (await seen(a, idB)).template, { timeout: 120_000 }).toBe(MODEL_URL);
    await expect.poll(async () => (await looksOf(a)).templates, { timeout: 60_000 }).toBe(1);
    const looksAtA = await looksOf(a);
    expect(looksAtA.refused).toEqual({});
    expect(looksAtA.drawCallsPerPass).toBeGreaterThan(0);
    // Each name over the other, on screen.
    await expect.poll(async () => (await seen(a, idB)).labels.find((l) => l.id === idB)?.name, { timeout: 60_000 }).toBe(BO.name);
    await expect.poll(async () => (await seen(b, idA)).labels.find((l) => l.id === idA)?.name, { timeout: 60_000 }).toBe(ADA.name);
    for (const [page, name] of [
      [a, BO.name],
      [b, ADA.name],
    ] as const) {
      const label = page.locator('.cairn-name-tag', { hasText: name });
      await expect.poll(() => label.isVisible(), { timeout: 30_000 }).toBe(true);
      const box = (await label.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(400);
      expect(await label.textContent()).toBe(name);
    }
    // A's red shirt on B's screen, where A stands.
    const chest = await chestOnScreen(b, idA);
    expect(chest).not.toBeNull();
    // Up to a minute: SwiftShader draws about a frame a second here, and each shot is taken frames
    // after A's position was projected.
    try {
      await expect.poll(async () => shareAround(b, (await chestOnScreen(b, idA))!, isRed), { timeout: 60_000 }).toBeGreaterThan(0.3);
    } catch (error) {
      // What B saw, for the log and test-results/failures/: where it projects A, where each stands.
      const chestNow = await chestOnScreen(b, idA);
      const scene = await b.evaluate(
        ({ peer, at }) => {
          const agent = window.cairn.crowdRemotes!.agent(peer);
          const { x, y, z } = window.cairn.camera!.position;
          const over = at ? document.elementFromPoint(at.x, at.y) : null;
          return {
            agent: agent && { x: agent.x, y: agent.y, z: agent.z },
            player: window.cairn.stats.player,
            camera: { x, y, z },
            // Whatever page element lies over the chest (the canvas when nothing covers it).
            over: over ? `${over.tagName.toLowerCase()}.${over.className} ${(over.textContent ?? '').slice(0, 80)}` : null,
            transport: window.cairn.stats.net?.transport,
          };
        },
        { peer: idA, at: chestNow },
      );
      console.log(`[looks] no red at A's chest on B: ${JSON.stringify({ chest: chestNow, ...scene })}`);
      console.log(`[looks] B's screen: ${saveFailurePicture('looks-b.png', await b.screenshot())}`);
      throw error;
    }
    const looksAtB = await b.evaluate(() => window.cairn.stats.crowd!.looks!);
    console.log(
      `[looks] B draws A as humanoid variant ${atB.variant} (${looksAtB.variants} variants, ${looksAtB.drawCallsPerPass} draws/pass); A draws B with ${looksAtA.drawCallsPerPass} draws/pass (the file's crowd)`,
    );
  }

  it('in a relay room', async () => {
    const room = `looks-${run}`;
    // A bare map without others' edits: the suite's other files paint strokes into the shared
    // server's edit cells near the spawn, and a painted tree may stand between A and B's camera.
    const plain = 'ambient=0&people=0&shared=0';
    const [a, b] = await Promise.all([
      open(pageA, `?room=${room}&${plain}&name=${encodeURIComponent(ADA.name)}&look=${ADA.look}`),
      open(pageB, `?room=${room}&${plain}&name=${encodeURIComponent(BO.name)}&look=${encodeURIComponent(BO.look)}`),
    ]);
    await expect.poll(async () => (await net(a)).peers, { timeout: 120_000 }).toBe(1);
    await expect.poll(async () => (await net(b)).peers, { timeout: 120_000 }).toBe(1);
    // Everyone spawns at one spot: A walks 6 m north (away from B's camera) and turns its camera to look back at B.
    await a.bringToFront();
    const start = await a.evaluate(() => window.cairn.stats.player!.z);
    await a.keyboard.down('KeyW');
    await a.waitForFunction((z0) => window.cairn.stats.player!.z < z0 - 6, start, { timeout: 120_000, polling: 100 });
    await a.keyboard.up('KeyW');
    await lookAlong(a, 0);
    await expectEachOther(a, b);
    // Both views side by side for the docs (test-results/pictures/, or docs/ under `npm run docs:pictures`).
    await a.locator('.cairn-look-toggle').click();
    saveDocPicture('looks-names-a.png', await a.screenshot());
    saveDocPicture('looks-names-b.png', await b.screenshot());
    await a.locator('.cairn-look-toggle').click();
    // Turned away: the name behind the camera is hidden.
    await lookAlong(a, Math.PI);
    const idB = (await net(b)).selfId!;
    await expect.poll(async () => (await seen(a, idB)).labels.some((l) => l.id === idB), { timeout: 30_000 }).toBe(false);
    expect(await a.evaluate(() => window.cairn.stats.nameTags!.behind)).toBeGreaterThanOrEqual(1);
    await expect.poll(() => a.locator('.cairn-name-tag', { hasText: BO.name }).isVisible(), { timeout: 30_000 }).toBe(false);
  });

  it('in the open world’s cells', async () => {
    // A stands north of B; B's camera looks north at A, A's is turned south to B.
    const [a, b] = await Promise.all([
      open(pageA, `?world=1&at=70,30&ambient=0&people=0&shared=0&name=${encodeURIComponent(ADA.name)}&look=${ADA.look}`),
      open(pageB, `?world=1&at=70,38&ambient=0&people=0&shared=0&name=${encodeURIComponent(BO.name)}&look=${encodeURIComponent(BO.look)}`),
    ]);
    await lookAlong(a, 0);
    await expectEachOther(a, b);
    expect(errorsA).toEqual([]);
    expect(errorsB).toEqual([]);
  });
});
