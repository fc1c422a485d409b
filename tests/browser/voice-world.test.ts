/**
 * Voice in the world: `/?voice=1&room=NAME` joins the voice room of the current room, the
 * AudioListener follows the player, and the player's position reaches the other peers through the
 * VoiceRoom. The other peer is a voice.html page in the same browser, talking with an open mic.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, hudText, launchChromium, MEDIA_ARGS, waitForCairn } from '../harness/browser.ts';
import { measurePeer, voiceStats, waitForPeers } from '../harness/voice-page.ts';
import { speak, writeWav } from '../harness/voice-signals.ts';

const base = inject('serverUrl');
const room = `voice-world-${process.pid}-${Date.now().toString(36)}`;

describe('voice in the world page', () => {
  let dir: string;
  let browser: Browser;
  let world: Page;
  let peer: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-voice-world-'));
    writeWav(
      join(dir, 'speech.wav'),
      speak('Can you hear me in the world? I am standing right next to you, a little to the east.', { wordsPerMinute: 170 }),
    );
    browser = await launchChromium({ args: [...MEDIA_ARGS, `--use-file-for-fake-audio-capture=${join(dir, 'speech.wav')}`] });
    world = await browser.newPage({ viewport: { width: 480, height: 300 } });
    errors = collectPageErrors(world);
    // The world joins with push-to-talk (nothing held: it sends silence, and it listens). A bare
    // map (no forest, people or others' strokes): SwiftShader walks it at a higher frame rate.
    await world.goto(`${base}/?voice=1&room=${room}&net=off&ambient=0&people=0&shared=0`);
    await waitForCairn(world);
    peer = await browser.newPage({ viewport: { width: 320, height: 240 } });
    await peer.goto(`${base}/voice.html?room=${room}&mode=open`);
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('joins with ?voice=1, hears the peer, and follows the player with the listener', async () => {
    const sw = await waitForPeers(world, 1);
    const sp = await waitForPeers(peer, 1);
    expect(sw.mic.state).toBe('live');
    expect(sw.ptt.mode).toBe('push-to-talk');

    // Stand the peer 3 m east of the player, at the player's height.
    const player = await world.evaluate(() => ({ ...window.cairn.world!.player.state }));
    await peer.evaluate((p) => window.cairn.voicePage!.place(p.x + 3, p.y, p.z, 0), player);
    await expect.poll(async () => (await voiceStats(world)).peers[0]!.distance, { timeout: 10_000 }).toBeCloseTo(3, 0);
    expect(await measurePeer(world, sp.id!, 2)).toBeGreaterThan(-45);

    // The listener sits on the player, looking along forward = (sin facing, 0, cos facing).
    const listener = await world.evaluate(() => {
      const l = window.cairn.voice!.context.listener;
      const s = window.cairn.world!.player.state;
      return {
        x: l.positionX.value,
        y: l.positionY.value,
        z: l.positionZ.value,
        fx: l.forwardX.value,
        fz: l.forwardZ.value,
        player: { ...s },
      };
    });
    expect(listener.x).toBeCloseTo(listener.player.x, 1);
    expect(listener.y).toBeCloseTo(listener.player.y, 1);
    expect(listener.z).toBeCloseTo(listener.player.z, 1);
    expect(listener.fx).toBeCloseTo(Math.sin(listener.player.facing), 2);
    expect(listener.fz).toBeCloseTo(Math.cos(listener.player.facing), 2);

    // The player's position reaches the other peer through the VoiceRoom (not through avatar sync).
    const seen = await peer.evaluate((id) => window.cairn.voice!.mixer.peerPosition(id), sw.id!);
    expect(seen!.x).toBeCloseTo(player.x, 0);
    expect(seen!.z).toBeCloseTo(player.z, 0);

    const hud = await hudText(world);
    expect(hud).toMatch(/VOICE|Voice/);
    expect(hud).toMatch(/push-to-talk · hold V/);
    expect(await world.locator('.cairn-voice button[data-kind="join"]').innerText()).toBe('Leave voice');
  });

  it('walking moves the listener and the position the peer hears', async () => {
    const before = await world.evaluate(() => ({ ...window.cairn.world!.player.state }));
    await world
      .locator('canvas')
      .first()
      .click({ position: { x: 240, y: 250 } });
    await world.keyboard.down('KeyW');
    await world.waitForFunction((z0) => window.cairn.world!.player.state.z < z0 - 1.5, before.z, {
      timeout: 60_000,
      polling: 100,
    });
    await world.keyboard.up('KeyW');
    const id = (await voiceStats(world)).id!;
    await expect
      .poll(
        async () => {
          const [now, seen] = await Promise.all([
            world.evaluate(() => window.cairn.world!.player.state.z),
            peer.evaluate((i) => window.cairn.voice!.mixer.peerPosition(i)?.z ?? NaN, id),
          ]);
          return Math.abs(now - seen);
        },
        { timeout: 10_000 },
      )
      .toBeLessThan(0.2);
    const listenerZ = await world.evaluate(() => window.cairn.voice!.context.listener.positionZ.value);
    expect(listenerZ).toBeLessThan(before.z - 1.5);
  });

  it('leaves cleanly with the button', async () => {
    // Held on the page: leaving withdraws the voice service, so `cairn.voice` goes with it.
    await world.evaluate(() => Reflect.set(window, 'leftVoice', window.cairn.voice));
    await world.locator('.cairn-voice button[data-kind="join"]').click();
    await expect.poll(() => world.evaluate(() => window.cairn.stats.voice!.state)).toBe('closed');
    await expect.poll(async () => (await voiceStats(peer)).peers.length, { timeout: 10_000 }).toBe(0);
    expect(await world.locator('.cairn-voice button[data-kind="join"]').innerText()).toBe('Join voice');
    expect(await world.evaluate(() => window.cairn.voice)).toBeUndefined();
    expect(await world.evaluate(() => (Reflect.get(window, 'leftVoice') as { context: AudioContext }).context.state)).toBe('closed');
    expect(errors).toEqual([]);
  });

  it('joins again after leaving: a fresh audio context, HRTF panning, the peer heard', async () => {
    // The context just closed had finished its HRTF probe: closing it must leave the page (and
    // the browser) running, and a new one must find the HRTF data again.
    await world.locator('.cairn-voice button[data-kind="join"]').click();
    const sw = await waitForPeers(world, 1);
    const sp = await waitForPeers(peer, 1);
    expect(sw.audio).toBe('running');
    await expect.poll(async () => (await voiceStats(world)).spatial, { timeout: 20_000 }).toBe('ready');
    expect(await measurePeer(world, sp.id!, 2)).toBeGreaterThan(-45);
    expect(await world.locator('.cairn-voice button[data-kind="join"]').innerText()).toBe('Leave voice');
    expect(errors).toEqual([]);
  });
});
