/**
 * The logical animation state of one crowd avatar: which clip plays, where in it, how fast, and
 * the clip it is fading out of. Both render paths read this same state — the live path samples
 * its clips from it, the GPU path gets it as a record whose time the shader advances — so
 * switching an avatar between them shows the same pose and nobody pops. Pure logic: no three.js, no DOM.
 */

/** What the state machine needs to know about a clip. */
export interface ClipTiming {
  /** Seconds. A zero-length clip is a single pose. */
  duration: number;
  /** Loops wrap; one-shot clips hold their last frame. */
  loop: boolean;
}

/** Options for {@link AnimState.play}. */
export interface PlayOptions {
  /** Crossfade seconds from the current clip. Default 0.25; 0 cuts. */
  fade?: number;
  /** Playback rate (1 = authored speed). Default 1. */
  speed?: number;
  /** Start time in the new clip, seconds. Default 0. */
  time?: number;
}

/** One evaluated blend: `current` at weight `weight`, `previous` (if any) at `1 - weight`. */
export interface AnimSample {
  clip: number;
  time: number;
  /** -1 when no crossfade is running. */
  previousClip: number;
  previousTime: number;
  /** Weight of `clip`, 0..1 (1 when no crossfade runs). */
  weight: number;
}

/** Wraps or clamps a time into a clip. */
export function clipTime(time: number, timing: ClipTiming): number {
  const duration = timing.duration;
  if (!(duration > 0)) return 0;
  if (timing.loop) {
    const wrapped = time % duration;
    return wrapped < 0 ? wrapped + duration : wrapped;
  }
  return Math.min(Math.max(time, 0), duration);
}

export class AnimState {
  clip: number;
  time: number;
  speed: number;
  previousClip = -1;
  previousTime = 0;
  previousSpeed = 1;
  /** Seconds the current crossfade has run, and how long it lasts (0: none running). */
  fadeElapsed = 0;
  fadeDuration = 0;
  /**
   * Bumped by every {@link play} that changes something (clip, speed, fade). The GPU record is
   * rewritten only when this moves: time itself advances on the GPU from the crowd clock.
   */
  version = 0;

  constructor(clip = 0, time = 0, speed = 1) {
    this.clip = clip;
    this.time = time;
    this.speed = speed;
  }

  /**
   * Starts `clip`. Asking for the clip already playing only changes its speed (so a locomotion
   * system can call this every frame). A crossfade starting mid-crossfade fades out of whichever
   * clip currently weighs more, so the pose never jumps.
   */
  play(clip: number, options: PlayOptions = {}): void {
    const speed = options.speed ?? 1;
    if (clip === this.clip) {
      if (speed !== this.speed) {
        this.speed = speed;
        this.version++;
      }
      return;
    }
    this.version++;
    const fade = Math.max(0, options.fade ?? 0.25);
    if (fade > 0) {
      const keepPrevious = this.previousClip >= 0 && this.weight < 0.5;
      if (!keepPrevious) {
        this.previousClip = this.clip;
        this.previousTime = this.time;
        this.previousSpeed = this.speed;
      }
      this.fadeElapsed = 0;
      this.fadeDuration = fade;
    } else {
      this.previousClip = -1;
      this.fadeElapsed = 0;
      this.fadeDuration = 0;
    }
    this.clip = clip;
    this.time = options.time ?? 0;
    this.speed = speed;
  }

  /** Weight of the current clip: eased from 0 to 1 over the crossfade. */
  get weight(): number {
    if (this.previousClip < 0 || this.fadeDuration <= 0) return 1;
    const t = Math.min(1, this.fadeElapsed / this.fadeDuration);
    return t * t * (3 - 2 * t);
  }

  /** Advances time by `dt` seconds; ends the crossfade when it has run its course. */
  advance(dt: number, clips: ReadonlyArray<ClipTiming>): void {
    this.time = clipTime(this.time + dt * this.speed, clips[this.clip] ?? { duration: 0, loop: true });
    if (this.previousClip >= 0) {
      this.previousTime = clipTime(this.previousTime + dt * this.previousSpeed, clips[this.previousClip] ?? { duration: 0, loop: true });
      this.fadeElapsed += dt;
      if (this.fadeElapsed >= this.fadeDuration) {
        this.previousClip = -1;
        this.fadeDuration = 0;
        this.fadeElapsed = 0;
      }
    }
  }

  /** The blend to evaluate now. Writes into `out` to avoid allocation. */
  sample(out: AnimSample = { clip: 0, time: 0, previousClip: -1, previousTime: 0, weight: 1 }): AnimSample {
    out.clip = this.clip;
    out.time = this.time;
    const weight = this.weight;
    out.weight = weight;
    out.previousClip = weight < 1 ? this.previousClip : -1;
    out.previousTime = this.previousTime;
    return out;
  }
}
