import type { AnimationClip } from 'three';
import { libraryClip, withoutRootMotion } from '../../anim/library/index.ts';
import { MixerAnimationDriver } from '../../anim/mixer-driver.ts';
import { createHumanoid, type Humanoid, type HumanoidOptions } from '../../rig/humanoid.ts';
import type { PlayerState } from './player-controller.ts';

/** Above this speed (m/s) a swimming player crawls; below it, treads water. */
const SWIM_STROKE_SPEED = 0.6;

/**
 * The local player's character: the full three.js SkinnedMesh path (one of it), animated by the
 * animation state machine with generic state names. Locomotion playback follows ground speed.
 * Swimming plays the animation library's tread and crawl (in place: the controller moves the
 * player), which also sink or lift the body by their rig offset.
 */
export class PlayerAvatar {
  readonly humanoid: Humanoid;
  readonly animation: MixerAnimationDriver;

  constructor(options: HumanoidOptions = {}) {
    this.humanoid = createHumanoid(options);
    this.humanoid.object.name = 'player';
    const swimClips: AnimationClip[] = ['swim_tread', 'swim_freestyle'].map((name) => withoutRootMotion(libraryClip(name)));
    this.animation = new MixerAnimationDriver(this.humanoid.object, [...this.humanoid.clips, ...swimClips], {
      aliases: { swim: 'swim_tread', swim_fast: 'swim_freestyle' },
      fades: { jump: 0.1, swim: 0.4, swim_fast: 0.4, default: 0.25 },
      initial: 'idle',
    });
  }

  /** The clip now playing. */
  get clipName(): string {
    return this.animation.clip?.name ?? '';
  }

  /** Places the character and advances its animation to match the controller's state. */
  update(state: PlayerState, dt: number): void {
    const object = this.humanoid.object;
    this.animation.request(state.state === 'swim' && state.speed > SWIM_STROKE_SPEED ? 'swim_fast' : state.state);
    this.animation.update(dt, state.speed);
    object.position.set(state.x, state.y + this.animation.rigOffset, state.z);
    object.rotation.y = state.facing;
  }

  dispose(): void {
    this.animation.dispose();
    this.humanoid.dispose();
  }
}
