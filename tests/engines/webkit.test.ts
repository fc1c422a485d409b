/**
 * Every page in WebKitGTK (Debian's MiniBrowser through WebKitWebDriver, in Xvfb), as GNOME Web
 * users get it: no WebGPU, so every page runs on three's WebGL2 backend and says why; no WebRTC in
 * Debian's build, so voice says it cannot connect. One browser for the world, one for the other
 * pages, a small viewport, one load per page: WebKit draws the world at a frame every second or more here.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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
  setFieldInPage,
  walkNorth,
  WORLD,
} from '../harness/engine-smoke.ts';
import { launchWebKit, type EnginePage } from '../harness/engines.ts';

const base = inject('serverUrl');
const display = inject('display');
const { width: W, height: H } = ENGINE_VIEWPORT;
/** People on the crowd page: enough to fill a share of the picture, few enough for software GL. */
const CROWD = 20;

// The world, the slowest page, has a session of its own: should it run past its time, closing that
// session ends its pending commands, and the pages after it start in a fresh browser.
describe('WebKitGTK, as shipped (WebGL2): the world', () => {
  let page: EnginePage;

  beforeAll(async () => {
    page = await launchWebKit({ display, viewport: ENGINE_VIEWPORT });
  });
  afterAll(async () => page?.close());

  // Its own hang guard: a page load and a few frames in software GL on a loaded machine.
  it('world: runs on WebGL2 with the reason in view, draws, logs no errors, walks on W', { timeout: 300_000 }, async () => {
    await openCairnPage(page, `${base}/${WORLD}`);
    await frames(page, 2);
    const facts = await rendererFacts(page);
    expect(facts.backend).toBe('WebGL2');
    expect(facts.statsBackend).toBe('WebGL2');
    expect(facts.fallbackReason).toBe('this browser has no WebGPU (navigator.gpu is missing)');
    expect(facts.shaderErrors).toBe(0);
    // The reason stays in view for as long as the fallback runs: `cairn.stats.backendReason` and the HUD's "because" row.
    expect(facts.statsBackendReason).toBe(facts.fallbackReason);
    expect(await hudText(page)).toMatch(/because\s*this browser has no WebGPU/);

    expect(facts.errorNotices).toEqual([]);
    expect(await hudText(page)).toContain('WebGL2');
    // The world's WebSocket (avatar sync) opens in WebKit too.
    await page.waitFor('avatar sync to open', 60_000, () => (window.cairn.stats.net as { state?: string } | undefined)?.state === 'open');

    expect((await contentShare(page)).share).toBeGreaterThan(0.9);

    const { before, walking } = await walkNorth(page, 0.5);
    expect(walking.z).toBeLessThan(before.z - 0.5);
    expect(Math.abs(walking.x - before.x)).toBeLessThan(0.1);
    expect(walking.state).toBe('walk');
    expect(await page.errors()).toEqual([]);
  });
});

describe('WebKitGTK, as shipped (WebGL2)', () => {
  let page: EnginePage;

  beforeAll(async () => {
    page = await launchWebKit({ display, viewport: ENGINE_VIEWPORT });
  });
  afterAll(async () => page?.close());

  it(`crowd: ${CROWD} avatars on the WebGL2 texture path, drawn; the count field empties the crowd`, async () => {
    await openCairnPage(page, `${base}/crowd.html?count=${CROWD}`);
    await page.waitFor('the crowd page to finish its setup', 120_000, () => window.cairn.crowdReady === true);
    await frames(page, 2);
    const facts = await rendererFacts(page);
    expect(facts.backend).toBe('WebGL2');
    expect(facts.fallbackReason).toMatch(/WebGPU/);
    const crowd = await crowdFacts(page);
    expect(crowd).toMatchObject({ path: 'texture', agents: CROWD, drawCallsPerPass: 3, lastError: null });
    expect(crowd.visible).toBeGreaterThan(CROWD / 5);
    const { share, drawn: withCrowd } = await contentShare(page);
    expect(share).toBeGreaterThan(0.9);

    // Set in the page, as typing ends: the driver's typing waits on a busy page (docs/browsers.md).
    await setFieldInPage(page, '.crowd-panel input[type=number]', '0');
    await page.waitFor('the crowd to empty', 60_000, () => (window.cairn.stats.crowd as { agents: number }).agents === 0);
    const empty = await canvasShot(page);
    console.log(`[engines] crowd: ${JSON.stringify({ ...crowd, share, emptied: countDifferentPixels(withCrowd, empty) })}`);
    // The people were drawn: taking them away changes the picture (20 people at 320×180: about 0.8 %).
    expect(countDifferentPixels(withCrowd, empty)).toBeGreaterThan(W * H * 0.004);
    expect(await page.errors()).toEqual([]);
  });

  it('scatter: a brush stroke paints props that are drawn', async () => {
    await openCairnPage(page, `${base}/scatter.html?seed=5`);
    await page.waitFor(
      'the preset to bake',
      150_000,
      () => (window.cairn.stats.scatter as { bake: { state: string } }).bake.state === 'ready',
    );
    expect((await rendererFacts(page)).backend).toBe('WebGL2');
    expect((await contentShare(page)).share).toBeGreaterThan(0.9);
    // A gentle slope west of the spawn, seen from above; the stroke stays left of the brush panel.
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

  it('sfx: a click starts the sound, a recipe button plays, the worklet meter moves', async () => {
    await openCairnPage(page, `${base}/sfx.html?seed=1`);
    expect((await audioFacts(page)).state).toBe('waiting');
    // The first gesture builds the audio graph (music and wind start with it).
    await page.click(W / 2, 12);
    await page.waitFor('sound to start and reach the meter', 30_000, () => {
      const s = window.cairn.stats.audio as { state: string; rms: number; loudness: { source: string } };
      return s.state === 'running' && s.rms > 0.005 && s.loudness.source === 'worklet';
    });
    await page.clickElement('button[data-recipe="strike"]');
    await page.waitFor(
      'the strike to play',
      10_000,
      () => (window.cairn.stats.audio as { byRecipe: Record<string, number> }).byRecipe.strike === 1,
    );
    await page.waitFor(
      'the RMS meter to show the level',
      10_000,
      () => Number.parseFloat(document.querySelector<HTMLElement>('#meter-rms-db')!.innerText) > -60,
    );
    const a = await audioFacts(page);
    expect(a.contextState).toBe('running');
    expect(a.byRecipe.strike).toBe(1);
    expect(a.meterDb).toBeGreaterThan(-60);
    expect(a.meterDb).toBeLessThan(0);
    expect(await page.errors()).toEqual([]);
  });

  it('voice: without WebRTC the page says so instead of failing when someone joins', async () => {
    await page.goto(`${base}/voice.html?room=engines-webkit-${process.pid}&mode=open`);
    expect(await page.evaluate(() => typeof window.RTCPeerConnection)).toBe('undefined');
    await page.waitFor('the voice page to give up', 30_000, () => typeof window.cairn?.fatal === 'string');
    const fatal = await page.evaluate(() => window.cairn.fatal!);
    expect(fatal).toMatch(/no WebRTC \(RTCPeerConnection is missing\)/);
    const shown = await page.evaluate(() => document.querySelector<HTMLElement>('.cairn-fatal')?.innerText ?? '');
    expect(shown).toContain('WebRTC');
    // It never took a place in the room.
    expect(await page.evaluate(() => (window.cairn.stats.voice as { id: number | null } | undefined)?.id ?? null)).toBeNull();
  });
});

describe('WebKitGTK with its WebGPU feature switched on', () => {
  let page: EnginePage;

  beforeAll(async () => {
    page = await launchWebKit({ display, viewport: ENGINE_VIEWPORT, features: ['+WebGPU'] });
  });
  afterAll(async () => page?.close());

  it('exposes navigator.gpu as null (no WebGPU implementation in the GTK port), and the crowd falls back to WebGL2 saying so', async () => {
    await openCairnPage(page, `${base}/crowd.html?count=0`);
    const gpu = await page.evaluate(() => ({ has: 'gpu' in navigator, value: navigator.gpu === null ? 'null' : typeof navigator.gpu }));
    expect(gpu).toEqual({ has: true, value: 'null' });
    const facts = await rendererFacts(page);
    expect(facts.backend).toBe('WebGL2');
    expect(facts.fallbackReason).toBe('this browser has navigator.gpu but it is null (WebGPU is switched on without an implementation)');
    expect(await page.errors()).toEqual([]);
  });
});
