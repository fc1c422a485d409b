import { MeshoptSimplifier } from 'meshoptimizer/simplifier';
import { Group } from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import type { Stage } from '../src/world/index.ts';
import { AssetBrowser } from '../src/assets/asset-browser.ts';
import { assetHudRows, type AssetPageStats } from '../src/assets/asset-stats.ts';
import { CacheStorageCatalogCache } from '../src/assets/catalog-cache.ts';
import type { LoadedModel } from '../src/assets/model-loader.ts';
import { ModelSlot } from '../src/assets/model-slot.ts';
import { restOn } from '../src/assets/placement.ts';
import { apiFromLocation } from './assets-api.ts';
import type { PolyHavenApi } from '../src/assets/polyhaven-api.ts';
import { createStudio, frameObject } from '../src/assets/studio.ts';
import { AssetPanel, type PanelAction } from '../src/assets/ui/asset-panel.ts';

/** Width of the side panel, which covers the right of the canvas. */
const PANEL_WIDTH = 340;

/** The world page URL that places `model` there (the world plugin reads ?place=, ?res=, ?api=). */
export function worldPlacementUrl(model: LoadedModel, api: PolyHavenApi, from: string = location.href): string {
  const url = new URL('./', from);
  url.searchParams.set('place', model.id);
  url.searchParams.set('res', model.resolution);
  if (!api.isOfficial) url.searchParams.set('api', api.baseUrl);
  return url.href;
}

/** What the assets page publishes as `window.cairn.assetsPage`. */
export interface AssetsPageApi {
  browser: AssetBrowser;
  panel: AssetPanel;
  api: PolyHavenApi;
  /** Types `query` into the search box and returns the top hits (ids, names, scores). */
  search(query: string): { total: number; hits: Array<{ id: string; name: string; score: number }> };
  /** Loads a model as a card click does; resolves with a summary, rejects with the card's error. */
  load(
    id: string,
    options?: { resolution?: string },
  ): Promise<{ id: string; resolution: string; triangles: number; materials: number; textures: number; meshes: number }>;
  /** Sets the detail slider (0 < ratio ≤ 1); returns triangles before/after. */
  setRatio(ratio: number): { trianglesBefore: number; trianglesAfter: number } | null;
  /** Frees the shown model. */
  unload(): void;
  refreshCatalog(): Promise<string>;
}

/**
 * The assets page: a model viewer (studio light, orbit controls, the model framed left of the
 * panel) driven by the search panel. Reads `?api=`, `?res=`, `?q=` and `?id=`.
 */
export async function startAssetsPage(stage: Stage, params = new URLSearchParams(location.search)): Promise<AssetsPageApi> {
  const { renderer, scene, camera, canvas, cairn } = stage;
  const api = apiFromLocation(params);
  await MeshoptSimplifier.ready;
  createStudio(renderer, scene);

  // Keep the model centred in the part of the canvas the panel leaves visible.
  const offsetView = (): void => {
    const width = window.innerWidth;
    const height = window.innerHeight;
    const panel = width > PANEL_WIDTH * 1.6 ? PANEL_WIDTH : 0;
    camera.aspect = (width + panel) / Math.max(1, height);
    camera.setViewOffset(width + panel, height, panel, 0, width, height);
  };
  offsetView();
  window.addEventListener('resize', offsetView);
  camera.position.set(2.2, 1.6, 2.8);
  const controls = new OrbitControls(camera, canvas);
  controls.target.set(0, 0.5, 0);
  controls.enableDamping = true;
  controls.update();
  stage.onFrame(() => controls.update());

  const modelRoot = new Group();
  modelRoot.name = 'asset';
  scene.add(modelRoot);
  const slot = new ModelSlot({
    parent: modelRoot,
    simplify: MeshoptSimplifier.simplify,
    place: (root) => {
      restOn(root, 0, 0, 0);
      controls.target.copy(frameObject(camera, root));
      controls.update();
    },
  });
  const browser = new AssetBrowser({ api, slot, cache: new CacheStorageCatalogCache(), resolution: params.get('res') ?? '1k' });
  const actions: PanelAction[] = [
    {
      id: 'place-in-world',
      label: 'Place in world',
      title: 'Open the world with this model in front of the player',
      run: (model) => location.assign(worldPlacementUrl(model, api)),
    },
  ];
  const panel = new AssetPanel({ browser, actions });

  stage.afterRender(() => {
    const stats: AssetPageStats = {
      ...browser.stats,
      thumbnails: { ...panel.thumbnails.stats },
      memory: { geometries: renderer.info.memory.geometries, textures: renderer.info.memory.textures },
      placed: 0,
    };
    cairn.stats.assets = stats;
  });
  stage.hud?.addSection('assets', { title: 'Assets', rows: (stats) => assetHudRows(stats.assets) });

  const page: AssetsPageApi = {
    browser,
    panel,
    api,
    search(query) {
      const result = panel.searchNow(query);
      return { total: result.total, hits: result.hits.map((h) => ({ id: h.entry.id, name: h.entry.name, score: h.score })) };
    },
    async load(id, options) {
      const model = await browser.load(id, options);
      return {
        id: model.id,
        resolution: model.resolution,
        triangles: model.triangles,
        materials: model.materials,
        textures: model.textures,
        meshes: model.meshes,
      };
    },
    setRatio(ratio) {
      const report = browser.setRatio(ratio);
      return report && { trianglesBefore: report.trianglesBefore, trianglesAfter: report.trianglesAfter };
    },
    unload() {
      browser.unload();
      panel.clearModel();
    },
    async refreshCatalog() {
      return (await browser.loadCatalog({ force: true })).status;
    },
  };
  cairn.assetsPage = page;

  void browser.loadCatalog().then(() => {
    const query = params.get('q');
    if (query) panel.searchNow(query);
    const id = params.get('id');
    if (id) void browser.load(id).catch(() => undefined);
  });
  return page;
}

declare module '../src/world/cairn-global.ts' {
  interface CairnGlobal {
    /** The assets page's controls (search, load, simplify). */
    assetsPage?: AssetsPageApi;
  }
}
