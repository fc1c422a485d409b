import { MixerAnimationDriver } from '../../anim/mixer-driver.ts';
import { createHumanoid, type Humanoid, type HumanoidOptions } from '../../rig/humanoid.ts';
import type { PlayerState } from './player-controller.ts';

/**
 * The local player's character: the full three.js SkinnedMesh path (one of it), animated by the
 * animation state machine with generic state names. Locomotion playback follows ground speed.
 */
export class PlayerAvatar {
  readonly humanoid: Humanoid;
  readonly animation: MixerAnimationDriver;

  constructor(options: HumanoidOptions = {}) {
    this.humanoid = createHumanoid(options);
    this.humanoid.object.name = 'player';
    // The mannequin has no swim clip yet: treading water plays idle.
    this.animation = new MixerAnimationDriver(this.humanoid.object, this.humanoid.clips, {
      aliases: { swim: 'idle' },
      fades: { jump: 0.1, default: 0.25 },
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
    object.position.set(state.x, state.y, state.z);
    object.rotation.y = state.facing;
    this.animation.request(state.state);
    this.animation.update(dt, state.speed);
  }

  dispose(): void {
    this.animation.dispose();
    this.humanoid.dispose();
  }
}
