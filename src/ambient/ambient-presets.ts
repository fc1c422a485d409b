import type { GroundSampler } from '../scatter/placement.ts';
import { LANDMARKS } from '../world/terrain/generate.ts';
import { ValueNoise2D } from '../world/terrain/noise.ts';

/**
 * Which scatter preset grows where on Cairn's default map (pure). Read in this order: the lake's
 * shore, the beach and coastal plain, the cliff band and any steep ground, the high slopes, and
 * elsewhere patches of forest and meadow from a low-frequency noise of the world seed. The spawn
 * is a meadow clearing, so a visitor arrives with open ground around them and trees beyond.
 */
export type AmbientPreset = 'lake-shore' | 'beach' | 'cliff-scree' | 'mixed-forest' | 'meadow';

/** Open ground around the spawn (metres): meadow only within it, nothing within `empty`. */
export const SPAWN_CLEARING = { meadow: 26, empty: 6 } as const;

export function ambientPresetChooser(seed: number): (x: number, z: number, ground: GroundSampler) => AmbientPreset | null {
  const patches = new ValueNoise2D(seed + 7919);
  return (x, z, ground) => {
    const altitude = ground.sampleHeight(x, z) - ground.waterLevel;
    const slope = ground.sampleSlope(x, z);
    if (Math.hypot(x - LANDMARKS.spawn.x, z - LANDMARKS.spawn.z) < SPAWN_CLEARING.meadow) return 'meadow';
    if (Math.hypot(x - LANDMARKS.lake.x, z - LANDMARKS.lake.z) < 72 && altitude < 4) return 'lake-shore';
    if (z > 130 && altitude < 5) return 'beach';
    if (altitude < -0.5) return null;
    if (slope > 30 || Math.abs(x - LANDMARKS.cliff.x) < 10) return 'cliff-scree';
    if (altitude > 24) return 'mixed-forest';
    return patches.fbm(x / 110, z / 110, 3) > 0.48 ? 'mixed-forest' : 'meadow';
  };
}
