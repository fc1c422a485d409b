/**
 * Simplification time per 100k triangles, at the slider's ratio 0.5, on a 102,400-triangle torus
 * knot split into two material slots. Same mesh, interleaved rounds:
 * - three's SimplifyModifier (meshoptimizer with normal/uv weights; builds a new geometry with
 *   compacted vertex buffers, and drops the material groups);
 * - meshoptimizer on the whole index (one call, slots ignored: the naive way);
 * - Cairn's ModelSimplifier.setRatio: per slot, from the kept original, into the same index buffer.
 * Each round alternates 0.5 and 0.25 so ModelSimplifier always rebuilds from the original.
 */
import { MeshoptSimplifier } from 'meshoptimizer/simplifier';
import { BufferGeometry, Mesh, TorusKnotGeometry } from 'three';
import { SimplifyModifier } from 'three/addons/modifiers/SimplifyModifier.js';
import { formatMs, median, printComparison, type Measured } from '../lib/measure.ts';
import { ModelSimplifier } from '../../src/assets/model-simplifier.ts';

await MeshoptSimplifier.ready;

function twoSlotKnot(): BufferGeometry {
  const geometry = new TorusKnotGeometry(1, 0.3, 800, 64);
  const half = Math.floor(geometry.index!.count / 6) * 3;
  geometry.addGroup(0, half, 0);
  geometry.addGroup(half, geometry.index!.count - half, 1);
  return geometry;
}

const source = twoSlotKnot();
const triangles = source.index!.count / 3;
const per100k = 100_000 / triangles;

const positions = new Float32Array(source.getAttribute('position').array);
const wholeIndex = new Uint32Array(source.index!.array);
const modifier = new SimplifyModifier();
const simplifier = new ModelSimplifier(new Mesh(twoSlotKnot()), MeshoptSimplifier.simplify);

// All three must shrink the mesh to about half before anything is timed.
const check = [
  (await modifier.modify(source.clone(), Math.floor(source.getAttribute('position').count * 0.5))).index!.count / 3,
  MeshoptSimplifier.simplify(wholeIndex, positions, 3, Math.floor(wholeIndex.length / 6) * 3, 1, ['LockBorder'])[0].length / 3,
  simplifier.setRatio(0.5).trianglesAfter,
];
for (const t of check)
  if (!(t > triangles * 0.3 && t < triangles * 0.7)) throw new Error(`a candidate did not halve the mesh: ${check.join(', ')}`);

const candidates: Array<{ name: string; run: (ratio: number) => Promise<unknown> | unknown }> = [
  {
    name: 'three SimplifyModifier (drops slots)',
    run: (ratio) => modifier.modify(source.clone(), Math.floor(source.getAttribute('position').count * (1 - ratio))),
  },
  {
    name: 'meshopt, whole index (ignores slots)',
    run: (ratio) =>
      MeshoptSimplifier.simplify(wholeIndex, positions, 3, Math.floor((wholeIndex.length / 3) * ratio) * 3, 1, ['LockBorder']),
  },
  { name: 'ModelSimplifier.setRatio (per slot)', run: (ratio) => simplifier.setRatio(ratio) },
];

const rounds = 9;
const samples = candidates.map(() => [] as number[]);
for (let round = -1; round < rounds; round++) {
  const ratio = round % 2 === 0 ? 0.5 : 0.25;
  for (let i = 0; i < candidates.length; i++) {
    const start = performance.now();
    await candidates[i]!.run(ratio);
    if (round >= 0) samples[i]!.push((performance.now() - start) * per100k);
  }
}
const results: Measured[] = candidates.map((c, i) => ({ name: c.name, msPerCall: median(samples[i]!), calls: rounds }));
printComparison(
  `simplification per 100k triangles (${triangles.toLocaleString('en-US')}-triangle mesh, 2 slots, ratios 0.5 / 0.25, median)`,
  results,
);
const slots = simplifier.meshes[0]!.mesh.geometry.groups.map((g) => `${g.count / 3} triangles in slot ${g.materialIndex}`).join(', ');
console.log(`ModelSimplifier keeps both slots: ${slots}; ${formatMs(median(samples[2]!))} per 100k triangles`);
