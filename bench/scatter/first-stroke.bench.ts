/**
 * First-stroke latency after choosing a preset: the time from the first dab until every instance
 * it placed is in its instanced bucket (drawable).
 * - with the background bake: choose the preset, let its props bake off the click, then stroke;
 * - without it: stroke right after choosing, so the stroke's props must be loaded and baked first.
 * Each round uses a fresh catalog (fresh procedural geometry, so nothing is memoised across
 * rounds). Same seed, same dab, interleaved. Target: under 10 ms with the background bake.
 */
import { generateTerrain } from '../../src/world/terrain/generate.ts';
import { simplifierReady } from '../../src/scatter/lod-bake.ts';
import { ScatterLayer } from '../../src/scatter/scatter-layer.ts';
import { formatMs, median, printComparison, type Measured } from '../lib/measure.ts';

const terrain = generateTerrain();
await simplifierReady();
const rounds = 7;
const dab = { x: 0, z: 0, radius: 16 };

async function firstStroke(background: boolean): Promise<{ ms: number; placed: number; bakeMs: number }> {
  const layer = new ScatterLayer({ ground: terrain, seed: 3 });
  const bakeStart = performance.now();
  const bake = layer.choosePreset('mixed-forest');
  if (background) await bake;
  const bakeMs = performance.now() - bakeStart;
  const start = performance.now();
  const { added } = layer.paint(dab.x, dab.z, dab.radius);
  await layer.whenIdle();
  layer.update({ x: 0, y: 40, z: 30 }, 0);
  const ms = performance.now() - start;
  if (layer.stats.rendered !== added.length) throw new Error(`only ${layer.stats.rendered}/${added.length} drawn`);
  await bake;
  layer.dispose();
  return { ms, placed: added.length, bakeMs };
}

const samples = { with: [] as number[], without: [] as number[] };
let placed = 0;
let bakeMs = 0;
await firstStroke(true); // warm-up (JIT, WebAssembly)
for (let round = 0; round < rounds; round++) {
  const without = await firstStroke(false);
  const withBake = await firstStroke(true);
  samples.without.push(without.ms);
  samples.with.push(withBake.ms);
  placed = withBake.placed;
  bakeMs = withBake.bakeMs;
}
const results: Measured[] = [
  { name: 'stroke waits for the bake', msPerCall: median(samples.without), calls: rounds },
  { name: 'after the background bake', msPerCall: median(samples.with), calls: rounds },
];
printComparison(`first stroke after choosing Mixed Forest (${placed} instances, r = ${dab.radius} m)`, results);
console.log(`  background bake of the preset's props: ${formatMs(bakeMs)} (off the click; progress shown)`);
console.log(`  first stroke after the bake: ${formatMs(results[1]!.msPerCall)} — target < 10 ms: ${results[1]!.msPerCall < 10 ? 'met' : 'NOT met'}`);
