/**
 * The crowd page in headless Chromium on WebGPU: draw calls stay one per geometry piece per pass
 * at 50 and at 200 avatars, avatars show up where they stand and animate, the GPU budget
 * calibrates at idle, and bringing your own character works — including files with morph
 * targets, eight influences per vertex, several pieces and another bone count — while bad
 * models (no skeleton, too many bones, a failed load, garbage bytes) get a clear message and
 * leave the running crowd untouched. `?model=URL` with a rig that has no clips (a robot of rigid
 * parts) gets the animation library retargeted onto it, is drawn whole and animates.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Vector3 } from 'three';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildFixtureCharacter, buildStaticModel, exportGlb } from '../harness/crowd-fixtures.ts';
import { collectPageErrors, hudText, launchChromium, waitForCairn } from '../harness/browser.ts';
import { decodePng, type Image } from '../harness/png.ts';
import type { CrowdPageStats } from '../../src/crowd/index.ts';
import { readModelFile } from '../../src/rig/node/model-file.ts';
import type { CairnStats } from '../../src/world/cairn-global.ts';

const base = inject('serverUrl');
const WIDTH = 480;
const HEIGHT = 300;
/**
 * The large crowd: hundreds, as the world draws them. SwiftShader takes about 4 s a frame at 500
 * on two cores (1.2 s at 50), and the draw-call check needs no more than a few times the small one.
 */
const LARGE = 200;

/** The crowd page's figures: it always publishes `stats.crowd`. */
type PageStats = CairnStats & { crowd: CrowdPageStats };

interface ScreenAgent {
  x: number;
  y: number;
  distance: number;
  mode: string;
  /** The chest point is inside the viewport (not just the avatar's bounding sphere). */
  inside: boolean;
}

/** A JSON copy of the crowd page's `cairn.stats`. */
async function stats(page: Page): Promise<PageStats> {
  return page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats)) as PageStats);
}

async function frames(page: Page, count: number): Promise<void> {
  await page.evaluate((n) => window.cairn.stage!.frames(n), count);
}

async function setCount(page: Page, count: number): Promise<void> {
  await page.evaluate((n) => window.cairn.crowdPage!.setCount(n), count);
  await frames(page, 2);
}

async function shot(page: Page): Promise<Image> {
  return decodePng(await page.screenshot());
}

/** Screen position (pixels) of every drawn avatar's chest, with its distance and mode. */
async function onScreen(page: Page): Promise<ScreenAgent[]> {
  const raw = await page.evaluate(() => {
    const crowd = window.cairn.crowd!;
    const camera = window.cairn.camera!;
    return {
      agents: crowd
        .agentList()
        .filter((a) => a.onScreen)
        .map((a) => ({ x: a.x, y: a.y, z: a.z, mode: a.mode })),
      projection: [...camera.projectionMatrix.elements],
      view: [...camera.matrixWorldInverse.elements],
      eye: [camera.position.x, camera.position.y, camera.position.z],
    };
  });
  return raw.agents.flatMap((a) => {
    const p = new Vector3(a.x, a.y + 1.2, a.z);
    const distance = p.distanceTo(new Vector3(...(raw.eye as [number, number, number])));
    p.applyMatrix4({ elements: raw.view } as never).applyMatrix4({ elements: raw.projection } as never);
    if (p.z > 1) return [];
    const inside = Math.abs(p.x) < 0.95 && Math.abs(p.y) < 0.95;
    return [{ x: ((p.x + 1) / 2) * WIDTH, y: ((1 - p.y) / 2) * HEIGHT, distance, mode: a.mode, inside }];
  });
}

/** Pixels that differ (by more than 24 in a channel) inside a box around a screen point. */
function changedNear(a: Image, b: Image, x: number, y: number, halfWidth: number, halfHeight: number): number {
  let count = 0;
  for (let py = Math.max(0, Math.round(y - halfHeight)); py < Math.min(a.height, Math.round(y + halfHeight)); py++) {
    for (let px = Math.max(0, Math.round(x - halfWidth)); px < Math.min(a.width, Math.round(x + halfWidth)); px++) {
      const i = (py * a.width + px) * 4;
      if (
        Math.abs(a.data[i]! - b.data[i]!) > 24 ||
        Math.abs(a.data[i + 1]! - b.data[i + 1]!) > 24 ||
        Math.abs(a.data[i + 2]! - b.data[i + 2]!) > 24
      )
        count++;
    }
  }
  return count;
}

/** Every changed pixel, and how many of them lie near no avatar. */
function changedAway(a: Image, b: Image, agents: ScreenAgent[]): { changed: number; away: number } {
  let changed = 0;
  let away = 0;
  for (let py = 0; py < a.height; py++) {
    for (let px = 0; px < a.width; px++) {
      const i = (py * a.width + px) * 4;
      if (!(
        Math.abs(a.data[i]! - b.data[i]!) > 24 ||
        Math.abs(a.data[i + 1]! - b.data[i + 1]!) > 24 ||
        Math.abs(a.data[i + 2]! - b.data[i + 2]!) > 24
      ))
        continue;
      changed++;
      // A character 1.8 m tall at distance d spans about (focal × 1.8 / d) pixels; allow its shadow too.
      const near = agents.some((g) => {
        const size = (HEIGHT / (2 * Math.tan((55 * Math.PI) / 360))) * (2.6 / g.distance);
        return Math.abs(px - g.x) < size && Math.abs(py - g.y) < size * 1.2;
      });
      if (!near) away++;
    }
  }
  return { changed, away };
}

describe('the crowd page on WebGPU', () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const drawCalls: Record<number, number> = {};

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
    // SwiftShader draws hundreds of avatars slowly on a busy machine; screenshots wait for a frame.
    page.setDefaultTimeout(150_000);
    errors = collectPageErrors(page);
    // still=1: peers stand where they are (they still animate), so screenshots compare cleanly.
    // Every peer's head follows the camera (procedural control): those within 16 m go live, the
    // rest of the crowd is GPU-animated, so both paths are checked side by side.
    await page.goto(`${base}/crowd.html?count=0&still=1&liveEnter=16&liveExit=22&lookAt=1`);
    await waitForCairn(page, 120_000);
    await page.waitForFunction(() => window.cairn.crowdReady === true, undefined, { timeout: 120_000, polling: 200 });
    // The player is animated too; hide it so every change on screen belongs to the crowd.
    await page.evaluate(() => (window.cairn.avatar!.humanoid!.object.visible = false));
    // Overlays would show up as changed pixels; transparent, they still hold their text.
    await page.addStyleTag({ content: '.cairn-notices, .crowd-panel, .cairn-help, .cairn-hud { opacity: 0 !important; }' });
    await frames(page, 2);
    drawCalls[0] = (await stats(page)).drawCalls;
  });
  afterAll(async () => browser?.close());

  it('calibrates the GPU budget on the empty crowd and passes at idle', async () => {
    const timestamps = await page.evaluate(() => window.cairn.rendererStatus!.timestampQueries);
    if (!timestamps) {
      // No numbers invented where the device cannot measure.
      expect((await stats(page)).crowd.budget!.state).toBe('unavailable');
      return;
    }
    await page.waitForFunction(() => window.cairn.stats.crowd!.budget!.state === 'pass', undefined, {
      timeout: 120_000,
      polling: 250,
    });
    expect(await hudText(page)).toMatch(/gpu budget\s+PASS/);
  });

  for (const count of [50, LARGE]) {
    describe(`with ${count} avatars`, () => {
      let withCrowd: Image;
      let withoutCrowd: Image;
      let again: Image;
      let later: Image;
      let agents: ScreenAgent[];

      beforeAll(async () => {
        await setCount(page, count);
        // Crowd time stands still for the first pictures, then runs.
        await page.evaluate(() => (window.cairn.stageCrowd!.paused = true));
        await frames(page, 1);
        withCrowd = await shot(page);
        agents = await onScreen(page);
        await page.evaluate(() => (window.cairn.crowd!.object.visible = false));
        await frames(page, 1);
        withoutCrowd = await shot(page);
        await page.evaluate(() => (window.cairn.crowd!.object.visible = true));
        await frames(page, 1);
        // Once is enough to show a paused crowd stays put (SwiftShader draws the large crowd slowly).
        if (count === 50) again = await shot(page);
        await page.evaluate(() => (window.cairn.stageCrowd!.paused = false));
        await frames(page, 2);
        later = await shot(page);
        if (count !== 50) again = withCrowd;
      }, 480_000);

      it('draws each geometry piece once per pass, whatever the crowd size', async () => {
        const s = await stats(page);
        drawCalls[count] = s.drawCalls;
        expect(s.backend).toBe('WebGPU');
        expect(s.crowd.path).toBe('storage');
        expect(s.crowd.agents).toBe(count);
        expect(s.crowd.pieces).toBe(3);
        // Main view + the sun's shadow map: the crowd adds pieces × 2 draws, at 50 as at 200.
        expect(s.drawCalls - drawCalls[0]!).toBe(s.crowd.drawCallsPerPass * 2);
        expect(s.crowd.drawCallsPerPass).toBe(3);
        if (count === LARGE) expect(drawCalls[LARGE]).toBe(drawCalls[50]);
        expect(s.crowd.visible).toBeGreaterThan(count * 0.4);
        expect(s.crowd.live).toBeGreaterThan(0);
        expect(s.crowd.gpu).toBeGreaterThan(0);
        expect(s.crowd.live + s.crowd.gpu + s.crowd.culled).toBeGreaterThanOrEqual(count);
        // Why each avatar takes its path, in the stats and the HUD.
        expect(s.crowd.reasons['live: look-at']).toBe(s.crowd.live);
        expect(s.crowd.reasons['gpu: control beyond the live radius']).toBeGreaterThan(0);
        expect(s.shaderErrors).toBe(0);
        const hud = await hudText(page);
        expect(hud).toContain(`${s.crowd.gpu} / ${s.crowd.live} / ${s.crowd.culled}`);
        expect(hud).toMatch(/live · look-at\s+\d+/);
        expect(hud).toMatch(/bone path\s+storage/);
      });

      it('shows avatars where they stand, and nothing where none stands', () => {
        // The nearest avatars, live and GPU-animated alike, each cover pixels at their projected spot.
        const byDistance = agents.filter((a) => a.inside).sort((a, b) => a.distance - b.distance);
        const live = byDistance.filter((a) => a.mode === 'live').slice(0, 5);
        const gpu = byDistance.filter((a) => a.mode === 'gpu').slice(0, 5);
        expect(live.length).toBeGreaterThan(0);
        expect(gpu.length).toBeGreaterThan(0);
        for (const agent of [...live, ...gpu]) {
          const size = (HEIGHT / (2 * Math.tan((55 * Math.PI) / 360))) * (0.5 / agent.distance);
          expect(
            changedNear(withCrowd, withoutCrowd, agent.x, agent.y, size, size),
            `avatar at ${agent.x.toFixed(0)},${agent.y.toFixed(0)} (${agent.mode})`,
          ).toBeGreaterThan(0);
        }
        const { changed, away } = changedAway(withCrowd, withoutCrowd, agents);
        expect(changed).toBeGreaterThan(1000);
        expect(away / changed).toBeLessThan(0.02);
      });

      it('animates them (live and GPU), and holds still while paused', () => {
        // Paused, hidden and shown again: the very same picture.
        if (count === 50) expect(changedAway(withCrowd, again, agents).changed).toBe(0);
        const { changed: moving, away } = changedAway(again, later, agents);
        expect(moving).toBeGreaterThan(200);
        expect(away / moving).toBeLessThan(0.02);
        const nearest = agents.filter((g) => g.inside).sort((x, y) => x.distance - y.distance);
        for (const mode of ['live', 'gpu']) {
          const agent = nearest.find((g) => g.mode === mode)!;
          const size = (HEIGHT / (2 * Math.tan((55 * Math.PI) / 360))) * (1.2 / agent.distance);
          expect(changedNear(again, later, agent.x, agent.y, size, size * 1.3), `the nearest ${mode} avatar animates`).toBeGreaterThan(0);
        }
      });
    });
  }

  it('grows the budget by 0.06 ms per avatar against the frozen idle baseline', async () => {
    const s = (await stats(page)).crowd;
    if (s.budget!.state === 'unavailable') return;
    const reading = await page.evaluate(() => {
      const budget = window.cairn.stageCrowd!.budget;
      return { idle: budget.budgetFor(0), full: budget.budgetFor(500) };
    });
    expect(reading.full - reading.idle).toBeCloseTo(30, 5);
    expect(s.budget!.baselineMs).not.toBeNull();
  });

  describe('bring your own character', () => {
    let file: (name: string, bytes: ArrayBuffer) => Promise<void>;

    beforeAll(async () => {
      await setCount(page, 30);
      file = async (name, bytes) => {
        await page
          .locator('.crowd-panel input[type=file]')
          .setInputFiles({ name, mimeType: 'model/gltf-binary', buffer: Buffer.from(bytes) });
      };
    });

    it('fills the crowd with a dropped model: morph targets, 8 influences, 3 pieces, 23 bones', async () => {
      const fixture = buildFixtureCharacter({ bones: 23, pieces: 3, influences: 8, morphs: true, color: 0xd02090 });
      await file('totem.glb', await exportGlb(fixture.object, fixture.clips));
      await page.waitForFunction(() => window.cairn.stats.crowd!.template === 'totem.glb', undefined, {
        timeout: 120_000,
        polling: 250,
      });
      await frames(page, 2);
      const s = await stats(page);
      expect(s.crowd).toMatchObject({ bones: 23, pieces: 3, agents: 30, lastError: null });
      expect(s.shaderErrors).toBe(0);
      expect(s.drawCalls - drawCalls[0]!).toBe(3 * 2);
      const notice = await page.evaluate(() => window.cairn.notices.at(-1));
      expect(notice?.title).toBe('Crowd character: totem.glb');
      expect(notice?.detail).toMatch(/morph targets? set aside: crowd avatars do not run morph targets/);
      expect(notice?.detail).toMatch(/more than 4 influences: kept the strongest 4, renormalised/);
      // It is on screen: magenta pixels where the orange-shirted mannequins stood.
      const image = await shot(page);
      let magenta = 0;
      for (let i = 0; i < image.data.length; i += 4)
        if (image.data[i]! > 120 && image.data[i + 2]! > 60 && image.data[i + 1]! < 80) magenta++;
      expect(magenta).toBeGreaterThan(200);
    });

    it('fills the crowd with a character whose texture is missing, drawn without it and said', async () => {
      // Kenney's character names its texture as an external PNG; dropped alone, the PNG is not there (404).
      const kenney = readFileSync(join(import.meta.dirname, '../fixtures/import/kenney-character-male-a.glb'));
      await file('kenney-alone.glb', kenney.buffer.slice(kenney.byteOffset, kenney.byteOffset + kenney.byteLength) as ArrayBuffer);
      await page.waitForFunction(() => window.cairn.stats.crowd!.template === 'kenney-alone.glb', undefined, {
        timeout: 120_000,
        polling: 250,
      });
      const s = await stats(page);
      expect(s.crowd.lastError).toBeNull();
      expect(s.crowd.losses).toContain('texture "Textures/colormap.png" is missing: drawn without it');
      const notice = await page.evaluate(() => window.cairn.notices.at(-1));
      expect(notice).toMatchObject({ level: 'warn', title: 'Crowd character: kenney-alone.glb' });
      expect(notice?.detail).toContain('texture "Textures/colormap.png" is missing: drawn without it');
      // The peers come back on the new character before the next test looks.
      await page.waitForFunction(() => window.cairn.stats.crowd!.agents === 30, undefined, {
        timeout: 60_000,
        polling: 250,
      });
    });

    const rejections: Array<[string, () => Promise<void>, RegExp]> = [
      [
        'a model with no skeleton',
        async () => file('statue.glb', await exportGlb(buildStaticModel())),
        /^statue\.glb: has no skeleton: 1 mesh and no bones or animated nodes; a character needs a skinned mesh$/m,
      ],
      [
        'more bones than the buffers were sized for',
        async () => {
          const big = buildFixtureCharacter({ bones: 300 });
          await file('centipede.glb', await exportGlb(big.object, big.clips));
        },
        /has 300 bones; this crowd's bone buffers are sized for at most 256/,
      ],
      [
        'a failed load (HTTP 404)',
        () => page.evaluate(() => window.cairn.crowdPage!.loadModelUrl('/models/missing-hero.glb')),
        /missing-hero\.glb: HTTP 404/,
      ],
      [
        'bytes that are not a model',
        () => file('broken.glb', new TextEncoder().encode('definitely not a glb').buffer as ArrayBuffer),
        /broken\.glb: it is not a glTF\/GLB file/,
      ],
    ];
    for (const [what, load, message] of rejections) {
      it(`rejects ${what} with a clear message and leaves the crowd untouched`, async () => {
        const before = await stats(page);
        const notices = await page.evaluate(() => window.cairn.notices.length);
        await load();
        await page.waitForFunction((n) => window.cairn.notices.length > n, notices, { timeout: 60_000, polling: 200 });
        const notice = await page.evaluate(() => window.cairn.notices.at(-1)!);
        expect(notice.level).toBe('error');
        expect(notice.title).toBe('This model cannot join the crowd');
        expect(notice.detail).toMatch(message);
        expect(notice.detail).toMatch(/The running crowd is unchanged/);
        await frames(page, 2);
        const after = await stats(page);
        expect(after.crowd.template).toBe(before.crowd.template);
        expect(after.crowd.agents).toBe(before.crowd.agents);
        expect(after.crowd.lastError).toMatch(message);
        expect(after.frame).toBeGreaterThan(before.frame);
        expect(after.drawCalls).toBe(before.drawCalls);
        expect(await hudText(page)).toMatch(/model\s/);
      });
    }

    it('logged no page errors along the way', () => {
      // A failed fetch logs a console error in Chromium, and three's loader one for the texture it
      // could not load (said in the notice and the stats above); nothing else may.
      expect(
        errors.filter((e) => !/Failed to load resource.*404|GLTFLoader: Couldn't load texture Textures\/colormap\.png/.test(e)),
      ).toEqual([]);
    });
  });
});

describe('the crowd page with ?model=', () => {
  const ROBOT = join(import.meta.dirname, '../fixtures/import/robot-rigid.glb');
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 320, height: 240 } });
    errors = collectPageErrors(page);
    // The models are test files, served at URLs on the page's own origin.
    const robot = readFileSync(ROBOT);
    const fixture = buildFixtureCharacter({ bones: 7, pieces: 2, color: 0x20a0d0 });
    const column = Buffer.from(await exportGlb(fixture.object, fixture.clips));
    for (const [path, body] of [
      ['/models/robot-rigid.glb', robot],
      ['/models/column.glb', column],
    ] as const)
      await page.route(
        (url) => url.pathname === path,
        (route) => route.fulfill({ status: 200, contentType: 'model/gltf-binary', body }),
      );
    // lookAt=0: no avatar is live, so every one is skinned on the GPU from the baked table read below.
    await page.goto(`${base}/crowd.html?count=20&lookAt=0&model=/models/robot-rigid.glb`);
    await waitForCairn(page, 120_000);
    await page.waitForFunction(() => window.cairn.crowdReady === true, undefined, { timeout: 120_000, polling: 200 });
  }, 240_000);
  afterAll(async () => browser?.close());

  it('gives a rig without clips the library, draws every rigid part, and animates it (robot-rigid.glb)', async () => {
    await frames(page, 1);
    const s = await stats(page);
    // Two skinned hands, the morphing head, the other twelve rigid parts merged: 4 pieces.
    expect(s.crowd).toMatchObject({ template: 'robot-rigid.glb', pieces: 4, agents: 20, lastError: null });
    expect(s.crowd.drawCallsPerPass).toBe(4);
    expect(s.crowd.live).toBe(0);
    // Every vertex of the file, as the import layer counts it in Node, is drawn (the hands alone are a fifth).
    const inFile = (await readModelFile(ROBOT)).report.sourceVertices;
    expect(s.crowd.sourceVertices).toBe(inFile);
    expect(s.crowd.drawnVertices).toBe(s.crowd.sourceVertices);
    // The file has no clips: the library's six crowd clips, retargeted on load, are what is baked.
    expect(s.crowd.clips).toBe(6);
    expect(s.shaderErrors).toBe(0);
    const notice = await page.evaluate(() => window.cairn.notices.find((n) => n.title.startsWith('Crowd character:')));
    // A warning: its visor's morph target is set aside (crowd avatars run no morphs), and said.
    expect(notice).toMatchObject({ level: 'warn', title: 'Crowd character: robot-rigid.glb' });
    expect(notice!.detail).toMatch(/1 morph target set aside: crowd avatars do not run morph targets \(visor_open\)/);
    expect(notice!.detail).toMatch(/clips: idle, walk_fwd, run_fwd, dance, wave, cheer/);
    expect(notice!.detail).toMatch(/6 library clip\(s\) retargeted onto it for the states its file has no clip for/);
    expect(notice!.detail).toMatch(
      /clips: idle ← idle \(library\), walk ← walk_fwd \(library\), run ← run_fwd \(library\), dance ← dance \(library\)/,
    );
    expect(notice!.detail).toMatch(/13 rigid part\(s\) under bones became 2 skinned piece\(s\)/);
    expect(notice!.detail).toMatch(
      new RegExp(`draws ${s.crowd.sourceVertices!.toLocaleString('en-US')} of ${s.crowd.sourceVertices!.toLocaleString('en-US')} vertices`),
    );
    // Every avatar plays a library clip (walkers walk_fwd, the rest idle or dance).
    const playing = await page.evaluate(() => window.cairn.crowd!.agentList().map((a) => a.clip));
    expect(playing).toHaveLength(20);
    for (const clip of playing) expect(['walk_fwd', 'idle', 'dance']).toContain(clip);
    expect(playing).toContain('walk_fwd');
    // They animate: between two frames each avatar's clip time advances, and the rows of the baked
    // table the GPU skins it from (every bone's matrix at that time) change. In a bind pose they
    // would not: one row, the same matrices.
    const poses = (): Promise<Array<{ clip: string; time: number; pose: number[] }>> =>
      page.evaluate(() => {
        const crowd = window.cairn.crowd!;
        const { data, rowStride, plan } = crowd.baked;
        return crowd.agentList().map((agent) => {
          const layout = plan.clips.find((c) => c.name === agent.clip)!;
          const t = layout.loop ? agent.time % layout.duration : Math.min(agent.time, layout.duration);
          const row = layout.startRow + Math.round((t / layout.duration) * (layout.frames - 1));
          return { clip: agent.clip, time: agent.time, pose: [...data.subarray(row * rowStride, (row + 1) * rowStride)] };
        });
      });
    const first = await poses();
    await frames(page, 1);
    const second = await poses();
    const moved = first.map((a, i) => Math.max(...a.pose.map((v, k) => Math.abs(v - second[i]!.pose[k]!))));
    for (const [i, a] of first.entries()) {
      // Clip time runs (it wraps at the end of a loop, and a peer may switch activity meanwhile).
      expect(second[i]!.time, `avatar ${i} (${a.clip}) advances`).not.toBe(a.time);
      if (a.clip === 'walk_fwd' && second[i]!.clip === 'walk_fwd') expect(moved[i], `avatar ${i} walks`).toBeGreaterThan(0.01);
    }
    expect(moved.filter((m) => m > 1e-3).length).toBeGreaterThan(playing.length / 2);
  });

  it('loads another character from a URL into the running crowd', async () => {
    await page.evaluate(() => window.cairn.crowdPage!.loadModelUrl('/models/column.glb'));
    await frames(page, 1);
    const s = await stats(page);
    expect(s.crowd).toMatchObject({ template: 'column.glb', bones: 7, pieces: 2, agents: 20, lastError: null });
    expect(s.crowd.drawCallsPerPass).toBe(2);
    expect(s.shaderErrors).toBe(0);
  });

  it('logged no page errors', () => {
    expect(errors).toEqual([]);
  });
});
