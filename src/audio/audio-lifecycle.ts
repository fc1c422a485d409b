import { Emitter } from '../core/emitter.ts';
import type { CairnNotice } from '../world/cairn-global.ts';
import type { AudioInputBindings } from './audio-input.ts';
import type { AudioEngineState, AudioStats } from './audio-stats.ts';
import { lifecycleAction, type ContextState } from './lifecycle.ts';

/** Options of an {@link AudioLifecycle}. */
export interface AudioLifecycleOptions {
  /** Builds the context; null where there is no Web Audio. */
  createContext: (() => AudioContext) | null;
  /** ms to wait for resume() before saying audio is blocked. */
  blockedTimeoutMs: number;
  /** Shows a notice (blocked, unavailable); returns its remover. */
  notify: (notice: CairnNotice) => () => void;
}

/** What an {@link AudioLifecycle} emits. */
export interface AudioLifecycleEvents extends Record<string, unknown> {
  /** Where sound stands, on every change. */
  state: AudioEngineState;
  /** A context was created: build its graph now (before it runs). */
  built: AudioContext;
  /** The context is about to be dropped (closed under us, or disposed): release its graph. */
  teardown: AudioContext;
  /** The context runs (first start, or back after a hidden tab, a block or an interruption). */
  running: AudioContext;
  /** resume() was asked of the context (a gesture, the tab shown again, a retry): sound was asked to start. */
  resuming: AudioContext;
}

/**
 * The AudioContext's life: created on the first gesture, suspended while the tab is hidden and
 * resumed when shown, a block reported with a notice and retried on the next gesture, a context the
 * platform suspended or interrupted resumed, one it closed replaced by a new one. Writes the
 * lifecycle figures into the engine's stats; the decisions themselves are the pure
 * {@link lifecycleAction}.
 */
export class AudioLifecycle {
  /** What the lifecycle emits: state changes, contexts built and torn down. */
  readonly events = new Emitter<AudioLifecycleEvents>();
  /** The live context, once created. */
  context: AudioContext | null = null;
  private stateValue: AudioEngineState = 'waiting';
  private started = false;
  private disposed = false;
  private pending: 'resume' | 'suspend' | null = null;
  private blockedTimer: ReturnType<typeof setTimeout> | null = null;
  private removeNotice: (() => void) | null = null;

  private readonly options: AudioLifecycleOptions;
  private readonly stats: AudioStats;
  private readonly input: AudioInputBindings;

  constructor(options: AudioLifecycleOptions, stats: AudioStats, input: AudioInputBindings) {
    this.options = options;
    this.stats = stats;
    this.input = input;
    input.listenForGesture();
  }

  /** Where sound stands. */
  get state(): AudioEngineState {
    return this.stateValue;
  }

  /** Creates the context (first call) or retries resume() (later calls, from a gesture). */
  start(): void {
    if (this.disposed || this.stateValue === 'unavailable') return;
    if (this.context && this.context.state !== 'closed') {
      // A retry from a gesture: resume synchronously inside it, where the browser allows it.
      this.resume();
      return;
    }
    this.started = true;
    if (this.build()) this.resume();
  }

  /** The tab was hidden or shown. */
  visibilityChanged(): void {
    const context = this.context;
    if (!context || this.disposed) return;
    if (this.input.hidden && this.stateValue === 'running') this.setState('suspended', 'the tab is hidden');
    this.reconcile();
    // Shown again while a suspend never took effect: the context is still running.
    if (!this.input.hidden && context.state === 'running') this.onContextState(context);
  }

  /** Clears its timer and notice and closes the context. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.blockedTimer !== null) clearTimeout(this.blockedTimer);
    this.removeNotice?.();
    const context = this.context;
    this.context = null;
    if (context) {
      this.events.emit('teardown', context);
      if (context.state !== 'closed') void context.close().catch(() => undefined);
    }
    this.setState('disposed', 'disposed');
    this.events.clear();
  }

  /** Creates a context. Returns false (and goes silent with a notice) where that fails. */
  private build(): boolean {
    const factory = this.options.createContext;
    if (!factory) {
      this.unavailable('This browser has no Web Audio (AudioContext).');
      return false;
    }
    let context: AudioContext;
    try {
      context = factory();
    } catch (error) {
      this.unavailable(`The audio context could not be created: ${(error as Error).message}`);
      return false;
    }
    this.context = context;
    this.stats.contexts++;
    context.addEventListener('statechange', () => this.onContextState(context));
    this.stats.sampleRate = context.sampleRate;
    this.stats.baseLatency = context.baseLatency ?? 0;
    this.stats.contextState = context.state;
    this.events.emit('built', context);
    return true;
  }

  private unavailable(reason: string): void {
    this.setState('unavailable', reason);
    this.input.stopListeningForGesture();
    this.showNotice({ level: 'info', title: 'Sound is unavailable', detail: `${reason}\nThe game runs silently.` });
  }

  private resume(): void {
    const context = this.context;
    if (!context || this.disposed) return;
    this.pending = 'resume';
    this.events.emit('resuming', context);
    context
      .resume()
      .catch((error: Error) => this.blocked(`resume() failed: ${error.message}`))
      .finally(() => {
        if (this.context === context && this.pending === 'resume') this.pending = null;
        if (this.context === context) this.onContextState(context);
      });
    if (this.blockedTimer !== null) clearTimeout(this.blockedTimer);
    this.blockedTimer = setTimeout(() => {
      this.blockedTimer = null;
      if (this.context === context && context.state !== 'running' && !this.input.hidden)
        this.blocked('The browser did not let audio start.');
    }, this.options.blockedTimeoutMs);
  }

  private blocked(reason: string): void {
    if (this.disposed || this.stateValue === 'running') return;
    this.pending = null;
    const wasInterrupted = this.stateValue === 'interrupted';
    this.setState(wasInterrupted ? 'interrupted' : 'blocked', reason);
    this.input.listenForGesture();
    this.showNotice({
      level: 'info',
      title: wasInterrupted ? 'Sound was interrupted' : 'Sound is waiting for you',
      detail: `${reason}\nClick or press any key to turn sound on.`,
    });
  }

  private onContextState(context: AudioContext): void {
    if (context !== this.context || this.disposed) return;
    const state = context.state as ContextState;
    this.stats.contextState = state;
    if (state === 'running') {
      if (this.stateValue !== 'running') this.becameRunning(context);
      return;
    }
    if (state === 'closed') {
      this.recover('The audio context was closed.');
      return;
    }
    // Suspended or interrupted.
    if (this.input.hidden) {
      this.setState('suspended', 'the tab is hidden');
      return;
    }
    if (this.stateValue === 'running' && this.pending === null) {
      // Nobody here asked for this: the platform stopped us.
      this.stats.recoveries++;
      this.setState('interrupted', `the platform ${state === 'interrupted' ? 'interrupted' : 'suspended'} the audio context`);
    }
    this.reconcile();
  }

  private becameRunning(context: AudioContext): void {
    if (this.blockedTimer !== null) clearTimeout(this.blockedTimer);
    this.blockedTimer = null;
    this.removeNotice?.();
    this.removeNotice = null;
    this.input.stopListeningForGesture();
    this.stats.outputLatency = context.outputLatency ?? 0;
    this.stats.baseLatency = context.baseLatency ?? 0;
    this.setState('running', '');
    this.events.emit('running', context);
  }

  /** Brings sound back after the platform closed the context: a new context, same settings. */
  private recover(reason: string): void {
    if (this.disposed) return;
    this.stats.recoveries++;
    this.setState('interrupted', reason);
    const old = this.context;
    this.context = null;
    this.pending = null;
    if (old) this.events.emit('teardown', old);
    if (this.build()) this.resume();
  }

  private reconcile(): void {
    const context = this.context;
    if (!context) return;
    const action = lifecycleAction({
      started: this.started,
      disposed: this.disposed,
      hidden: this.input.hidden,
      state: context.state as ContextState,
      pending: this.pending,
    });
    if (action === 'resume') this.resume();
    else if (action === 'suspend') {
      this.pending = 'suspend';
      void context
        .suspend()
        .catch(() => undefined)
        .finally(() => {
          if (this.pending === 'suspend') this.pending = null;
          this.onContextState(context);
        });
    } else if (action === 'rebuild') this.recover('The audio context was closed.');
  }

  private setState(state: AudioEngineState, reason: string): void {
    this.stats.reason = reason;
    if (this.stateValue === state) return;
    this.stateValue = state;
    this.stats.state = state;
    this.events.emit('state', state);
  }

  private showNotice(notice: CairnNotice): void {
    this.removeNotice?.();
    this.removeNotice = this.options.notify(notice);
  }
}

/** `new AudioContext({ latencyHint: 'interactive' })`, or null where there is no Web Audio. */
export function defaultContextFactory(): (() => AudioContext) | null {
  const scope = globalThis as { AudioContext?: typeof AudioContext; webkitAudioContext?: typeof AudioContext };
  const Ctor = scope.AudioContext ?? scope.webkitAudioContext;
  return Ctor ? () => new Ctor({ latencyHint: 'interactive' }) : null;
}
