/**
 * Placement throughput (candidates per ms): Cairn's engine with its spacing checks on a
 * SpatialHash2D (cells twice the family's spacing) against the same engine with one giant cell, i.e. a linear scan of
 * every placed instance of the family — the naive spacing check. Same seed, same dabs, same
 * terrain, interleaved rounds; each round paints a fresh 240-dab Mixed Forest session.
 */
import { generateTerrain } from '../../src/world/terrain/generate.ts';
import { PlacementEngine } from '../../src/scatter/placement.ts';
import { loadPresets } from '../../src/scatter/preset.ts';
import { BUILTIN_PRESET_DATA } from '../../src/scatter/presets/index.ts';
import { compare, printComparison } from '../lib/measure.ts';
import { strokePath } from './fixtures.ts';

const terrain = generateTerrain();
const presets = new Map(loadPresets(BUILTIN_PRESET_DATA).presets.map((p) => [p.id, p]));
const forest = presets.get('mixed-forest')!;
const meadow = presets.get('meadow')!;
const path = strokePath(240);
const catalog = new Map<string, string[]>();
/** Like the catalog: a stable array per category. */
const propsIn = (category: string): readonly string[] => {
  let ids = catalog.get(category);
  if (!ids) catalog.set(category, (ids = [`${category}-a`, `${category}-b`]));
  return ids;
};

let lastCandidates = 0;
let lastPlaced = 0;
function session(cellSize: number | undefined): number {
  const engine = new PlacementEngine({ seed: 7, ground: terrain, propsIn, cellSize });
  for (let i = 0; i < path.length; i++) engine.dab({ x: path[i]!.x, z: path[i]!.z, radius: 10 }, i % 3 === 2 ? meadow : forest);
  lastCandidates = engine.candidates;
  lastPlaced = engine.placed;
  return engine.placed;
}

// Both must place exactly the same instances (the hash only changes how fast).
if (session(undefined) !== session(1e9)) throw new Error('hash and linear scan disagree');

const results = compare(
  [
    { name: 'linear scan (one cell)', run: () => session(1e9) },
    { name: 'SpatialHash2D (cells 2× spacing)', run: () => session(undefined) },
  ],
  { rounds: 7, callsPerRound: 1 },
);
printComparison(`placement session: ${path.length} dabs, ${lastCandidates} candidates, ${lastPlaced} placed`, results);
for (const r of results) console.log(`  ${r.name}: ${(lastCandidates / r.msPerCall).toFixed(0)} candidates/ms`);
