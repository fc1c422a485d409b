/**
 * Brush cursor query: the ray march over the CPU heightmap against three's Raycaster on the
 * terrain mesh (131,072 triangles) and three-mesh-bvh's accelerated raycast (BVH, first hit only)
 * on the same terrain and the same 2,048 camera-like rays, interleaved rounds.
 */
import { Raycaster, type Mesh } from 'three';
import { acceleratedRaycast, MeshBVH } from 'three-mesh-bvh';
import { generateTerrain } from '../../src/world/terrain/generate.ts';
import { createTerrainMesh } from '../../src/world/terrain/terrain-mesh.ts';
import { maxGrade, rayMarchHeightfield } from '../../src/scatter/ray-march.ts';
import { compare, printComparison } from '../lib/measure.ts';
import { cursorRays } from './fixtures.ts';

const heightmap = generateTerrain();
const plain: Mesh = createTerrainMesh(heightmap);
plain.updateMatrixWorld(true);
const bvhMesh: Mesh = createTerrainMesh(heightmap);
bvhMesh.updateMatrixWorld(true);
const bvhStart = performance.now();
(bvhMesh.geometry as { boundsTree?: MeshBVH }).boundsTree = new MeshBVH(bvhMesh.geometry);
const bvhBuildMs = performance.now() - bvhStart;
bvhMesh.raycast = acceleratedRaycast;
maxGrade(heightmap); // measured once per terrain, like the page does on first use

const rays = cursorRays(heightmap, 2048, 5);
const raycaster = new Raycaster();
const bvhRaycaster = new Raycaster();
(bvhRaycaster as Raycaster & { firstHitOnly: boolean }).firstHitOnly = true;

// Agreement first: the three answers must be the same ground point (within the 0.6 m the
// bilinear surface and the mesh's two triangles per cell can differ, plus grazing rays).
let agree = 0;
let samples = 0;
for (const { origin, direction } of rays.slice(0, 256)) {
  raycaster.set(origin, direction);
  bvhRaycaster.set(origin, direction);
  const a = raycaster.intersectObject(plain, false)[0]?.point;
  const b = bvhRaycaster.intersectObject(bvhMesh, false)[0]?.point;
  const c = rayMarchHeightfield(heightmap, origin, direction);
  if (!a || !b || !c) continue;
  samples += c.samples;
  if (a.distanceTo(b) < 1e-3 && Math.hypot(a.x - c.x, a.y - c.y, a.z - c.z) < 1.5) agree++;
}
if (agree < 240) throw new Error(`only ${agree}/256 rays agree between the three methods`);

let i = 0;
const results = compare(
  [
    {
      name: 'three Raycaster vs terrain mesh',
      run: () => {
        const r = rays[i++ & 2047]!;
        raycaster.set(r.origin, r.direction);
        return raycaster.intersectObject(plain, false)[0]?.distance;
      },
      callsPerRound: 12,
    },
    {
      name: 'three-mesh-bvh accelerated raycast',
      run: () => {
        const r = rays[i++ & 2047]!;
        bvhRaycaster.set(r.origin, r.direction);
        return bvhRaycaster.intersectObject(bvhMesh, false)[0]?.distance;
      },
      callsPerRound: 2000,
    },
    {
      name: 'ray march over sampleHeight',
      run: () => {
        const r = rays[i++ & 2047]!;
        return rayMarchHeightfield(heightmap, r.origin, r.direction)?.distance;
      },
      callsPerRound: 2000,
    },
  ],
  { rounds: 9 },
);
printComparison(`cursor query on the 257×257 terrain (${plain.geometry.index!.count / 3} triangles), ${agree}/256 rays agree`, results);
console.log(
  `  ray march: ${(samples / agree).toFixed(1)} height lookups per query on average; BVH build ${bvhBuildMs.toFixed(0)} ms (once)`,
);
