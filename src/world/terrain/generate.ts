import { smoothstep, lerp, type XZ } from '../../core/math.ts';
import { Heightmap } from './heightmap.ts';
import { ValueNoise2D } from './noise.ts';

/** Options of {@link generateTerrain}. */
export interface TerrainOptions {
  /** Seed for the noise; the hand-shaped features stay where they are. Default 1. */
  seed?: number;
  /** Samples per side. Default 257. */
  resolution?: number;
  /** Edge length in metres. Default 512. */
  worldSize?: number;
}

/**
 * Named places on Cairn's default map, for spawning, tests and presets. World metres; −Z is north.
 * Generated terrain puts each feature around these points.
 */
export const LANDMARKS: Readonly<Landmarks> = {
  spawn: { x: 0, z: 0 },
  mountains: { x: 0, z: -190 },
  cliff: { x: 138, z: 0 },
  beach: { x: 0, z: 172 },
  lake: { x: -150, z: 60 },
};

/** The places {@link LANDMARKS} names, each a point on the ground. */
export interface Landmarks {
  /** Where the player starts: the middle of the map. */
  spawn: Readonly<XZ>;
  /** Foot of the mountains to the north. */
  mountains: Readonly<XZ>;
  /** The cliff band that runs north–south in the east; the plateau lies east of it. */
  cliff: Readonly<XZ>;
  /** Coastal plain and beach in the south; the sea beyond. */
  beach: Readonly<XZ>;
  /** The lake basin in the south-west. */
  lake: Readonly<XZ>;
}

/** Mean x of the cliff band's steepest line (it wanders ±9 m with z). */
const CLIFF_EDGE_X = 142;
/** Mean z where the coast meets the sea (it wanders ±14 m with x). */
const SHORELINE_Z = 185;

/**
 * Builds Cairn's default terrain: rolling hills around the spawn, mountains to the north, a cliff
 * band to the east, a coastal plain and beach to the south and a lake basin to the south-west.
 * Water level is 0. Deterministic for a given seed.
 */
export function generateTerrain(options: TerrainOptions = {}): Heightmap {
  const seed = options.seed ?? 1;
  const resolution = options.resolution ?? 257;
  const worldSize = options.worldSize ?? 512;
  const noise = new ValueNoise2D(seed);
  const detail = new ValueNoise2D(seed + 1013);
  const heights = new Float32Array(resolution * resolution);
  const spacing = worldSize / (resolution - 1);
  const min = -worldSize / 2;

  for (let iz = 0; iz < resolution; iz++) {
    const z = min + iz * spacing;
    for (let ix = 0; ix < resolution; ix++) {
      const x = min + ix * spacing;
      heights[iz * resolution + ix] = heightAt(x, z, noise, detail);
    }
  }
  return new Heightmap(resolution, worldSize, heights, 0);
}

function heightAt(x: number, z: number, noise: ValueNoise2D, detail: ValueNoise2D): number {
  // Rolling hills, 2–11 m.
  let h = 6.5 + 9 * noise.fbm(x / 95, z / 95, 4) + 0.6 * detail.fbm(x / 9, z / 9, 2);

  // Mountains to the north: a ridged range that rises from z ≈ −70 and tops out near 90 m.
  const north = smoothstep(-70, -185, z + 12 * noise.sample(x / 60, 3.7));
  if (north > 0) h += north * (28 + 62 * noise.ridged(x / 75 + 11, z / 75, 5));

  // Cliff band to the east: an 18 m step over ~8 m of run (about 70°), with a wavy edge.
  const edge = CLIFF_EDGE_X + 9 * noise.sample(7.3, z / 45);
  const plateau = smoothstep(edge - 4, edge + 4, x);
  h = lerp(h, Math.max(h, 6) + 18 + 3 * detail.fbm(x / 30, z / 30, 3), plateau);

  // Lake basin to the south-west: bowl down to −6 m with gentle shores.
  const lakeDistance = Math.hypot(x - LANDMARKS.lake.x, z - LANDMARKS.lake.z) + 6 * noise.sample(x / 25, z / 25 + 5);
  const lake = smoothstep(58, 22, lakeDistance);
  h = lerp(h, -6, lake);

  // Coastal plain, beach and sea to the south: the land flattens, then slides under the water.
  const shoreline = SHORELINE_Z + 14 * noise.sample(x / 70, 9.1);
  const plain = smoothstep(shoreline - 80, shoreline - 25, z);
  h = lerp(h, 2.2 + 0.6 * detail.fbm(x / 20, z / 20, 2), plain);
  const sea = smoothstep(shoreline - 25, shoreline + 25, z);
  h = lerp(h, -5, sea);

  return h;
}
