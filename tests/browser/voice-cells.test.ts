/**
 * Voice follows the world's cells (issue 10 item 3), in real Chromium with real WebRTC against the
 * real VoiceRoom and world cells on workerd: two players in the open world (`?world=1`) with
 * voice on (`&voice=open`) share the world voice room but have no RTCPeerConnection while far
 * apart; walking within 24 m one side offers and audio flows; pacing between 24 and 32 m keeps
 * the link; walking past 32 m closes it on both sides.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, hudText, launchChromium, MEDIA_ARGS, waitForCairn } from '../harness/browser.ts';
import { countPeerConnections, measurePeer, peerConnectionCensus } from '../harness/voice-page.ts';
import { speak, writeWav } from '../harness/voice-signals.ts';
import type { VoiceStats } from '../../src/voice/voice-stats.ts';

const base = inject('serverUrl');
/** A row of cells no other world test uses (scale.test.ts walks z = 20). */
const Z = -150;
const A_X = -100;

/** `cairn.stats.voice`, as JSON. */
type VoiceFigures = VoiceStats;

const voice = (page: Page): Promise<VoiceFigures> =>
  page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.voice)) as VoiceFigures);
const netSelf = (page: Page): Promise<number | null> => page.evaluate(() => window.cairn.stats.net?.selfId ?? null);

/** Puts the player at (x, Z) on the ground and waits for rendered frames (as scale.test.ts walks). */
async function place(page: Page, x: number): Promise<void> {
  await page.evaluate(
    ([x, z]) => {
      const world = window.cairn.world!;
      Object.assign(world.player.state, { x, z, y: world.heightmap.sampleHeight(x!, z!) });
    },
    [x, Z],
  );
  await page.evaluate(() => window.cairn.stage!.frames(2));
}

/** Walks B along the row in steps of at most 16 m (so its publication hops cell by cell). */
async function walk(page: Page, from: number, to: number): Promise<void> {
  const step = Math.sign(to - from) * 16;
  for (let x = from; x !== to;) {
    x = Math.abs(to - x) <= 16 ? to : x + step;
    await place(page, x);
    await page.waitForTimeout(250);
  }
}

describe('voice follows hearing range in the open world', () => {
  let dir: string;
  let browser: Browser;
  let a: Page;
  let b: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-voice-cells-'));
    writeWav(
      join(dir, 'speech.wav'),
      speak('Is anybody out there? I can hear footsteps on the path, come a little closer and say hello.', { wordsPerMinute: 170 }),
    );
    browser = await launchChromium({ args: [...MEDIA_ARGS, `--use-file-for-fake-audio-capture=${join(dir, 'speech.wav')}`] });
    [a, b] = (await Promise.all(
      [A_X, 100].map(async (x) => {
        const page = await (await browser.newContext()).newPage();
        await page.setViewportSize({ width: 320, height: 220 });
        page.setDefaultTimeout(120_000);
        await countPeerConnections(page);
        // A bare map (no forest, people or others' strokes): SwiftShader walks it at a higher frame rate.
        await page.goto(`${base}/?world=1&at=${x},${Z}&voice=open&ambient=0&people=0&shared=0`);
        return page;
      }),
    )) as [Page, Page];
    errors = [...collectPageErrors(a), ...collectPageErrors(b)];
    await Promise.all([waitForCairn(a, 180_000), waitForCairn(b, 180_000)]);
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('far apart: one voice room, no connection; within 24 m: one offer, audio flows; past 32 m: closed on both sides', async () => {
    // Both in the world voice room, each announcing its avatar id (= its net id).
    for (const page of [a, b]) {
      await expect.poll(async () => (await voice(page)).roomPeers, { timeout: 90_000 }).toBe(1);
      await expect
        .poll(
          async () => {
            const v = await voice(page);
            return v.avatarId !== null && v.avatarId === (await netSelf(page));
          },
          { timeout: 60_000 },
        )
        .toBe(true);
    }
    const [va, vb] = [await voice(a), await voice(b)];
    expect(va.follows).toBe('hearing');
    // Stats are sampled 4× a second: the bound hearing source shows up a beat after the avatar id.
    await expect.poll(async () => (await voice(a)).hearingReady, { timeout: 5000 }).toBe(true);
    expect(va.state).toBe('open');
    // 200 m apart (cells 3 apart): nobody in earshot, no RTCPeerConnection on either side, for seconds.
    await a.waitForTimeout(3000);
    for (const page of [a, b]) {
      const v = await voice(page);
      expect(v.hearing).toEqual([]);
      expect(v.links).toBe(0);
      expect((await peerConnectionCensus(page)).made).toBe(0);
    }
    expect(await hudText(a)).toMatch(/hearing\s+0 in range · 0 links of 1 in the room · avatar \d+/);

    // B walks to 10 m from A: each hears the other, exactly one offers, the link connects.
    await walk(b, 100, A_X + 10);
    await expect.poll(async () => (await voice(a)).hearing, { timeout: 60_000 }).toEqual([vb.avatarId]);
    await expect.poll(async () => (await voice(b)).hearing, { timeout: 60_000 }).toEqual([va.avatarId]);
    const connected = async (page: Page): Promise<VoiceFigures> => {
      await page.waitForFunction(
        () => {
          const v = window.cairn.stats.voice!;
          return v.links === 1 && v.peers.length === 1 && v.peers[0]!.connection === 'connected';
        },
        undefined,
        { timeout: 60_000, polling: 250 },
      );
      return voice(page);
    };
    const [la, lb] = [await connected(a), await connected(b)];
    expect([la.peers[0]!.role, lb.peers[0]!.role].sort()).toEqual(['answerer', 'offerer']);
    expect(la.peers[0]!.role).toBe(String(la.id) < String(lb.id) ? 'offerer' : 'answerer');
    expect([(await peerConnectionCensus(a)).made, (await peerConnectionCensus(b)).made]).toEqual([1, 1]);
    // One offer and one answer went through the room, each carrying its ICE candidates inside.
    expect([la.signals.descriptions, lb.signals.descriptions]).toEqual([1, 1]);
    const answerer = la.peers[0]!.role === 'answerer' ? a : b;
    const offerSdp = await answerer.evaluate(() => {
      const mesh = window.cairn.voice!.mesh;
      return mesh.connection(mesh.peerIds()[0]!)!.remoteDescription!.sdp;
    });
    expect(offerSdp).toMatch(/^a=candidate:/m);
    console.log(`[voice-cells] lone ICE candidates sent: A ${la.signals.candidates}, B ${lb.signals.candidates}`);
    // Audio flows both ways, and A places B's voice where B's avatar stands (from avatar sync).
    await expect.poll(async () => (await voice(a)).peers[0]!.packetsIn, { timeout: 20_000 }).toBeGreaterThan(50);
    await expect.poll(() => measurePeer(a, lb.id!, 1), { timeout: 20_000 }).toBeGreaterThan(-45);
    await expect.poll(() => measurePeer(b, la.id!, 1), { timeout: 20_000 }).toBeGreaterThan(-45);
    const bStands = await b.evaluate(() => ({
      ...window.cairn.world!.player.state,
    }));
    await expect
      .poll(
        async () => {
          const heard = await a.evaluate((id) => window.cairn.voice!.mixer.peerPosition(id), lb.id!);
          return heard ? Math.hypot(heard.x - bStands.x, heard.y - bStands.y, heard.z - bStands.z) : Infinity;
        },
        { timeout: 10_000 },
      )
      .toBeLessThan(0.5);
    expect(await hudText(a)).toMatch(/hearing\s+1 in range · 1 link of 1 in the room/);

    // 28 m: out of the 24 m entry range but inside the 32 m exit range — the link stays.
    await walk(b, A_X + 10, A_X + 28);
    await expect.poll(async () => (await voice(a)).peers[0]?.distance ?? 0, { timeout: 10_000 }).toBeGreaterThan(27);
    await a.waitForTimeout(1500);
    expect((await voice(a)).links).toBe(1);
    expect((await voice(b)).links).toBe(1);

    // 44 m: out of hearing — both sides close; the one whose set drops first says bye.
    await walk(b, A_X + 28, A_X + 44);
    // (A bye can close a side before its own hearing set lets go: poll both.)
    for (const page of [a, b]) {
      await expect.poll(async () => (await voice(page)).links, { timeout: 30_000 }).toBe(0);
      await expect.poll(async () => (await voice(page)).hearing, { timeout: 30_000 }).toEqual([]);
    }
    const [ea, eb] = [await voice(a), await voice(b)];
    expect(ea.byes.sent + eb.byes.sent).toBeGreaterThanOrEqual(1);
    for (const [page, v] of [
      [a, ea],
      [b, eb],
    ] as const) {
      expect(v.connections.created).toBe(1);
      expect(v.connections.closed).toBe(1);
      expect(v.connections.failures, v.connections.lastFailure ?? '').toBe(0);
      expect(await peerConnectionCensus(page)).toEqual({ made: 1, notClosed: 0 });
      expect(await page.evaluate(() => document.querySelectorAll('audio[data-voice-peer]').length)).toBe(0);
    }
    expect(ea.roomPeers).toBe(1); // still in one voice room
    expect(errors).toEqual([]);
  });
});
