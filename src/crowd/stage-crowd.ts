/**
 * StageCrowd wires a Crowd into a page's Stage (or World): it builds the crowd for the running
 * device, drives synthetic peers and remote avatars into it every frame, runs the GPU budget,
 * publishes `cairn.stats.crowd`, adds the HUD section, and swaps the character model on request
 * without disturbing the running crowd when the new model is bad. Glue over the pure parts.
 */
import { withDefaults } from '../core/options.ts';
import { createHumanoid } from '../rig/humanoid.ts';
import type { Stage } from '../world/stage.ts';
import type { Heightmap } from '../world/terrain/heightmap.ts';
import { Crowd, type CrowdAgent, type CrowdOptions, type LiveControl } from './crowd.ts';
import { headLookAt } from './look-at.ts';
import { crowdHudRows, type CrowdPageStats } from './crowd-hud.ts';
import { crowdDeviceInfo, type CrowdDeviceInfo } from './device.ts';
import { GpuBudget } from './gpu-budget.ts';
import { HUMANOID_CROWD_VARIANTS } from './humanoid-looks.ts';
import { RemoteAvatars } from './remote-avatars.ts';
import { SyntheticPeers, type SyntheticPeersOptions } from './synthetic-peers.ts';
import { CrowdTemplate } from './template.ts';
import type { BonePath } from './bone-path.ts';
import type { LodOptions } from './lod-policy.ts';

/** Options of a {@link StageCrowd}. */
export interface StageCrowdOptions {
  /** Character for everyone. Default: the procedural humanoid at low detail. */
  template?: CrowdTemplate;
  /** Ground for synthetic peers; omitted = flat at y 0. */
  heightmap?: Heightmap;
  /** Where synthetic peers roam. */
  peers?: SyntheticPeersOptions;
  /** Synthetic peers at start. Default 0. */
  count?: number;
  /** Bone path override (Cairn's pages pass `?bonePath=`). Default 'auto'. */
  path?: BonePath | 'auto';
  /** Live distances, budget and update rates ({@link LodOptions}). Default {@link DEFAULT_LOD}. */
  lod?: LodOptions;
  /** Publish under `cairn.crowd`/`cairn.stats.crowd` and add a HUD section. Default true. */
  publish?: boolean;
  /** Add the HUD section only once the crowd has avatars (keeps an idle world's HUD short). Default false. */
  hudWhenActive?: boolean;
  /** Remote-avatar registry to feed this crowd (one made elsewhere, e.g. before the crowd existed). */
  remotes?: RemoteAvatars<number>;
  /** Share of synthetic peers whose head follows the camera (procedural control: live when near). Default 0.2. */
  lookAtShare?: number;
  /** Clothing colours peers wear, 0..1 RGB (index 0 keeps the file's colours). Default {@link CROWD_PALETTE}. */
  palette?: ReadonlyArray<readonly [number, number, number]>;
}

/** Clothing colours for synthetic peers: the file's own, then eight more. */
export const CROWD_PALETTE: ReadonlyArray<readonly [number, number, number]> = [
  [1, 1, 1],
  [0.75, 0.22, 0.2],
  [0.2, 0.4, 0.8],
  [0.85, 0.65, 0.2],
  [0.3, 0.6, 0.3],
  [0.55, 0.3, 0.65],
  [0.85, 0.85, 0.8],
  [0.25, 0.25, 0.28],
  [0.9, 0.45, 0.6],
];

/** Defaults of {@link StageCrowdOptions} (template, heightmap, peers, LOD and remotes: none given). */
export const STAGE_CROWD_DEFAULTS: Required<Omit<StageCrowdOptions, 'template' | 'heightmap' | 'peers' | 'lod' | 'remotes'>> = {
  count: 0,
  path: 'auto',
  publish: true,
  hudWhenActive: false,
  lookAtShare: 0.2,
  palette: CROWD_PALETTE,
};

/** The options of a {@link StageCrowd} once its defaults are in. */
type ResolvedStageCrowdOptions = StageCrowdOptions & typeof STAGE_CROWD_DEFAULTS;

/** Most synthetic peers the page controls offer. */
export const MAX_SYNTHETIC_PEERS = 1000;

/** The crowd of a page with a Stage: builds the crowd for the running device, drives it each frame, holds the remote avatars and its HUD section. */
export class StageCrowd {
  /** The stage the crowd draws in and updates with. */
  readonly stage: Stage;
  /** The device facts the bone path was picked from. */
  readonly device: CrowdDeviceInfo;
  /** The synthetic peers the page drives (demos, tests, benchmarks). */
  readonly peers: SyntheticPeers;
  /** The other players' avatars this crowd draws. */
  readonly remotes: RemoteAvatars<number>;
  /** The GPU frame-time budget, fed every frame from the stage's GPU ms. */
  readonly budget = new GpuBudget();
  private current: Crowd;
  private peerAgents: CrowdAgent[] = [];
  private readonly options: ResolvedStageCrowdOptions;
  private readonly removers: Array<() => void> = [];
  private lastError: string | null = null;
  private lastGpuMs: number | null = null;
  /** When true, synthetic peers and crowd time stand still (for screenshots). */
  paused = false;

  constructor(stage: Stage, options: StageCrowdOptions = {}) {
    this.stage = stage;
    this.options = withDefaults<ResolvedStageCrowdOptions>(STAGE_CROWD_DEFAULTS, options);
    this.palette = this.options.palette;
    this.lookAtShare = this.options.lookAtShare;
    this.remotes = options.remotes ?? new RemoteAvatars<number>();
    this.device = crowdDeviceInfo(stage.renderer);
    const heightmap = options.heightmap;
    this.peers = new SyntheticPeers({
      ground: heightmap ? (x, z) => heightmap.sampleHeight(x, z) : undefined,
      walkable: heightmap
        ? (x, z) => heightmap.sampleHeight(x, z) > heightmap.waterLevel + 0.4 && heightmap.sampleSlope(x, z) < 28
        : undefined,
      ...options.peers,
    });
    // Cairn's humanoid carries its variants (players' looks); a page's own character is drawn as it is.
    this.current = options.template
      ? this.build(options.template, 'main')
      : this.build(new CrowdTemplate(createHumanoid({ detail: 'low' }), { name: 'mannequin' }), 'humanoid');
    stage.scene.add(this.current.object);
    this.remotes.attach(this.current, this.crowdHost());
    this.setCount(this.options.count);

    this.removers.push(stage.onFrame((dt) => this.frame(dt)));
    this.removers.push(stage.afterRender(() => this.afterRender()));
    if (this.options.publish) {
      stage.services.provide('crowd', this.current);
      stage.services.provide('crowdRemotes', this.remotes);
      if (!this.options.hudWhenActive) this.addHud();
      this.publish();
    }
  }

  private hudAdded = false;

  private addHud(): void {
    if (this.hudAdded || !this.stage.hud) return;
    this.hudAdded = true;
    this.removers.push(
      this.stage.hud.addSection('crowd', { title: 'Crowd', rows: (stats) => crowdHudRows(stats.crowd as CrowdPageStats | undefined) }),
    );
  }

  /** The crowd drawing now (a new one after {@link setTemplate}). */
  get crowd(): Crowd {
    return this.current;
  }

  /** Synthetic peers now. */
  get count(): number {
    return this.peers.peers.length;
  }

  /** Sets the number of synthetic peers (0–1000). */
  setCount(count: number): void {
    const n = Math.round(count);
    if (!(n >= 0 && n <= MAX_SYNTHETIC_PEERS))
      throw new RangeError(`crowd count must be between 0 and ${MAX_SYNTHETIC_PEERS}, got ${count}`);
    this.peers.resize(n);
    while (this.peerAgents.length > n) this.peerAgents.pop()!.remove();
    while (this.peerAgents.length < n) {
      const i = this.peerAgents.length;
      const peer = this.peers.peers[i]!;
      const palette = this.palette;
      const agent = this.current.add({
        x: peer.x,
        y: peer.y,
        z: peer.z,
        facing: peer.facing,
        clip: peer.clip,
        speed: peer.speed,
        time: peer.phase,
        palette: palette.length > 1 ? 1 + (i % (palette.length - 1)) : 0,
      });
      // Every 1/share-th peer looks at the camera: the live path, where it earns its cost.
      const share = this.lookAtShare;
      if (share > 0 && this.lookAt && Math.floor(i * share) !== Math.floor((i + 1) * share)) agent.setControl(this.lookAt);
      this.peerAgents.push(agent);
    }
  }

  /**
   * Replaces the character. The new crowd is fully built before the old one is touched, so a
   * failure here (thrown) leaves the running crowd exactly as it was.
   */
  setTemplate(template: CrowdTemplate): void {
    const next = this.build(template, 'main');
    const previous = this.current;
    this.remotes.detach();
    this.peerAgents = [];
    previous.dispose();
    this.current = next;
    this.stage.scene.add(next.object);
    this.remotes.attach(next, this.crowdHost());
    const count = this.peers.peers.length;
    this.peers.resize(count);
    this.setCount(count);
    if (this.options.publish) this.stage.services.provide('crowd', next);
    this.lastError = null;
  }

  /** Records a user-facing error (shown in the HUD and `cairn.stats.crowd.lastError`). */
  reportError(message: string | null): void {
    this.lastError = message;
    this.publish();
  }

  /** Stops driving the crowd, removes its HUD section and frees it; a remote registry given in the options is detached, not disposed. */
  dispose(): void {
    for (const remove of this.removers) remove();
    // A registry made elsewhere (the world's) outlives this crowd; its character files' crowds do not.
    if (this.options.remotes) this.remotes.detach();
    else this.remotes.dispose();
    this.current.dispose();
  }

  /** How the remote-avatar registry builds crowds for other players' character files: like this one, in this scene. */
  private crowdHost(): { createCrowd: (template: CrowdTemplate) => Crowd; parent: Stage['scene'] } {
    return { createCrowd: (template) => this.build(template, 'remote'), parent: this.stage.scene };
  }

  /** The look-at control of the current template (null: no head bone). */
  private lookAt: LiveControl | null = null;
  private readonly palette: ReadonlyArray<readonly [number, number, number]>;
  private readonly lookAtShare: number;
  /**
   * A crowd of `template`: the page's (`main`, with the palette and look-at; `humanoid`, Cairn's
   * humanoid, with its variants too) or a remote player's character file (`remote`).
   */
  private build(template: CrowdTemplate, kind: 'humanoid' | 'main' | 'remote'): Crowd {
    const main = kind !== 'remote';
    const options: CrowdOptions = {
      template,
      device: this.device,
      path: this.options.path,
      lod: this.options.lod,
      capacity: main ? 64 : 8,
      maxBakedRows: Math.min(8192, this.device.maxTextureSize),
      ...(main ? { palette: this.palette } : {}),
      ...(kind === 'humanoid' ? { variants: HUMANOID_CROWD_VARIANTS } : {}),
    };
    const crowd = new Crowd(options);
    if (main) {
      const camera = this.stage.camera;
      this.lookAt = headLookAt(template, { target: () => camera.position });
    }
    return crowd;
  }

  private frame(dt: number): void {
    const step = this.paused ? 0 : dt;
    if (step > 0 && this.peers.peers.length > 0) {
      this.peers.step(step);
      const peers = this.peers.peers;
      for (let i = 0; i < this.peerAgents.length; i++) {
        const peer = peers[i]!;
        const agent = this.peerAgents[i]!;
        agent.setTransform(peer.x, peer.y, peer.z, peer.facing);
        agent.play(peer.clip, { fade: 0.35, speed: peer.speed });
      }
    }
    // Idle crowds cost nothing: no avatars, no work, no draw calls.
    if (this.current.count > 0 || this.current.renderer.drawCount > 0) {
      this.current.update(step, this.stage.camera);
      if (this.options.publish) this.addHud();
    }
    // Remote players' own characters, one crowd per file.
    this.remotes.step(step, this.stage.camera);
    this.publish();
  }

  private afterRender(): void {
    if (!this.stage.status.timestampQueries) {
      this.budget.update(null, this.current.count);
      return;
    }
    // The stage resolves GPU time every few frames; feed each new measurement once.
    const gpuMs = this.stage.cairn.stats.gpuMs;
    if (gpuMs === null || gpuMs === this.lastGpuMs) return;
    this.lastGpuMs = gpuMs;
    this.budget.update(gpuMs, this.current.count);
  }

  private publish(): void {
    if (!this.options.publish) return;
    const model = this.current.template.report;
    const stats: CrowdPageStats = {
      ...this.current.stats,
      budget: this.budget.reading,
      lastError: this.lastError,
      sourceVertices: model.sourceVertices,
      drawnVertices: model.drawnVertices,
      clipStates: model.clipStates,
      losses: model.losses,
      looks: this.remotes.looks(),
    };
    this.stage.cairn.stats.crowd = stats;
  }
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** The crowd on the stage: synthetic peers plus remote avatars. */
    stageCrowd: StageCrowd;
  }
}
