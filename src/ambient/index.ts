/**
 * cairn-world/ambient: vegetation and rocks over a whole map, placed region by region in a Worker
 * (inline where there is none) and streamed in and out by distance ({@link AmbientScatter}), and the
 * world's `ambient` service. app/world-plugins/ambient.ts installs it in the world; other plugins
 * find it as `world.services.get('ambient')`.
 *
 * @module ambient
 */
import type { StageCrowd } from '../crowd/stage-crowd.ts';
import type { AmbientScatter } from './ambient-scatter.ts';

export { AmbientScatter, AMBIENT_LOD_BANDS, type AmbientScatterOptions, type AmbientScatterStats } from './ambient-scatter.ts';

/** The world's `ambient` service: what app/world-plugins/ambient.ts put into the world. */

export interface Ambient {
  /** Null with `?ambient=0` or before it is built. */
  scatter: AmbientScatter | null;
  /** Null with `?people=0` or before it is built. */
  crowd: StageCrowd | null;
  /** Resolves once the scatter exists (or at once with null when it is turned off). */
  scatterReady: Promise<AmbientScatter | null>;
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** Vegetation, rocks and people at spawn (app/world-plugins/ambient.ts). */
    ambient: Ambient;
  }
}
