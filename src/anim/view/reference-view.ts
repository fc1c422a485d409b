import { AnimationMixer, LoopOnce, LoopRepeat, type AnimationAction, type AnimationClip, type Object3D } from 'three';
import { withDefaults } from '../../core/options.ts';

/** Options of a {@link ReferenceView}. */
export interface ReferenceViewOptions {
  /** The source character's object (its root bone inside). */
  source: Object3D;
  /** The source clip for a clip name the followed character plays; null when the source has none. */
  resolveClip(name: string): AnimationClip | null;
  /** Where the reference stands, in the followed character's facing frame (metres; +x = its left). Default 1.1 m to its left. */
  offset?: {
    /** To the followed character's left (m). */
    x: number;
    /** Ahead of it (m). */
    z: number;
  };
}

const REFERENCE_VIEW_DEFAULTS: Required<Omit<ReferenceViewOptions, 'source' | 'resolveClip'>> = {
  offset: { x: 1.1, z: 0 },
};

/** Where the followed character is and what it plays, this frame. */
export interface FollowState {
  /** East position of the feet (m). */
  x: number;
  /** Height of the feet (m). */
  y: number;
  /** South position of the feet (m). */
  z: number;
  /** Facing angle (atan2 convention: forward = (sin, 0, cos)). */
  facing: number;
  /** Clip name the character plays, or null. */
  clip: string | null;
  /** Playback time of that clip (seconds). */
  time: number;
}

/**
 * The reference view: the **source** rig playing the same clip, at the same time, beside the
 * character that plays its retargeted copy. "Is that twist in the source or added by
 * retargeting?" is then answered by looking. Backslash toggles it on the retarget page and in the
 * world. It is hidden and idle until shown: no mixer work while off.
 */
export class ReferenceView {
  /** The source character's object. */
  readonly source: Object3D;
  /** The clip the reference plays now (null when hidden or the source lacks it). */
  clip: string | null = null;
  /** A clip name the followed character plays that the source has no clip for. */
  missing: string | null = null;
  private readonly mixer: AnimationMixer;
  private readonly resolveClip: (name: string) => AnimationClip | null;
  private readonly offset: { x: number; z: number };
  private action: AnimationAction | null = null;
  private shown = false;

  constructor(options: ReferenceViewOptions) {
    this.source = options.source;
    this.resolveClip = options.resolveClip;
    this.offset = withDefaults(REFERENCE_VIEW_DEFAULTS, options).offset;
    this.mixer = new AnimationMixer(this.source);
    this.source.visible = false;
  }

  /** True while the reference is shown. */
  get visible(): boolean {
    return this.shown;
  }

  /** Shows or hides the reference; returns whether it is shown now. */
  toggle(show = !this.shown): boolean {
    this.shown = show;
    this.source.visible = show;
    if (!show) {
      this.mixer.stopAllAction();
      this.action = null;
      this.clip = null;
    }
    return show;
  }

  /** Places the reference beside the followed character and poses it at the same clip time. */
  update(follow: FollowState, groundY: number = follow.y): void {
    if (!this.shown) return;
    const sin = Math.sin(follow.facing);
    const cos = Math.cos(follow.facing);
    // Facing frame: forward = (sin, cos), left = (cos, −sin) for a character facing +Z with left +X.
    this.source.position.set(
      follow.x + this.offset.x * cos + this.offset.z * sin,
      groundY,
      follow.z - this.offset.x * sin + this.offset.z * cos,
    );
    this.source.rotation.set(0, follow.facing, 0);
    if (follow.clip !== this.clip) this.play(follow.clip);
    if (this.action) {
      const duration = this.action.getClip().duration;
      this.action.time = this.action.loop === LoopRepeat && duration > 0 ? follow.time % duration : Math.min(follow.time, duration);
      this.mixer.update(0);
    }
  }

  private play(name: string | null): void {
    this.mixer.stopAllAction();
    this.action = null;
    this.clip = name;
    this.missing = null;
    if (name === null) return;
    const clip = this.resolveClip(name);
    if (!clip) {
      this.missing = name;
      return;
    }
    const loop = (clip.userData as { loop?: boolean } | undefined)?.loop !== false;
    this.action = this.mixer.clipAction(clip);
    this.action.setLoop(loop ? LoopRepeat : LoopOnce, Infinity);
    this.action.clampWhenFinished = !loop;
    this.action.play();
  }

  /** Stops the reference's mixer and uncaches it. */
  dispose(): void {
    this.mixer.stopAllAction();
    this.mixer.uncacheRoot(this.source);
    this.source.removeFromParent();
  }
}

/** True for the backslash key on any layout (US "\\", ISO "IntlBackslash"). */
export function isReferenceKey(event: KeyboardEvent): boolean {
  return event.code === 'Backslash' || event.code === 'IntlBackslash' || event.key === '\\';
}

/**
 * Calls `onToggle` when backslash is pressed outside text fields. Returns the function that removes
 * the listener.
 */
export function bindReferenceKey(onToggle: () => void, target: Window = window): () => void {
  const listener = (event: KeyboardEvent): void => {
    const element = event.target as HTMLElement | null;
    if (element && (element.tagName === 'INPUT' || element.tagName === 'TEXTAREA' || element.isContentEditable)) return;
    if (!isReferenceKey(event) || event.repeat) return;
    event.preventDefault();
    onToggle();
  };
  target.addEventListener('keydown', listener);
  return () => target.removeEventListener('keydown', listener);
}

/** The animation reference view as the anim world plugin publishes it. */
export interface AnimReference {
  /** Shows or hides the source rig beside the player (loading it on first use); resolves with the new visibility. */
  toggleReference(): Promise<boolean>;
  /** The view once it has loaded (null before the first toggle). */
  readonly reference: ReferenceView | null;
}

declare module '../../world/services.ts' {
  interface WorldServices {
    /** The animation reference view. */
    anim: AnimReference;
  }
}

/** The reference view's state as the world publishes it under `cairn.stats.anim`. */
export interface ReferenceViewStats {
  /** Whether the reference is shown. */
  reference: boolean;
  /** The clip it plays, or null. */
  clip: string | null;
  /** A clip the player plays that the source has none for, or null. */
  missing: string | null;
  /** Playback time of the clip (s). */
  time: number;
}

/**
 * What each page publishes under `cairn.stats.anim`, by page: the world the reference view's state;
 * a page with figures of its own adds its entry by declaration merging (the retarget page its
 * `RetargetViewerStats`), so `stats.anim` is the union and a reader narrows by a key of its page.
 */
export interface AnimStatsByPage {
  /** The world's: the reference view's state. */
  world: ReferenceViewStats;
}

declare module '../../world/cairn-global.ts' {
  interface CairnStats {
    /** The animation module's figures: one of {@link AnimStatsByPage}. */
    anim?: AnimStatsByPage[keyof AnimStatsByPage];
  }
}
