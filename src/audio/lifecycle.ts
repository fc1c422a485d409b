/**
 * When the audio context should run: only after the user's first gesture, only while the tab is
 * visible. Mute is deliberately not an input: visibility never changes a user's mute. Pure.
 */

/** AudioContext states, including Safari's 'interrupted' (a call, another app took the output). */
export type ContextState = 'suspended' | 'running' | 'closed' | 'interrupted';

/** What {@link lifecycleAction} decides from. */
export interface LifecycleInput {
  /** The user has made the gesture that created the context. */
  started: boolean;
  /** The engine was disposed. */
  disposed: boolean;
  /** document.visibilityState === 'hidden'. */
  hidden: boolean;
  /** The context's state now. */
  state: ContextState;
  /** A resume() or suspend() we asked for and that has not settled. */
  pending: 'resume' | 'suspend' | null;
}

/** What to do with the context: nothing, resume it, suspend it, or build a new one (it was closed). */
export type LifecycleAction = 'none' | 'resume' | 'suspend' | 'rebuild';

/**
 * What to do now. 'rebuild' when the platform closed the context under us; 'resume' when it should
 * run and does not (first start, tab shown again, an interruption ended or needs a retry);
 * 'suspend' when the tab is hidden. Requests already in flight are not repeated.
 */
export function lifecycleAction(input: LifecycleInput): LifecycleAction {
  if (input.disposed || !input.started) return 'none';
  if (input.state === 'closed') return 'rebuild';
  const wantRunning = !input.hidden;
  if (wantRunning && input.state !== 'running' && input.pending !== 'resume') return 'resume';
  if (!wantRunning && input.state === 'running' && input.pending !== 'suspend') return 'suspend';
  return 'none';
}
