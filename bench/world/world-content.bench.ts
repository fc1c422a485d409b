/**
 * What the inhabited world costs against the bare one, in real Chromium (WebGPU on SwiftShader
 * here: absolute ms are the software rasteriser's, the same-run ratios are the point). Two
 * variants of the world page, loaded alternately in the same run:
 * - bare: `/?ambient=0&people=0` (terrain, sky, sea, the player, the other plugins' idle cost);
 * - inhabited, low tier: `/?quality=low` (scatter to 110 m, a third of the density, no shadows, 70 %
 *   resolution: src/ambient/quality.ts; what each tier's frame costs is bench/world/world-tiers.bench.ts);
 * - inhabited, full tier: `/?quality=full` (the default with a GPU: scatter to 200 m), eight people in both.
 * Each is measured standing at the spawn once every region near it is drawn: draw calls,
 * triangles, and main-thread ms per frame (update + render submission, the stage's own figure),
 * plus the ambient figures (regions, instances, Worker ms per region).
 * `WORLD_BENCH_FRAMES` (default 40) frames per measurement, `WORLD_BENCH_ROUNDS` (default 2).
 */
import { rmSync } from 'node:fs';
import { buildPages } from '../../tests/harness/build.ts';
import { launchChromium, waitForCairn } from '../../tests/harness/browser.ts';
import { startServer } from '../../tests/harness/server.ts';
import { median } from '../lib/measure.ts';

type Variant = 'bare' | 'low' | 'full';
const FRAMES = Number(process.env.WORLD_BENCH_FRAMES ?? 40);
const ROUNDS = Number(process.env.WORLD_BENCH_ROUNDS ?? 2);
const QUERY: Record<Variant, string> = { bare: '?ambient=0&people=0', low: '?quality=low', full: '?quality=full' };
const VARIANTS: Variant[] = ['bare', 'low', 'full'];

interface Sample {
  drawCalls: number;
  triangles: number;
  cpuMs: number;
  ambient: { regions: number; instances: number; placeMsPerRegion: number } | null;
}

const assets = buildPages();
const server = await startServer({ assetsDir: assets });
const browser = await launchChromium();
const samples = new Map<Variant, Sample[]>(VARIANTS.map((v) => [v, []]));
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of VARIANTS) {
      const page = await browser.newPage({ viewport: { width: 800, height: 480 } });
      await page.goto(`${server.url}/${QUERY[variant]}`);
      await waitForCairn(page, 180_000);
      if (variant !== 'bare') {
        await page.waitForFunction(
          () =>
            (window.cairn.ambient as { scatter: unknown; crowd: unknown } | undefined)?.crowd &&
            (window.cairn.ambient as { scatter: unknown }).scatter,
          undefined,
          { timeout: 180_000, polling: 250 },
        );
        await page.evaluate(() => (window.cairn.ambient as { scatter: { ready(): Promise<void> } }).scatter.ready());
      }
      const sample = await page.evaluate(async (frames) => {
        const stage = window.cairn.stage as {
          frames(n: number): Promise<void>;
          afterRender(cb: () => void): () => void;
          onFrame(cb: () => void): () => void;
        };
        await stage.frames(5);
        // Main-thread ms per frame: from the first frame callback to the end of render submission.
        const ms: number[] = [];
        let start = 0;
        const offFrame = stage.onFrame(() => (start = performance.now()));
        const offAfter = stage.afterRender(() => ms.push(performance.now() - start));
        await stage.frames(frames);
        offFrame();
        offAfter();
        ms.sort((a, b) => a - b);
        const a = (
          window.cairn.ambient as
            | { scatter: { stats: { regions: { drawn: number; placed: number }; instances: number; placeMs: { total: number } } } | null }
            | undefined
        )?.scatter;
        return {
          drawCalls: window.cairn.stats.drawCalls,
          triangles: window.cairn.stats.triangles,
          cpuMs: ms[ms.length >> 1]!,
          ambient: a
            ? {
                regions: a.stats.regions.drawn,
                instances: a.stats.instances,
                placeMsPerRegion: a.stats.placeMs.total / Math.max(1, a.stats.regions.placed),
              }
            : null,
        };
      }, FRAMES);
      samples.get(variant)!.push(sample);
      await page.close();
    }
  }
  const bare = samples.get('bare')!;
  const m = (list: Sample[], key: 'drawCalls' | 'triangles' | 'cpuMs') => median(list.map((s) => s[key]));
  console.log(
    `\n## the inhabited world against the bare one: 800×480 at the spawn, ${FRAMES} frames × ${ROUNDS} rounds, page loads alternating`,
  );
  console.log(
    `${'world'.padEnd(10)} ${'regions'.padStart(8)} ${'instances'.padStart(10)} ${'draw calls'.padStart(10)} ${'triangles'.padStart(11)} ${'main ms/frame'.padStart(14)}  vs bare`,
  );
  for (const variant of VARIANTS) {
    const list = samples.get(variant)!;
    const a = list[list.length - 1]!.ambient;
    const ratio =
      variant === 'bare'
        ? '(baseline)'
        : `draw calls +${m(list, 'drawCalls') - m(bare, 'drawCalls')}, triangles × ${(m(list, 'triangles') / m(bare, 'triangles')).toFixed(2)}, main-thread ms × ${(m(list, 'cpuMs') / m(bare, 'cpuMs')).toFixed(2)}`;
    console.log(
      `${variant.padEnd(10)} ${String(a?.regions ?? 0).padStart(8)} ${(a?.instances ?? 0).toLocaleString('en-US').padStart(10)} ${String(m(list, 'drawCalls')).padStart(10)} ${m(list, 'triangles').toLocaleString('en-US').padStart(11)} ${m(list, 'cpuMs').toFixed(2).padStart(14)}  ${ratio}`,
    );
  }
  const full = samples.get('full')!;
  console.log(`   Worker placement: ${full[full.length - 1]!.ambient!.placeMsPerRegion.toFixed(1)} ms per region (off the main thread)`);
  console.log('   (draw calls and triangles include the shadow pass; the frame is SwiftShader, a CPU rasteriser)');
} finally {
  await browser.close();
  await server.stop();
  rmSync(assets, { recursive: true, force: true });
}
