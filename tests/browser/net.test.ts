import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CrowdPeerView, HumanoidPeerView } from '../../src/net/index.ts';
import { collectPageErrors, hudText, launchChromium, waitForCairn } from '../harness/browser.ts';
import { NetCutter } from '../harness/net-cutter.ts';

const base = inject('serverUrl');
const run = Date.now().toString(36);

interface NetFigures {
  transport: string;
  state: string;
  selfId: number | null;
  peers: number;
  sent: number;
  frames: number;
  rejected: number;
  fallback: string | null;
  switches: number;
}

const net = (page: Page): Promise<NetFigures> => page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.net)) as NetFigures);
const player = (page: Page): Promise<{ x: number; z: number }> => page.evaluate(() => window.cairn.stats.player!);
/**
 * Positions of the remote avatars this page draws: the crowd renderer's agents (the default, read
 * back from the crowd's own pose buffer), or the humanoid per peer (`?peers=humanoid`).
 */
const remotes = (page: Page): Promise<Array<{ name: string; x: number; z: number }>> =>
  page.evaluate(() => {
    // The crowd's view lists its ids; the humanoid view holds its avatars.
    const view = window.cairn.netView!;
    if ('ids' in view) {
      const crowd = window.cairn.crowdRemotes!;
      return (view as CrowdPeerView).ids().flatMap((id) => {
        const agent = crowd.agent(id);
        return agent ? [{ name: `remote-peer-${id}`, x: agent.x, z: agent.z }] : [];
      });
    }
    return [...(view as HumanoidPeerView).avatars].map((a) => ({
      name: a.humanoid.object.name,
      x: a.humanoid.object.position.x,
      z: a.humanoid.object.position.z,
    }));
  });

async function openWorld(context: BrowserContext, query: string): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  await page.setViewportSize({ width: 400, height: 260 });
  const errors = collectPageErrors(page);
  // A bare map (no forest, people or others' strokes): only the players are under test, and
  // SwiftShader draws it at a higher frame rate.
  await page.goto(`${base}/${query}&ambient=0&people=0&shared=0`);
  await waitForCairn(page, 180_000);
  // The net plugin publishes its view once its transport is chosen (a session fetch and the relay's answer later).
  await page.waitForFunction(() => window.cairn.netView !== undefined, undefined, { timeout: 60_000, polling: 200 });
  return { page, errors };
}

/**
 * Runs page A's player north (away from its camera) until it has moved `metres`. Held keys, not a
 * fixed time: on a loaded machine SwiftShader may draw well under one frame a second.
 */
async function walk(page: Page, metres: number): Promise<void> {
  const from = await player(page);
  // Two tabs of one browser: only the front one has focus (a blurred window drops held keys).
  await page.bringToFront();
  await page.keyboard.down('ShiftLeft');
  await page.keyboard.down('KeyW');
  await page.waitForFunction(
    ([x0, z0, d]) => {
      const p = window.cairn.stats.player!;
      return Math.hypot(p.x - x0!, p.z - z0!) > d!;
    },
    [from.x, from.z, metres],
    { timeout: 120_000, polling: 100 },
  );
  await page.keyboard.up('KeyW');
  await page.keyboard.up('ShiftLeft');
}

/** Both pages see exactly one remote avatar; when A walks, B's copy of A follows it there. */
async function expectMutualMovement(a: Page, b: Page, room: string): Promise<void> {
  try {
    await expect.poll(async () => (await net(a)).peers, { timeout: 120_000 }).toBe(1);
    await expect.poll(async () => (await net(b)).peers, { timeout: 120_000 }).toBe(1);
  } catch (error) {
    // What each side and the room's Durable Object say, for the log when they never meet.
    const roomStats = await fetch(`${base}/api/rooms/avatar/${room}`)
      .then((response) => response.text())
      .catch((failure: Error) => failure.message);
    console.log(`[net] the pages never met: A ${JSON.stringify(await net(a))}, B ${JSON.stringify(await net(b))}, room ${roomStats}`);
    throw error;
  }
  const idA = (await net(a)).selfId;
  // Drawn once B's remote renderer exists (the crowd is built after the page's first frames).
  await expect.poll(async () => (await remotes(b)).map((r) => r.name), { timeout: 60_000 }).toEqual([`remote-peer-${idA}`]);
  const seen = await remotes(b);
  const start = seen[0]!;
  await walk(a, 2);
  // Let A come to rest (it decelerates over a few frames), then read where it stands.
  await expect.poll(async () => await a.evaluate(() => window.cairn.stats.player!.speed), { timeout: 60_000 }).toBeLessThan(0.05);
  const end = await player(a);
  expect(Math.hypot(end.x - start.x, end.z - start.z)).toBeGreaterThan(1.5);
  // B draws A where A now stands (once the ~100 ms interpolation delay has passed).
  await expect
    .poll(
      async () => {
        const [r] = await remotes(b);
        return r ? Math.hypot(r.x - end.x, r.z - end.z) : Infinity;
      },
      { timeout: 60_000 },
    )
    .toBeLessThan(0.3);
}

describe('avatar sync in the world page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('two pages in one relay room (real Worker + Durable Object) see each other move; B draws A through the crowd renderer (the default), A draws B as a humanoid', async () => {
    const room = `net-${run}`;
    const contextA = await browser.newContext();
    const contextB = await browser.newContext();
    try {
      const [{ page: a, errors: errorsA }, { page: b, errors: errorsB }] = await Promise.all([
        openWorld(contextA, `?room=${room}&peers=humanoid`),
        openWorld(contextB, `?room=${room}`),
      ]);
      // B's remote players are crowd agents (the crowd renderer is built after the first frames);
      // A's are one humanoid each.
      expect(await b.evaluate(() => typeof Reflect.get(window.cairn.netView!, 'ids'))).toBe('function');
      expect(await a.evaluate(() => Reflect.get(window.cairn.netView!, 'avatars') instanceof Set)).toBe(true);
      await expect.poll(async () => (await net(a)).state, { timeout: 30_000 }).toBe('open');
      const figures = await net(b);
      expect(figures.transport).toBe('relay');
      expect(figures.fallback).toBeNull();
      await expectMutualMovement(a, b, room);
      const stats = await (await fetch(`${base}/api/rooms/avatar/${room}`)).json();
      expect(stats).toMatchObject({ peers: 2, mode: 'direct' });
      expect((stats as { received: number }).received).toBeGreaterThan(10);
      expect((await net(b)).rejected).toBe(0);
      const hud = await hudText(b);
      expect(hud).toMatch(/transport\s+relay/);
      expect(hud).toMatch(/state\s+open/);
      expect(hud).toMatch(/peers\s+1/);
      expect(errorsA.concat(errorsB)).toEqual([]);
      // Closing A's page: the relay sends B a leave frame and A's avatar goes.
      expect(await b.evaluate(() => window.cairn.crowdRemotes!.count)).toBe(1);
      await a.close();
      await expect.poll(async () => (await net(b)).peers, { timeout: 30_000 }).toBe(0);
      expect(await remotes(b)).toEqual([]);
      expect(await b.evaluate(() => window.cairn.crowdRemotes!.count)).toBe(0);
    } finally {
      await contextA.close();
      await contextB.close();
    }
  }, 420_000);

  it('with no relay reachable, falls back to a BroadcastChannel (and says so); two tabs still see each other move; once the relay answers, both switch back and see each other through it', async () => {
    const room = `bc-${run}`;
    // The relay at ?relay= is a TCP pass-through to the Worker that refuses every connection (a
    // real failed handshake, as from a relay that is down) until the test restores it.
    const cutter = await NetCutter.start(Number(new URL(base).port));
    cutter.cut();
    const context = await browser.newContext();
    try {
      const query = `?room=${room}&relay=ws://127.0.0.1:${cutter.port}`;
      const [{ page: a, errors: errorsA }, { page: b, errors: errorsB }] = await Promise.all([
        openWorld(context, query),
        openWorld(context, query),
      ]);
      await expect.poll(async () => (await net(b)).transport, { timeout: 30_000 }).toBe('broadcast');
      await expect.poll(async () => (await net(a)).transport, { timeout: 30_000 }).toBe('broadcast');
      const figures = await net(b);
      expect(figures.fallback).toMatch(new RegExp(`no relay answered at ws://127\\.0\\.0\\.1:${cutter.port}/rooms/avatar/${room} `));
      await expect.poll(() => b.locator('.cairn-notice[data-level="warn"]').innerText()).toMatch(/Avatar relay unreachable/);
      expect(await hudText(b)).toMatch(/BroadcastChannel \(this browser\)/);
      await expectMutualMovement(a, b, room);
      // Fallen back, both pages keep knocking at the relay in the background.
      await expect.poll(() => cutter.refusedAt.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);

      // The relay answers again: at their next try (backoff ≤ 15 s) both pages switch to it, say so,
      // and see each other move through it (the channel is closed once they switch).
      cutter.restore();
      await expect.poll(async () => (await net(a)).transport, { timeout: 60_000 }).toBe('relay');
      await expect.poll(async () => (await net(b)).transport, { timeout: 60_000 }).toBe('relay');
      for (const page of [a, b]) {
        const after = await net(page);
        expect(after.switches).toBeGreaterThanOrEqual(1);
        expect(after.fallback).toBeNull();
      }
      await expect.poll(() => b.locator('.cairn-notice[data-level="info"]').last().innerText()).toMatch(/Avatar relay reached/);
      await expectMutualMovement(a, b, room);
      const stats = (await (await fetch(`${base}/api/rooms/avatar/${room}`)).json()) as { peers: number; received: number };
      expect(stats.peers).toBe(2);
      expect(stats.received).toBeGreaterThan(10);
      expect(await hudText(b)).toMatch(/transport\s+relay/);
      // Nothing went wrong but the refused connections the browser itself logs.
      expect(
        errorsA
          .concat(errorsB)
          .filter((error) => !/WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/rooms\/avatar\/[^']+' failed/.test(error)),
      ).toEqual([]);
    } finally {
      await context.close();
      await cutter.stop();
    }
  }, 420_000);
});
