/**
 * Remote players in the crowd, for the net module: one call per received update, keyed by peer
 * id, and one per look a player chooses. The crowd may not exist yet when the first messages
 * arrive (it is built after the world, or rebuilt when the character model changes): until one is
 * attached, updates are dropped and counted — never dereferenced — and the next update after
 * attaching creates the avatar.
 *
 * Looks: one template per distinct character. Every humanoid look is a variant of the attached
 * crowd's humanoid (colours by region and build, one table entry: no extra draw call); a
 * character file is a crowd of its own, built once per URL when the file has loaded (fetched with
 * size and vertex caps, at most `maxModels` files at once), its players drawn as the humanoid
 * while it loads and for good when it is refused (the reason is in {@link RemoteAvatars.looks}).
 * A player with no profile yet wears a humanoid variant seeded from its id, so players differ
 * from the first frame.
 */
import { withDefaults } from '../core/options.ts';
import type { Camera, Object3D } from 'three';
import { seedFromString } from '../core/rng.ts';
import { lookKey, type AvatarLook, type HumanoidLook } from '../net/protocol/profile.ts';
import { humanoidVariantFromSeed } from '../rig/humanoid-variants.ts';
import type { AddAgentOptions, Crowd, CrowdAgent } from './crowd.ts';
import { humanoidCrowdVariant } from './humanoid-looks.ts';
import { loadRemoteTemplate } from './remote-models.ts';
import type { CrowdTemplate } from './template.ts';

/** What a network update says about one remote avatar. */
export interface RemoteAvatarUpdate {
  /** East position of the feet (m). */
  x: number;
  /** Height of the feet (m). */
  y: number;
  /** South position of the feet (m). */
  z: number;
  /** Facing in radians; forward = (sin facing, 0, cos facing). */
  facing: number;
  /** Clip name; unchanged when omitted. */
  clip?: string;
  /** Playback rate. Default 1. */
  speed?: number;
  /** Crossfade seconds when the clip changes. Default 0.2. */
  fade?: number;
}

/** Options of a {@link RemoteAvatars}. */
export interface RemoteAvatarsOptions {
  /** Loads another player's character file as a template. Default `loadRemoteTemplate` (remote-models.ts) with its caps. */
  loadModel?: (url: string, signal: AbortSignal) => Promise<CrowdTemplate>;
  /** Most distinct character files drawn or loading at once; more are refused. Default 8. */
  maxModels?: number;
}

/** Where an attached crowd's registry puts the crowds it builds for character files. */
export interface RemoteCrowdHost {
  /** A crowd for a character file's template, made as the attached one was (device, bone path, LOD). */
  createCrowd(template: CrowdTemplate): Crowd;
  /** Where those crowds' objects go (the scene). */
  parent: Object3D;
}

/** The figures of the remote players' looks (`cairn.stats.crowd.looks`). */
export interface RemoteLooksStats {
  /** Templates drawing remote players now: the humanoid and each character file with players. */
  templates: number;
  /** Distinct looks among the remote players. */
  looks: number;
  /** Humanoid variants in the humanoid crowd's table now. */
  variants: number;
  /** Times a look was drawn as the plain humanoid because every variant row was in use. */
  variantsFull: number;
  /** Draw calls per render pass of every crowd drawing remote players. */
  drawCallsPerPass: number;
  /** Players drawn as the humanoid while their character file loads, or because it was refused. */
  standIns: number;
  /** Character files loading now. */
  loading: string[];
  /** Character files refused, and why. */
  refused: Record<string, string>;
}

/** Defaults of {@link RemoteAvatarsOptions}: files loaded with `loadRemoteTemplate` (remote-models.ts), at most 8 in view. */
export const REMOTE_AVATARS_DEFAULTS: Required<RemoteAvatarsOptions> = {
  loadModel: (url, signal) => loadRemoteTemplate(url, {}, signal),
  maxModels: 8,
};

/** One character file's crowd. */
interface ModelEntry {
  url: string;
  /** `waiting`: chosen before any crowd was attached; the attach decides (load, or refuse without a host). */
  status: 'waiting' | 'loading' | 'ready' | 'refused';
  crowd: Crowd | null;
  reason: string | null;
  abort: AbortController;
}

/** One remote player. */
interface Remote<Id> {
  id: Id;
  /** Whether an update has placed it yet (a look can come before the first frame). */
  seen: boolean;
  last: RemoteAvatarUpdate;
  look: AvatarLook;
  agent: CrowdAgent | null;
  /** The crowd it is drawn by: null the humanoid crowd, else a character file's. */
  model: ModelEntry | null;
  /** Its entry in the humanoid crowd's variant table (0: none). */
  variant: number;
}

/**
 * The other players' avatars: one per peer id, placed and animated from network updates, drawn by an attached crowd (the humanoid,
 * wearing each player's look) or by a crowd per character file, loaded and capped here.
 */
export class RemoteAvatars<Id = string> {
  private crowd: Crowd | null = null;
  private host: RemoteCrowdHost | null = null;
  private readonly remotes = new Map<Id, Remote<Id>>();
  private readonly models = new Map<string, ModelEntry>();
  private readonly options: Required<RemoteAvatarsOptions>;
  private disposed = false;
  /** Updates that arrived while no crowd was attached. */
  dropped = 0;

  constructor(options: RemoteAvatarsOptions = {}) {
    this.options = withDefaults(REMOTE_AVATARS_DEFAULTS, options);
  }

  /** True while a crowd is attached. */
  get attached(): boolean {
    return this.crowd !== null;
  }

  /** Remote avatars drawn now (peers with an avatar). */
  get count(): number {
    let n = 0;
    for (const remote of this.remotes.values()) if (remote.agent) n++;
    return n;
  }

  /** The avatar for a peer, if it exists. */
  agent(id: Id): CrowdAgent | undefined {
    return this.remotes.get(id)?.agent ?? undefined;
  }

  /** The look a peer wears (its chosen one, or the variant seeded from its id). */
  lookOf(id: Id): AvatarLook | undefined {
    return this.remotes.get(id)?.look;
  }

  /** Which template draws a peer: `humanoid`, or the character file's URL. */
  templateOf(id: Id): string | undefined {
    const remote = this.remotes.get(id);
    return remote?.agent ? (remote.model?.url ?? 'humanoid') : undefined;
  }

  /**
   * Applies one update. Returns false (and counts it in `dropped`) when no crowd is attached.
   */
  update(id: Id, state: RemoteAvatarUpdate): boolean {
    if (!this.crowd) {
      this.dropped++;
      return false;
    }
    let remote = this.remotes.get(id);
    if (!remote) {
      remote = { id, seen: true, last: { ...state }, look: this.defaultLook(id), agent: null, model: null, variant: 0 };
      this.remotes.set(id, remote);
    }
    remote.seen = true;
    remote.last = { ...state, clip: state.clip ?? remote.last.clip };
    if (!remote.agent) this.place(remote);
    else {
      remote.agent.setTransform(state.x, state.y, state.z, state.facing);
      if (state.clip !== undefined) remote.agent.play(state.clip, { fade: state.fade ?? 0.2, speed: state.speed ?? 1 });
    }
    return true;
  }

  /**
   * The look a peer chose: a humanoid variant (drawn at once) or a character file (the humanoid
   * meanwhile, the file's crowd once it has loaded). The same look again changes nothing.
   */
  setLook(id: Id, look: AvatarLook): void {
    let remote = this.remotes.get(id);
    if (!remote) {
      // Known before its first frame: kept for when it appears.
      remote = { id, seen: false, last: { x: 0, y: 0, z: 0, facing: 0 }, look, agent: null, model: null, variant: 0 };
      this.remotes.set(id, remote);
      if (look.kind === 'model') this.model(look.url);
      return;
    }
    if (lookKey(remote.look) === lookKey(look)) return;
    remote.look = look;
    if (look.kind === 'model') this.model(look.url);
    if (remote.agent) this.place(remote);
  }

  /** Removes a peer's avatar (a peer that left). Unknown ids are ignored. */
  remove(id: Id): void {
    const remote = this.remotes.get(id);
    if (!remote) return;
    this.unplace(remote);
    this.remotes.delete(id);
  }

  /**
   * Attaches a crowd (the humanoid's, or whichever character the page draws people as); peers
   * known from before a detach are re-created at their last state. `host` lets the registry build
   * crowds for other players' character files; without it every player is drawn by `crowd`.
   */
  attach(crowd: Crowd, host?: RemoteCrowdHost): void {
    this.detach();
    this.crowd = crowd;
    this.host = host ?? null;
    // Files chosen before this crowd existed (a profile can arrive before the page builds its
    // crowd): loaded now, or refused if this crowd has no host to build theirs.
    for (const entry of this.models.values()) if (entry.status === 'waiting') this.load(entry);
    for (const remote of this.remotes.values()) if (remote.seen) this.place(remote);
  }

  /** Detaches (e.g. before the crowd is rebuilt); avatars are removed from every crowd. */
  detach(): void {
    for (const remote of this.remotes.values()) this.unplace(remote);
    this.crowd = null;
  }

  /** Advances and draws the character files' crowds (the attached one is its owner's to update). */
  step(dt: number, camera: Camera): void {
    for (const entry of this.models.values()) {
      const crowd = entry.crowd;
      if (crowd && (crowd.count > 0 || crowd.renderer.drawCount > 0)) crowd.update(dt, camera);
    }
  }

  /** What draws the remote players now, and the character files loading or refused. */
  looks(): RemoteLooksStats {
    const keys = new Set<string>();
    const modelsInUse = new Set<ModelEntry>();
    let humanoids = 0;
    let standIns = 0;
    for (const remote of this.remotes.values()) {
      if (!remote.agent) continue;
      keys.add(lookKey(remote.look));
      if (remote.model) modelsInUse.add(remote.model);
      else {
        humanoids++;
        if (remote.look.kind === 'model') standIns++;
      }
    }
    let drawCalls = humanoids > 0 && this.crowd ? this.crowd.renderer.drawCallsPerPass : 0;
    for (const entry of modelsInUse) drawCalls += entry.crowd?.renderer.drawCallsPerPass ?? 0;
    const refused: Record<string, string> = {};
    const loading: string[] = [];
    for (const entry of this.models.values()) {
      if (entry.status === 'refused') refused[entry.url] = entry.reason ?? 'refused';
      else if (entry.status === 'loading' || entry.status === 'waiting') loading.push(entry.url);
    }
    return {
      templates: (humanoids > 0 ? 1 : 0) + modelsInUse.size,
      looks: keys.size,
      variants: this.crowd?.variants?.inUse ?? 0,
      variantsFull: this.crowd?.variants?.full ?? 0,
      drawCallsPerPass: drawCalls,
      standIns,
      loading,
      refused,
    };
  }

  /** Detaches and frees the character files' crowds (the attached crowd is its owner's). */
  dispose(): void {
    this.detach();
    this.disposed = true;
    for (const entry of this.models.values()) {
      entry.abort.abort();
      entry.crowd?.dispose();
    }
    this.models.clear();
  }

  private defaultLook(id: Id): HumanoidLook {
    const seed = typeof id === 'number' ? id : seedFromString(String(id));
    return { kind: 'humanoid', ...humanoidVariantFromSeed(seed) };
  }

  /** (Re)creates a remote's agent in the crowd its look calls for, at its last state. */
  private place(remote: Remote<Id>): void {
    const crowd = this.crowd;
    if (!crowd) return;
    this.unplace(remote);
    const look = remote.look;
    const entry = look.kind === 'model' ? this.models.get(look.url) : undefined;
    const target = entry?.status === 'ready' && entry.crowd ? entry.crowd : crowd;
    const state = remote.last;
    const options: AddAgentOptions = { x: state.x, y: state.y, z: state.z, facing: state.facing, clip: state.clip, speed: state.speed };
    if (target === crowd && crowd.variants) {
      // A humanoid look, or the humanoid standing in for a file: the player's variant (a stand-in its id's).
      const humanoid = look.kind === 'humanoid' ? look : this.defaultLook(remote.id);
      remote.variant = crowd.variants.acquire(lookKey(humanoid), humanoidCrowdVariant(humanoid));
      options.variant = remote.variant;
    }
    remote.agent = target.add(options);
    remote.model = target === crowd ? null : entry!;
  }

  private unplace(remote: Remote<Id>): void {
    remote.agent?.remove();
    remote.agent = null;
    if (remote.variant) this.crowd?.variants?.release(remote.variant);
    remote.variant = 0;
    remote.model = null;
  }

  /** The entry of a character file, loading it when new (refused past `maxModels`). */
  private model(url: string): ModelEntry {
    let entry = this.models.get(url);
    if (entry) return entry;
    entry = { url, status: 'loading', crowd: null, reason: null, abort: new AbortController() };
    this.models.set(url, entry);
    this.evictModels();
    const active = [...this.models.values()].filter((e) => e.status !== 'refused').length;
    if (active > this.options.maxModels) {
      entry.status = 'refused';
      entry.reason = `more than ${this.options.maxModels} character files in view: drawn as the humanoid`;
      return entry;
    }
    if (!this.crowd) entry.status = 'waiting';
    else this.load(entry);
    return entry;
  }

  /** Starts loading a file for the attached crowd's host (refused when it has none). */
  private load(entry: ModelEntry): void {
    if (!this.host) {
      entry.status = 'refused';
      entry.reason = 'this crowd draws everyone as its own character';
      return;
    }
    entry.status = 'loading';
    this.options.loadModel(entry.url, entry.abort.signal).then(
      (template) => this.loaded(entry, template),
      (error: unknown) => {
        entry.status = 'refused';
        entry.reason = error instanceof Error ? error.message : String(error);
      },
    );
  }

  private loaded(entry: ModelEntry, template: CrowdTemplate): void {
    if (this.disposed || this.models.get(entry.url) !== entry || !this.host) {
      template.dispose();
      return;
    }
    try {
      entry.crowd = this.host.createCrowd(template);
    } catch (error) {
      template.dispose();
      entry.status = 'refused';
      entry.reason = (error as Error).message;
      return;
    }
    entry.status = 'ready';
    this.host.parent.add(entry.crowd.object);
    // Its players move from the humanoid to their own character.
    for (const remote of this.remotes.values())
      if (remote.look.kind === 'model' && remote.look.url === entry.url && remote.agent) this.place(remote);
  }

  /** Forgets files nobody wears any more, oldest first, once there are more than `maxModels`. */
  private evictModels(): void {
    if (this.models.size <= this.options.maxModels) return;
    const worn = new Set<string>();
    for (const remote of this.remotes.values()) if (remote.look.kind === 'model') worn.add(remote.look.url);
    for (const [url, entry] of this.models) {
      if (this.models.size <= this.options.maxModels) break;
      if (worn.has(url)) continue;
      entry.abort.abort();
      entry.crowd?.dispose();
      this.models.delete(url);
    }
  }
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** The crowd's registry of remote avatars, keyed by net avatar id. */
    crowdRemotes: RemoteAvatars<number>;
  }
}
