import { trace, type EnginePage } from './engines.ts';
import { countDifferentPixels, type Image } from './png.ts';

/**
 * The engines suite's page checks, the same for WebKit and Firefox: each loads a page, reads what
 * it reports, drives its key interaction through the driver's real input and returns what it saw;
 * the test files assert what each engine must show. Software GL/Vulkan on two loaded cores draws a
 * frame in a second or several, so everything waits on frames and figures, never on a clock.
 */

/**
 * Tiny: every pixel is software-rendered (llvmpipe, lavapipe) on two shared cores. At 320 px the
 * HUD (left) and dock (right) columns are 180 px each and overlap in the middle; the pointer
 * checks aim at the left column, whose HUD and notices let the pointer through to the canvas.
 */
export const ENGINE_VIEWPORT = { width: 320, height: 180 };

/**
 * The world page as the engines load it: the low tier (trees to 110 m, 8 people, no shadows, 70 %
 * resolution). The world is the slowest page in every engine here (docs/browsers.md, "Timing").
 */
export const WORLD = '?quality=low';

/** What the renderer bootstrap found (`cairn.rendererStatus`) and what the page publishes. */
export interface RendererFacts {
  backend: string;
  fallbackReason: string | null;
  adapter: string;
  flatSamplingShim: boolean;
  /** `cairn.stats.backend` (what the HUD shows). */
  statsBackend: string;
  /** `cairn.stats.backendReason`, once the stage publishes it (undefined before). */
  statsBackendReason: string | null | undefined;
  shaderErrors: number;
  /** Notices shown at error level (the user sees these). */
  errorNotices: string[];
}

/** Loads a Cairn page and waits for its first frame (`cairn.ready`); throws on `cairn.fatal`. */
export async function openCairnPage(page: EnginePage, url: string, timeoutMs = 150_000): Promise<void> {
  await page.goto(url);
  await page.waitFor(`${url} to draw its first frame`, timeoutMs, () => {
    const cairn = (window as unknown as { cairn?: { ready?: boolean; fatal?: string } }).cairn;
    return cairn?.ready === true || typeof cairn?.fatal === 'string';
  });
  const fatal = await page.evaluate(() => (window as unknown as { cairn: { fatal?: string } }).cairn.fatal ?? null);
  if (fatal) throw new Error(`${page.engine}: ${url} reported a fatal error: ${fatal}`);
}

/** Resolves after `count` more frames have rendered. */
export async function frames(page: EnginePage, count: number): Promise<void> {
  const t = performance.now();
  await page.evaluate((n) => (window.cairn.stage as { frames(n: number): Promise<void> }).frames(n), count);
  trace(page.engine, `drawing ${count} frame${count === 1 ? '' : 's'}`, t);
}

export async function rendererFacts(page: EnginePage): Promise<RendererFacts> {
  return page.evaluate(() => {
    const cairn = window.cairn as unknown as {
      rendererStatus: { backend: string; fallbackReason: string | null; adapter: string; flatSamplingShim: boolean };
      stats: { backend: string; backendReason?: string | null; shaderErrors?: number };
    };
    const status = cairn.rendererStatus;
    return {
      backend: status.backend,
      fallbackReason: status.fallbackReason,
      adapter: status.adapter,
      flatSamplingShim: status.flatSamplingShim,
      statsBackend: cairn.stats.backend,
      statsBackendReason: 'backendReason' in cairn.stats ? (cairn.stats.backendReason ?? null) : undefined,
      shaderErrors: cairn.stats.shaderErrors ?? 0,
      errorNotices: [...document.querySelectorAll<HTMLElement>('.cairn-notice[data-level="error"]')].map((n) => n.innerText),
    };
  });
}

/** The HUD's text as a person reads it (redrawn from `cairn.stats` first). */
export async function hudText(page: EnginePage): Promise<string> {
  return page.evaluate(() => {
    (window.cairn.hud as { refresh(): void } | undefined)?.refresh();
    return document.querySelector<HTMLElement>('.cairn-hud')?.innerText ?? '';
  });
}

const OVERLAYS_HIDDEN = 'cairn-engines-overlays-hidden';

/** Hides everything but the canvas (HUD, notices, panels), so pictures hold only what was drawn. */
export async function hideOverlays(page: EnginePage, hidden: boolean): Promise<void> {
  await page.evaluate(
    (on, id) => {
      document.getElementById(id)?.remove();
      if (!on) return;
      const style = document.createElement('style');
      style.id = id;
      style.textContent = 'body > :not(canvas) { visibility: hidden !important; }';
      document.head.append(style);
    },
    hidden,
    OVERLAYS_HIDDEN,
  );
}

/** Pictures of the canvas alone, after `settle` more frames. */
export async function canvasShot(page: EnginePage, settle = 2): Promise<Image> {
  await hideOverlays(page, true);
  await frames(page, settle);
  const image = await page.screenshot();
  await hideOverlays(page, false);
  return image;
}

/**
 * Share of the viewport whose pixels differ from the renderer's clear colour: a picture of the
 * scene against one drawn by the same engine with every object of the scene hidden (sky,
 * terrain, people: what is left is the clear colour). A canvas that draws nothing, or draws only
 * the clear colour, gives 0. The scene's picture comes back too, for the checks that compare it.
 */
export async function contentShare(page: EnginePage): Promise<{ share: number; drawn: Image }> {
  const drawn = await canvasShot(page);
  await page.evaluate(() => {
    const scene = window.cairn.scene as { children: Array<{ visible: boolean; userData: Record<string, unknown> }> };
    for (const child of scene.children) {
      child.userData.engineSmokeVisible = child.visible;
      child.visible = false;
    }
  });
  const cleared = await canvasShot(page);
  await page.evaluate(() => {
    const scene = window.cairn.scene as { children: Array<{ visible: boolean; userData: Record<string, unknown> }> };
    for (const child of scene.children) {
      child.visible = child.userData.engineSmokeVisible !== false;
      delete child.userData.engineSmokeVisible;
    }
  });
  return { share: countDifferentPixels(drawn, cleared) / (drawn.width * drawn.height), drawn };
}

export interface PlayerPose {
  x: number;
  z: number;
  facing: number;
  state: string;
}

async function player(page: EnginePage): Promise<PlayerPose> {
  return page.evaluate(() => {
    const p = window.cairn.stats.player as { x: number; z: number; facing: number; state: string };
    return { x: p.x, z: p.z, facing: p.facing, state: p.state };
  });
}

/**
 * Walks with a real key press: focuses the canvas with a click, holds W until the player has
 * moved `metres` north (−Z), releases. Returns the pose before and while walking.
 */
export async function walkNorth(page: EnginePage, metres: number): Promise<{ before: PlayerPose; walking: PlayerPose }> {
  await page.click(ENGINE_VIEWPORT.width * 0.25, ENGINE_VIEWPORT.height * 0.6);
  const before = await player(page);
  await page.keyDown('KeyW');
  try {
    await page.waitFor(
      `the player to walk ${metres} m north on W`,
      120_000,
      (z0, m) => (window.cairn.stats.player as { z: number }).z < z0 - m,
      before.z,
      metres,
    );
  } finally {
    await page.keyUp('KeyW');
  }
  return { before, walking: await player(page) };
}

/** `cairn.stats.crowd`, the figures the crowd smoke reads. */
export interface CrowdFacts {
  path: string;
  pathReason: string;
  agents: number;
  visible: number;
  drawCallsPerPass: number;
  lastError: string | null;
}

/**
 * Sets a form field the way typing ends (value, then `input` and `change`) from inside the page:
 * for WebKitWebDriver, whose typing waits minutes on a page busy drawing.
 */
export async function setFieldInPage(page: EnginePage, selector: string, value: string): Promise<void> {
  await page.evaluate(
    (sel, v) => {
      const field = document.querySelector<HTMLInputElement>(sel);
      if (!field) throw new Error(`no ${sel} on the page`);
      field.focus();
      field.value = v;
      field.dispatchEvent(new Event('input', { bubbles: true }));
      field.dispatchEvent(new Event('change', { bubbles: true }));
    },
    selector,
    value,
  );
}

export async function crowdFacts(page: EnginePage): Promise<CrowdFacts> {
  return page.evaluate(() => {
    const c = window.cairn.stats.crowd as unknown as CrowdFacts;
    return {
      path: c.path,
      pathReason: c.pathReason,
      agents: c.agents,
      visible: c.visible,
      drawCallsPerPass: c.drawCallsPerPass,
      lastError: c.lastError,
    };
  });
}

/** `cairn.stats.scatter`, the figures the scatter smoke reads. */
export interface ScatterFacts {
  instances: number;
  rendered: number;
  pending: number;
  bake: { state: string; done: number; total: number };
}

export async function scatterFacts(page: EnginePage): Promise<ScatterFacts> {
  return page.evaluate(() => {
    const s = window.cairn.stats.scatter as unknown as ScatterFacts;
    return { instances: s.instances, rendered: s.rendered, pending: s.pending, bake: { ...s.bake } };
  });
}

/** Points the scatter page's overview camera at (x, z) from `distance` metres, `pitch` down. */
export async function scatterLookAt(page: EnginePage, x: number, z: number, distance: number, pitch: number): Promise<void> {
  await page.evaluate(
    (px, pz, d, p) =>
      (window.cairn.view as { lookAt(x: number, z: number, v: object): void }).lookAt(px, pz, { distance: d, pitch: p, yaw: Math.PI }),
    x,
    z,
    distance,
    pitch,
  );
  await frames(page, 1);
}

/** Pixels that differ inside a box (CSS pixels = image pixels at device pixel ratio 1). */
export function changedInBox(a: Image, b: Image, box: { x0: number; y0: number; x1: number; y1: number }): number {
  let count = 0;
  for (let y = Math.max(0, box.y0); y < Math.min(a.height, box.y1); y++) {
    for (let x = Math.max(0, box.x0); x < Math.min(a.width, box.x1); x++) {
      const i = (y * a.width + x) * 4;
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

/** `cairn.stats.audio`, the figures the sound smoke reads. */
export interface AudioFacts {
  state: string;
  contextState: string;
  played: number;
  byRecipe: Record<string, number>;
  rms: number;
  loudnessSource: string;
  shortTerm: number;
  /** The page's RMS meter as drawn, dB. */
  meterDb: number;
}

export async function audioFacts(page: EnginePage): Promise<AudioFacts> {
  return page.evaluate(() => {
    const s = window.cairn.stats.audio as unknown as {
      state: string;
      contextState: string;
      played: number;
      byRecipe?: Record<string, number>;
      rms: number;
      loudness: { source: string; shortTerm: number };
    };
    return {
      state: s.state,
      contextState: s.contextState,
      played: s.played,
      byRecipe: { ...(s.byRecipe ?? {}) },
      rms: s.rms,
      loudnessSource: s.loudness.source,
      shortTerm: s.loudness.shortTerm,
      meterDb: Number.parseFloat(document.querySelector<HTMLElement>('#meter-rms-db')?.innerText ?? 'NaN'),
    };
  });
}

export { countDifferentPixels };
