import { Emitter } from '../core/emitter.ts';
import { withDefaults } from '../core/options.ts';

/** Options of an {@link AnimationStateMachine}. */
export interface StateMachineOptions {
  /** Generic state name → clip name. States without an alias play the clip of the same name. */
  aliases?: Record<string, string>;
  /** State to start in (applied immediately). */
  initial?: string;
  /** Clip names that exist; when given, a state resolving to none of them is an error. */
  clips?: readonly string[];
}

/** `initial` and `clips` have no default: left out, the machine starts idle and checks no clip names. */
const STATE_MACHINE_DEFAULTS: Required<Omit<StateMachineOptions, 'initial' | 'clips'>> = { aliases: {} };

/** One applied state change. */
export interface Transition {
  /** The state before, or null for the first. */
  from: string | null;
  /** The state now. */
  to: string;
  /** The clip to play for `to`, after alias resolution. */
  clip: string;
}

/** What an {@link AnimationStateMachine} emits. */
export interface StateMachineEvents extends Record<string, unknown> {
  /** A state change was applied (never for a request of the state already playing). */
  transition: Transition;
}

/**
 * A small animation state machine with clip aliases. Game code speaks in generic states (`idle`,
 * `walk`, `run`, `jump`, `swim`, …); each rig maps them to its own clip names at play time, so one
 * controller drives the mannequin, a retargeted character or a loaded model alike.
 *
 * Requests are queued and applied on {@link AnimationStateMachine.update}. The queue keeps only the
 * **last** request, and a request is never compared with the state now playing: two messages in one
 * tick (walk, then idle) must end in idle even though idle is what is playing. A request for the state already playing is
 * short-circuited when it is applied, not when it is queued.
 */
export class AnimationStateMachine extends Emitter<StateMachineEvents> {
  /** The state playing now (null before the first transition). */
  current: string | null = null;
  /** The last requested state not yet applied. */
  pending: string | null = null;
  private readonly aliases: Map<string, string>;
  private readonly clips: Set<string> | null;

  constructor(options: StateMachineOptions = {}) {
    super();
    this.aliases = new Map(Object.entries(withDefaults(STATE_MACHINE_DEFAULTS, options).aliases));
    this.clips = options.clips ? new Set(options.clips) : null;
    if (options.initial) this.transition(options.initial);
  }

  /** Clip name for a state (alias or the state's own name). Throws for states with no clip. */
  resolve(state: string): string {
    const clip = this.aliases.get(state) ?? state;
    if (this.clips && !this.clips.has(clip)) {
      throw new Error(
        `animation state "${state}" resolves to clip "${clip}", which this rig does not have (clips: ${[...this.clips].join(', ')})`,
      );
    }
    return clip;
  }

  /** Maps a generic state to a clip name (or replaces that mapping). */
  setAlias(state: string, clip: string): void {
    this.aliases.set(state, clip);
  }

  /** Queues a state; a later request in the same tick replaces it. */
  request(state: string): void {
    this.pending = state;
  }

  /** Applies the queued request, if any. Returns the transition made, or null. */
  update(): Transition | null {
    if (this.pending === null) return null;
    const next = this.pending;
    this.pending = null;
    return this.transition(next);
  }

  /** Goes to `state` now; a transition to the state already playing does nothing. */
  transition(state: string): Transition | null {
    if (state === this.current) return null;
    const transition: Transition = { from: this.current, to: state, clip: this.resolve(state) };
    this.current = state;
    this.emit('transition', transition);
    return transition;
  }
}
