import { AnimationMixer, LoopOnce, LoopRepeat, type AnimationAction, type AnimationClip, type Object3D } from 'three';
import { withDefaults } from '../core/options.ts';
import { clipRigOffset, RIG_OFFSET_RATE, RigOffsetBlend } from './rig-offset.ts';
import { AnimationStateMachine, type StateMachineOptions } from './state-machine.ts';

export interface MixerDriverOptions extends StateMachineOptions {
  /** Crossfade seconds per target state; `default` for the rest. Default 0.25 s. */
  fades?: Record<string, number>;
  /** Blend rate of the per-clip rig offset (1/s). Default 5. */
  rigOffsetRate?: number;
}

/** Defaults of the driver's own options; the state machine's are its own. */
const MIXER_DRIVER_DEFAULTS: Required<Pick<MixerDriverOptions, 'fades' | 'rigOffsetRate'>> = {
  fades: {},
  rigOffsetRate: RIG_OFFSET_RATE,
};

/**
 * Plays an {@link AnimationStateMachine} on a three.js AnimationMixer: each transition crossfades
 * to the resolved clip. Clips loop unless their `userData.loop` is false (then they hold the last
 * frame). `setSpeed` scales locomotion playback to ground speed using `userData.speed`.
 * Clips with `userData.rigOffset` (swimming) move the character by that much vertically, blended at
 * 5 Hz: read {@link rigOffset} and add it to the character's height.
 */
export class MixerAnimationDriver {
  /** The three.js mixer playing the clips. */
  readonly mixer: AnimationMixer;
  /** The state machine whose transitions the driver plays. */
  readonly machine: AnimationStateMachine;
  private readonly actions = new Map<string, AnimationAction>();
  private active: AnimationAction | null = null;
  private readonly fades: Record<string, number>;
  private readonly unsubscribe: () => void;
  private readonly offset: RigOffsetBlend;

  constructor(root: Object3D, clips: readonly AnimationClip[], options: MixerDriverOptions = {}) {
    this.mixer = new AnimationMixer(root);
    const { fades, rigOffsetRate } = withDefaults(MIXER_DRIVER_DEFAULTS, options);
    this.fades = fades;
    this.offset = new RigOffsetBlend({ rate: rigOffsetRate });
    for (const clip of clips) {
      const action = this.mixer.clipAction(clip);
      const loop = (clip.userData as { loop?: boolean } | undefined)?.loop !== false;
      action.setLoop(loop ? LoopRepeat : LoopOnce, Infinity);
      action.clampWhenFinished = !loop;
      this.actions.set(clip.name, action);
    }
    const { initial, fades: _fades, rigOffsetRate: _rate, ...rest } = options;
    this.machine = new AnimationStateMachine({ ...rest, clips: clips.map((c) => c.name) });
    this.unsubscribe = this.machine.on('transition', ({ from, to, clip }) => {
      const next = this.actions.get(clip)!;
      next.reset().setEffectiveTimeScale(1).setEffectiveWeight(1).play();
      const fade = from === null ? 0 : (this.fades[to] ?? this.fades.default ?? 0.25);
      if (this.active && this.active !== next) {
        if (fade > 0) this.active.crossFadeTo(next, fade, false);
        else this.active.stop();
      }
      this.active = next;
      this.offset.setTarget(clipRigOffset(next.getClip().userData));
      // The first clip starts at its offset; later ones blend towards theirs.
      if (from === null) this.offset.value = this.offset.target;
    });
    if (initial) this.machine.transition(initial);
  }

  /** The clip playing now (after the latest transition). */
  get clip(): AnimationClip | null {
    return this.active?.getClip() ?? null;
  }

  /** Vertical offset (metres) the active clip asks for, blended at 5 Hz; add it to the character's y. */
  get rigOffset(): number {
    return this.offset.value;
  }

  /** Queues a state change (applied on the next update). */
  request(state: string): void {
    this.machine.request(state);
  }

  /** Scales the active locomotion clip to `speed` m/s (clips authored with userData.speed > 0). */
  setSpeed(speed: number): void {
    const authored = (this.active?.getClip().userData as { speed?: number } | undefined)?.speed ?? 0;
    if (this.active) this.active.timeScale = authored > 0 ? Math.max(0.4, speed / authored) : 1;
  }

  /** Applies the queued state, matches locomotion playback to `speed` (m/s) if given, advances. */
  update(dt: number, speed?: number): void {
    this.machine.update();
    if (speed !== undefined) this.setSpeed(speed);
    this.mixer.update(dt);
    this.offset.update(dt);
  }

  /** Stops every action and uncaches the character from the mixer. */
  dispose(): void {
    this.unsubscribe();
    this.mixer.stopAllAction();
    this.mixer.uncacheRoot(this.mixer.getRoot());
  }
}
