import { AnimationMixer, LoopOnce, LoopRepeat, type AnimationAction } from 'three';
import { createHumanoid, type Humanoid, type HumanoidOptions } from '../../rig/humanoid.ts';
import type { LocomotionState, PlayerState } from './player-controller.ts';

/** Which clip plays in each locomotion state (swimming has no clip of its own yet: it treads with idle). */
const CLIP_FOR_STATE: Record<LocomotionState, string> = { idle: 'idle', walk: 'walk', run: 'run', jump: 'jump', swim: 'idle' };

/**
 * The local player's character: the full three.js SkinnedMesh path (one of it), an AnimationMixer
 * that crossfades between clips on state changes and matches locomotion playback to ground speed.
 */
export class PlayerAvatar {
  readonly humanoid: Humanoid;
  readonly mixer: AnimationMixer;
  private readonly actions = new Map<string, AnimationAction>();
  private current: AnimationAction | null = null;
  /** The clip name now playing (after any crossfade started). */
  clipName = '';

  constructor(options: HumanoidOptions = {}) {
    this.humanoid = createHumanoid(options);
    this.humanoid.object.name = 'player';
    this.mixer = new AnimationMixer(this.humanoid.object);
    for (const clip of this.humanoid.clips) {
      const action = this.mixer.clipAction(clip);
      const loop = (clip.userData as { loop?: boolean }).loop !== false;
      action.setLoop(loop ? LoopRepeat : LoopOnce, Infinity);
      action.clampWhenFinished = !loop;
      this.actions.set(clip.name, action);
    }
    this.play('idle', 0);
  }

  /** Crossfades to a clip by name; a request for the clip already playing does nothing. */
  play(name: string, fade = 0.2): void {
    const next = this.actions.get(name);
    if (!next) throw new Error(`player has no clip "${name}"`);
    if (next === this.current) return;
    next.reset().setEffectiveWeight(1).play();
    if (this.current && fade > 0) this.current.crossFadeTo(next, fade, false);
    else this.current?.stop();
    this.current = next;
    this.clipName = name;
  }

  /** Places the character and advances its animation to match the controller's state. */
  update(state: PlayerState, dt: number): void {
    const object = this.humanoid.object;
    object.position.set(state.x, state.y, state.z);
    object.rotation.y = state.facing;
    this.play(CLIP_FOR_STATE[state.state], state.state === 'jump' ? 0.1 : 0.25);
    const clip = this.current?.getClip();
    const authored = (clip?.userData as { speed?: number } | undefined)?.speed ?? 0;
    // Scale locomotion playback to the real ground speed so feet do not skate.
    if (this.current) this.current.timeScale = authored > 0 ? Math.max(0.4, state.speed / authored) : 1;
    this.mixer.update(dt);
  }

  dispose(): void {
    this.mixer.stopAllAction();
    this.humanoid.dispose();
  }
}
