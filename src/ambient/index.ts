/**
 * The world's ambient content: vegetation and rocks streamed over the map, and people walking
 * about. Installed by app/world-plugins/ambient.ts; other plugins find it as the `ambient` service
 * (`world.services.get('ambient')`).
 */
import type { StageCrowd } from '../crowd/stage-crowd.ts';
import type { AmbientScatter } from './ambient-scatter.ts';

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
