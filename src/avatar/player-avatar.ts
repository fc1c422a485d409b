import { Box3, Group, Vector3, type AnimationClip, type Mesh, type Object3D } from 'three';
import { Emitter } from '../core/emitter.ts';
import { withDefaults } from '../core/options.ts';
import { libraryClip, withoutRootMotion } from '../anim/library/index.ts';
import { MixerAnimationDriver, type MixerDriverOptions } from '../anim/mixer-driver.ts';
import { createHumanoid, type Humanoid, type HumanoidOptions } from '../rig/humanoid.ts';
import { clampVariant, DEFAULT_VARIANT, variantBuild, variantPalette, type HumanoidVariant } from '../rig/humanoid-variants.ts';
import type { PlayerClipState } from './avatar-clips.ts';
import { AVATAR_HEIGHT_DEFAULTS, type AvatarHeightOptions } from './avatar-height.ts';
import type { AvatarModel, AvatarModelOptions } from './avatar-model.ts';
import { AvatarLoadError, type AvatarStats } from './avatar-report.ts';
import type { HudRow } from '../world/hud.ts';
import type { PlayerCharacter } from '../world/player/player-character.ts';
import type { PlayerState } from '../world/player/player-controller.ts';

/** Above this speed (m/s) a swimming player crawls; below it, treads water. */
const SWIM_STROKE_SPEED = 0.6;

/** Crossfade seconds per state: a jump cuts in fast, the water slowly. */
const FADES: Record<string, number> = { jump: 0.1, swim: 0.4, swim_fast: 0.4, default: 0.25 };

/** The built-in humanoid's clip per state (its own four, the library's two swims). */
const HUMANOID_STATE_CLIPS: Record<PlayerClipState, string> = {
  idle: 'idle',
  walk: 'walk',
  run: 'run',
  jump: 'jump',
  swim: 'swim_tread',
  swim_fast: 'swim_freestyle',
};

/**
 * Options of a {@link PlayerAvatar}: the built-in humanoid's, how a loaded character's clips are
 * found, and how tall it stands (`height`: `'auto'`, `'file'` or metres).
 */
export interface PlayerAvatarOptions extends HumanoidOptions, AvatarHeightOptions {
  /**
   * More clip names to recognise in a loaded file per state, tried before the built-in names
   * (`{ run: ['Sprint_Fwd'] }`). Default none.
   */
  clipNames?: Partial<Record<PlayerClipState, readonly string[]>>;
  /**
   * Which of the humanoid's variants the player wears (src/rig/humanoid-variants.ts: build,
   * skin, hair, outfit); `palette` entries override its colours. Default the default humanoid.
   */
  variant?: HumanoidVariant;
}

const PLAYER_AVATAR_DEFAULTS: Required<PlayerAvatarOptions> = {
  variant: DEFAULT_VARIANT,
  palette: {},
  detail: 'high',
  castShadow: true,
  clipNames: {},
  ...AVATAR_HEIGHT_DEFAULTS,
};

/** What a {@link PlayerAvatar} emits. */
export interface PlayerAvatarEvents extends Record<string, unknown> {
  /**
   * A load started, finished or failed; `notes` are the import's and the retargeter's sentences
   * for a notice (empty while loading and on failure).
   */
  status: {
    /** The avatar's figures now. */
    stats: AvatarStats;
    /** Sentences for a notice. */
    notes: readonly string[];
  };
}

/**
 * The local player's character, animated by the animation state machine with generic state names;
 * locomotion playback follows ground speed. Swimming plays the library's tread and crawl (in place:
 * the controller moves the player), which also sink or lift the body by their rig offset.
 *
 * It starts as Cairn's procedural humanoid. {@link load} swaps in a character from a file (glTF,
 * GLB, FBX) once it has loaded: its own clips for the states they cover, the library retargeted onto
 * it for the rest; the humanoid keeps walking meanwhile, and stays when the file is refused.
 */
export class PlayerAvatar extends Emitter<PlayerAvatarEvents> implements PlayerCharacter {
  /** The scene handle: placed at the player's feet each update; holds the character drawn now. */
  readonly object = new Group();
  private readonly options: Required<PlayerAvatarOptions>;
  /** The built-in humanoid while it is drawn; null once a loaded character replaced it. */
  private builtIn: Humanoid | null;
  private model: AvatarModel | null = null;
  private driver: MixerAnimationDriver;
  /** Metres the character is raised to stand on its feet (a loaded model's; 0 for the humanoid). */
  private groundOffset = 0;
  /** False for a loaded character without a single clip: it stands in its bind pose. */
  private animated = true;
  private current: AvatarStats;
  private loads = 0;
  private disposed = false;
  private variantState: HumanoidVariant;
  /** The URL of the character file drawn now (null: the humanoid, or a file from a File). */
  private modelUrl: string | null = null;

  constructor(options: PlayerAvatarOptions = {}) {
    super();
    this.options = withDefaults(PLAYER_AVATAR_DEFAULTS, options);
    this.object.name = 'player';
    this.variantState = clampVariant(this.options.variant);
    const humanoid = this.createBuiltIn();
    this.builtIn = humanoid;
    this.object.add(humanoid.object);
    this.driver = createDriver(humanoid.object, [...humanoid.clips, ...swimClips()], HUMANOID_STATE_CLIPS);
    this.current = this.builtInStats(humanoid);
  }

  /** The humanoid variant the player wears when no character file is drawn. */
  get variant(): HumanoidVariant {
    return { ...this.variantState };
  }

  /** The URL of the character file drawn now, or null (the humanoid, or a file read from disk). */
  get modelSource(): string | null {
    return this.modelUrl;
  }

  /**
   * Wears humanoid variant `variant`: the built-in humanoid is rebuilt in its colours and build,
   * replacing a loaded character too (and superseding a load in flight). Emits `status`.
   */
  setVariant(variant: HumanoidVariant): void {
    if (this.disposed) return;
    this.variantState = clampVariant(variant);
    this.loads++;
    const humanoid = this.createBuiltIn();
    this.driver.dispose();
    this.builtIn?.dispose();
    this.model?.dispose();
    this.model = null;
    this.modelUrl = null;
    this.groundOffset = 0;
    this.animated = true;
    this.builtIn = humanoid;
    this.object.add(humanoid.object);
    this.driver = createDriver(humanoid.object, [...humanoid.clips, ...swimClips()], HUMANOID_STATE_CLIPS);
    this.setStats(this.builtInStats(humanoid), []);
  }

  private createBuiltIn(): Humanoid {
    const palette = { ...variantPalette(this.variantState), ...this.options.palette };
    const humanoid = createHumanoid({ palette, detail: this.options.detail, castShadow: this.options.castShadow });
    const build = variantBuild(this.variantState);
    humanoid.object.scale.set(build.width, build.height, build.width);
    return humanoid;
  }

  private builtInStats(humanoid: Humanoid): AvatarStats {
    const vertices = countVertices(humanoid.object);
    humanoid.object.updateMatrixWorld(true);
    const height = new Box3().setFromObject(humanoid.object).getSize(new Vector3()).y;
    return {
      source: 'built-in',
      status: 'ready',
      error: null,
      reason: null,
      name: 'humanoid',
      height,
      fileHeight: height,
      scale: 1,
      clips: { ...HUMANOID_STATE_CLIPS },
      clipSources: { idle: 'file', walk: 'file', run: 'file', jump: 'file', swim: 'library', swim_fast: 'library' },
      fileClips: humanoid.clips.length,
      fileClipNames: humanoid.clips.map((clip) => clip.name),
      retargeted: [],
      losses: [],
      sourceVertices: vertices,
      drawnVertices: vertices,
      groundOffset: 0,
    };
  }

  /** The built-in humanoid while it is the character drawn; null once a loaded character replaced it. */
  get humanoid(): Humanoid | null {
    return this.builtIn;
  }

  /** The animation driver of the character drawn now (a new one after a swap). */
  get animation(): MixerAnimationDriver {
    return this.driver;
  }

  /** The clip now playing. */
  get clipName(): string {
    return this.driver.clip?.name ?? '';
  }

  /** What is drawn and how the last load went (`cairn.stats.avatar` publishes it). */
  get stats(): AvatarStats {
    return this.current;
  }

  /**
   * Loads a character from a URL or a File and swaps it in once ready; resolves with the stats
   * either way (a refusal keeps the character drawn now and says why in `error`). A later call
   * supersedes an earlier one still loading. `options` override the avatar's height options for
   * this load (`{ height: 'file' }` keeps a file's height that `'auto'` would scale).
   */
  async load(source: string | File, options: AvatarHeightOptions = {}): Promise<AvatarStats> {
    const ticket = ++this.loads;
    const label = typeof source === 'string' ? source : source.name;
    this.setStats({ ...this.current, source: label, status: 'loading', error: null, reason: null }, []);
    const { clipNames, height, humanHeights, characterHeights, defaultHeight } = this.options;
    const resolved: AvatarModelOptions = withDefaults({ clipNames, height, humanHeights, characterHeights, defaultHeight }, options);
    let model: AvatarModel;
    try {
      // The import layer and its loaders come with the first model asked for, not with the world.
      const { loadAvatarModel } = await import('./avatar-model.ts');
      model = await loadAvatarModel(await asGlbIfVrm(source), resolved);
    } catch (error) {
      if (ticket !== this.loads || this.disposed) return this.current;
      const reason = error instanceof AvatarLoadError ? error.reason : 'not-a-model';
      this.setStats({ ...this.current, source: label, status: 'failed', error: (error as Error).message, reason }, []);
      return this.current;
    }
    if (ticket !== this.loads || this.disposed) {
      model.dispose();
      return this.current;
    }
    this.swap(model);
    this.modelUrl = typeof source === 'string' ? source : null;
    const { report, assignment } = model;
    this.setStats(
      {
        source: label,
        status: 'ready',
        error: null,
        reason: null,
        name: report.name,
        height: report.height,
        fileHeight: report.fileHeight,
        scale: report.scale,
        clips: { ...assignment.clips },
        clipSources: { ...assignment.sources },
        fileClips: report.fileClips,
        fileClipNames: report.fileClipNames,
        retargeted: report.retargeted,
        losses: report.losses,
        sourceVertices: report.sourceVertices,
        drawnVertices: report.drawnVertices,
        groundOffset: model.groundOffset,
      },
      report.notes,
    );
    return this.current;
  }

  /** The HUD's avatar row: what is drawn, or what is loading or was refused. */
  hudRows(): HudRow[] {
    const a = this.current;
    if (a.status === 'loading') return [{ label: 'avatar', value: `loading ${a.source}…` }];
    if (a.status === 'failed') return [{ label: 'avatar', value: `${a.name} (${a.reason ?? 'failed'})`, tone: 'warn' }];
    return [
      {
        label: 'avatar',
        value: `${a.name}, ${a.height.toFixed(2)} m${a.retargeted.length ? `, ${a.retargeted.length} clips retargeted` : ''}`,
      },
    ];
  }

  /** Places the character and advances its animation to match the controller's state. */
  update(state: PlayerState, dt: number): void {
    if (this.animated) this.driver.request(stateName(state));
    this.driver.update(dt, state.speed);
    this.object.position.set(state.x, state.y + this.groundOffset + this.driver.rigOffset, state.z);
    this.object.rotation.y = state.facing;
  }

  dispose(): void {
    this.disposed = true;
    this.driver.dispose();
    this.builtIn?.dispose();
    this.builtIn = null;
    this.model?.dispose();
    this.model = null;
    this.object.removeFromParent();
    this.clear();
  }

  /** Replaces the character drawn (and its driver) by a loaded one, releasing the old. */
  private swap(model: AvatarModel): void {
    this.driver.dispose();
    if (this.builtIn) {
      this.builtIn.dispose();
      this.builtIn = null;
    }
    this.model?.dispose();
    this.model = model;
    this.groundOffset = model.groundOffset;
    this.object.add(model.object);
    this.driver = createDriver(model.object, model.clips, model.assignment.clips);
    this.animated = model.assignment.clips.idle !== undefined;
  }

  private setStats(stats: AvatarStats, notes: readonly string[]): void {
    this.current = stats;
    this.emit('status', { stats, notes });
  }
}

/**
 * A VRM is a GLB with humanoid extensions: fetched and handed to the import as the `.glb` it is
 * (it is self-contained, so no base path is lost). Anything else passes through.
 */
async function asGlbIfVrm(source: string | File): Promise<string | File> {
  const name = typeof source === 'string' ? source.split(/[?#]/)[0]! : source.name;
  if (!/\.vrm$/i.test(name)) return source;
  const glb = `${name.split('/').pop()!.slice(0, -4)}.glb`;
  if (typeof source !== 'string') return new File([await source.arrayBuffer()], glb);
  const response = await fetch(source);
  if (!response.ok)
    throw new AvatarLoadError(`${glb.slice(0, -4)}.vrm: HTTP ${response.status}`, response.status === 404 ? 'not-found' : 'http');
  return new File([await response.arrayBuffer()], glb);
}

/** The library's swims, in place (the controller moves the player). */
function swimClips(): AnimationClip[] {
  return ['swim_tread', 'swim_freestyle'].map((name) => withoutRootMotion(libraryClip(name)));
}

/** The state the controller's state asks for: swimming splits into treading and crawling by speed. */
function stateName(state: PlayerState): PlayerClipState {
  return state.state === 'swim' && state.speed > SWIM_STROKE_SPEED ? 'swim_fast' : state.state;
}

function createDriver(
  root: Object3D,
  clips: readonly AnimationClip[],
  aliases: Partial<Record<PlayerClipState, string>>,
): MixerAnimationDriver {
  const options: MixerDriverOptions = { aliases: { ...aliases }, fades: FADES };
  // A character with no clip at all stands in its bind pose: no state to start in.
  if (aliases.idle !== undefined) options.initial = 'idle';
  return new MixerAnimationDriver(root, clips, options);
}

function countVertices(object: Object3D): number {
  let count = 0;
  object.traverse((node) => {
    const mesh = node as Mesh;
    if (mesh.isMesh) count += mesh.geometry.getAttribute('position')?.count ?? 0;
  });
  return count;
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** The local player's character (app/world-plugins/avatar.ts). */
    avatar: PlayerAvatar;
  }
}

declare module '../world/cairn-global.ts' {
  interface CairnStats {
    /** What the player's character is and how its last load went (the world). */
    avatar?: AvatarStats;
  }
}
