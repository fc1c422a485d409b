import { WorldAssets } from '../../src/assets/world-assets.ts';
import type { World } from '../../src/world/index.ts';

/**
 * Assets in the world: an "Assets" button (search Poly Haven's CC0 models, click to put one in
 * front of the player) and `?place=<id>` from the assets page. Idle until used.
 */
export function install(world: World): void {
  const assets = new WorldAssets(world);
  world.cairn.assets = {
    open: () => assets.open(),
    close: () => assets.close(),
    preview: async (id: string, options?: { resolution?: string }) => summary(await assets.preview(id, options)),
    keep: () => {
      const placed = assets.keep();
      return placed && { id: placed.id, resolution: placed.resolution, triangles: placed.triangles };
    },
    place: async (id: string, options?: { resolution?: string }) => {
      const placed = await assets.place(id, options);
      return { id: placed.id, resolution: placed.resolution, triangles: placed.triangles, position: placed.root.position.toArray() };
    },
    placed: () => assets.placed.map((p) => ({ id: p.id, position: p.root.position.toArray() })),
    removePlaced: () => assets.removePlaced(),
    addToScatter: (category?: string) => assets.addToScatter(category),
    controller: assets,
  };
  void assets.placeFromLocation();
}

function summary(model: { id: string; resolution: string; triangles: number }): { id: string; resolution: string; triangles: number } {
  return { id: model.id, resolution: model.resolution, triangles: model.triangles };
}
