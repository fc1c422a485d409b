/**
 * Every page in Firefox ESR (Debian's firefox-esr through puppeteer-core over WebDriver BiDi,
 * headful in Xvfb). With WebGPU switched on, as Firefox ships it on Windows, the world, crowd and
 * scatter pages run on WebGPU through wgpu and naga on Mesa's lavapipe: a third WebGPU
 * implementation and WGSL compiler beside Chromium's Dawn/Tint. As shipped on Linux, Firefox has
 * no WebGPU and the pages run on WebGL2, saying why. Voice talks to a Chromium peer: real WebRTC
 * between two engines. One browser per describe, a small viewport, one load per page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser as ChromiumBrowser, Page as ChromiumPage } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, MEDIA_ARGS } from '../harness/browser.ts';
import {
  audioFacts,
  canvasShot,
  changedInBox,
  contentShare,
  countDifferentPixels,
  crowdFacts,
  ENGINE_VIEWPORT,
  frames,
  hudText,
  openCairnPage,
  rendererFacts,
  scatterFacts,
  scatterLookAt,
  walkNorth,
  WORLD,
} from '../harness/engine-smoke.ts';
import { FIREFOX_MEDIA_PREFS, FIREFOX_WEBGPU_PREFS, launchFirefox, type EnginePage } from '../harness/engines.ts';
import { speak, writeWav } from '../harness/voice-signals.ts';

const base = inject('serverUrl');
const display = inject('display');
const { width: W, height: H } = ENGINE_VIEWPORT;
/** People on the crowd page: enough to fill a share of the picture, few enough for software GL. */
const CROWD = 20;

describe('Firefox ESR with WebGPU switched on', () => {
  let page: EnginePage;

  beforeAll(async () => {
    page = await launchFirefox({ display, viewport: ENGINE_VIEWPORT, prefs: { ...FIREFOX_WEBGPU_PREFS, ...FIREFOX_MEDIA_PREFS } });
  });
  afterAll(async () => page?.close());

  it('world: runs on WebGPU, draws, logs no errors, walks on W', async () => {
    await openCairnPage(page, `${base}/${WORLD}`);
    await frames(page, 2);
    const facts = await rendererFacts(page);
    expect(facts.backend).toBe('WebGPU');
    expect(facts.statsBackend).toBe('WebGPU');
    // The low tier draws Firefox's canvas unscaled: a scaled drawing buffer costs seconds a frame here.
    expect(await page.evaluate(() => window.cairn.stats.quality?.renderScale)).toBe(1);
    expect(facts.fallbackReason).toBeNull();
    // On WebGPU there is no fallback reason, and the HUD shows none.
    expect(facts.statsBackendReason).toBeNull();
    expect(await hudText(page)).not.toMatch(/because/);
    // naga compiles three's `@interpolate(flat, either)`: the WebKit shim stays off here.
    expect(facts.flatSamplingShim).toBe(false);
    expect(facts.shaderErrors).toBe(0);
    expect(facts.errorNotices).toEqual([]);
    expect(await hudText(page)).toContain('WebGPU');
    await page.waitFor('avatar sync to open', 60_000, () => (window.cairn.stats.net as { state?: string } | undefined)?.state === 'open');

    expect((await contentShare(page)).share).toBeGreaterThan(0.9);

    const { before, walking } = await walkNorth(page, 0.5);
    expect(walking.z).toBeLessThan(before.z - 0.5);
    expect(Math.abs(walking.x - before.x)).toBeLessThan(0.1);
    expect(walking.state).toBe('walk');
    expect(await page.errors()).toEqual([]);
  });

  it(`crowd: ${CROWD} avatars on the storage-buffer path, drawn; the count field empties the crowd`, async () => {
    await openCairnPage(page, `${base}/crowd.html?count=${CROWD}`);
    await page.waitFor('the crowd page to finish its setup', 120_000, () => window.cairn.crowdReady === true);
    await frames(page, 2);
    expect((await rendererFacts(page)).backend).toBe('WebGPU');
    const crowd = await crowdFacts(page);
    expect(crowd).toMatchObject({ path: 'storage', agents: CROWD, drawCallsPerPass: 3, lastError: null });
    expect(crowd.visible).toBeGreaterThan(CROWD / 5);
    const { share, drawn: withCrowd } = await contentShare(page);
    expect(share).toBeGreaterThan(0.9);

    await page.fill('.crowd-panel input[type=number]', '0');
    await page.waitFor('the crowd to empty', 60_000, () => (window.cairn.stats.crowd as { agents: number }).agents === 0);
    const empty = await canvasShot(page);
    console.log(`[engines] crowd: ${JSON.stringify({ ...crowd, share, emptied: countDifferentPixels(withCrowd, empty) })}`);
    expect(countDifferentPixels(withCrowd, empty)).toBeGreaterThan(W * H * 0.004);
    expect((await rendererFacts(page)).shaderErrors).toBe(0);
    expect(await page.errors()).toEqual([]);
  });

  it('scatter: a brush stroke paints props that are drawn', async () => {
    await openCairnPage(page, `${base}/scatter.html?seed=5`);
    await page.waitFor(
      'the preset to bake',
      150_000,
      () => (window.cairn.stats.scatter as { bake: { state: string } }).bake.state === 'ready',
    );
    expect((await rendererFacts(page)).backend).toBe('WebGPU');
    expect((await contentShare(page)).share).toBeGreaterThan(0.9);
    await scatterLookAt(page, -20, 10, 60, 1.2);
    const before = await canvasShot(page);
    const y = Math.round(H * 0.55);
    await page.drag([0.08, 0.15, 0.22, 0.29, 0.36].map((f) => [Math.round(W * f), y] as [number, number]));
    await page.waitFor('the stroke to be placed', 60_000, () => {
      const s = window.cairn.stats.scatter as { instances: number; pending: number };
      return s.instances > 0 && s.pending === 0;
    });
    const s = await scatterFacts(page);
    expect(s.instances).toBeGreaterThan(10);
    expect(s.rendered).toBe(s.instances);
    const after = await canvasShot(page);
    const painted = changedInBox(before, after, { x0: 0, y0: y - 40, x1: Math.round(W * 0.5), y1: y + 40 });
    console.log(`[engines] scatter: ${JSON.stringify({ ...s, painted })}`);
    expect(painted).toBeGreaterThan(80);
    expect(await page.errors()).toEqual([]);
  });

  it('sfx: with no sound device the context never starts, and the page reports it as blocked', async () => {
    // Firefox's audio output (cubeb) opens no stream on a machine with no sound card and no
    // PulseAudio: AudioContext.resume() never settles (docs/browsers.md). The page must say so.
    await openCairnPage(page, `${base}/sfx.html?seed=1`);
    expect((await audioFacts(page)).state).toBe('waiting');
    await page.click(W / 2, 12);
    await page.waitFor(
      'the engine to give up on starting',
      30_000,
      () => (window.cairn.stats.audio as { state: string }).state !== 'waiting',
    );
    const a = await audioFacts(page);
    expect(a).toMatchObject({ state: 'blocked', contextState: 'suspended', rms: 0 });
    expect(await page.errors()).toEqual([]);
  });

  describe('voice with a Chromium peer', () => {
    let dir: string;
    let chromium: ChromiumBrowser;
    let peer: ChromiumPage;
    const room = `engines-voice-${process.pid}-${Date.now().toString(36)}`;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'cairn-engines-voice-'));
      writeWav(
        join(dir, 'speech.wav'),
        speak('One two three four five six seven eight nine ten. Hello from Chromium, can Firefox hear me?'),
      );
      chromium = await launchChromium({ args: [...MEDIA_ARGS, `--use-file-for-fake-audio-capture=${join(dir, 'speech.wav')}`] });
      peer = await chromium.newPage({ viewport: { width: 320, height: 240 } });
      await peer.goto(`${base}/voice.html?room=${room}&mode=open&x=2&z=0`);
    });
    afterAll(async () => {
      await chromium?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('connects to Chromium with Opus both ways and receives its audio', async () => {
      await page.goto(`${base}/voice.html?room=${room}&mode=open&x=0&z=0`);
      await page.waitFor('Firefox to connect to the Chromium peer', 60_000, () => {
        const v = window.cairn?.stats?.voice as { state: string; peers: Array<{ connection: string }> } | undefined;
        return v?.state === 'open' && v.peers.length === 1 && v.peers[0]!.connection === 'connected';
      });
      expect(await page.evaluate(() => (window.cairn.stats.voice as { mic: { state: string } }).mic.state)).toBe('live');
      await page.waitFor(
        'the audio from Chromium to arrive',
        30_000,
        () => (window.cairn.stats.voice as { peers: Array<{ packetsIn: number }> }).peers[0]!.packetsIn > 100,
      );
      // Chromium sees Firefox connected too. (What Firefox sends is its capture chain's output,
      // which stays silent while its AudioContext cannot start: no sound device, see the sfx test.)
      await peer.waitForFunction(
        () => (window.cairn.stats.voice as { peers: Array<{ connection: string }> }).peers[0]?.connection === 'connected',
        undefined,
        { timeout: 30_000, polling: 250 },
      );
      const firefoxSide = await page.evaluate(() => {
        const p = (window.cairn.stats.voice as { peers: Array<{ codecIn: string; codecOut: string; id: number }> }).peers[0]!;
        return { codecIn: p.codecIn, codecOut: p.codecOut, id: p.id };
      });
      expect(firefoxSide.codecIn.toLowerCase()).toBe('audio/opus');
      expect(firefoxSide.codecOut.toLowerCase()).toBe('audio/opus');
      expect(await page.errors()).toEqual([]);
    });
  });
});

describe('Firefox ESR as shipped on Linux (no WebGPU)', () => {
  let page: EnginePage;

  beforeAll(async () => {
    page = await launchFirefox({ display, viewport: ENGINE_VIEWPORT });
  });
  afterAll(async () => page?.close());

  it('crowd: runs on WebGL2 with the reason, the crowd on the texture path, drawn', async () => {
    await openCairnPage(page, `${base}/crowd.html?count=${CROWD}`);
    await page.waitFor('the crowd page to finish its setup', 120_000, () => window.cairn.crowdReady === true);
    await frames(page, 2);
    const facts = await rendererFacts(page);
    expect(facts.backend).toBe('WebGL2');
    expect(facts.fallbackReason).toBe('this browser has no WebGPU (navigator.gpu is missing)');
    // The reason stays in view for as long as the fallback runs: `cairn.stats.backendReason` and the HUD's "because" row.
    expect(facts.statsBackendReason).toBe(facts.fallbackReason);
    expect(await hudText(page)).toMatch(/because\s*this browser has no WebGPU/);
    const crowd = await crowdFacts(page);
    expect(crowd).toMatchObject({ path: 'texture', agents: CROWD, drawCallsPerPass: 3, lastError: null });
    expect((await contentShare(page)).share).toBeGreaterThan(0.9);
    expect(await page.errors()).toEqual([]);
  });
});
