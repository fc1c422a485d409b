/**
 * The ambient scatter's Worker: places whole regions of the world off the main thread. It gets
 * the ground (heights), the validated presets and a fixed snapshot of the prop lists once, then
 * answers one region per message. Placement is pure and seeded per region, so what it returns is
 * exactly what {@link placeRegion} returns on the main thread for the same inputs.
 */
import { placeRegion, type RegionKey, type RegionPlanOptions } from '../scatter/regions.ts';
import type { Placement } from '../scatter/placement.ts';
import type { ScatterPreset } from '../scatter/preset.ts';
import { Heightmap } from '../world/terrain/heightmap.ts';
import { ambientPresetChooser } from './ambient-presets.ts';

/** Messages to the worker. */
export type ScatterWorkerRequest =
  | {
      type: 'init';
      heights: Float32Array;
      resolution: number;
      worldSize: number;
      waterLevel: number;
      presets: ScatterPreset[];
      props: Record<string, readonly string[]>;
      plan: RegionPlanOptions;
    }
  | ({ type: 'region' } & RegionKey);

/** Messages from the worker. */
export type ScatterWorkerReply = ({ type: 'region'; placements: Placement[]; ms: number } & RegionKey) | { type: 'error'; message: string };

interface Ready {
  ground: Heightmap;
  presets: Map<string, ScatterPreset>;
  props: Record<string, readonly string[]>;
  plan: RegionPlanOptions;
  chooser: ReturnType<typeof ambientPresetChooser>;
}

let ready: Ready | null = null;
const none: readonly string[] = [];

self.onmessage = (event: MessageEvent<ScatterWorkerRequest>) => {
  const message = event.data;
  try {
    if (message.type === 'init') {
      ready = {
        ground: new Heightmap(message.resolution, message.worldSize, message.heights, message.waterLevel),
        presets: new Map(message.presets.map((p) => [p.id, p])),
        props: message.props,
        plan: message.plan,
        chooser: ambientPresetChooser(message.plan.seed),
      };
      return;
    }
    if (!ready) throw new Error('scatter worker: a region was asked for before init');
    const start = performance.now();
    const r = ready;
    const placements = placeRegion(r.ground, r.presets, (category) => r.props[category] ?? none, r.plan, r.chooser, message);
    const reply: ScatterWorkerReply = { type: 'region', rx: message.rx, rz: message.rz, placements, ms: performance.now() - start };
    self.postMessage(reply);
  } catch (error) {
    const reply: ScatterWorkerReply = { type: 'error', message: (error as Error).message };
    self.postMessage(reply);
  }
};
