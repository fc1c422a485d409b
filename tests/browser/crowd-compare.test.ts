/**
 * One character, three renderings in the same place: three's own SkinnedMesh + AnimationMixer,
 * the crowd's live path (ClipSampler) and its GPU path (clip time, crossfade weight and speed
 * evaluated in the vertex shader from the crowd clock). The images must match within a stated
 * tolerance — for a plain clip, mid-crossfade and after a speed change — on the WebGPU backend
 * (storage-buffer bones), on the WebGL2 backend (texture bones) and on WebGPU forced to texture
 * bones (the compatibility-mode fallback), including the shadow on the floor. Controls pose
 * three's mesh at another time and check the comparison would catch a wrong pose.
 *
 * Tolerance: pixels differing by more than 24 in a channel, as a share of the character's pixels:
 * under 1 % for a plain clip and a speed change on both paths, and mid-crossfade on the live
 * path (it blends rotations as the mixer does); under 1.5 % mid-crossfade on the GPU path (walk →
 * run, legs out of phase; walk → wave, the arm rising overhead), which blends joint by joint too.
 */
import { PNG } from 'pngjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, launchChromium, waitForCairn } from '../harness/browser.ts';
import { saveDocPicture } from '../harness/pictures.ts';
import { countDifferentPixels, decodePng, meanAbsoluteDifference, type Image } from '../harness/png.ts';

const base = inject('serverUrl');
/**
 * Mid-crossfade on the GPU path against three's mixer, as a share of the character's pixels. The
 * GPU blends joint by joint (nlerp of local rotations, composed up the chain) where the mixer
 * slerps; at the halfway point those agree, the rest is half-float tables and frame interpolation.
 */
const GPU_FADE_TOLERANCE = 0.015;
type View = 'three' | 'live' | 'gpu' | 'none';

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
  await page.evaluate((v) => window.cairn.compare!.show(v), view);
  await page.evaluate(() => window.cairn.stage!.frames(2));
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
  { backend: 'WebGPU', path: 'storage', query: '', motion: true },
  { backend: 'WebGL2', path: 'texture', query: '&webgl=1', motion: true },
  // Only the live bones move to a texture here (the GPU path's tables are textures everywhere):
  // the plain pose covers it; crossfade and speed change are covered by the two above.
  { backend: 'WebGPU', path: 'texture', query: '&bonePath=texture', motion: false },
] as const;

for (const { backend, path, query, motion } of VARIANTS) {
  describe(`crowd rendering matches three's SkinnedMesh on ${backend} (${path} bones)`, () => {
    let browser: Browser;
    let page: Page;
    let errors: string[];
    const images: Partial<Record<View, Image>> = {};

    beforeAll(async () => {
      browser = await launchChromium();
      ({ page, errors } = await open(browser, query));
      for (const view of ['three', 'live', 'gpu', 'none'] as const) images[view] = await shot(page, view);
    });
    afterAll(async () => browser?.close());

    it('runs the expected backend and bone path, with no shader or page errors', async () => {
      const stats = await page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats)));
      expect(stats.backend).toBe(backend);
      expect(await page.evaluate(() => window.cairn.compare!.path)).toBe(path);
      expect(await page.evaluate(() => window.cairn.compare!.modes())).toEqual(['live', 'gpu']);
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

    it('GPU path: matches within a small tolerance', () => {
      const m = mismatch(images.three!, images.gpu!, images.none!);
      expect(m.share).toBeLessThan(0.01);
      expect(m.mad).toBeLessThan(0.5);
      // The picture in docs/crowd.md: three | live | GPU, side by side.
      if (backend === 'WebGPU' && path === 'storage')
        saveDocPicture('crowd-compare.png', triptych([images.three!, images.live!, images.gpu!]));
    });

    it('control: a different pose is caught', async () => {
      await page.evaluate(() => window.cairn.compare!.setReferenceTime(0.7));
      const other = await shot(page, 'three');
      const m = mismatch(other, images.gpu!, images.none!);
      expect(m.share).toBeGreaterThan(0.1);
    });

    for (const to of motion ? ['run', 'wave'] : []) {
      it(`mid-crossfade (walk → ${to}, halfway): both paths match three’s mixer blend`, async () => {
        await page.evaluate((clip) => window.cairn.compare!.crossfade('walk', 10 / 30, clip, 0.5, 0.25), to);
        const three = await shot(page, 'three');
        const live = mismatch(three, await shot(page, 'live'), images.none!);
        const gpu = mismatch(three, await shot(page, 'gpu'), images.none!);
        // The fade is really under way: the pose is far from the plain walk at the start.
        expect(mismatch(three, images.three!, images.none!).share).toBeGreaterThan(0.05);
        console.log(
          `[crowd-compare ${backend}/${path}] walk → ${to} mid-crossfade vs three: live ${(live.share * 100).toFixed(2)} %, GPU ${(gpu.share * 100).toFixed(2)} %`,
        );
        expect(live.share).toBeLessThan(0.01);
        expect(gpu.share).toBeLessThan(GPU_FADE_TOLERANCE);
      });
    }

    if (motion) {
      it('after a speed change (×1.7 mid-clip): both paths match three at the summed clip time', async () => {
        await page.evaluate(() => window.cairn.compare!.speedChange('walk', 0.1, 0.4, 1.7, 0.3));
        const three = await shot(page, 'three');
        const gpuImage = await shot(page, 'gpu');
        const live = mismatch(three, await shot(page, 'live'), images.none!);
        const gpu = mismatch(three, gpuImage, images.none!);
        console.log(
          `[crowd-compare ${backend}/${path}] speed change vs three: live ${(live.share * 100).toFixed(2)} %, GPU ${(gpu.share * 100).toFixed(2)} %`,
        );
        expect(live.share).toBeLessThan(0.01);
        expect(gpu.share).toBeLessThan(0.01);
        // Control: ignoring the speed change (0.8 s at speed 1) is a visibly different pose.
        await page.evaluate(() => window.cairn.compare!.setReferenceTime(0.8));
        expect(mismatch(await shot(page, 'three'), gpuImage, images.none!).share).toBeGreaterThan(0.05);
      });
    }
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
