import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, hudText, launchChromium, openPage, waitForCairn } from '../harness/browser.ts';
import { saveDocPicture } from '../harness/pictures.ts';
import { countDifferentPixels, decodePng } from '../harness/png.ts';
import type { RetargetViewerStats } from '../../app/retarget-viewer.ts';

const base = inject('serverUrl');

const FIXTURES = join(import.meta.dirname, '../fixtures/import');

/** Hands a fixture file to the page's viewer as if it were dropped (`loadFile`, `loadTarget` or `loadSource`). */
async function drop(page: Page, file: string, method: 'loadFile' | 'loadTarget' | 'loadSource'): Promise<void> {
  // Base64, not an array of numbers: Playwright serialises an array element by element (seconds per MB).
  const base64 = readFileSync(join(FIXTURES, file)).toString('base64');
  await page.evaluate(
    async ({ base64, file, method }) => {
      const viewer = window.cairn.retarget!;
      await viewer[method](Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer, file);
    },
    { base64, file, method },
  );
}

/** The retarget page's `cairn.stats.anim`, copied out of the page. */
const animStats = (page: Page): Promise<RetargetViewerStats> =>
  page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.anim)) as RetargetViewerStats);
const frames = (page: Page, count = 2): Promise<void> => page.evaluate((n) => window.cairn.stage!.frames(n), count);

/**
 * In the page: plays `clip` paused at each time, and returns the world matrices (elements) of the
 * named bones of the character on screen, read from the very bones its skinned meshes draw with.
 */
function boneMatrices(page: Page, clip: string, times: number[], bones: string[]): Promise<Record<string, number[]>[]> {
  return page.evaluate(
    ({ clip, times, bones }) => {
      const viewer = window.cairn.retarget!;
      viewer.play(clip);
      viewer.setPlaying(false);
      return times.map((t) => {
        viewer.setTime(t);
        return Object.fromEntries(bones.map((name) => [name, [...viewer.target.object.getObjectByName(name)!.matrixWorld.elements]]));
      });
    },
    { clip, times, bones },
  );
}
const position = (m: number[]): [number, number, number] => [m[12]!, m[13]!, m[14]!];
const distance = (a: number[], b: number[]): number => Math.hypot(a[12]! - b[12]!, a[13]! - b[13]!, a[14]! - b[14]!);

describe('the retarget page: the library on the CC4-style character', () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await openPage(browser, { width: 640, height: 400 });
    errors = collectPageErrors(page);
    await page.goto(`${base}/retarget.html`);
    await waitForCairn(page, 120_000);
    await page.waitForFunction(
      () => {
        const anim = window.cairn.stats.anim;
        return anim !== undefined && 'phase' in anim && anim.phase === 'ready';
      },
      undefined,
      {
        timeout: 150_000,
        polling: 250,
      },
    );
  });
  afterAll(async () => browser?.close());

  it('retargets every clip of the library onto the 213-bone rig, on WebGPU, with no errors', async () => {
    const s = await animStats(page);
    expect(s.clips).toBeGreaterThanOrEqual(40);
    expect(s.retargeted).toBe(s.clips);
    expect(s.failed).toBe(0);
    expect(s.targetBones).toBe(213);
    expect(s.sourceBones).toBe(64);
    expect(s.mappedBones).toBe(61);
    expect(await page.evaluate(() => window.cairn.stats.backend)).toBe('WebGPU');
    expect(await page.evaluate(() => window.cairn.stats.shaderErrors)).toBe(0);
    expect(errors).toEqual([]);
    // The HUD shows the same figures, including the parity of the clip on screen.
    expect(s.parity?.clip).toBe(s.clip);
    expect(s.parity?.ok).toBe(true);
    const hud = await hudText(page);
    expect(hud).toContain(`${s.retargeted}/${s.clips}`);
    expect(hud).toContain('cairn-cc4 (213 bones)');
  });

  it('names an unreadable dropped file and keeps the character it has', async () => {
    await page.evaluate(() => window.cairn.retarget!.loadTarget(new TextEncoder().encode('not a model').buffer as ArrayBuffer, 'junk.glb'));
    const s = await animStats(page);
    expect(s.error).toMatch(/junk\.glb: it is not a glTF\/GLB file/);
    expect(s.targetBones).toBe(213);
    expect(s.retargeted).toBe(s.clips);
    await expect.poll(() => page.locator('.cairn-notice[data-level="error"]').innerText()).toMatch(/Cannot retarget onto junk\.glb/);
    await page.evaluate(() => document.querySelectorAll('.cairn-notice').forEach((n) => n.remove()));
    // The import layer's words, as the commands, the crowd and the world say them (tests/unit/rig/refusals.test.ts).
    for (const [file, words] of [
      [
        'truncated-zombie.glb',
        'the file is cut short: it holds 98,304 bytes of the 162,820 its header declares; download or copy it again',
      ],
      [
        'html-page.glb',
        "it is an HTML page, not a model: the link or the download saved a web page (a sign-in or error page) under the model's name",
      ],
      ['m2m-rig-human.glb', 'has a skeleton (66 bones) but no mesh: nothing to draw; it can serve as a clip source'],
    ] as const) {
      await drop(page, file, 'loadTarget');
      expect((await animStats(page)).error).toBe(`${file}: ${words}`);
      await page.evaluate(() => document.querySelectorAll('.cairn-notice').forEach((n) => n.remove()));
    }
    expect((await animStats(page)).targetBones).toBe(213);
  });

  it('closes the CC4 hands on the sword grip: finger bones turn and fingertips come to the palm', async () => {
    const fingers = ['Index', 'Mid', 'Ring', 'Pinky'].flatMap((f) => [1, 2, 3].map((j) => `CC_Base_R_${f}${j}`));
    const names = ['CC_Base_R_Hand', 'CC_Base_R_Mid1', ...fingers];
    const [open] = await boneMatrices(page, 'idle', [0], names);
    const grip = await boneMatrices(page, 'sword_slash_1', [0.1, 0.4, 0.7], names);
    for (const frame of grip) {
      const palm = (m: Record<string, number[]>): number[] => {
        const hand = m.CC_Base_R_Hand!;
        const knuckle = m.CC_Base_R_Mid1!;
        return hand.map((v, i) => v + (knuckle[i]! - v) * 0.6);
      };
      for (const finger of ['Index', 'Mid', 'Ring', 'Pinky']) {
        const tip = `CC_Base_R_${finger}3`;
        expect(distance(frame[tip]!, palm(frame)), finger).toBeLessThan(distance(open![tip]!, palm(open!)) * 0.8);
      }
      // Each finger joint's orientation relative to the hand changed from the open idle hand.
      for (const joint of fingers) {
        const rel = (m: Record<string, number[]>): number[] => {
          const a = m.CC_Base_R_Hand!;
          const b = m[joint]!;
          // Columns of the joint's basis dotted with the hand's: a rotation-only comparison.
          return [0, 4, 8].flatMap((i) =>
            [0, 4, 8].map(
              (k) =>
                (a[k]! * b[i]! + a[k + 1]! * b[i + 1]! + a[k + 2]! * b[i + 2]!) /
                (Math.hypot(a[k]!, a[k + 1]!, a[k + 2]!) * Math.hypot(b[i]!, b[i + 1]!, b[i + 2]!)),
            ),
          );
        };
        const change = Math.max(...rel(frame).map((v, i) => Math.abs(v - rel(open!)[i]!)));
        expect(change, joint).toBeGreaterThan(0.15);
      }
    }
  });

  it('keeps the CC4 feet on the ground through the walk cycle', async () => {
    const times = Array.from({ length: 22 }, (_, i) => (i / 22) * 1.1);
    const frames = await boneMatrices(page, 'walk_fwd', times, ['CC_Base_L_Foot', 'CC_Base_R_Foot']);
    const stepping: number[] = [];
    for (const frame of frames) {
      const left = position(frame.CC_Base_L_Foot!)[1];
      const right = position(frame.CC_Base_R_Foot!)[1];
      // The lower ankle stays at its bind height (0.09 m), never below the floor.
      expect(Math.abs(Math.min(left, right) - 0.09)).toBeLessThan(0.008);
      stepping.push(Math.max(left, right));
    }
    // …while the other foot lifts: the feet really walk.
    expect(Math.max(...stepping) - 0.09).toBeGreaterThan(0.05);
  });

  it('shows the source rig beside the character on backslash, playing the same clip', async () => {
    await page.evaluate(() => window.cairn.retarget!.play('wave'));
    await frames(page, 2);
    const before = decodePng(await page.screenshot());
    await page.locator('canvas').click({ position: { x: 200, y: 300 } });
    await page.keyboard.press('Backslash');
    await page.waitForFunction(() => window.cairn.stats.anim!.reference === true, undefined, {
      timeout: 10_000,
    });
    await frames(page, 3);
    const shot = await page.screenshot();
    // The picture in docs/anim.md: the CC4 character and, beside it, the source mannequin.
    saveDocPicture('anim-reference.png', shot);
    const after = decodePng(shot);
    expect(countDifferentPixels(before, after)).toBeGreaterThan(800);
    const reference = await page.evaluate(() => {
      const viewer = window.cairn.retarget!;
      return { clip: viewer.reference.clip, visible: viewer.reference.source.visible, x: viewer.reference.source.position.x };
    });
    expect(reference).toEqual({ clip: 'wave', visible: true, x: expect.closeTo(1.1, 6) as unknown as number });
    expect(await hudText(page)).toContain('source shown');
    await page.keyboard.press('Backslash');
    await page.waitForFunction(() => window.cairn.stats.anim!.reference === false, undefined, {
      timeout: 10_000,
    });
  });

  // The import corpus on the page (tests/fixtures/import; the same files run through the CLI in tests/unit/anim/import-cli.test.ts).
  it('takes what artists ship: rigid parts, two Blender FBX characters, IK feet, BVH and FBX mocap in centimetres, bones-only glTF, and refuses mocap as a target', async () => {
    // A robot of rigid parts under bones, without clips: every part is drawn, the library plays on it.
    await drop(page, 'robot-rigid.glb', 'loadTarget');
    let s = await animStats(page);
    expect(s.error).toBeNull();
    expect(s.target).toBe('robot-rigid');
    expect(s.imported?.notes.join('\n')).toMatch(/13 rigid part\(s\) under bones became 2 skinned piece\(s\) with rigid weights/);
    expect(s.imported?.notes.join('\n')).toMatch(/morph target\(s\): visor_open/);
    expect(s.imported?.skinnedVertices).toBe(s.imported?.sourceVertices);
    expect(s.retargeted).toBe(s.clips);
    expect(s.verdict).toEqual({ ok: true, problems: [] });

    // Feet that are IK bones outside the leg chains: both legs still map.
    await drop(page, 'ik-feet.glb', 'loadFile');
    s = await animStats(page);
    expect(s.target).toBe('ik-feet');
    expect(s.verdict.problems).toEqual([]);
    expect(s.mappedBones).toBeGreaterThanOrEqual(21);

    // A real skinned FBX character from Blender as the clip source: its nodes are saved on an animation
    // frame and it reads as millimetres; rested in its bind pose, its own five clips retarget onto the
    // IK-feet rig and follow the source.
    await drop(page, 'quaternius-zombie.fbx', 'loadSource');
    s = await animStats(page);
    expect(s.error).toBeNull();
    expect(s.source).toBe('quaternius-zombie.fbx');
    expect(s.imported?.notes.join('\n')).toMatch(/authored in millimetres \(824 units tall\)/);
    expect(s.imported).toMatchObject({ skeletonOnly: false, sourceVertices: 6348, skinnedVertices: 6348 });
    expect(s.clips).toBe(5);
    expect(s.retargeted).toBe(5);
    expect(s.failed).toBe(0);
    expect(s.verdict.ok, s.verdict.problems.join('; ')).toBe(true);
    expect(s.parity?.ok).toBe(true);

    // Quaternius's Male_Casual, a Blender IK rig (legs under `Body` above a small `Hips`, deform feet
    // under the root), as the clip source: its eleven clips retarget onto the IK-feet rig and pass.
    await drop(page, 'quaternius-male-casual.fbx', 'loadSource');
    s = await animStats(page);
    expect(s.error).toBeNull();
    expect(s.source).toBe('quaternius-male-casual.fbx');
    expect(s.target).toBe('ik-feet');
    expect(s.imported?.notes.join('\n')).toMatch(/authored in millimetres \(485 units tall\)/);
    expect(s.imported).toMatchObject({ skeletonOnly: false, sourceVertices: 5538, skinnedVertices: 5538 });
    expect(s.clips).toBe(11);
    expect(s.retargeted).toBe(11);
    expect(s.failed).toBe(0);
    expect(s.verdict.ok, s.verdict.problems.join('; ')).toBe(true);
    expect(s.parity?.ok).toBe(true);

    // BVH mocap in centimetres, dropped: it becomes the clip source, scaled to metres.
    await drop(page, 'walk-cm.bvh', 'loadFile');
    s = await animStats(page);
    expect(s.source).toBe('walk-cm.bvh');
    expect(s.imported?.skeletonOnly).toBe(true);
    expect(s.imported?.notes.join('\n')).toMatch(/centimetres .*scaled by 0\.01/);
    expect(s.clips).toBe(1);
    expect(s.retargeted).toBe(1);
    expect(s.verdict.ok, s.verdict.problems.join('; ')).toBe(true);
    expect(s.parity?.ok).toBe(true);

    // A bones-only glTF (no skin, animated nodes) is a clip source too.
    await drop(page, 'skeleton-only.glb', 'loadFile');
    s = await animStats(page);
    expect(s.source).toBe('skeleton-only.glb');
    expect(s.retargeted).toBe(1);
    expect(s.verdict.ok).toBe(true);

    // Skeleton-only FBX mocap, likewise.
    await drop(page, 'mocap-walk.fbx', 'loadFile');
    s = await animStats(page);
    expect(s.source).toBe('mocap-walk.fbx');
    expect(s.retargeted).toBe(1);
    expect(s.verdict.ok, s.verdict.problems.join('; ')).toBe(true);

    // Mocap dropped as a target is refused with the reason; the character stays.
    await drop(page, 'walk-cm.bvh', 'loadTarget');
    s = await animStats(page);
    expect(s.error).toBe('walk-cm.bvh: has a skeleton (25 bones) but no mesh: nothing to draw; it can serve as a clip source');
    expect(s.target).toBe('ik-feet');
  });
});

describe('the reference view in the world', () => {
  it("stays idle until backslash, then shows the source beside the player playing the player's clip", async () => {
    const browser = await launchChromium();
    try {
      const page = await openPage(browser, { width: 640, height: 400 });
      const errors = collectPageErrors(page);
      await page.goto(`${base}/`);
      await waitForCairn(page);
      // Nothing built before the key: no reference object in the scene.
      expect(await page.evaluate(() => window.cairn.scene!.getObjectByName('anim-reference') === undefined)).toBe(true);
      const calls = await page.evaluate(() => window.cairn.stats.drawCalls);
      await page.locator('canvas').click({ position: { x: 320, y: 380 } });
      await page.keyboard.press('Backslash');
      await page.waitForFunction(() => window.cairn.stats.anim!.reference && window.cairn.stats.anim!.clip !== null, undefined, {
        timeout: 60_000,
        polling: 100,
      });
      await frames(page, 3);
      const state = await page.evaluate(() => {
        const scene = window.cairn.scene!;
        const reference = scene.getObjectByName('anim-reference')!;
        const player = window.cairn.stats.player!;
        return {
          visible: reference.visible,
          dx: reference.position.x - player.x,
          dz: reference.position.z - player.z,
          clip: window.cairn.stats.anim!.clip,
          playerClip: player.clip,
          drawCalls: window.cairn.stats.drawCalls,
        };
      });
      expect(state.visible).toBe(true);
      expect(Math.hypot(state.dx, state.dz)).toBeCloseTo(1.1, 2);
      expect(state.clip).toBe(state.playerClip);
      expect(state.drawCalls).toBeGreaterThan(calls);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
