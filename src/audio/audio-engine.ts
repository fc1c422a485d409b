import { Emitter } from '../core/emitter.ts';
import type { CairnNotice } from '../world/cairn-global.ts';
import { showNotice } from '../world/notices.ts';
import { AudioGraph, createCounters, type PlayCounters, type PlayOptions, type VoiceHandle } from './audio-graph.ts';
import { AudioRandom } from './audio-random.ts';
import { lifecycleAction, type ContextState } from './lifecycle.ts';
import { PeakHold, toDb } from './level-meter.ts';
import { MeterTap } from './meter-tap.ts';
import { checkVolume, DEFAULT_MIX, type BusVolumes, type MixSettings } from './mix-settings.ts';
import { isRecipeName, UnknownRecipeError, type RecipeName, type RecipeParams } from './recipes/index.ts';
import type { VoiceLimiterOptions } from './voice-limiter.ts';

/**
 * - `waiting`: no context yet; the first pointerdown/keydown creates it.
 * - `running`: sound is on.
 * - `suspended`: the tab is hidden; it resumes when shown.
 * - `blocked`: the browser would not start audio; the next gesture retries.
 * - `interrupted`: the platform stopped the context; recovering (resume, or a new context).
 * - `unavailable`: no Web Audio here; the game runs silently.
 */
export type AudioEngineState = 'waiting' | 'running' | 'suspended' | 'blocked' | 'interrupted' | 'unavailable' | 'disposed';

/** `window.cairn.stats.audio`: what the HUD and the tests read. Levels are after the soft clipper. */
export interface AudioStats extends PlayCounters {
  state: AudioEngineState;
  /** The AudioContext's own state, or 'none'. */
  contextState: string;
  muted: boolean;
  paused: boolean;
  /** Output RMS over the last ≈ 46 ms, linear. */
  rms: number;
  /** Output peak over the last ≈ 46 ms, linear. */
  peak: number;
  rmsDb: number;
  peakDb: number;
  /** Highest peak in the last 1.5 s. */
  peakHold: number;
  /** Highest peak since start. */
  maxPeak: number;
  voices: number;
  voicesByBus: { effects: number; music: number; ambience: number; ui: number };
  /** Name of the chord the music is playing. */
  chord: string;
  music: boolean;
  wind: number;
  fire: number;
  volumes: BusVolumes;
  sampleRate: number;
  /** Seconds, from the context (0 until known). */
  baseLatency: number;
  outputLatency: number;
  /** Audio-thread underruns reported by the context (AudioContext.playbackStats), or null where unavailable. */
  underruns: number | null;
  /** Times the engine brought sound back after the platform interrupted or closed the context. */
  recoveries: number;
  /** Contexts created (1 normally; more after the platform closed one). */
  contexts: number;
  /** Calls made before the context existed or while it could not run (not played). */
  dropped: number;
  lastRecipe: string;
  /** Voices started per recipe name since start. */
  byRecipe: Record<string, number>;
  /** Voices started per `surface` parameter (footsteps, jumps, landings). */
  bySurface: Record<string, number>;
  /** The ground under the listener, where a world plugin reports it ('' elsewhere). */
  surface: string;
  seed: number;
  /** Why sound is off, when it is. */
  reason: string;
}

export interface AudioEngineOptions {
  /** Test-mode seed for vary(), noise and offsets. Default: random per session. */
  seed?: number;
  /** Throw on unknown recipes and invalid parameters. Default: true in development builds, false in production. */
  strict?: boolean;
  /** Where the gesture, mute-key and visibility listeners go. Default window / document. */
  target?: Window;
  document?: Document;
  /** KeyboardEvent.code that toggles mute, or null for none. Default 'KeyM'. */
  muteKey?: string | null;
  /** Builds the context. Default `new AudioContext({ latencyHint: 'interactive' })`. */
  createContext?: () => AudioContext;
  /** Shows a notice; returns its remover. Default the page's showNotice. */
  notify?: (notice: CairnNotice) => () => void;
  /** Start the music with the sound. Default true. */
  music?: boolean;
  /** Ambience levels to start with (0…1). Default { wind: 0.5, fire: 0 }. */
  ambience?: { wind?: number; fire?: number };
  volumes?: Partial<BusVolumes>;
  mix?: Partial<MixSettings>;
  limits?: VoiceLimiterOptions;
  /** ms to wait for resume() before saying audio is blocked. Default 1500. */
  blockedTimeoutMs?: number;
  /** How far ahead music and crackles are scheduled, seconds. Default 0.5 (survives slow frames). */
  lookaheadSeconds?: number;
  /** Meter and scheduler period, ms. Default 50. */
  tickMs?: number;
  /** localStorage key for mute and volumes, or null to keep nothing. Default 'cairn.audio'. */
  storageKey?: string | null;
}

interface StoredSettings {
  muted?: boolean;
  volumes?: Partial<BusVolumes>;
}

interface EngineEvents extends Record<string, unknown> {
  state: AudioEngineState;
  play: { recipe: string; voice: VoiceHandle | null };
}

/**
 * Development is any Vite mode but 'production' (dev server, unit tests). Not `import.meta.env.DEV`:
 * that follows NODE_ENV, which a build started from a test runner inherits as 'test'.
 */
function isDev(): boolean {
  const mode = (import.meta as { env?: { MODE?: string } }).env?.MODE;
  return mode !== undefined && mode !== 'production';
}

/**
 * Cairn's sound: creates the AudioContext on the first pointerdown/keydown (capture phase) and builds
 * the whole graph then; suspends while the tab is hidden and resumes when it returns, keeping a
 * user's mute; recovers from a context the platform suspended, interrupted or closed; meters the
 * output after the soft clipper into {@link stats}. Every sound goes through {@link play}.
 */
export class AudioEngine {
  readonly stats: AudioStats;
  readonly events = new Emitter<EngineEvents>();
  /** The live context, once created. */
  context: AudioContext | null = null;
  /** The graph on the live context, once created. */
  graph: AudioGraph | null = null;
  /** The level meter after the soft clipper, once created. */
  meter: MeterTap | null = null;
  readonly strict: boolean;
  private readonly options: AudioEngineOptions;
  private readonly target: Window;
  private readonly doc: Document;
  private readonly notify: (notice: CairnNotice) => () => void;
  private readonly counters: PlayCounters = createCounters();
  private readonly peakHold = new PeakHold(1.5);
  private readonly warned = new Set<string>();
  private random: AudioRandom;
  private volumes: BusVolumes;
  private mutedValue = false;
  private pausedValue = false;
  private musicOn: boolean;
  private ambience: { wind: number; fire: number };
  private started = false;
  private disposed = false;
  private pending: 'resume' | 'suspend' | null = null;
  private listening = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  private blockedTimer: ReturnType<typeof setTimeout> | null = null;
  private removeNotice: (() => void) | null = null;
  private stateValue: AudioEngineState = 'waiting';

  constructor(options: AudioEngineOptions = {}) {
    this.options = options;
    this.strict = options.strict ?? isDev();
    this.target = options.target ?? window;
    this.doc = options.document ?? document;
    this.notify = options.notify ?? showNotice;
    this.random = new AudioRandom(options.seed);
    this.musicOn = options.music ?? true;
    this.ambience = { wind: options.ambience?.wind ?? 0.5, fire: options.ambience?.fire ?? 0 };
    const stored = this.load();
    this.volumes = { ...DEFAULT_MIX.volumes, ...options.mix?.volumes, ...options.volumes, ...stored.volumes };
    this.mutedValue = stored.muted ?? false;
    const counters = this.counters;
    this.stats = {
      ...counters,
      state: 'waiting',
      contextState: 'none',
      muted: this.mutedValue,
      paused: false,
      rms: 0,
      peak: 0,
      rmsDb: -120,
      peakDb: -120,
      peakHold: 0,
      maxPeak: 0,
      voices: 0,
      voicesByBus: { effects: 0, music: 0, ambience: 0, ui: 0 },
      chord: '',
      music: this.musicOn,
      wind: this.ambience.wind,
      fire: this.ambience.fire,
      volumes: { ...this.volumes },
      sampleRate: 0,
      baseLatency: 0,
      outputLatency: 0,
      underruns: null,
      recoveries: 0,
      contexts: 0,
      dropped: 0,
      lastRecipe: '',
      byRecipe: {},
      bySurface: {},
      surface: '',
      seed: this.random.seed,
      reason: 'waiting for a click or key press',
    };
    this.listen();
    if (options.muteKey !== null) this.target.addEventListener('keydown', this.onMuteKey);
    this.doc.addEventListener('visibilitychange', this.onVisibility);
  }

  get state(): AudioEngineState {
    return this.stateValue;
  }

  get muted(): boolean {
    return this.mutedValue;
  }

  get paused(): boolean {
    return this.pausedValue;
  }

  /**
   * Creates the context and the whole graph and starts sound. The first pointerdown/keydown calls
   * this; a page with its own "sound on" button may call it from that button's handler. Must run
   * inside a user gesture for browsers that require one.
   */
  start(): void {
    if (this.disposed || this.stateValue === 'unavailable') return;
    if (this.context && this.context.state !== 'closed') {
      // A retry from a gesture: resume synchronously inside it, where the browser allows it.
      this.resume();
      return;
    }
    this.started = true;
    if (!this.build()) return;
    this.resume();
    this.startTimer();
  }

  /**
   * Plays a recipe now (or at `options.at`). Returns the voice, or null when sound is not running,
   * a cooldown or voice limit skipped it, or (in production) the name or parameters were invalid.
   * In development an unknown name or invalid parameters throw.
   */
  play<N extends RecipeName>(name: N, params?: RecipeParams<N>, options?: PlayOptions): VoiceHandle | null;
  play(name: string, params?: object, options?: PlayOptions): VoiceHandle | null;
  play(name: string, params: object = {}, options: PlayOptions = {}): VoiceHandle | null {
    if (!isRecipeName(name)) {
      this.counters.unknown++;
      this.syncCounters();
      const error = new UnknownRecipeError(name);
      if (this.strict) throw error;
      this.warnOnce(`unknown:${name}`, error.message);
      return null;
    }
    const graph = this.graph;
    if (!graph || this.stateValue !== 'running') {
      this.stats.dropped++;
      return null;
    }
    let voice: VoiceHandle | null;
    try {
      voice = graph.play(name, params, options);
    } catch (error) {
      this.syncCounters();
      if (this.strict) throw error;
      this.warnOnce(`invalid:${name}`, (error as Error).message);
      return null;
    }
    this.stats.lastRecipe = name;
    if (voice) {
      this.stats.byRecipe[name] = (this.stats.byRecipe[name] ?? 0) + 1;
      const surface = (params as { surface?: unknown }).surface;
      if (typeof surface === 'string') this.stats.bySurface[surface] = (this.stats.bySurface[surface] ?? 0) + 1;
    }
    this.syncCounters();
    this.events.emit('play', { recipe: name, voice });
    return voice;
  }

  getVolume(bus: keyof BusVolumes): number {
    return this.volumes[bus];
  }

  /** Sets a bus volume, 0…2 (master, effects, music, ambience, ui); remembered across sessions. */
  setVolume(bus: keyof BusVolumes, value: number): void {
    if (!(bus in this.volumes)) throw new RangeError(`unknown bus "${bus}"; buses: ${Object.keys(this.volumes).join(', ')}`);
    this.volumes[bus] = checkVolume(bus, value);
    this.graph?.bus?.setVolume(bus, this.volumes[bus]);
    this.stats.volumes = { ...this.volumes };
    this.save();
  }

  /** Mutes or unmutes everything (a 30 ms fade). A mute survives hiding the tab, interruptions and reloads. */
  setMuted(muted: boolean): void {
    this.mutedValue = muted;
    this.graph?.bus?.setMuted(muted);
    this.stats.muted = muted;
    this.save();
  }

  toggleMute(): boolean {
    this.setMuted(!this.mutedValue);
    return this.mutedValue;
  }

  /** Paused: the world's buses are muffled by the low-pass sweep; UI sounds stay clear. */
  setPaused(paused: boolean): void {
    this.pausedValue = paused;
    this.graph?.bus?.setMuffled(paused);
    this.stats.paused = paused;
  }

  /** Starts or stops the music (stopping fades the notes already playing). */
  setMusic(on: boolean): void {
    this.musicOn = on;
    this.stats.music = on;
    const graph = this.graph;
    if (!graph || this.stateValue !== 'running') return;
    if (on && !graph.music.playing) graph.music.start();
    if (!on && graph.music.playing) {
      graph.music.stop();
      graph.fadeOutBus('music', 0.4);
    }
  }

  /** Sets ambience levels (0…1); omitted ones keep their level. */
  setAmbience(levels: { wind?: number; fire?: number }): void {
    if (levels.wind !== undefined) this.ambience.wind = Math.min(1, Math.max(0, levels.wind));
    if (levels.fire !== undefined) this.ambience.fire = Math.min(1, Math.max(0, levels.fire));
    this.stats.wind = this.ambience.wind;
    this.stats.fire = this.ambience.fire;
    if (this.graph && this.stateValue === 'running') {
      if (levels.wind !== undefined) this.graph.wind.setLevel(this.ambience.wind);
      if (levels.fire !== undefined) this.graph.fire.setLevel(this.ambience.fire);
    }
  }

  /** Restarts the seeded sequence (test mode): the next sounds replay exactly. */
  setSeed(seed: number): void {
    this.random.reseed(seed);
    this.stats.seed = this.random.seed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.unlisten();
    this.target.removeEventListener('keydown', this.onMuteKey);
    this.doc.removeEventListener('visibilitychange', this.onVisibility);
    if (this.timer !== null) clearInterval(this.timer);
    if (this.blockedTimer !== null) clearTimeout(this.blockedTimer);
    this.removeNotice?.();
    this.meter?.dispose();
    this.graph?.dispose();
    const context = this.context;
    this.context = null;
    this.graph = null;
    if (context && context.state !== 'closed') void context.close().catch(() => undefined);
    this.setState('disposed', 'disposed');
    this.events.clear();
  }

  // ── lifecycle ──────────────────────────────────────────────────────────────────────────────

  /** Creates a context and its graph. Returns false (and goes silent with a notice) where that fails. */
  private build(): boolean {
    const factory = this.options.createContext ?? defaultContextFactory();
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
    this.graph = new AudioGraph(context, { random: this.random, mix: { ...this.options.mix, volumes: this.volumes }, limits: this.options.limits, counters: this.counters });
    this.graph.bus!.setMuted(this.mutedValue, true);
    this.graph.bus!.setMuffled(this.pausedValue, true);
    this.meter = new MeterTap(context, this.graph.bus!.output);
    context.addEventListener('statechange', () => this.onContextState(context));
    this.stats.sampleRate = context.sampleRate;
    this.stats.baseLatency = context.baseLatency ?? 0;
    this.stats.contextState = context.state;
    return true;
  }

  private unavailable(reason: string): void {
    this.setState('unavailable', reason);
    this.unlisten();
    this.showOnce({ level: 'info', title: 'Sound is unavailable', detail: `${reason}\nThe game runs silently.` });
  }

  private resume(): void {
    const context = this.context;
    if (!context || this.disposed) return;
    this.pending = 'resume';
    const attempt = context.resume();
    attempt
      .then(() => undefined)
      .catch((error: Error) => this.blocked(`resume() failed: ${error.message}`))
      .finally(() => {
        if (this.context === context && this.pending === 'resume') this.pending = null;
        if (this.context === context) this.onContextState(context);
      });
    if (this.blockedTimer !== null) clearTimeout(this.blockedTimer);
    this.blockedTimer = setTimeout(() => {
      this.blockedTimer = null;
      if (this.context === context && context.state !== 'running' && !this.hidden()) this.blocked('The browser did not let audio start.');
    }, this.options.blockedTimeoutMs ?? 1500);
  }

  private blocked(reason: string): void {
    if (this.disposed || this.stateValue === 'running') return;
    this.pending = null;
    const wasInterrupted = this.stateValue === 'interrupted';
    this.setState(wasInterrupted ? 'interrupted' : 'blocked', reason);
    this.listen();
    this.showOnce({
      level: 'info',
      title: wasInterrupted ? 'Sound was interrupted' : 'Sound is waiting for you',
      detail: `${reason}\nClick or press any key to turn sound on.`,
    });
  }

  private hidden(): boolean {
    return this.doc.visibilityState === 'hidden';
  }

  private onContextState(context: AudioContext): void {
    if (context !== this.context || this.disposed) return;
    const state = context.state as ContextState;
    this.stats.contextState = state;
    if (state === 'running') {
      if (this.stateValue !== 'running') this.becameRunning();
      return;
    }
    if (state === 'closed') {
      this.recover('The audio context was closed.');
      return;
    }
    // Suspended or interrupted.
    if (this.hidden()) {
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

  private becameRunning(): void {
    const graph = this.graph!;
    const context = this.context!;
    if (this.blockedTimer !== null) clearTimeout(this.blockedTimer);
    this.blockedTimer = null;
    this.removeNotice?.();
    this.removeNotice = null;
    this.unlisten();
    this.setState('running', '');
    this.stats.outputLatency = context.outputLatency ?? 0;
    this.stats.baseLatency = context.baseLatency ?? 0;
    if (this.musicOn && !graph.music.playing) graph.music.start();
    if (this.ambience.wind > 0 && graph.wind.currentLevel !== this.ambience.wind) graph.wind.setLevel(this.ambience.wind);
    if (this.ambience.fire > 0 && graph.fire.currentLevel !== this.ambience.fire) graph.fire.setLevel(this.ambience.fire);
    this.tick();
  }

  /** Brings sound back after the platform closed the context: a new context and graph, same settings. */
  private recover(reason: string): void {
    if (this.disposed) return;
    this.stats.recoveries++;
    this.setState('interrupted', reason);
    this.meter?.dispose();
    this.graph?.dispose();
    this.meter = null;
    this.graph = null;
    this.context = null;
    this.pending = null;
    if (this.build()) this.resume();
  }

  private reconcile(): void {
    const context = this.context;
    if (!context) return;
    const action = lifecycleAction({ started: this.started, disposed: this.disposed, hidden: this.hidden(), state: context.state as ContextState, pending: this.pending });
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

  private readonly onGesture = (): void => {
    this.start();
  };

  private readonly onMuteKey = (event: KeyboardEvent): void => {
    if (event.code !== (this.options.muteKey ?? 'KeyM') || event.repeat || isTyping(event)) return;
    this.toggleMute();
  };

  private readonly onVisibility = (): void => {
    const context = this.context;
    if (!context || this.disposed) return;
    if (this.hidden() && this.stateValue === 'running') this.setState('suspended', 'the tab is hidden');
    this.reconcile();
    // Shown again while a suspend never took effect: the context is still running.
    if (!this.hidden() && context.state === 'running') this.onContextState(context);
  };

  private listen(): void {
    if (this.listening || this.disposed) return;
    this.listening = true;
    // Capture phase: a game handler that stops propagation must not keep sound off.
    this.target.addEventListener('pointerdown', this.onGesture, true);
    this.target.addEventListener('keydown', this.onGesture, true);
  }

  private unlisten(): void {
    if (!this.listening) return;
    this.listening = false;
    this.target.removeEventListener('pointerdown', this.onGesture, true);
    this.target.removeEventListener('keydown', this.onGesture, true);
  }

  // ── meters and scheduling ──────────────────────────────────────────────────────────────────

  private startTimer(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.tick(), this.options.tickMs ?? 50);
  }

  /** Schedules music and crackles ahead and refreshes the meters and figures. */
  tick(): void {
    const graph = this.graph;
    const context = this.context;
    if (!graph || !context || this.disposed) return;
    this.stats.contextState = context.state;
    if (context.state !== 'running') return;
    const now = context.currentTime;
    graph.schedule(now + (this.options.lookaheadSeconds ?? 0.5));
    const level = this.meter!.read();
    this.stats.rms = level.rms;
    this.stats.peak = level.peak;
    this.stats.rmsDb = toDb(level.rms);
    this.stats.peakDb = toDb(level.peak);
    this.stats.peakHold = this.peakHold.push(level.peak, now);
    this.stats.maxPeak = Math.max(this.stats.maxPeak, level.peak);
    const counts = graph.voiceCounts();
    this.stats.voices = counts.total;
    this.stats.voicesByBus = { effects: counts.effects, music: counts.music, ambience: counts.ambience, ui: counts.ui };
    this.stats.chord = graph.music.playing ? graph.chordAt(now).name : '';
    const playback = (context as AudioContext & { playbackStats?: { underrunEvents: number } }).playbackStats;
    this.stats.underruns = playback ? playback.underrunEvents : null;
    this.syncCounters();
  }

  private syncCounters(): void {
    Object.assign(this.stats, this.counters);
  }

  // ── helpers ────────────────────────────────────────────────────────────────────────────────

  private showOnce(notice: CairnNotice): void {
    this.removeNotice?.();
    this.removeNotice = this.notify(notice);
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    console.warn(`[cairn audio] ${message} (silent in production; throws in development)`);
  }

  private load(): StoredSettings {
    const key = this.options.storageKey === undefined ? 'cairn.audio' : this.options.storageKey;
    if (!key) return {};
    try {
      const raw = globalThis.localStorage?.getItem(key);
      const parsed = raw ? (JSON.parse(raw) as StoredSettings) : {};
      const volumes: Partial<BusVolumes> = {};
      for (const [bus, value] of Object.entries(parsed.volumes ?? {})) {
        if (bus in DEFAULT_MIX.volumes && typeof value === 'number' && Number.isFinite(value)) volumes[bus as keyof BusVolumes] = Math.min(2, Math.max(0, value));
      }
      return { muted: parsed.muted === true, volumes };
    } catch {
      return {};
    }
  }

  private save(): void {
    const key = this.options.storageKey === undefined ? 'cairn.audio' : this.options.storageKey;
    if (!key) return;
    try {
      globalThis.localStorage?.setItem(key, JSON.stringify({ muted: this.mutedValue, volumes: this.volumes } satisfies StoredSettings));
    } catch {
      // Private mode or storage full: settings last for this session only.
    }
  }
}

function defaultContextFactory(): (() => AudioContext) | null {
  const Ctor = (globalThis as { AudioContext?: typeof AudioContext; webkitAudioContext?: typeof AudioContext }).AudioContext ?? (globalThis as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  return Ctor ? () => new Ctor({ latencyHint: 'interactive' }) : null;
}

function isTyping(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement | null;
  return !!target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable);
}
