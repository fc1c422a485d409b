import { classifyBiome, type Biome } from '../world/terrain/biome.ts';

/** What a foot can land on, as far as sound is concerned. */
export type Surface = 'grass' | 'leaves' | 'sand' | 'dirt' | 'stone' | 'snow' | 'water';

/** Every surface. */
export const SURFACES: readonly Surface[] = ['grass', 'leaves', 'sand', 'dirt', 'stone', 'snow', 'water'];

const BY_BIOME: Record<Biome, Surface> = {
  seabed: 'water',
  sand: 'sand',
  grass: 'grass',
  meadow: 'grass',
  'forest-floor': 'leaves',
  dirt: 'dirt',
  rock: 'stone',
  snow: 'snow',
};

/** The footstep surface of a terrain biome. */
export function surfaceForBiome(biome: Biome): Surface {
  return BY_BIOME[biome];
}

/** The ground queries {@link surfaceAt} needs (the world's Heightmap has them). */
export interface SurfaceGround {
  /** Height of the ground (m) at (x, z). */
  sampleHeight(x: number, z: number): number;
  /** Slope of the ground (degrees) at (x, z). */
  sampleSlope(x: number, z: number): number;
  /** Height of the water surface (m): below it the surface is water. */
  readonly waterLevel: number;
}

/**
 * The surface under a point: water when the ground there is under the surface (wading or
 * swimming), else the biome the terrain is coloured by (classifyBiome of altitude and slope).
 */
export function surfaceAt(ground: SurfaceGround, x: number, z: number): Surface {
  const altitude = ground.sampleHeight(x, z) - ground.waterLevel;
  if (altitude < 0) return 'water';
  return surfaceForBiome(classifyBiome({ altitude, slope: ground.sampleSlope(x, z) }));
}

/** Whether `value` names a {@link Surface}. */
export function isSurface(value: unknown): value is Surface {
  return typeof value === 'string' && (SURFACES as readonly string[]).includes(value);
}
