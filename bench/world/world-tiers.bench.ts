/**
 * What each quality tier of the world holds on this machine's software rasteriser (WebGPU on
 * SwiftShader, the case where the world picks a tier for a machine without a GPU): frames per
 * second and wall-clock ms per frame at a small window, standing at the spawn once everything
 * near it is drawn and the people are walking. The tiers are loaded in interleaved rounds in the
 * same run (off, low, full, off, low, full…) and each is reported against 'off' (the bare world).
 * Frame ms is the wall-clock time between two frames (what a visitor sees), not only the main
 * thread's part (also printed: on SwiftShader the rasteriser's work happens in the GPU process).
 * `WORLD_TIERS_FRAMES` (default 20) frames per measurement, `WORLD_TIERS_ROUNDS` (default 3),
 * `WORLD_TIERS_SIZE` (default 640x360), `WORLD_TIERS` (default off,low,full; `low&people=0` style
 * entries add URL parameters, `auto` is the world's own choice).
 */
import { rmSync } from 'node:fs';
import { buildPages } from '../../tests/harness/build.ts';
import { launchChromium, waitForCairn } from '../../tests/harness/browser.ts';
import { startServer } from '../../tests/harness/server.ts';
import { median } from '../lib/measure.ts';
import { recordTable } from '../lib/record.ts';

const FRAMES = Number(process.env.WORLD_TIERS_FRAMES ?? 20);
const ROUNDS = Number(process.env.WORLD_TIERS_ROUNDS ?? 3);
const [WIDTH, HEIGHT] = (process.env.WORLD_TIERS_SIZE ?? '640x360').split('x').map(Number) as [number, number];
const TIERS = (process.env.WORLD_TIERS ?? 'off,low,full').split(',');

interface Sample {
  frameMs: number;
  mainMs: number;
  drawCalls: number;
  triangles: number;
  regions: number;
  instances: number;
  people: number;
  tier: string;
}

const assets = buildPages();
const server = await startServer({ assetsDir: assets });
const browser = await launchChromium();
const samples = new Map<string, Sample[]>(TIERS.map((t) => [t, []]));
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const tier of TIERS) {
      const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
      page.setDefaultTimeout(300_000);
      // The world's own choice on this machine is measured too, as 'auto'; other variants are `tier&param=value`.
      await page.goto(`${server.url}/${tier === 'auto' ? '' : `?quality=${tier}`}`);
      await waitForCairn(page, 300_000);
      await page.waitForFunction(
        () => {
          const a = window.cairn.ambient as { scatterReady: Promise<unknown>; scatter: unknown; crowd: unknown } | undefined;
          const q = window.cairn.stats.quality as { people: number; tier: string } | undefined;
          return !!a && !!q && (q.tier === 'off' || !!a.scatter) && (q.people === 0 || !!a.crowd);
        },
        undefined,
        { timeout: 300_000, polling: 250 },
      );
      await page.evaluate(() => (window.cairn.ambient as { scatter: { ready(): Promise<void> } | null }).scatter?.ready());
      const sample = await page.evaluate(async (frames) => {
        const stage = window.cairn.stage as {
          frames(n: number): Promise<void>;
          afterRender(cb: () => void): () => void;
          onFrame(cb: () => void): () => void;
        };
        await stage.frames(5);
        const wall: number[] = [];
        const main: number[] = [];
        let start = Number.NaN;
        let previous = Number.NaN;
        const offFrame = stage.onFrame(() => {
          start = performance.now();
          if (!Number.isNaN(previous)) wall.push(start - previous);
          previous = start;
        });
        const offAfter = stage.afterRender(() => main.push(performance.now() - start));
        await stage.frames(frames + 1);
        offFrame();
        offAfter();
        wall.sort((a, b) => a - b);
        main.sort((a, b) => a - b);
        const a = window.cairn.ambient as {
          scatter: { stats: { regions: { drawn: number }; instances: number } } | null;
          crowd: { count: number } | null;
        };
        return {
          frameMs: wall[wall.length >> 1]!,
          mainMs: main[main.length >> 1]!,
          drawCalls: window.cairn.stats.drawCalls,
          triangles: window.cairn.stats.triangles,
          regions: a.scatter?.stats.regions.drawn ?? 0,
          instances: a.scatter?.stats.instances ?? 0,
          people: a.crowd?.count ?? 0,
          tier: (window.cairn.stats.quality as { tier: string }).tier,
        };
      }, FRAMES);
      samples.get(tier)!.push(sample);
      console.log(`  round ${round + 1} ${tier}: ${sample.frameMs.toFixed(1)} ms/frame (${sample.tier})`);
      await page.close();
    }
  }
  const base = samples.get(TIERS[0]!)!;
  const m = (list: Sample[], key: 'frameMs' | 'mainMs' | 'drawCalls' | 'triangles') => median(list.map((s) => s[key]));
  const title = `quality tiers on SwiftShader: ${WIDTH}×${HEIGHT} at the spawn, ${FRAMES} frames × ${ROUNDS} rounds, page loads alternating`;
  console.log(`\n## ${title}`);
  const columns = ['tier', 'regions', 'instances', 'people', 'draw calls', 'triangles', 'fps', 'frame ms', 'main ms', `vs ${TIERS[0]}`];
  const rows = TIERS.map((tier) => {
    const list = samples.get(tier)!;
    const last = list[list.length - 1]!;
    const frameMs = m(list, 'frameMs');
    return [
      tier === 'auto' ? `auto (${last.tier})` : tier,
      String(last.regions),
      last.instances.toLocaleString('en-US'),
      String(last.people),
      String(m(list, 'drawCalls')),
      m(list, 'triangles').toLocaleString('en-US'),
      (1000 / frameMs).toFixed(1),
      frameMs.toFixed(1),
      m(list, 'mainMs').toFixed(1),
      list === base ? '(baseline)' : `frame ms × ${(frameMs / m(base, 'frameMs')).toFixed(2)}`,
    ];
  });
  recordTable({ title, columns, rows });
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  console.log(columns.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  for (const row of rows) console.log(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  console.log('   (SwiftShader is a CPU rasteriser: frame ms is the machine’s, the ratios are the point)');
} finally {
  await browser.close();
  await server.stop();
  rmSync(assets, { recursive: true, force: true });
}
