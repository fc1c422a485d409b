import type { Browser, Page } from 'playwright-core';
import type { FallbackTransport, RemotePeerView, WorldTransport } from '../../src/net/index.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, hudText, launchChromium, waitForCairn } from '../harness/browser.ts';

const base = inject('serverUrl');

interface WorldFigures {
  transport: string;
  state: string;
  selfId: number | null;
  peers: number;
  frames: number;
  world: {
    cell: string | null;
    subscriptions: number;
    hops: number;
    reentries: number;
    sendPhase: number | null;
    clockOffsetMs: number | null;
    clockRttMs: number | null;
    timingCorrectionMs: number;
    timingNotes: number;
    clockProbes: number;
  };
}

const net = (page: Page): Promise<WorldFigures> => page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.net)) as WorldFigures);
const cellX = (figures: WorldFigures): number => Number(figures.world.cell!.split(':')[0]);

/** Puts the player at (x, z) on the ground, as if it had walked there, and waits for a rendered frame. */
async function place(page: Page, x: number, z: number): Promise<void> {
  await page.evaluate(
    ([x, z]) => {
      const world = window.cairn.world!;
      Object.assign(world.player.state, { x, z, y: world.heightmap.sampleHeight(x!, z!) });
    },
    [x, z],
  );
  await page.evaluate(() => window.cairn.stage!.frames(2));
}

describe('the open world: spatial cells in the world page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('two players far apart do not receive each other; walking closer they appear within the 3×3, walking away they go', async () => {
    const [a, b] = await Promise.all(
      [-100, 100].map(async (x) => {
        const page = await (await browser.newContext()).newPage();
        await page.setViewportSize({ width: 320, height: 220 });
        const errors = collectPageErrors(page);
        // A bare map (no forest, people or others' strokes): SwiftShader walks it at a higher frame rate.
        await page.goto(`${base}/?world=1&at=${x},20&ambient=0&people=0&shared=0`);
        await waitForCairn(page, 180_000);
        return Object.assign(page, { errors });
      }),
    );
    const [pa, pb] = [a!, b!];
    await expect.poll(async () => (await net(pa)).state, { timeout: 60_000 }).toBe('open');
    await expect.poll(async () => (await net(pb)).state, { timeout: 60_000 }).toBe('open');
    const fa = await net(pa);
    expect(fa.transport).toBe('world');
    expect(fa.world.cell).toBe('-2:0');
    expect(fa.world.subscriptions).toBe(9);
    expect((await net(pb)).world.cell).toBe('1:0');
    expect(await hudText(pa)).toMatch(/transport\s+world cells/);
    // Each page sends at its cell's moment. Server and page share this machine's clock, so the
    // offset the page reads — from the directory's answers and its cell's answers to its clock
    // probes, the quickest round trip winning — is its error, at most half that round trip; the
    // cell's timing notes then pull the sends onto the moment: offset + correction ends within a
    // few ms of 0 (mod 100) — what is left is the early edge of the page's own delay (timer,
    // socket, relay), which a loaded machine stretches. Read from the page's clock itself
    // (`cairn.net.transport.current.clock`: the world page's `FallbackTransport` is on its
    // `WorldTransport`), which the HUD's figures mirror.
    await expect.poll(async () => (await net(pa)).world.sendPhase, { timeout: 30_000 }).not.toBeNull();
    await expect.poll(async () => (await net(pa)).world.clockProbes, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    const clock = (await net(pa)).world;
    expect(Math.abs(clock.clockOffsetMs!)).toBeLessThanOrEqual(clock.clockRttMs! / 2 + 1);
    type PageClock = { offsetMs: number; rttMs: number; correctionMs: number; notes: number };
    const residual = (): Promise<number> =>
      pa.evaluate(() => {
        const c = ((window.cairn.net!.transport as FallbackTransport).current as WorldTransport & { clock: PageClock }).clock;
        return Math.abs(((((c.offsetMs + c.correctionMs) % 100) + 150) % 100) - 50);
      });
    await expect.poll(residual, { timeout: 30_000 }).toBeLessThanOrEqual(15);
    // Knock the page's sends 40 ms off the moment, as a clock reading 40 ms wrong that no probe
    // improves on would (a path slower one way than the other fools every round trip alike; here
    // its round trip is made unbeatable, so no probe answer replaces it): only the cell's notes
    // can pull it back. A page that ignored the notes stays 25–55 ms off.
    const before = (await net(pa)).world.timingNotes;
    await pa.evaluate(() => {
      const c = ((window.cairn.net!.transport as FallbackTransport).current as WorldTransport & { clock: PageClock }).clock;
      c.offsetMs += 40;
      c.rttMs = -1;
    });
    expect(await residual()).toBeGreaterThanOrEqual(25);
    await expect.poll(residual, { timeout: 30_000 }).toBeLessThanOrEqual(15);
    expect((await net(pa)).world.timingNotes).toBeGreaterThan(before);
    expect(await hudText(pa)).toMatch(
      /send moment\s+\d+ ms into each 100 ms \(clock ±\d+ ms after [1-9]\d* probes, [1-9]\d* timing notes\)/,
    );

    // Three cells apart: neither is in the other's 3×3. Nothing arrives, for several seconds.
    await pa.waitForTimeout(4000);
    expect((await net(pa)).frames).toBe(0);
    expect((await net(pb)).frames).toBe(0);
    expect((await net(pa)).peers).toBe(0);

    // B walks west towards A in 16 m steps. A sees B exactly when B's cell is next to A's.
    let x = 100;
    let appearedAt: number | null = null;
    while (x > -60) {
      x -= 16;
      await place(pb, x, 20);
      await pb.waitForTimeout(300);
      const figures = await net(pb);
      if ((await net(pa)).peers > 0) {
        appearedAt = cellX(figures);
        break;
      }
    }
    // B became visible only once it published in cell -1, next to A's (-2) — not from cell 0.
    expect(appearedAt).toBe(-1);
    await expect.poll(async () => (await net(pb)).peers, { timeout: 60_000 }).toBe(1);
    await expect.poll(async () => (await net(pa)).peers, { timeout: 60_000 }).toBe(1);
    // A draws B where B stands.
    await expect
      .poll(
        async () =>
          pa.evaluate(() => {
            // Remote players are crowd agents (read back from the crowd's own pose buffer).
            const view = window.cairn.netView as RemotePeerView & { ids(): number[] };
            const crowd = window.cairn.crowdRemotes!;
            return view.ids().flatMap((id) => {
              const agent = crowd.agent(id);
              return agent ? [Math.round(agent.x)] : [];
            });
          }),
        { timeout: 60_000 },
      )
      .toEqual([x]);
    const hops = (await net(pb)).world.hops;
    expect(hops).toBeGreaterThanOrEqual(2);

    // B walks back east: once its cell is out of A's 3×3, A drops it (the old cell's leave frame).
    while (x < 100) {
      x += 16;
      await place(pb, x, 20);
      await pb.waitForTimeout(300);
    }
    await expect.poll(async () => cellX(await net(pb)), { timeout: 30_000 }).toBe(1);
    await expect.poll(async () => (await net(pa)).peers, { timeout: 60_000 }).toBe(0);
    await expect.poll(async () => (await net(pb)).peers, { timeout: 60_000 }).toBe(0);
    const framesAfter = (await net(pa)).frames;
    await pa.waitForTimeout(3000);
    expect((await net(pa)).frames).toBe(framesAfter);
    expect((await net(pb)).world.reentries).toBe(0);
    expect([...pa.errors, ...pb.errors]).toEqual([]);

    // The directory counts both players.
    const directory = (await (await fetch(`${base}/api/world`)).json()) as { players: number };
    expect(directory.players).toBe(2);
  }, 600_000);
});
