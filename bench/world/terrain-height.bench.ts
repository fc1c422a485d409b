/**
 * Terrain height query: Cairn's `sampleHeight` (bilinear lookup in the CPU heightmap) against
 * three.js's way of asking the same question, a downward Raycaster against the terrain mesh.
 * Same terrain, same seeded query points, interleaved rounds.
 */
import { Raycaster, Vector3 } from 'three';
import { Mulberry32 } from '../../src/core/rng.ts';
import { generateTerrain } from '../../src/world/terrain/generate.ts';
import { createTerrainMesh } from '../../src/world/terrain/terrain-mesh.ts';
import { compare, printComparison } from '../lib/measure.ts';

const heightmap = generateTerrain();
const mesh = createTerrainMesh(heightmap);
mesh.updateMatrixWorld(true);
const rng = new Mulberry32(1234);
const points = Array.from({ length: 4096 }, () => ({ x: rng.range(-250, 250), z: rng.range(-250, 250) }));

let i = 0;
const raycaster = new Raycaster();
const origin = new Vector3();
const down = new Vector3(0, -1, 0);
const hits: Array<{ point: Vector3 }> = [];

// Check both agree before timing anything.
for (const p of points.slice(0, 64)) {
  origin.set(p.x, 1000, p.z);
  raycaster.set(origin, down);
  hits.length = 0;
  const hit = raycaster.intersectObject(mesh, false)[0];
  const diff = Math.abs((hit?.point.y ?? NaN) - heightmap.sampleHeight(p.x, p.z));
  // Bilinear patches and the mesh's two triangles per cell differ a little on steep ground.
  if (!(diff < 0.5)) throw new Error(`raycast and sampleHeight disagree by ${diff} at ${p.x}, ${p.z}`);
}

const results = compare(
  [
    {
      name: 'three Raycaster vs terrain mesh',
      run: () => {
        const p = points[i++ & 4095]!;
        origin.set(p.x, 1000, p.z);
        raycaster.set(origin, down);
        return raycaster.intersectObject(mesh, false)[0]?.point.y;
      },
    },
    {
      name: 'Heightmap.sampleHeight',
      run: () => {
        const p = points[i++ & 4095]!;
        return heightmap.sampleHeight(p.x, p.z);
      },
      callsPerRound: 200_000,
    },
  ],
  { rounds: 7, callsPerRound: 40 },
);
printComparison(`terrain height query (257×257 heightmap, ${mesh.geometry.index!.count / 3} triangles)`, results);
