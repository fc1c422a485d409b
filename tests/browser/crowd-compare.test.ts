/**
 * One character, one pose, three renderings in the same place: three's own SkinnedMesh, the
 * batched renderer's live path and its baked path. The images must match within a small
 * tolerance on the WebGPU backend (storage-buffer bones), on the WebGL2 backend (texture bones)
 * and on WebGPU forced to texture bones (the compatibility-mode fallback), including the shadow
 * on the floor. A control poses three's mesh at another time and
 * checks the comparison would catch a wrong pose.
 */
import { PNG } from 'pngjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, launchChromium, waitForCairn } from '../harness/browser.ts';
import { saveDocPicture } from '../harness/pictures.ts';
import { countDifferentPixels, decodePng, meanAbsoluteDifference, type Image } from '../harness/png.ts';

const base = inject('serverUrl');
type View = 'three' | 'live' | 'baked' | 'none';

interface Compare {
  show(view: View): void;
  setReferenceTime(time: number): void;
  crossfade(from: string, time: number, to: string, fade: number, elapsed: number): void;
  modes(): string[];
  path: string;
}

async function open(browser: Browser, query: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 280, height: 360 } });
  const errors = collectPageErrors(page);
  await page.goto(`${base}/crowd.html?scene=compare${query}`);
  await waitForCairn(page, 120_000);
  await page.waitForFunction(() => window.cairn.compareReady === true, undefined, { timeout: 120_000, polling: 200 });
  // Notices (e.g. "Running on WebGL2") would cover the character.
  await page.addStyleTag({ content: '.cairn-notices { display: none !important; }' });
  return { page, errors };
}

async function shot(page: Page, view: View): Promise<Image> {
  await page.evaluate((v) => (window.cairn.compare as Compare).show(v), view);
  await page.evaluate(() => (window.cairn.stage as { frames(n: number): Promise<void> }).frames(2));
  return decodePng(await page.screenshot());
}

/** Pixels that differ by more than 24 in a channel, as a share of the character's own pixels. */
function mismatch(a: Image, b: Image, empty: Image): { pixels: number; character: number; share: number; mad: number } {
  const character = countDifferentPixels(a, empty);
  const pixels = countDifferentPixels(a, b);
  return { pixels, character, share: pixels / character, mad: meanAbsoluteDifference(a, b) };
}

/**
 * WebGPU picks storage buffers; WebGL2 must use textures; a WebGPU device without vertex-stage
 * storage buffers (compatibility mode) falls back to textures too — forced here with ?bonePath=.
 */
const VARIANTS = [
  { backend: 'WebGPU', path: 'storage', query: '' },
  { backend: 'WebGL2', path: 'texture', query: '&webgl=1' },
  { backend: 'WebGPU', path: 'texture', query: '&bonePath=texture' },
] as const;

for (const { backend, path, query } of VARIANTS) {
  describe(`crowd rendering matches three's SkinnedMesh on ${backend} (${path} bones)`, () => {
    let browser: Browser;
    let page: Page;
    let errors: string[];
    const images: Partial<Record<View, Image>> = {};

    beforeAll(async () => {
      browser = await launchChromium();
      ({ page, errors } = await open(browser, query));
      for (const view of ['three', 'live', 'baked', 'none'] as const) images[view] = await shot(page, view);
    });
    afterAll(async () => browser?.close());

    it('runs the expected backend and bone path, with no shader or page errors', async () => {
      const stats = await page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats)));
      expect(stats.backend).toBe(backend);
      expect(await page.evaluate(() => (window.cairn.compare as Compare).path)).toBe(path);
      expect(await page.evaluate(() => (window.cairn.compare as Compare).modes())).toEqual(['live', 'baked']);
      expect(stats.shaderErrors).toBe(0);
      expect(errors).toEqual([]);
    });

    it('draws a character at all (the comparison is about real pixels)', () => {
      const character = countDifferentPixels(images.three!, images.none!);
      expect(character).toBeGreaterThan(2500);
    });

    it('live path: matches within a small tolerance', () => {
      const m = mismatch(images.three!, images.live!, images.none!);
      expect(m.share).toBeLessThan(0.01);
      expect(m.mad).toBeLessThan(0.5);
    });

    it('baked path: matches within a small tolerance', () => {
      const m = mismatch(images.three!, images.baked!, images.none!);
      expect(m.share).toBeLessThan(0.01);
      expect(m.mad).toBeLessThan(0.5);
      // The picture in docs/crowd.md: three | live | baked, side by side.
      if (backend === 'WebGPU' && path === 'storage') saveDocPicture('crowd-compare.png', triptych([images.three!, images.live!, images.baked!]));
    });

    it('control: a different pose is caught', async () => {
      await page.evaluate(() => (window.cairn.compare as Compare).setReferenceTime(0.7));
      const other = await shot(page, 'three');
      const m = mismatch(other, images.baked!, images.none!);
      expect(m.share).toBeGreaterThan(0.1);
    });

    it('a baked crossfade moves smoothly between the two clips, close to the mixer’s blend', async () => {
      const at = async (elapsed: number, view: View): Promise<Image> => {
        await page.evaluate((e) => (window.cairn.compare as Compare).crossfade('walk', 10 / 30, 'wave', 0.5, e), elapsed);
        return shot(page, view);
      };
      const start = await at(0, 'baked');
      const end = await at(0.5, 'baked');
      const mid = await at(0.25, 'baked');
      const liveMid = await at(0.25, 'live');
      const ends = countDifferentPixels(start, end);
      expect(ends).toBeGreaterThan(800);
      // Halfway, the pose is between the ends: nearer each than they are to each other.
      expect(countDifferentPixels(mid, start)).toBeLessThan(ends);
      expect(countDifferentPixels(mid, end)).toBeLessThan(ends);
      // The mixer blends rotations, the baked path blends matrices: close, not identical.
      expect(countDifferentPixels(mid, liveMid)).toBeLessThan(ends * 0.6);
    });
  });
}

function triptych(parts: Image[]): Buffer {
  const { width, height } = parts[0]!;
  const png = new PNG({ width: width * parts.length, height });
  parts.forEach((part, i) => {
    for (let y = 0; y < height; y++) {
      const row = part.data.subarray(y * width * 4, (y + 1) * width * 4);
      png.data.set(row, (y * width * parts.length + i * width) * 4);
    }
  });
  return PNG.sync.write(png);
}
