/**
 * What one world page shows of another player's look and name, for browser suites with several
 * visitors (tests/browser/looks.test.ts; a multi-visitor suite asks the same of each page): the
 * template and variant the crowd draws the player with, the name labels on screen, the colour of
 * the pixels at the player's chest, and a camera turned to look at someone.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { decodePng } from './png.ts';

/** What a page draws for remote player `id`, and the name labels on its screen now. */
export interface SeenPlayer {
  /** `humanoid`, or the character file's URL; undefined while the player is not drawn. */
  template?: string;
  look?: unknown;
  /** Its row in the humanoid crowd's variant table (0: the plain humanoid). */
  variant?: number;
  labels: Array<{ id: number; name: string; x: number; y: number }>;
}

export async function seenPlayer(page: Page, id: number): Promise<SeenPlayer> {
  return page.evaluate((peer) => {
    const remotes = window.cairn.crowdRemotes!;
    return {
      template: remotes.templateOf(peer),
      look: remotes.lookOf(peer),
      variant: remotes.agent(peer)?.variant,
      labels: window.cairn.nameTags!.visible().map(({ id, name, x, y }) => ({ id, name, x, y })),
    };
  }, id);
}

/** Turns a page's camera to look along `yaw` (0: south, π: north) from behind its player, as a drag would. */
export async function lookAlong(page: Page, yaw: number): Promise<void> {
  await page.evaluate((angle) => {
    const rig = window.cairn.world!.cameraRig;
    const target = rig.controls.target;
    const d = rig.distance;
    const pitch = rig.pitch;
    rig.orbit.position.set(
      target.x - Math.sin(angle) * Math.cos(pitch) * d,
      target.y + Math.sin(pitch) * d,
      target.z - Math.cos(angle) * Math.cos(pitch) * d,
    );
    rig.controls.update();
  }, yaw);
  await page.evaluate(() => window.cairn.stage!.frames(2));
}

/** Where a remote player's chest is on this page's screen (CSS pixels), or null when off screen. */
export async function chestOnScreen(page: Page, id: number): Promise<{ x: number; y: number } | null> {
  return page.evaluate((peer) => {
    const agent = window.cairn.crowdRemotes!.agent(peer);
    const camera = window.cairn.camera!;
    if (!agent) return null;
    // A Vector3 of the page's own three (a clone of one it made).
    const p = camera.position
      .clone()
      .set(agent.x, agent.y + 1.25, agent.z)
      .project(camera);
    if (p.z > 1 || Math.abs(p.x) > 1 || Math.abs(p.y) > 1) return null;
    return { x: ((p.x + 1) / 2) * innerWidth, y: ((1 - p.y) / 2) * innerHeight };
  }, id);
}

/** Share of the screenshot's pixels within a few pixels of `at` for which `match(r, g, b)` holds. */
export async function shareAround(
  page: Page,
  at: { x: number; y: number },
  match: (r: number, g: number, b: number) => boolean,
): Promise<number> {
  const image = decodePng(await page.screenshot());
  let hits = 0;
  let total = 0;
  for (let dy = -4; dy <= 4; dy++)
    for (let dx = -3; dx <= 3; dx++) {
      const x = Math.round(at.x) + dx;
      const y = Math.round(at.y) + dy;
      if (x < 0 || y < 0 || x >= image.width || y >= image.height) continue;
      const i = (y * image.width + x) * 4;
      total++;
      if (match(image.data[i]!, image.data[i + 1]!, image.data[i + 2]!)) hits++;
    }
  return hits / Math.max(1, total);
}

/** Clearly red (outfit 1's shirt, lit or in shade). */
export const isRed = (r: number, g: number, b: number): boolean => r > 60 && r > 1.6 * g && r > 1.6 * b;

/**
 * Serves `files` (path ending → bytes and content type) for any URL on `host`, with CORS headers,
 * as a model host on the web would (this machine cannot reach one).
 */
export async function serveModels(
  context: BrowserContext,
  host: string,
  files: Record<string, { body: Buffer; type: string }>,
): Promise<void> {
  const cors = { 'access-control-allow-origin': '*' };
  await context.route(`https://${host}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    const file = Object.entries(files).find(([ending]) => path.endsWith(ending))?.[1];
    if (file) return route.fulfill({ body: file.body, headers: { ...cors, 'content-type': file.type } });
    return route.fulfill({ status: 404, headers: cors, body: 'not here' });
  });
}
