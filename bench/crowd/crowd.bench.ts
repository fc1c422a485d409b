/**
 * Crowd benchmark, headless Chromium on WebGPU (SwiftShader here), one run, side by side: main-
 * thread ms per frame — animation (mixers / crowd.update) plus render submission — for three's
 * default path (a SkinnedMesh clone + AnimationMixer per avatar) against Cairn's crowd, at 50,
 * 100, 200, 500 and 1000 avatars, plus draw calls and animation bytes uploaded per frame.
 * GPU time is excluded on purpose: the page waits for the GPU between frames (see
 * app/crowd-bench.ts). `npm run bench -- crowd`; options: CROWD_COUNTS=50,500 CROWD_FRAMES=8
 * CROWD_ROUNDS=2 CROWD_WEBGL=1; sizes from CROWD_BIG_FROM=500 up run half the frames, one round.
 */
import { buildPages } from '../../tests/harness/build.ts';
import { launchChromium } from '../../tests/harness/browser.ts';
import { startServer } from '../../tests/harness/server.ts';
import { formatMs, printComparison } from '../lib/measure.ts';
import type { BenchRow } from '../../app/crowd-bench.ts';

const counts = process.env.CROWD_COUNTS ?? '50,100,200,500,1000';
const frames = process.env.CROWD_FRAMES ?? '8';
const rounds = process.env.CROWD_ROUNDS ?? '2';
const webgl = process.env.CROWD_WEBGL === '1' ? '&webgl=1' : '';
const bigFrom = process.env.CROWD_BIG_FROM ?? '500';

const started = Date.now();
const assets = buildPages();
const server = await startServer({ assetsDir: assets });
const browser = await launchChromium();
let result: { backend: string; adapter: string; frames: number; rounds: number; bigFrom: number; rows: BenchRow[] };
try {
  const page = await browser.newPage({ viewport: { width: 480, height: 270 } });
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(`${server.url}/crowd.html?bench=1&counts=${counts}&frames=${frames}&rounds=${rounds}&bigFrom=${bigFrom}${webgl}`);
  let last = -1;
  for (;;) {
    const state = await page.evaluate(() => ({ result: window.cairn?.benchResult, progress: window.cairn?.benchProgress as { done: number; total: number } | undefined, fatal: window.cairn?.fatal }));
    if (state.fatal) throw new Error(state.fatal);
    if (state.result) {
      result = state.result as typeof result;
      break;
    }
    if (state.progress && state.progress.done !== last) {
      last = state.progress.done;
      console.log(`  … ${state.progress.done}/${state.progress.total} runs (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
} finally {
  await browser.close();
  await server.stop();
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const pick = (path: BenchRow['path'], count: number, key: 'animMs' | 'renderMs' | 'totalMs'): number => median(result.rows.filter((r) => r.path === path && r.count === count).map((r) => r[key]));
const first = (path: string, count: number): BenchRow => result.rows.find((r) => r.path === path && r.count === count)!;

console.log(`\ncrowd benchmark on ${result.backend} (${result.adapter}), ${result.frames} measured frames × ${result.rounds} interleaved rounds per path and size (from ${result.bigFrom} avatars: ${Math.max(3, Math.ceil(result.frames / 2))} frames × 1 round); medians`);
const sceneAt = (count: number): number => pick('scene', count, 'totalMs');
const sizes = [...new Set(result.rows.filter((r) => r.path !== 'scene').map((r) => r.count))];
console.log(`the same scene without avatars (ground, lights, background), measured next to each size: ${sizes.map((c) => formatMs(sceneAt(c))).join(', ')} per frame of render submission, paid by both paths`);
for (const count of sizes) {
  printComparison(`${count} avatars — main-thread ms per frame (animation + render submission)`, [
    { name: 'three default path', msPerCall: pick('three', count, 'totalMs'), calls: first('three', count).frames },
    { name: 'Cairn crowd', msPerCall: pick('cairn', count, 'totalMs'), calls: first('cairn', count).frames },
  ]);
}

console.log('\n## table');
console.log('| avatars | three anim | three render | three total | Cairn anim | Cairn render | Cairn total | empty scene | Cairn / three | above the empty scene: Cairn / three | draw calls three → Cairn | anim bytes/frame three → Cairn | Cairn live / baked |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const count of sizes) {
  const three = first('three', count);
  const cairn = first('cairn', count);
  const ratio = pick('cairn', count, 'totalMs') / pick('three', count, 'totalMs');
  const sceneMs = sceneAt(count);
  const above = Math.max(0, pick('cairn', count, 'totalMs') - sceneMs) / Math.max(1e-6, pick('three', count, 'totalMs') - sceneMs);
  const kb = (b: number): string => `${(b / 1024).toFixed(1)} KB`;
  console.log(
    `| ${count} | ${formatMs(pick('three', count, 'animMs'))} | ${formatMs(pick('three', count, 'renderMs'))} | ${formatMs(pick('three', count, 'totalMs'))} | ${formatMs(pick('cairn', count, 'animMs'))} | ${formatMs(pick('cairn', count, 'renderMs'))} | ${formatMs(pick('cairn', count, 'totalMs'))} | ${formatMs(sceneMs)} | × ${ratio.toFixed(3)} | × ${above.toFixed(3)} | ${three.drawCalls} → ${cairn.drawCalls} | ${kb(three.uploadBytes)} → ${kb(cairn.uploadBytes)} | ${cairn.live} / ${cairn.baked} |`,
  );
}
const target50 = pick('cairn', 50, 'totalMs') / pick('three', 50, 'totalMs');
const anim500 = pick('cairn', 500, 'animMs');
const above50 = Math.max(0, pick('cairn', 50, 'totalMs') - sceneAt(50)) / Math.max(1e-6, pick('three', 50, 'totalMs') - sceneAt(50));
if (Number.isFinite(target50)) {
  console.log(`\ntarget: at 50 avatars Cairn ≤ 1/10 of three's default path — measured × ${target50.toFixed(3)} of the whole frame ${target50 <= 0.1 ? '(met)' : '(NOT met)'}, × ${above50.toFixed(3)} of what the avatars add above the empty scene ${above50 <= 0.1 ? '(met)' : '(NOT met)'}`);
}
if (Number.isFinite(anim500)) console.log(`target: at 500 avatars Cairn's animation work < 4 ms per frame — measured ${formatMs(anim500)} ${anim500 < 4 ? '(met)' : '(NOT met)'}`);
console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
