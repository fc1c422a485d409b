import { withDefaults } from '../core/options.ts';
import { MeshoptSimplifier } from 'meshoptimizer/simplifier';
import { Group, type Mesh, type Object3D } from 'three';
import { showNotice } from '../world/notices.ts';
import type { World } from '../world/world.ts';
import { AssetBrowser } from './asset-browser.ts';
import { assetHudRows, type AssetPageStats } from './asset-stats.ts';
import { CacheStorageCatalogCache } from './catalog-cache.ts';
import { disposeObject3D } from './dispose-object.ts';
import type { LoadedModel } from './model-loader.ts';
import { ModelSlot } from './model-slot.ts';
import { pointAhead, restOn } from './placement.ts';
import { PolyHavenApi } from './polyhaven-api.ts';
import { compactDrawnIndices, guessScatterCategory, scatterPropId, type ScatterPropCatalog } from './scatter-bridge.ts';
import { AssetPanel, type PanelAction } from './ui/asset-panel.ts';
import { worldDock } from '../world/dock.ts';
import { createAssetsToggle } from './ui/assets-toggle.ts';
import { injectAssetStyles } from './ui/styles.ts';

/** Options of a {@link WorldAssets}. */
export interface WorldAssetsOptions {
  /** Metres in front of the player, along the camera's view, where a model is put. Default 4. */
  distance?: number;
  /**
   * Metres to the right of the camera's line through the player. Default 1.5: a third-person
   * camera looks over the player, so a model straight ahead would stand behind the player's body.
   */
  aside?: number;
  /** Extra buttons for the panel's model section (e.g. "Add to scatter catalog"). */
  actions?: PanelAction[];
  /** The Poly Haven API (or a mirror) to search. Default the official API. */
  api?: PolyHavenApi;
  /** Texture resolution models load at. Default '1k'. */
  resolution?: string;
  /** A toggle button to adopt (the plugin makes one before this module loads). Default: a new one. */
  button?: HTMLButtonElement;
}

/** A model put into the world and kept there. */
export interface PlacedModel {
  /** The asset id. */
  id: string;
  /** The texture resolution it loaded at. */
  resolution: string;
  /** The model's scene graph, in the world. */
  object: Object3D;
  /** Triangles it draws. */
  triangles: number;
}

/** A placed or previewed model as the console sees it. */
export interface AssetSummary {
  /** The asset id. */
  id: string;
  /** The texture resolution it loaded at. */
  resolution: string;
  /** Triangles it draws. */
  triangles: number;
}

/**
 * The assets service of the world page (`world.services.get('assets')`, `window.cairn.assets`):
 * every call loads the module on first use, so the page pays nothing until then.
 */
export interface WorldAssetsConsole {
  /** Opens the search panel (loading the module on first use). */
  open(): Promise<void>;
  /** Closes the search panel. */
  close(): Promise<void>;
  /** Loads a model in front of the player without keeping it. */
  preview(id: string, options?: { resolution?: string }): Promise<AssetSummary>;
  /** Keeps the previewed model in the world; null when there is none. */
  keep(): Promise<AssetSummary | null>;
  /** Loads and keeps a model in one go. */
  place(
    id: string,
    options?: { resolution?: string },
  ): Promise<
    AssetSummary & {
      /** Where it stands: [x, y, z] in metres. */
      position: number[];
    }
  >;
  /** The kept models: each one's id and where it stands. */
  placed(): Promise<
    Array<{
      /** The asset id. */
      id: string;
      /** Where it stands: [x, y, z] in metres. */
      position: number[];
    }>
  >;
  /** Removes every kept model; resolves with how many there were. */
  removePlaced(): Promise<number>;
  /** Hands the previewed model to the scatter catalog. */
  addToScatter(category?: string): Promise<{
    /** The prop's id in the scatter catalog. */
    propId: string;
    /** The category it went into. */
    category: string;
  }>;
  /** The controller once the module has loaded (null before first use). */
  readonly controller: WorldAssets | null;
}

/**
 * Assets in the world: an "Assets" button opens the search panel; clicking a card puts that model
 * on the ground in front of the player (the next click replaces it, freeing the previous one) and
 * "Keep here" leaves it in the world; {@link placeOrSay} places one at start-up (the world page's
 * `?place=<id>`, which the assets page's "Place in world" opens). Nothing is fetched and no per-frame work runs until first use.
 */
export class WorldAssets {
  /** The world the models go into. */
  readonly world: World;
  /** The models kept in the world. */
  readonly placed: PlacedModel[] = [];
  /** The button that opens the panel. */
  readonly button: HTMLButtonElement;
  private browser: AssetBrowser | null = null;
  private panel: AssetPanel | null = null;
  private readonly distance: number;
  private readonly aside: number;
  private readonly actions: PanelAction[];
  private readonly api: PolyHavenApi;
  private readonly resolution: string;
  private started: Promise<AssetBrowser> | null = null;
  private stopStats: (() => void) | null = null;

  constructor(world: World, options: WorldAssetsOptions = {}) {
    this.world = world;
    const defaults: Required<Omit<WorldAssetsOptions, 'button'>> = {
      distance: 4,
      aside: 1.5,
      actions: [],
      api: new PolyHavenApi(),
      resolution: '1k',
    };
    const resolved = withDefaults(defaults, options);
    this.distance = resolved.distance;
    this.aside = resolved.aside;
    this.actions = resolved.actions;
    this.api = resolved.api;
    this.resolution = resolved.resolution;
    injectAssetStyles();
    this.button = options.button ?? createAssetsToggle();
    this.button.onclick = () => void this.toggle();
  }

  /** Creates the browser (and starts the catalog download) on first use. */
  private start(): Promise<AssetBrowser> {
    this.started ??= (async () => {
      await MeshoptSimplifier.ready;
      const world = this.world;
      const slot = new ModelSlot({
        parent: world.scene,
        simplify: MeshoptSimplifier.simplify,
        place: (root) => this.putInFrontOfPlayer(root),
      });
      const browser = new AssetBrowser({
        api: this.api,
        slot,
        cache: new CacheStorageCatalogCache(),
        resolution: this.resolution,
      });
      this.browser = browser;
      this.stopStats = world.afterRender(() => {
        const stats: AssetPageStats = {
          ...browser.stats,
          thumbnails: this.panel ? { ...this.panel.thumbnails.stats } : { requested: 0, loaded: 0, failed: 0, waiting: 0 },
          memory: { geometries: world.renderer.info.memory.geometries, textures: world.renderer.info.memory.textures },
          placed: this.placed.length,
        };
        world.cairn.stats.assets = stats;
      });
      world.hud?.addSection('assets', { title: 'Assets', rows: (stats) => assetHudRows(stats.assets) });
      void browser.loadCatalog();
      return browser;
    })();
    return this.started;
  }

  private putInFrontOfPlayer(root: Object3D): void {
    const { state } = this.world.player;
    // Ahead as the user sees it (the camera's yaw), not the way the body happens to face.
    const spot = pointAhead(state.x, state.z, this.world.cameraRig.yaw, this.distance, this.aside);
    restOn(root, spot.x, this.world.heightmap.sampleHeight(spot.x, spot.z), spot.z);
    root.traverse((object) => {
      if ((object as Mesh).isMesh) object.castShadow = object.receiveShadow = true;
    });
  }

  /** Opens (creating on first use) or closes the search panel. */
  async toggle(): Promise<void> {
    if (this.panel?.visible) this.close();
    else await this.open();
  }

  /** Opens the search panel (fetching the catalog on first open). */
  async open(): Promise<void> {
    const browser = await this.start();
    if (!this.panel) {
      const keep: PanelAction = {
        id: 'keep',
        label: 'Keep here',
        title: 'Leave this model in the world (the next one goes beside it)',
        run: () => void this.keep(),
      };
      const clear: PanelAction = {
        id: 'clear-placed',
        label: 'Remove kept',
        title: 'Remove every kept model from the world',
        available: () => (this.placed.length > 0 ? true : 'nothing kept yet'),
        run: () => void this.removePlaced(),
      };
      const scatter: PanelAction = {
        id: 'add-to-scatter',
        label: 'Add to scatter',
        title: 'Hand this model to the scatter brush as a prop in the chosen category',
        available: () => (this.scatterCatalog() ? true : 'open the scatter brush first (B)'),
        choices: (model) => {
          const catalog = this.scatterCatalog();
          const categories = catalog ? catalog.categories() : [];
          const entry = browser.catalog.state.entries.find((e) => e.id === model.id);
          const selected = entry ? guessScatterCategory(entry, categories) : 'prop';
          return { options: [...new Set([...categories, selected])].sort(), selected };
        },
        run: (_model, category) => {
          const result = this.addToScatter(category);
          this.panel?.setStatus(
            `Added ${result.propId} to scatter category "${result.category}"${result.category === 'prop' ? ' (no preset uses it)' : ''}.`,
          );
        },
      };
      this.panel = new AssetPanel({
        browser,
        title: 'Assets',
        actions: [keep, scatter, ...this.actions, clear],
        closeButton: true,
        container: worldDock().panels,
      });
      this.panel.on('close', () => this.close());
    }
    this.panel.refreshActions(); // the scatter brush may have started since
    this.panel.show();
    this.button.hidden = true;
  }

  /** Hides the search panel and shows the button again. */
  close(): void {
    this.panel?.hide();
    this.button.hidden = false;
  }

  /** Loads a model in front of the player (replacing the one not yet kept). */
  async preview(id: string, options: { resolution?: string } = {}): Promise<LoadedModel> {
    const browser = await this.start();
    return browser.load(id, options);
  }

  /** Leaves the previewed model in the world; returns it, or null when there is none. */
  keep(): PlacedModel | null {
    const model = this.browser?.slot.release();
    if (!model) return null;
    const placed: PlacedModel = {
      id: model.id,
      resolution: model.resolution,
      object: model.object,
      triangles: this.browser!.stats.triangles,
    };
    this.placed.push(placed);
    this.browser!.unload();
    this.panel?.clearModel();
    this.panel?.refreshActions();
    return placed;
  }

  /** Loads and keeps a model in one go (what `?place=` does). */
  async place(id: string, options: { resolution?: string } = {}): Promise<PlacedModel> {
    await this.preview(id, options);
    return this.keep()!;
  }

  /** The scatter module's prop catalog when its tool is running on this page (`cairn.scatter`). */
  scatterCatalog(): ScatterPropCatalog | null {
    return this.world.services.get('scatter')?.layer.catalog ?? null;
  }

  /**
   * Hands the previewed model to the scatter catalog as a prop (it leaves the world and this
   * panel; scatter owns it from now on, at its current simplification). The category defaults to
   * a guess from the model's Poly Haven categories and tags.
   */
  addToScatter(category?: string): {
    /** The prop's id in the scatter catalog. */
    propId: string;
    /** The category it went into. */
    category: string;
  } {
    const catalog = this.scatterCatalog();
    if (!catalog) throw new Error('the scatter brush is not running here; open it first (B)');
    const content = this.browser?.slot.current;
    if (!content) throw new Error('no model to add; load one first');
    const entry = this.browser!.catalog.state.entries.find((e) => e.id === content.model.id);
    const chosen = category ?? (entry ? guessScatterCategory(entry, catalog.categories()) : 'prop');
    const model = this.browser!.slot.release()!;
    // Scatter bakes each mesh's transform relative to the object it is given, not that object's
    // own: wrap the model so "standing on the origin" is part of what it bakes.
    const holder = new Group();
    holder.name = model.id;
    model.object.removeFromParent();
    model.object.position.set(0, 0, 0);
    model.object.rotation.set(0, 0, 0);
    holder.add(model.object);
    restOn(model.object, 0, 0, 0);
    compactDrawnIndices(model.object);
    const propId = scatterPropId(model.id);
    catalog.register({ id: propId, category: chosen, object3D: holder, replace: true });
    this.browser!.unload();
    this.panel?.clearModel();
    return { propId, category: chosen };
  }

  /** Frees every kept model. */
  removePlaced(): number {
    const count = this.placed.length;
    for (const placed of this.placed.splice(0)) disposeObject3D(placed.object);
    this.panel?.refreshActions();
    return count;
  }

  /** Acts on `?place=` (called once at install). */
  /** Places model `id` as {@link place} does, showing a notice instead of rejecting (a page's start-up placement). */
  async placeOrSay(id: string, options: { resolution?: string } = {}): Promise<void> {
    try {
      await this.place(id, options);
    } catch (error) {
      showNotice({ level: 'error', title: `Could not place "${id.slice(0, 60)}"`, detail: (error as Error).message });
    }
  }

  /** Removes every kept model, the panel, the browser and the button. */
  dispose(): void {
    this.stopStats?.();
    this.removePlaced();
    this.panel?.dispose();
    this.browser?.dispose();
    this.button.remove();
  }
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** The asset browser in the world. */
    assets: WorldAssetsConsole;
  }
}
