import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LANDMARKS } from '../../src/world/terrain/generate.ts';
import { audioStats } from '../harness/audio.ts';
import { collectPageErrors, hudText, launchChromium, MEDIA_ARGS, openPage, waitForCairn } from '../harness/browser.ts';

/**
 * Sound in the world page (app/world-plugins/audio.ts): the real world, real keys, real Web Audio.
 * One page load; SwiftShader renders a few frames a second, so everything waits on figures.
 */
const base = inject('serverUrl');

describe('sound in the world', () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    browser = await launchChromium({ args: MEDIA_ARGS });
    page = await openPage(browser, { width: 640, height: 400 });
    errors = collectPageErrors(page);
    await page.goto(`${base}/?seed=1234`);
    await waitForCairn(page);
  });
  afterAll(async () => browser?.close());

  it('stays idle until a gesture, then footsteps follow the ground, jumps and landings play, the HUD meters the output', async () => {
    const idle = await audioStats(page);
    expect(idle.state).toBe('waiting');
    expect(idle.contexts).toBe(0);
    await expect.poll(() => hudText(page)).toMatch(/Audio[\s\S]*click or press a key/i);

    // The first key press is the gesture: running on grass at the spawn.
    await page.keyboard.down('KeyW');
    await page.keyboard.down('ShiftLeft');
    await expect.poll(async () => (await audioStats(page)).state, { timeout: 15_000 }).toBe('running');
    await expect
      .poll(async () => (await audioStats(page)).byRecipe.footstep ?? 0, { timeout: 60_000, interval: 250 })
      .toBeGreaterThanOrEqual(2);
    let s = await audioStats(page);
    expect(s.surface).toBe('grass');
    expect(s.music).toBe(true);

    // Space: a push-off and a landing.
    await page.keyboard.press('Space');
    await expect
      .poll(async () => (await audioStats(page)).byRecipe.land ?? 0, { timeout: 60_000, interval: 250 })
      .toBeGreaterThanOrEqual(1);
    s = await audioStats(page);
    expect(s.byRecipe.jump).toBeGreaterThanOrEqual(1);

    expect(s.bySurface.grass).toBeGreaterThanOrEqual(2);
    expect(s.bySurface.sand ?? 0).toBe(0);

    // Carried to the beach (a walk north from the water's edge stays on sand for ~6 m), the steps sound on sand.
    await page.keyboard.up('ShiftLeft');
    await page.evaluate(
      ({ x, z }) => {
        const world = window.cairn.world!;
        world.player.state = { ...world.player.state, x, z, y: world.heightmap.sampleHeight(x, z) };
      },
      { x: LANDMARKS.beach.x, z: LANDMARKS.beach.z + 2 },
    );
    await expect.poll(async () => (await audioStats(page)).surface, { timeout: 30_000 }).toBe('sand');
    await expect
      .poll(async () => (await audioStats(page)).bySurface.sand ?? 0, { timeout: 60_000, interval: 250 })
      .toBeGreaterThanOrEqual(2);
    await page.keyboard.up('KeyW');

    // Music and wind are audible after the soft clipper, in band; the HUD shows the same figures.
    s = await audioStats(page);
    expect(s.rms).toBeGreaterThan(0.005);
    expect(s.maxPeak).toBeLessThan(0.95);
    // A breeze in the lowlands (wind rises with altitude).
    expect(s.wind).toBeCloseTo(0.25, 2);
    const hud = await hudText(page);
    expect(hud).toMatch(/Audio[\s\S]*running[\s\S]*rms[\s\S]*dB[\s\S]*peak[\s\S]*dB/i);
  });

  it('pauses with P (world muffled, player still) and mutes with M', async () => {
    await page.keyboard.press('KeyP');
    await expect
      .poll(() => page.evaluate(() => window.cairn.audio!.graph!.bus!.lowpass.frequency.value), {
        timeout: 10_000,
      })
      .toBeLessThan(1000);
    expect(await page.evaluate(() => window.cairn.world!.player.enabled)).toBe(false);
    expect((await audioStats(page)).paused).toBe(true);
    await page.keyboard.press('KeyP');
    expect(await page.evaluate(() => window.cairn.world!.player.enabled)).toBe(true);

    await page.keyboard.press('KeyM');
    expect((await audioStats(page)).muted).toBe(true);
    await expect.poll(async () => (await audioStats(page)).peak, { timeout: 10_000 }).toBe(0);
    await expect.poll(() => hudText(page)).toMatch(/running \(muted\)/);
    await page.keyboard.press('KeyM');
    expect((await audioStats(page)).muted).toBe(false);
    expect(errors).toEqual([]);
  });
});
