/**
 * Draw calls and frame rate for a multi-stroke session of 3,000+ instances, in real Chromium
 * (WebGPU on SwiftShader here: absolute fps is the software rasteriser's, the ratios are the
 * point). Three paths draw the same instances in the same run, interleaved:
 * - naive: one Mesh per instance part, full detail;
 * - instancing without LOD: one InstancedMesh per prop part, full detail;
 * - Cairn's scatter: one InstancedMesh per (prop, part, LOD level), distance LOD.
 * Builds the pages and serves them from the real Worker, like the browser tests.
 */
import { rmSync } from 'node:fs';
import { buildPages } from '../../tests/harness/build.ts';
import { launchChromium, waitForCairn } from '../../tests/harness/browser.ts';
import { startServer } from '../../tests/harness/server.ts';

type Path = 'scatter' | 'instanced-no-lod' | 'naive';
const PATHS: Path[] = ['naive', 'instanced-no-lod', 'scatter'];
const TARGET = Number(process.env.SCATTER_BENCH_INSTANCES ?? 3200);
const FRAMES = Number(process.env.SCATTER_BENCH_FRAMES ?? 4);
const ROUNDS = 2;

const assets = buildPages();
const server = await startServer({ assetsDir: assets });
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 800, height: 480 } });
  await page.goto(`${server.url}/scatter.html?bench=1&seed=4`);
  await waitForCairn(page, 180_000);
  await page.waitForFunction(
    () => (window.cairn.stats.scatter as { bake: { state: string } } | undefined)?.bake.state === 'ready',
    undefined,
    { timeout: 180_000, polling: 250 },
  );
  const session = await page.evaluate(async (target) => {
    const bench = window.cairn.scatterBench as { paintSession(cx: number, cz: number, target: number): Promise<number> };
    const dabs = await bench.paintSession(0, -20, target);
    (window.cairn.view as { lookAt(x: number, z: number, v: object): void }).lookAt(0, -20, { distance: 140, pitch: 0.75, yaw: Math.PI });
    return {
      dabs,
      ...(JSON.parse(JSON.stringify(window.cairn.stats.scatter)) as {
        rendered: number;
        liveBuckets: number;
        shadowBuckets: number;
        perLevel: number[];
      }),
    };
  }, TARGET);

  const figures = new Map<Path, Array<{ fps: number; msPerFrame: number; drawCalls: number; triangles: number }>>(
    PATHS.map((p) => [p, []]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const path of PATHS) {
      const result = await page.evaluate(
        async ([path, frames]) => {
          const bench = window.cairn.scatterBench as {
            show(p: string): void;
            measure(n: number): Promise<{ fps: number; msPerFrame: number; drawCalls: number; triangles: number }>;
          };
          bench.show(path as string);
          return bench.measure(frames as number);
        },
        [path, FRAMES] as const,
      );
      figures.get(path)!.push(result);
    }
  }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  console.log(`\n## draw calls and fps: ${session.rendered} instances from ${session.dabs} dabs, 800×480, camera 140 m out`);
  console.log(
    `   scatter buckets: ${session.liveBuckets} live (+${session.shadowBuckets} casting shadows), instances per LOD 0/1/2: ${session.perLevel.join(' / ')}`,
  );
  console.log(
    `${'path'.padEnd(26)} ${'draw calls'.padStart(10)} ${'triangles'.padStart(11)} ${'ms/frame'.padStart(9)} ${'fps'.padStart(6)}  vs naive`,
  );
  const base = median(figures.get('naive')!.map((f) => f.msPerFrame));
  for (const path of PATHS) {
    const f = figures.get(path)!;
    const ms = median(f.map((x) => x.msPerFrame));
    const label =
      path === 'scatter' ? 'scatter (instanced + LOD)' : path === 'instanced-no-lod' ? 'instanced, no LOD' : 'naive (Mesh per part)';
    console.log(
      `${label.padEnd(26)} ${String(median(f.map((x) => x.drawCalls))).padStart(10)} ${median(f.map((x) => x.triangles))
        .toLocaleString('en-US')
        .padStart(
          11,
        )} ${ms.toFixed(0).padStart(9)} ${(1000 / ms).toFixed(2).padStart(6)}  × ${(ms / base).toPrecision(3)}${path === 'naive' ? ' (baseline)' : ` (${(base / ms).toPrecision(3)}× faster)`}`,
    );
  }
  console.log('   (draw calls include the terrain, sky, water and the shadow pass; the frame is SwiftShader, a CPU rasteriser)');
} finally {
  await browser.close();
  await server.stop();
  rmSync(assets, { recursive: true, force: true });
}
