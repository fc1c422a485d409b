/**
 * The crowd in the open world (app/world-plugins/crowd.ts): `?crowd=N` brings N synthetic peers
 * around the player, remote avatars enter through `cairn.crowdRemotes`, and the crowd adds one
 * draw per piece per pass, on top of the world's own.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, hudText, launchChromium, waitForCairn } from '../harness/browser.ts';

const base = inject('serverUrl');

describe('the world page with ?crowd=40', () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 400, height: 260 } });
    page.setDefaultTimeout(150_000);
    errors = collectPageErrors(page);
    // Shared scatter strokes that other tests painted on this server would add draws while the crowd is counted.
    await page.goto(`${base}/?crowd=40&shared=0`);
    await waitForCairn(page, 120_000);
    await page.waitForFunction(() => window.cairn.stats.crowd?.agents === 40, undefined, {
      timeout: 120_000,
      polling: 200,
    });
  });
  afterAll(async () => browser?.close());

  it('walks 40 synthetic peers around the player, one draw per piece per pass', async () => {
    const s = await page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats)));
    expect(s.crowd).toMatchObject({ agents: 40, pieces: 3, drawCallsPerPass: 3, template: 'mannequin' });
    expect(s.crowd.visible).toBeGreaterThan(0);
    expect(s.shaderErrors).toBe(0);
    const hud = await hudText(page);
    expect(hud).toMatch(/CROWD|Crowd/);
    // Hiding the crowd removes exactly its draws: 3 pieces in the main view, and in the shadow map
    // where the quality tier casts shadows (the low tier chosen on a software rasteriser does not).
    const passes = s.quality.shadows ? 2 : 1;
    // The forest streams in around the player meanwhile: a measure counts only when the draws with
    // the crowd shown are the same before and after the hidden frames.
    const drawsWith = async (visible: boolean): Promise<number> =>
      page.evaluate(async (show) => {
        window.cairn.crowd!.object.visible = show;
        await window.cairn.stage!.frames(2);
        return window.cairn.stats.drawCalls;
      }, visible);
    let withCrowd = 0;
    let without = 0;
    for (let attempt = 0; attempt < 10; attempt++) {
      withCrowd = await drawsWith(true);
      without = await drawsWith(false);
      if ((await drawsWith(true)) === withCrowd) break;
    }
    expect(withCrowd - without).toBe(3 * passes);
  });

  it('takes remote players through cairn.crowdRemotes', async () => {
    const before = await page.evaluate(() => window.cairn.stats.crowd!.agents);
    const player = await page.evaluate(() => window.cairn.stats.player!);
    const accepted = await page.evaluate(
      (p) => window.cairn.crowdRemotes!.update(7, { x: p.x + 2, y: p.y, z: p.z - 3, facing: 0, clip: 'wave' }),
      player,
    );
    expect(accepted).toBe(true);
    await page.evaluate(() => window.cairn.stage!.frames(1));
    const after = await page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.crowd)));
    expect(after.agents).toBe(before + 1);
    expect(await page.evaluate(() => window.cairn.crowdRemotes!.count)).toBe(1);
    expect(errors).toEqual([]);
  });
});
