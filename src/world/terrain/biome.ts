/** Surface classes the terrain colours by, and props (scatter) can key on. */
export type Biome = 'seabed' | 'sand' | 'grass' | 'meadow' | 'forest-floor' | 'dirt' | 'rock' | 'snow';

/** What {@link classifyBiome} classifies: the ground's altitude and slope at a point. */
export interface BiomeInput {
  /** Height above the water level, metres. */
  altitude: number;
  /** Degrees, 0 = flat. */
  slope: number;
}

/**
 * Classifies ground by altitude above water and slope. Order matters: water first, then cliffs
 * (steepness beats height), then bands by altitude.
 */
export function classifyBiome({ altitude, slope }: BiomeInput): Biome {
  if (altitude < -0.3) return 'seabed';
  if (altitude < 1.6 && slope < 22) return 'sand';
  if (slope > 38) return 'rock';
  if (altitude > 62 && slope < 34) return 'snow';
  if (slope > 27 || altitude > 48) return 'dirt';
  if (altitude > 20) return 'forest-floor';
  if (altitude < 4) return 'meadow';
  return 'grass';
}

/** Linear RGB colour per biome (0..1), chosen to read at a distance under a warm sun. */
export const BIOME_COLORS: Record<Biome, readonly [number, number, number]> = {
  seabed: [0.36, 0.33, 0.24],
  sand: [0.76, 0.68, 0.48],
  meadow: [0.36, 0.52, 0.2],
  grass: [0.27, 0.45, 0.16],
  'forest-floor': [0.22, 0.34, 0.14],
  dirt: [0.42, 0.34, 0.24],
  rock: [0.42, 0.41, 0.4],
  snow: [0.92, 0.94, 0.97],
};
