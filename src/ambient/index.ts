/**
 * The world's ambient content: vegetation and rocks streamed over the map, and people walking
 * about. Installed by app/world-plugins/ambient.ts; other plugins find it with {@link ambientOf}
 * (typed, no `window.cairn` lookups).
 */
import type { StageCrowd } from '../crowd/stage-crowd.ts';
import type { World } from '../world/world.ts';
import type { AmbientScatter } from './ambient-scatter.ts';

export interface Ambient {
  /** Null with `?ambient=0` or before it is built. */
  scatter: AmbientScatter | null;
  /** Null with `?people=0` or before it is built. */
  crowd: StageCrowd | null;
  /** Resolves once the scatter exists (or at once with null when it is turned off). */
  scatterReady: Promise<AmbientScatter | null>;
}

const registry = new WeakMap<World, Ambient>();

export function setAmbient(world: World, ambient: Ambient): void {
  registry.set(world, ambient);
}

/** The world's ambient content, or null where the ambient plugin is not installed. */
export function ambientOf(world: World): Ambient | null {
  return registry.get(world) ?? null;
}
