/**
 * The world's player as a character file, in the real world page: `?avatar=` with a missing file
 * keeps the built-in humanoid and says why; loading the rigid robot (no clips, `mixamorig:` names)
 * swaps it in with the library retargeted onto it, walks it on W and keeps its feet on the ground.
 * The default world does not download the retargeter until a model needs it. One page load.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { SkinnedMesh } from 'three';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, hudText, launchChromium, openPage, waitForCairn } from '../harness/browser.ts';

const base = inject('serverUrl');
const FIXTURES = join(import.meta.dirname, '../fixtures/import');
const ROBOT = readFileSync(join(FIXTURES, 'robot-rigid.glb'));
/** A real CC0 character (Kenney) with 32 clips of its own and its texture in an external PNG. */
const KENNEY = readFileSync(join(FIXTURES, 'kenney-character-male-a.glb'));
const KENNEY_TEXTURE = readFileSync(join(FIXTURES, 'Textures/colormap.png'));
/** The three.js robot (CC0): 14 clips of its own, face-morph tracks on rigid head parts. */
const ROBOT_EXPRESSIVE = readFileSync(join(FIXTURES, 'robot-expressive.glb'));

interface AvatarStats {
  source: string;
  status: string;
  error: string | null;
  reason: string | null;
  name: string;
  height: number;
  fileHeight: number;
  scale: number;
  clips: Record<string, string>;
  clipSources: Record<string, string>;
  retargeted: string[];
  fileClipNames: string[];
  losses: string[];
  sourceVertices: number;
  drawnVertices: number;
}

async function avatarStats(page: Page): Promise<AvatarStats> {
  return page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.avatar)));
}

async function frames(page: Page, count: number): Promise<void> {
  await page.evaluate((n) => window.cairn.stage!.frames(n), count);
}

/** The player's drawn character: its name, skinned meshes, a thigh's rotation, and how far its lowest vertex is above the player's feet. */
async function pose(page: Page): Promise<{ child: string; skinned: number; thigh: number[]; clearance: number; grounded: boolean }> {
  return page.evaluate(() => {
    const avatar = window.cairn.avatar!;
    const { state } = window.cairn.player!;
    const object = avatar.object;
    object.updateMatrixWorld(true);
    let skinned = 0;
    let lowest = Infinity;
    object.traverse((node) => {
      const mesh = node as SkinnedMesh;
      if (!mesh.isSkinnedMesh) return;
      skinned++;
      mesh.skeleton.update();
      // A skinned mesh's box is computed from its posed vertices.
      mesh.computeBoundingBox();
      lowest = Math.min(lowest, mesh.boundingBox!.clone().applyMatrix4(mesh.matrixWorld).min.y);
    });
    return {
      child: object.children.map((c) => c.name).join(','),
      skinned,
      thigh: object.getObjectByName('mixamorigLeftUpLeg')?.quaternion.toArray() ?? [],
      clearance: lowest - state.y,
      grounded: state.grounded,
    };
  });
}

describe('the world with ?avatar=', () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const requested: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await openPage(browser, { width: 320, height: 240 });
    errors = collectPageErrors(page);
    page.on('request', (request) => requested.push(request.url()));
    // Test files served at same-origin URLs: the robot, and a model that is not there.
    await page.route(
      (url) => url.pathname === '/models/robot.glb',
      (route) => route.fulfill({ status: 200, contentType: 'model/gltf-binary', body: ROBOT }),
    );
    await page.route(
      (url) => url.pathname === '/models/kenney.glb',
      (route) => route.fulfill({ status: 200, contentType: 'model/gltf-binary', body: KENNEY }),
    );
    await page.route(
      (url) => url.pathname === '/models/Textures/colormap.png',
      (route) => route.fulfill({ status: 200, contentType: 'image/png', body: KENNEY_TEXTURE }),
    );
    // The same character where its texture is not beside it (the Worker answers 404), and the three.js robot.
    await page.route(
      (url) => url.pathname === '/models/lonely/kenney.glb',
      (route) => route.fulfill({ status: 200, contentType: 'model/gltf-binary', body: KENNEY }),
    );
    await page.route(
      (url) => url.pathname === '/models/robot-expressive.glb',
      (route) => route.fulfill({ status: 200, contentType: 'model/gltf-binary', body: ROBOT_EXPRESSIVE }),
    );
    await page.route(
      (url) => url.pathname === '/models/missing.glb',
      (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' }),
    );
    await page.goto(`${base}/?avatar=/models/missing.glb&ambient=0&people=0`);
    await waitForCairn(page, 120_000);
  });
  afterAll(async () => browser?.close());

  it('keeps the built-in humanoid when the file is not there, and says why', async () => {
    await page.waitForFunction(() => window.cairn.stats.avatar?.status === 'failed', undefined, {
      timeout: 60_000,
      polling: 100,
    });
    const stats = await avatarStats(page);
    // The address's URL resolved against the page: the form other players would be sent.
    expect(stats).toMatchObject({ source: `${base}/models/missing.glb`, status: 'failed', reason: 'not-found', name: 'humanoid' });
    expect(stats.error).toMatch(/^missing\.glb: HTTP 404/);
    expect((await pose(page)).child).toBe('humanoid');
    const notice = await page.locator('.cairn-notice[data-level="error"]').filter({ hasText: 'Avatar not loaded' }).innerText();
    expect(notice).toContain('missing.glb: HTTP 404');
    expect(notice).toContain('stays the built-in humanoid');
    expect(await hudText(page)).toMatch(/avatar\s*humanoid \(not-found\)/);
    // Nothing needed the retargeter: the world has not downloaded it.
    expect(requested.filter((url) => /library-for-rig/.test(url))).toEqual([]);
  });

  it('swaps in a robot without clips, the library retargeted onto it, walking on W with its feet on the ground', async () => {
    const stats: AvatarStats = await page.evaluate(() =>
      window.cairn.avatar!.load('/models/robot.glb').then((s) => JSON.parse(JSON.stringify(s))),
    );
    expect(stats).toMatchObject({ status: 'ready', name: 'robot.glb', sourceVertices: 360, drawnVertices: 360, error: null });
    expect(stats.retargeted).toEqual(['idle', 'walk_fwd', 'run_fwd', 'jump', 'swim_tread', 'swim_freestyle']);
    expect(stats.clips).toMatchObject({ idle: 'idle', walk: 'walk_fwd', run: 'run_fwd' });
    expect(stats.height).toBeGreaterThan(1.6);
    // A person's height in metres: kept as the file has it.
    expect(stats.scale).toBe(1);
    expect(requested.some((url) => /library-for-rig/.test(url))).toBe(true);
    const notice = await page.locator('.cairn-notice').filter({ hasText: 'Avatar: robot.glb' }).innerText();
    expect(notice).toMatch(/draws 360 of 360 vertices/);
    expect(notice).toMatch(/6 library clip\(s\) retargeted onto it/);

    // The robot replaced the humanoid in the scene: two skinned hands, the head, the merged rigid parts.
    await frames(page, 2);
    const idle = await pose(page);
    expect(idle.child).toBe('robot');
    expect(idle.skinned).toBe(4);
    expect(await page.evaluate(() => window.cairn.scene!.getObjectByName('humanoid') === undefined)).toBe(true);
    expect(await page.evaluate(() => window.cairn.stats.player!.clip)).toBe('idle');
    // Standing on the ground: the lowest vertex within 3 cm of the player's feet.
    expect(idle.grounded).toBe(true);
    expect(Math.abs(idle.clearance)).toBeLessThan(0.03);

    await page.locator('canvas').click({ position: { x: 160, y: 200 } });
    await page.keyboard.down('KeyW');
    try {
      await page.waitForFunction(() => window.cairn.stats.player!.clip === 'walk_fwd', undefined, {
        timeout: 60_000,
        polling: 50,
      });
      const a = await pose(page);
      await frames(page, 2);
      const b = await pose(page);
      // The retargeted walk moves the robot's own bones from frame to frame.
      const dot = Math.abs(a.thigh.reduce((sum, v, i) => sum + v * b.thigh[i]!, 0));
      expect(a.thigh).toHaveLength(4);
      expect(2 * Math.acos(Math.min(1, dot))).toBeGreaterThan(0.01);
      // Mid-stride a heel or toe dips a few centimetres (the humanoid's do too), never more.
      expect(Math.abs(b.clearance)).toBeLessThan(0.12);
    } finally {
      await page.keyboard.up('KeyW');
    }
    expect(await hudText(page)).toMatch(/avatar\s*robot\.glb, 1\.\d\d m, 6 clips retargeted/);
  });

  it('swaps the robot for a textured character that brings its own clips', async () => {
    const stats: AvatarStats = await page.evaluate(() =>
      window.cairn.avatar!.load('/models/kenney.glb').then((s) => JSON.parse(JSON.stringify(s))),
    );
    expect(stats).toMatchObject({ status: 'ready', name: 'kenney.glb', sourceVertices: 1259, drawnVertices: 1259, retargeted: [] });
    // Its own idle, walk, sprint and jump; its 7-bone rig has no hips for the library, so the swims borrow.
    expect(stats.clips).toEqual({ idle: 'idle', walk: 'walk', run: 'sprint', jump: 'jump', swim: 'idle', swim_fast: 'walk' });
    expect(stats.clipSources).toMatchObject({ idle: 'file', run: 'file', swim: 'fallback' });
    // A stylised 0.67 m character in a glTF's metres keeps its height under the 'auto' policy.
    expect(stats.scale).toBe(1);
    expect(stats.height).toBeCloseTo(0.67, 2);
    const notice = await page.locator('.cairn-notice[data-level="warn"]').filter({ hasText: 'Avatar: kenney.glb' }).innerText();
    expect(notice).toMatch(/swim plays idle, swim_fast plays walk/);
    await frames(page, 2);
    const drawn = await page.evaluate(() => {
      const object = window.cairn.avatar!.object;
      const textures: number[] = [];
      object.traverse((node) => {
        const map = ((node as SkinnedMesh).material as { map?: { image?: { width: number } } | null } | undefined)?.map;
        if (map?.image) textures.push(map.image.width);
      });
      return { children: object.children.map((c) => c.name), robot: window.cairn.scene!.getObjectByName('robot') !== undefined, textures };
    });
    // The robot is gone from the scene; the character is drawn with its texture, served beside the file.
    expect(drawn.robot).toBe(false);
    expect(drawn.children).toHaveLength(1);
    expect(drawn.textures.length).toBeGreaterThan(0);
    expect(Math.min(...drawn.textures)).toBeGreaterThan(0);
    // Once the player has come to rest after the walk, it plays the file's own idle.
    await page.waitForFunction(() => window.cairn.stats.player!.clip === 'idle', undefined, { timeout: 30_000, polling: 50 });
    const idle = await pose(page);
    expect(Math.abs(idle.clearance)).toBeLessThan(0.03);
    // The browser logs the missing model's 404 itself; nothing else went wrong.
    expect(errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    expect(errors).toHaveLength(1);
  });

  it('loads a character whose texture is missing, drawn without it and said; plays the robot’s own clips with its face morphs bound', async () => {
    const lonely: AvatarStats = await page.evaluate(() =>
      window.cairn.avatar!.load('/models/lonely/kenney.glb').then((s) => JSON.parse(JSON.stringify(s))),
    );
    // Loaded, as the command-line tools load it: the loss is said, in the import layer's words.
    expect(lonely).toMatchObject({ status: 'ready', name: 'kenney.glb', error: null });
    expect(lonely.losses).toEqual(['texture "Textures/colormap.png" is missing: drawn without it']);
    const notice = await page
      .locator('.cairn-notice[data-level="warn"]')
      .filter({ hasText: 'texture "Textures/colormap.png" is missing: drawn without it' })
      .count();
    expect(notice).toBeGreaterThan(0);

    const before = errors.length;
    const robot: AvatarStats = await page.evaluate(() =>
      window.cairn.avatar!.load('/models/robot-expressive.glb').then((s) => JSON.parse(JSON.stringify(s))),
    );
    expect(robot).toMatchObject({ status: 'ready', name: 'robot-expressive.glb', losses: [] });
    expect(robot.clips).toMatchObject({ idle: 'Idle', walk: 'Walking', run: 'Running', jump: 'Jump' });
    expect(robot.clipSources).toMatchObject({ idle: 'file', walk: 'file', run: 'file', jump: 'file', swim: 'library' });
    expect(robot.fileClipNames).toHaveLength(14);
    await frames(page, 3);
    // Its face-morph tracks find the head pieces: no PropertyBinding errors while its idle plays.
    expect(errors.slice(before).filter((e) => /PropertyBinding|morphTargetInfluences/.test(e))).toEqual([]);
    const text = await page.locator('.cairn-notice').filter({ hasText: 'Avatar: robot-expressive.glb' }).innerText();
    expect(text).toMatch(/clips: idle ← Idle \(file\), walk ← Walking \(file\), run ← Running \(file\), jump ← Jump \(file\)/);
    expect(text).toMatch(/file clips no state plays: Dance, Death/);
  });
});
