import { createAssetsToggle } from '../../src/assets/ui/assets-toggle.ts';
import type { WorldAssets } from '../../src/assets/world-assets.ts';
import type { World, WorldPlugin } from '../../src/world/index.ts';
import { apiFromLocation } from '../assets-api.ts';

/**
 * Assets in the world: an "Assets" button (search Poly Haven's CC0 models, click to put one in
 * front of the player) and `?place=<id>` from the assets page. Idle cost is the button: the
 * module, meshoptimizer and the catalog load on first use.
 */
export const plugin: WorldPlugin = { name: 'assets', provides: ['assets'], install };

function install(world: World): () => void {
  const params = new URLSearchParams(location.search);
  const button = createAssetsToggle();
  let controller: WorldAssets | null = null;
  let loading: Promise<WorldAssets> | null = null;
  const load = (): Promise<WorldAssets> =>
    (loading ??= import('../../src/assets/world-assets.ts').then(
      ({ WorldAssets }) =>
        (controller = new WorldAssets(world, { button, api: apiFromLocation(params), resolution: params.get('res') ?? undefined })),
    ));
  button.onclick = () => void load().then((assets) => assets.open());

  const withdraw = world.services.provide('assets', {
    open: async () => (await load()).open(),
    close: async () => (await load()).close(),
    preview: async (id: string, options?: { resolution?: string }) => {
      const model = await (await load()).preview(id, options);
      return { id: model.id, resolution: model.resolution, triangles: model.triangles };
    },
    keep: async () => {
      const placed = (await load()).keep();
      return placed && { id: placed.id, resolution: placed.resolution, triangles: placed.triangles };
    },
    place: async (id: string, options?: { resolution?: string }) => {
      const placed = await (await load()).place(id, options);
      return { id: placed.id, resolution: placed.resolution, triangles: placed.triangles, position: placed.object.position.toArray() };
    },
    placed: async () => (await load()).placed.map((p) => ({ id: p.id, position: p.object.position.toArray() })),
    removePlaced: async () => (await load()).removePlaced(),
    addToScatter: async (category?: string) => (await load()).addToScatter(category),
    /** The controller once the module has loaded (null before first use). */
    get controller(): WorldAssets | null {
      return controller;
    },
  });
  const place = params.get('place');
  if (place) void load().then((assets) => assets.placeOrSay(place, { resolution: params.get('res') ?? undefined }));
  return () => {
    withdraw();
    if (controller) controller.dispose();
    else button.remove();
  };
}
