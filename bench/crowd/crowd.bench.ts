/**
 * Crowd benchmark, headless Chromium on WebGPU (SwiftShader here), one run, side by side: main-
 * thread ms per frame — animation (mixers / crowd.update) plus render submission — for three's
 * default path (a SkinnedMesh clone + AnimationMixer per avatar) against Cairn's crowd, in two
 * scenarios: `spread` (avatars standing 2–30 m ahead) and `near` (every avatar within 8 m,
 * walking), plus draw calls and animation bytes uploaded per frame, Cairn alone at 2,000 avatars,
 * and the baked clip memory of a 55-clip rig (baked here in Node, the crowd's own bake).
 * GPU time is excluded on purpose: the page waits for the GPU between frames (see
 * app/crowd-bench.ts). `npm run bench -- crowd`; options: CROWD_COUNTS=50,500 CROWD_FRAMES=8
 * CROWD_ROUNDS=2 CROWD_WEBGL=1 CROWD_SCENARIOS=spread,near CROWD_CAIRN_ONLY=2000 CROWD_LOOK=0
 * CROWD_LOD=liveEnter=10,liveExit=14; sizes from CROWD_BIG_FROM=500 up run half the frames, one round.
 */
import { AnimationClip } from 'three';
import { bakeClips, DEFAULT_BAKED_BUDGET } from '../../src/crowd/bake.ts';
import { CrowdTemplate } from '../../src/crowd/template.ts';
import { createHumanoid } from '../../src/rig/humanoid.ts';
import { buildPages } from '../../tests/harness/build.ts';
import { launchChromium } from '../../tests/harness/browser.ts';
import { startServer } from '../../tests/harness/server.ts';
import { formatMs, printComparison } from '../lib/measure.ts';
import type { BenchRow } from '../../app/crowd-bench.ts';

const counts = process.env.CROWD_COUNTS ?? '50,100,200,500,1000';
const scenarios = process.env.CROWD_SCENARIOS ?? 'spread,near';
const cairnOnly = process.env.CROWD_CAIRN_ONLY ?? '2000';
const look = process.env.CROWD_LOOK ?? '0';
const frames = process.env.CROWD_FRAMES ?? '8';
const rounds = process.env.CROWD_ROUNDS ?? '2';
const webgl = process.env.CROWD_WEBGL === '1' ? '&webgl=1' : '';
const bigFrom = process.env.CROWD_BIG_FROM ?? '500';
// CROWD_LOD=liveEnter=10,liveExit=14,maxLive=0,fullRateDistance=8,rateBand=6 overrides the crowd's LOD defaults.
const lod = (process.env.CROWD_LOD ?? '')
  .split(',')
  .filter((kv) => /^(liveEnter|liveExit|maxLive|fullRateDistance|rateBand)=\d+(\.\d+)?$/.test(kv))
  .map((kv) => `&${kv}`)
  .join('');

const started = Date.now();
const assets = buildPages();
const server = await startServer({ assetsDir: assets });
const browser = await launchChromium();
let result: {
  backend: string;
  adapter: string;
  frames: number;
  rounds: number;
  bigFrom: number;
  rows: BenchRow[];
  baked: { clips: number; rows: number; fps: number; bytes: number; precision: string };
};
try {
  const page = await browser.newPage({ viewport: { width: 480, height: 270 } });
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(
    `${server.url}/crowd.html?bench=1&counts=${counts}&frames=${frames}&rounds=${rounds}&bigFrom=${bigFrom}&scenarios=${scenarios}&cairnOnly=${cairnOnly}&look=${look}${webgl}${lod}`,
  );
  let last = -1;
  for (;;) {
    const state = await page.evaluate(() => ({
      result: window.cairn?.benchResult,
      progress: window.cairn?.benchProgress as { done: number; total: number } | undefined,
      fatal: window.cairn?.fatal,
    }));
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
type Key = 'animMs' | 'renderMs' | 'totalMs' | 'baseMs' | 'addedMs';
const rowsOf = (scenario: string, path: BenchRow['path'], count: number): BenchRow[] =>
  result.rows.filter((r) => r.scenario === scenario && r.path === path && r.count === count);
const pick = (scenario: string, path: BenchRow['path'], count: number, key: Key): number =>
  median(rowsOf(scenario, path, count).map((r) => r[key]));
const first = (scenario: string, path: BenchRow['path'], count: number): BenchRow | undefined => rowsOf(scenario, path, count)[0];
const ratio = (scenario: string, count: number, key: 'addedMs' | 'totalMs'): number =>
  Math.max(0, pick(scenario, 'cairn', count, key)) / Math.max(1e-6, pick(scenario, 'three', count, key));
const kb = (b: number): string => `${(b / 1024).toFixed(1)} KB`;
const met = (ok: boolean): string => (ok ? '(met)' : '(NOT met)');

console.log(
  `\ncrowd benchmark on ${result.backend} (${result.adapter}), ${result.frames} measured frame pairs × ${result.rounds} interleaved rounds per path and size (from ${result.bigFrom} avatars: ${Math.max(3, Math.ceil(result.frames / 2))} pairs × 1 round); trimmed means per run, median over rounds`,
);
console.log(
  'each pair: one frame with the avatars, one of the same scene without them (ground, lights, background) — "added" is what the avatars cost above that empty scene',
);
console.log(
  'scenarios: spread = a grid 2–30 m ahead, standing; near = every avatar within 8 m of the camera, walking (a new position every frame)',
);
for (const scenario of [...new Set(result.rows.map((r) => r.scenario))]) {
  const sizes = [...new Set(result.rows.filter((r) => r.scenario === scenario && r.path === 'three').map((r) => r.count))];
  for (const count of sizes) {
    printComparison(
      `${scenario}, ${count} avatars — main-thread ms per frame the avatars add (animation + render submission above the empty scene)`,
      [
        {
          name: 'three default path',
          msPerCall: pick(scenario, 'three', count, 'addedMs'),
          calls: first(scenario, 'three', count)!.frames,
        },
        { name: 'Cairn crowd', msPerCall: pick(scenario, 'cairn', count, 'addedMs'), calls: first(scenario, 'cairn', count)!.frames },
      ],
    );
  }
  console.log(`\n## table: ${scenario}`);
  console.log(
    '| avatars | three anim | three render | three total | Cairn anim | Cairn render | Cairn total | empty scene | added: three | added: Cairn | added: Cairn / three | total: Cairn / three | draw calls three → Cairn | anim bytes/frame three → Cairn | Cairn bytes per visible avatar | Cairn GPU / live |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const count of sizes) {
    const three = first(scenario, 'three', count)!;
    const cairn = first(scenario, 'cairn', count)!;
    const base = (pick(scenario, 'three', count, 'baseMs') + pick(scenario, 'cairn', count, 'baseMs')) / 2;
    console.log(
      `| ${count} | ${formatMs(pick(scenario, 'three', count, 'animMs'))} | ${formatMs(pick(scenario, 'three', count, 'renderMs'))} | ${formatMs(pick(scenario, 'three', count, 'totalMs'))} | ${formatMs(pick(scenario, 'cairn', count, 'animMs'))} | ${formatMs(pick(scenario, 'cairn', count, 'renderMs'))} | ${formatMs(pick(scenario, 'cairn', count, 'totalMs'))} | ${formatMs(base)} | ${formatMs(pick(scenario, 'three', count, 'addedMs'))} | ${formatMs(pick(scenario, 'cairn', count, 'addedMs'))} | × ${ratio(scenario, count, 'addedMs').toFixed(3)} | × ${ratio(scenario, count, 'totalMs').toFixed(3)} | ${three.drawCalls} → ${cairn.drawCalls} | ${kb(three.uploadBytes)} → ${kb(cairn.uploadBytes)} | ${(cairn.uploadBytes / Math.max(1, cairn.visible ?? count)).toFixed(1)} B | ${cairn.gpu} / ${cairn.live} |`,
    );
  }
  const alone = result.rows.filter((r) => r.scenario === scenario && r.path === 'cairn' && !sizes.includes(r.count));
  for (const r of alone)
    console.log(
      `Cairn alone, ${scenario}, ${r.count} avatars: anim ${formatMs(r.animMs)}, render ${formatMs(r.renderMs)}, added ${formatMs(r.addedMs)}, ${r.drawCalls} draw calls, ${kb(r.uploadBytes)}/frame (${(r.uploadBytes / Math.max(1, r.visible ?? r.count)).toFixed(1)} B per visible avatar), GPU / live ${r.gpu} / ${r.live}`,
    );
}

console.log('\n## targets (same-run ratios)');
const has = (scenario: string, count: number): boolean =>
  rowsOf(scenario, 'three', count).length > 0 && rowsOf(scenario, 'cairn', count).length > 0;
if (has('near', 50))
  console.log(
    `near, 50 avatars: Cairn adds × ${ratio('near', 50, 'addedMs').toFixed(3)} of three's path (target ≤ × 0.10) ${met(ratio('near', 50, 'addedMs') <= 0.1)}`,
  );
if (has('near', 500))
  console.log(
    `near, 500 avatars: Cairn adds × ${ratio('near', 500, 'addedMs').toFixed(3)} of three's path (target ≤ × 0.05) ${met(ratio('near', 500, 'addedMs') <= 0.05)}`,
  );
if (has('spread', 50)) console.log(`spread, 50 avatars: Cairn adds × ${ratio('spread', 50, 'addedMs').toFixed(3)} of three's path`);
const noLive = result.rows.filter((r) => r.path === 'cairn' && (r.live ?? 0) === 0);
if (noLive.length > 0) {
  const worst = Math.max(...noLive.map((r) => r.uploadBytes / Math.max(1, r.visible ?? r.count)));
  console.log(
    `bytes uploaded per visible avatar per frame with no live avatar: at most ${worst.toFixed(1)} B over ${noLive.length} runs (target ≤ 64 B) ${met(worst <= 64)}`,
  );
}
const big = result.rows.filter((r) => r.path === 'cairn' && r.count >= 2000);
for (const r of big)
  console.log(
    `animation work for ${r.count} avatars (${r.scenario}): ${formatMs(r.animMs)} per frame (target < 2 ms) ${met(r.animMs < 2)}`,
  );

// Baked clip memory for a 55-clip rig: the mannequin's clips repeated under new names.
const humanoid = createHumanoid({ detail: 'low' });
const source = humanoid.clips;
const clips55 = Array.from({ length: 55 }, (_, i) => {
  const clip = source[i % source.length]!;
  return new AnimationClip(`${clip.name}-${i}`, clip.duration, clip.tracks, clip.blendMode);
});
const rig55 = new CrowdTemplate({ object: humanoid.object, clips: clips55 }, { name: 'mannequin-55' });
const bakeStart = performance.now();
const half = bakeClips(rig55, { precision: 'half' });
const bakeMs = performance.now() - bakeStart;
const full = bakeClips(rig55, { precision: 'float', maxBytes: Number.POSITIVE_INFINITY });
const seconds = rig55.clips.reduce((sum, c) => sum + c.duration, 0);
console.log(
  `baked clip memory, 55 clips (${seconds.toFixed(0)} s of animation, ${rig55.boneCount} bones): ${(half.gpuBytes / 1048576).toFixed(2)} MB in half floats at ${half.plan.fps.toFixed(1)} fps (${half.plan.rows} frames, baked in ${bakeMs.toFixed(0)} ms) vs ${(full.gpuBytes / 1048576).toFixed(2)} MB in floats at ${full.plan.fps.toFixed(1)} fps; budget ${(DEFAULT_BAKED_BUDGET / 1048576).toFixed(0)} MB ${met(half.gpuBytes <= DEFAULT_BAKED_BUDGET)}`,
);
console.log(
  `the page's rig: ${result.baked.clips} clips, ${result.baked.rows} frames at ${result.baked.fps.toFixed(0)} fps, ${kb(result.baked.bytes)} (${result.baked.precision})`,
);
console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
