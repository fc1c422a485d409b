/**
 * Crowd benchmark, headless Chromium on WebGPU (SwiftShader here), one run, side by side: main-
 * thread ms per frame — animation (mixers / crowd.update) plus render submission — for three's
 * default path (a SkinnedMesh clone + AnimationMixer per avatar) against Cairn's crowd, at 50,
 * 100, 200, 500 and 1000 avatars, plus draw calls and animation bytes uploaded per frame.
 * GPU time is excluded on purpose: the page waits for the GPU between frames (see
 * app/crowd-bench.ts). `npm run bench -- crowd`; options: CROWD_COUNTS=50,500 CROWD_FRAMES=8
 * CROWD_ROUNDS=2 CROWD_WEBGL=1 CROWD_LOD=liveEnter=10,liveExit=14; sizes from CROWD_BIG_FROM=500 up run half the frames, one round.
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
// CROWD_LOD=liveEnter=10,liveExit=14,maxLive=0,fullRateDistance=8,rateBand=6 overrides the crowd's LOD defaults.
const lod = (process.env.CROWD_LOD ?? '').split(',').filter((kv) => /^(liveEnter|liveExit|maxLive|fullRateDistance|rateBand)=\d+(\.\d+)?$/.test(kv)).map((kv) => `&${kv}`).join('');

const started = Date.now();
const assets = buildPages();
const server = await startServer({ assetsDir: assets });
const browser = await launchChromium();
let result: { backend: string; adapter: string; frames: number; rounds: number; bigFrom: number; rows: BenchRow[] };
try {
  const page = await browser.newPage({ viewport: { width: 480, height: 270 } });
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(`${server.url}/crowd.html?bench=1&counts=${counts}&frames=${frames}&rounds=${rounds}&bigFrom=${bigFrom}${webgl}${lod}`);
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
const pick = (path: BenchRow['path'], count: number, key: 'animMs' | 'renderMs' | 'totalMs' | 'baseMs' | 'addedMs'): number => median(result.rows.filter((r) => r.path === path && r.count === count).map((r) => r[key]));
const first = (path: string, count: number): BenchRow => result.rows.find((r) => r.path === path && r.count === count)!;

console.log(`\ncrowd benchmark on ${result.backend} (${result.adapter}), ${result.frames} measured frame pairs × ${result.rounds} interleaved rounds per path and size (from ${result.bigFrom} avatars: ${Math.max(3, Math.ceil(result.frames / 2))} pairs × 1 round); trimmed means per run, median over rounds`);
console.log('each pair: one frame with the avatars, one of the same scene without them (ground, lights, background) — "added" is what the avatars cost above that empty scene');
const sizes = [...new Set(result.rows.map((r) => r.count))];
for (const count of sizes) {
  printComparison(`${count} avatars — main-thread ms per frame the avatars add (animation + render submission above the empty scene)`, [
    { name: 'three default path', msPerCall: pick('three', count, 'addedMs'), calls: first('three', count).frames },
    { name: 'Cairn crowd', msPerCall: pick('cairn', count, 'addedMs'), calls: first('cairn', count).frames },
  ]);
}

console.log('\n## table');
console.log('| avatars | three anim | three render | three total | Cairn anim | Cairn render | Cairn total | empty scene | added: three | added: Cairn | added: Cairn / three | total: Cairn / three | draw calls three → Cairn | anim bytes/frame three → Cairn | Cairn live / baked |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const count of sizes) {
  const three = first('three', count);
  const cairn = first('cairn', count);
  const kb = (b: number): string => `${(b / 1024).toFixed(1)} KB`;
  const base = (pick('three', count, 'baseMs') + pick('cairn', count, 'baseMs')) / 2;
  console.log(
    `| ${count} | ${formatMs(pick('three', count, 'animMs'))} | ${formatMs(pick('three', count, 'renderMs'))} | ${formatMs(pick('three', count, 'totalMs'))} | ${formatMs(pick('cairn', count, 'animMs'))} | ${formatMs(pick('cairn', count, 'renderMs'))} | ${formatMs(pick('cairn', count, 'totalMs'))} | ${formatMs(base)} | ${formatMs(pick('three', count, 'addedMs'))} | ${formatMs(pick('cairn', count, 'addedMs'))} | × ${ratio(count, 'addedMs').toFixed(3)} | × ${ratio(count, 'totalMs').toFixed(3)} | ${three.drawCalls} → ${cairn.drawCalls} | ${kb(three.uploadBytes)} → ${kb(cairn.uploadBytes)} | ${cairn.live} / ${cairn.baked} |`,
  );
}
function ratio(count: number, key: 'addedMs' | 'totalMs'): number {
  return Math.max(0, pick('cairn', count, key)) / Math.max(1e-6, pick('three', count, key));
}
if (sizes.includes(50)) {
  const added = ratio(50, 'addedMs');
  console.log(`\ntarget: at 50 avatars Cairn ≤ 1/10 of three's default path — what the avatars add: × ${added.toFixed(3)} ${added <= 0.1 ? '(met)' : '(NOT met)'}; whole frame including the empty scene both pay: × ${ratio(50, 'totalMs').toFixed(3)}`);
}
if (sizes.includes(500)) {
  const anim500 = pick('cairn', 500, 'animMs');
  console.log(`target: at 500 avatars Cairn's animation work < 4 ms per frame — measured ${formatMs(anim500)} ${anim500 < 4 ? '(met)' : '(NOT met)'}`);
}
console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
