import { withDefaults } from '../core/options.ts';
import { Emitter } from '../core/emitter.ts';
import { toDb } from '../core/decibels.ts';
import type { CairnNotice } from '../world/cairn-global.ts';
import { showNotice } from '../world/notices.ts';
import { AudioGraph, createCounters, type PlayCounters, type PlayOptions, type VoiceHandle } from './audio-graph.ts';
import { AudioInputBindings } from './audio-input.ts';
import { AudioLifecycle, defaultContextFactory } from './audio-lifecycle.ts';
import { AudioRandom } from './audio-random.ts';
import { createAudioStats, type AudioEngineState, type AudioStats } from './audio-stats.ts';
import { AudioSettingsStore } from './audio-storage.ts';
import { BusMeter } from './bus-meter.ts';
import { checkVolume, DEFAULT_MIX, type BusVolumes, type MixSettings } from './mix-settings.ts';
import { isRecipeName, UnknownRecipeError, type RecipeName, type RecipeParams } from './recipes/index.ts';
import type { VoiceLimiterOptions } from './voice-limiter.ts';

export type { AudioEngineState, AudioStats, LoudnessStats } from './audio-stats.ts';

/** Options of an {@link AudioEngine}. */
export interface AudioEngineOptions {
  /** Test-mode seed for vary(), noise and offsets. Default: random per session. */
  seed?: number;
  /** Throw on unknown recipes and invalid parameters. Default: true in development builds, false in production. */
  strict?: boolean;
  /** Where the gesture and mute-key listeners go. Default window. */
  target?: Window;
  /** Whose visibility suspends sound. Default document. */
  document?: Document;
  /** KeyboardEvent.code that toggles mute, or null for none. Default 'KeyM'. */
  muteKey?: string | null;
  /** Builds the context. Default `new AudioContext({ latencyHint: 'interactive' })`. */
  createContext?: () => AudioContext;
  /** Shows a notice; returns its remover. Default the page's showNotice. */
  notify?: (notice: CairnNotice) => () => void;
  /** Start the music with the sound. Default false (a game opts in; Cairn's world does). */
  music?: boolean;
  /** Ambience levels to start with (0…1). Default { wind: 0, fire: 0 } (opt in). */
  ambience?: {
    /** The wind's level (0…1). Default 0. */
    wind?: number;
    /** The fire's level (0…1). Default 0. */
    fire?: number;
  };
  /** Starting volume per bus (0…2); volumes the user stored win over these. Default: the mix's ({@link DEFAULT_MIX}). */
  volumes?: Partial<BusVolumes>;
  /** Mix bus settings over {@link DEFAULT_MIX}. Default none (the default mix). */
  mix?: Partial<MixSettings>;
  /** Voice limits per sound and bus. Default: the limiter's own. */
  limits?: VoiceLimiterOptions;
  /**
   * Calls of play() made before sound runs (before the first gesture, while blocked or hidden) wait
   * here and play when it starts: at most `max` of them (the oldest give way), none that waited
   * more than `maxAgeMs` before sound was asked to start (a gesture, or the tab shown again: a late
   * sound is worse than none). The time the platform then takes to start the context does not
   * count, so a slow start delays queued sounds but never drops them. Dropped ones count in
   * `stats.dropped`, by reason in `stats.droppedBy`, with the last reason in words in
   * `stats.dropReason`. Default { max: 16, maxAgeMs: 1000 }.
   */
  queue?: {
    /** Calls kept at most (the oldest give way). Default 16. */
    max?: number;
    /** Longest wait before sound was asked to start (ms). Default 1000. */
    maxAgeMs?: number;
  };
  /** ms to wait for resume() before saying audio is blocked. Default 1500. */
  blockedTimeoutMs?: number;
  /** How far ahead music and crackles are scheduled, seconds. Default 0.5 (survives slow frames). */
  lookaheadSeconds?: number;
  /** Meter and scheduler period, ms. Default 50. */
  tickMs?: number;
  /** localStorage key for mute and volumes, or null to keep nothing. Default 'cairn.audio'. */
  storageKey?: string | null;
  /** Where the loudness meter's worklet module is, or null to meter with analysers only. Default: the bundled meter-worklet.js. */
  meterWorkletUrl?: string | URL | null;
}

/** {@link AudioEngineOptions} with every default applied (one resolver, see {@link resolveAudioEngineOptions}). */
export interface ResolvedAudioEngineOptions {
  /** The seed, or undefined for a random one per session. */
  seed: number | undefined;
  /** Whether unknown recipes and invalid parameters throw. */
  strict: boolean;
  /** Where the gesture and mute-key listeners go. */
  target: Window;
  /** Whose visibility suspends sound. */
  document: Document;
  /** KeyboardEvent.code that toggles mute, or null. */
  muteKey: string | null;
  /** Builds the context, or null where there is no Web Audio. */
  createContext: (() => AudioContext) | null;
  /** Shows a notice; returns its remover. */
  notify: (notice: CairnNotice) => () => void;
  /** Whether the music starts with the sound. */
  music: boolean;
  /** Ambience levels to start with. */
  ambience: {
    /** The wind's level (0…1). */
    wind: number;
    /** The fire's level (0…1). */
    fire: number;
  };
  /** Starting volume per bus. */
  volumes: Partial<BusVolumes>;
  /** Mix bus settings over the default mix. */
  mix: Partial<MixSettings>;
  /** Voice limits, or undefined for the limiter's own. */
  limits: VoiceLimiterOptions | undefined;
  /** The waiting queue's bounds. */
  queue: {
    /** Calls kept at most. */
    max: number;
    /** Longest wait (ms). */
    maxAgeMs: number;
  };
  /** ms to wait for resume() before saying audio is blocked. */
  blockedTimeoutMs: number;
  /** How far ahead music and crackles are scheduled (s). */
  lookaheadSeconds: number;
  /** Meter and scheduler period (ms). */
  tickMs: number;
  /** localStorage key for mute and volumes, or null. */
  storageKey: string | null;
  /** The meter worklet's URL, null for analysers only, undefined for the bundled one. */
  meterWorkletUrl: string | URL | null | undefined;
}

/**
 * Defaults of an {@link AudioEngine}'s plain options: mute on M, no music or ambience, the default
 * volumes and mix, a queue of 16 sounds for 1 s, blocked after 1.5 s, 0.5 s lookahead, a 50 ms
 * tick, kept under 'cairn.audio'. The page's parts (`strict`, `target`, `document`,
 * `createContext`, `notify`) default to this page's, found when the engine is built.
 */
const AUDIO_ENGINE_DEFAULTS: Pick<
  ResolvedAudioEngineOptions,
  'muteKey' | 'music' | 'volumes' | 'mix' | 'blockedTimeoutMs' | 'lookaheadSeconds' | 'tickMs' | 'storageKey'
> = {
  muteKey: 'KeyM',
  music: false,
  volumes: {},
  mix: {},
  blockedTimeoutMs: 1500,
  lookaheadSeconds: 0.5,
  tickMs: 50,
  storageKey: 'cairn.audio',
};
const AMBIENCE_DEFAULTS: ResolvedAudioEngineOptions['ambience'] = { wind: 0, fire: 0 };
const QUEUE_DEFAULTS: ResolvedAudioEngineOptions['queue'] = { max: 16, maxAgeMs: 1000 };

/** Applies the defaults of {@link AudioEngineOptions}, once. */
export function resolveAudioEngineOptions(options: AudioEngineOptions = {}): ResolvedAudioEngineOptions {
  const plain = withDefaults(AUDIO_ENGINE_DEFAULTS, options);
  const ambience = withDefaults(AMBIENCE_DEFAULTS, options.ambience);
  const page = withDefaults<Pick<ResolvedAudioEngineOptions, 'strict' | 'target' | 'document' | 'createContext' | 'notify'>>(
    { strict: isDev(), target: window, document, createContext: defaultContextFactory(), notify: showNotice },
    options,
  );
  return {
    ...plain,
    ...page,
    seed: options.seed,
    ambience: { wind: clamp01(ambience.wind), fire: clamp01(ambience.fire) },
    volumes: { ...plain.volumes },
    mix: { ...plain.mix },
    limits: options.limits,
    queue: withDefaults(QUEUE_DEFAULTS, options.queue),
    meterWorkletUrl: options.meterWorkletUrl,
  };
}

interface EngineEvents extends Record<string, unknown> {
  state: AudioEngineState;
  play: { recipe: string; voice: VoiceHandle | null };
}

interface QueuedPlay {
  name: RecipeName;
  params: object;
  options: PlayOptions;
  /** performance.now() of the call. */
  at: number;
}

type DropReason = keyof AudioStats['droppedBy'];

/**
 * Development is any Vite mode but 'production' (dev server, unit tests). Not `import.meta.env.DEV`:
 * that follows NODE_ENV, which a build started from a test runner inherits as 'test'.
 */
function isDev(): boolean {
  const mode = (import.meta as { env?: { MODE?: string } }).env?.MODE;
  return mode !== undefined && mode !== 'production';
}

const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));

/**
 * Cairn's sound: creates the AudioContext on the first pointerdown/keydown (capture phase) and builds
 * the whole graph then; suspends while the tab is hidden and resumes when it returns, keeping a
 * user's mute; recovers from a context the platform suspended, interrupted or closed; meters the
 * output after the soft clipper (loudness and true peak, on every sample) into {@link stats}. Every
 * sound goes through {@link play}; calls made before sound runs wait in a bounded queue.
 */
export class AudioEngine {
  /** Live figures (`cairn.stats.audio`). */
  readonly stats: AudioStats;
  /** What the engine emits: its state, and every play. */
  readonly events = new Emitter<EngineEvents>();
  /** The graph on the live context, once created. */
  graph: AudioGraph | null = null;
  /** The output meter after the soft clipper, once created. */
  meter: BusMeter | null = null;
  /** Whether unknown recipes and invalid parameters throw. */
  readonly strict: boolean;
  private readonly options: ResolvedAudioEngineOptions;
  private readonly input: AudioInputBindings;
  private readonly lifecycle: AudioLifecycle;
  private readonly store: AudioSettingsStore;
  private readonly counters: PlayCounters = createCounters();
  private readonly warned = new Set<string>();
  private readonly queue: QueuedPlay[] = [];
  private readonly random: AudioRandom;
  private readonly volumes: BusVolumes;
  private mutedValue: boolean;
  private pausedValue = false;
  private musicOn: boolean;
  private readonly ambience: { wind: number; fire: number };
  private disposed = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** performance.now() when sound was last asked to start (a gesture's start, a resume after hiding), or null before. */
  private resumeRequestedAt: number | null = null;

  constructor(options: AudioEngineOptions = {}) {
    const o = (this.options = resolveAudioEngineOptions(options));
    this.strict = o.strict;
    this.random = new AudioRandom(o.seed);
    this.musicOn = o.music;
    this.ambience = { ...o.ambience };
    this.store = new AudioSettingsStore(o.storageKey);
    const stored = this.store.load();
    this.volumes = { ...DEFAULT_MIX.volumes, ...o.mix.volumes, ...o.volumes, ...stored.volumes };
    this.mutedValue = stored.muted;
    this.stats = createAudioStats({
      counters: this.counters,
      muted: this.mutedValue,
      music: this.musicOn,
      wind: this.ambience.wind,
      fire: this.ambience.fire,
      volumes: this.volumes,
      seed: this.random.seed,
    });
    this.input = new AudioInputBindings(
      { target: o.target, document: o.document, muteKey: o.muteKey },
      { gesture: () => this.start(), toggleMute: () => this.toggleMute(), visibility: () => this.lifecycle.visibilityChanged() },
    );
    this.lifecycle = new AudioLifecycle(
      { createContext: o.createContext, blockedTimeoutMs: o.blockedTimeoutMs, notify: o.notify },
      this.stats,
      this.input,
    );
    this.lifecycle.events.on('built', (context) => this.buildGraph(context));
    this.lifecycle.events.on('resuming', () => (this.resumeRequestedAt = performance.now()));
    this.lifecycle.events.on('teardown', () => this.releaseGraph());
    this.lifecycle.events.on('running', () => this.onRunning());
    this.lifecycle.events.on('state', (state) => {
      if (state === 'unavailable') this.dropQueue('unavailable');
      this.events.emit('state', state);
    });
  }

  /** Where sound stands (waiting for a gesture, running, blocked, hidden, unavailable…). */
  get state(): AudioEngineState {
    return this.lifecycle.state;
  }

  /** The live context, once created. */
  get context(): AudioContext | null {
    return this.lifecycle.context;
  }

  /** True while muted (M toggles it). */
  get muted(): boolean {
    return this.mutedValue;
  }

  /** True while paused: the world's buses are muffled behind the menu, UI sounds stay clear (see {@link setPaused}). */
  get paused(): boolean {
    return this.pausedValue;
  }

  /**
   * Creates the context and the whole graph and starts sound. The first pointerdown/keydown calls
   * this; a page with its own "sound on" button may call it from that button's handler. Must run
   * inside a user gesture for browsers that require one.
   */
  start(): void {
    if (this.disposed) return;
    this.lifecycle.start();
    if (this.lifecycle.context && this.timer === null) this.timer = setInterval(() => this.tick(), this.options.tickMs);
  }

  /**
   * Plays a recipe now (or at `options.at`). Returns the voice, or null when a cooldown or voice
   * limit skipped it, or (in production) the name or parameters were invalid. Before sound runs
   * (no gesture yet, blocked, hidden) the call waits in a bounded queue and plays when sound starts
   * (`stats.queued`; `stats.dropped` counts those that never play); it returns null then too.
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
    if (!graph || this.state !== 'running') {
      this.enqueue({ name, params, options, at: performance.now() });
      return null;
    }
    return this.playNow(graph, name, params, options);
  }

  /** A bus's volume (0…1). */
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

  /** Mutes or unmutes; returns whether it is muted now. Kept in storage. */
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
    if (!graph || this.state !== 'running') return;
    if (on && !graph.music.playing) graph.music.start();
    if (!on && graph.music.playing) {
      graph.music.stop();
      graph.fadeOutBus('music', 0.4);
    }
  }

  /** Sets ambience levels (0…1); omitted ones keep their level. */
  setAmbience(levels: { wind?: number; fire?: number }): void {
    if (levels.wind !== undefined) this.ambience.wind = clamp01(levels.wind);
    if (levels.fire !== undefined) this.ambience.fire = clamp01(levels.fire);
    this.stats.wind = this.ambience.wind;
    this.stats.fire = this.ambience.fire;
    if (this.graph && this.state === 'running') {
      if (levels.wind !== undefined) this.graph.wind.setLevel(this.ambience.wind);
      if (levels.fire !== undefined) this.graph.fire.setLevel(this.ambience.fire);
    }
  }

  /** Restarts the seeded sequence (test mode): the next sounds replay exactly. */
  setSeed(seed: number): void {
    this.random.reseed(seed);
    this.stats.seed = this.random.seed;
  }

  /** Starts the loudness meter afresh: integrated loudness, maxima and peak holds of a new take. */
  resetMeters(): void {
    this.meter?.reset();
    this.stats.maxPeak = 0;
  }

  /** Stops the ticks, drops what was queued, removes the listeners and closes the context. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.dropQueue('disposed');
    this.input.dispose();
    this.lifecycle.dispose();
    this.events.clear();
  }

  /** Schedules music and crackles ahead and refreshes the meters and figures. */
  tick(): void {
    const graph = this.graph;
    const context = this.context;
    if (!graph || !context || this.disposed) return;
    this.stats.contextState = context.state;
    if (context.state !== 'running') return;
    const now = context.currentTime;
    graph.schedule(now + this.options.lookaheadSeconds);
    const level = this.meter!.read(now);
    this.stats.rms = level.rms;
    this.stats.peak = level.peak;
    this.stats.rmsDb = toDb(level.rms);
    this.stats.peakDb = toDb(level.peak);
    this.stats.peakHold = level.peakHold;
    this.stats.maxPeak = Math.max(this.stats.maxPeak, level.peak);
    this.stats.loudness = level.loudness;
    const counts = graph.voiceCounts();
    this.stats.voices = counts.total;
    this.stats.voicesByBus = { effects: counts.effects, music: counts.music, ambience: counts.ambience, ui: counts.ui };
    this.stats.chord = graph.music.playing ? graph.chordAt(now).name : '';
    const playback = (context as AudioContext & { playbackStats?: { underrunEvents: number } }).playbackStats;
    this.stats.underruns = playback ? playback.underrunEvents : null;
    this.syncCounters();
  }

  private playNow(graph: AudioGraph, name: RecipeName, params: object, options: PlayOptions): VoiceHandle | null {
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
    this.syncCounters();
    this.events.emit('play', { recipe: name, voice });
    return voice;
  }

  private enqueue(call: QueuedPlay): void {
    if (this.disposed || this.state === 'unavailable') {
      this.drop(
        this.disposed ? 'disposed' : 'unavailable',
        1,
        `play('${call.name}') while sound is ${this.disposed ? 'disposed' : 'unavailable'}`,
      );
      return;
    }
    this.queue.push(call);
    if (this.queue.length > this.options.queue.max) {
      const oldest = this.queue.shift()!;
      this.drop('full', 1, `the queue holds ${this.options.queue.max} calls: the oldest, play('${oldest.name}'), gave way`);
    }
    this.stats.queued = this.queue.length;
  }

  /**
   * Plays what waited for sound to start, skipping calls that waited longer than the queue's bound
   * before sound was asked to start; the wait for the context itself (a slow device) is not counted.
   */
  private flushQueue(graph: AudioGraph): void {
    const calls = this.queue.splice(0);
    this.stats.queued = 0;
    const askedAt = this.resumeRequestedAt ?? performance.now();
    const stale: QueuedPlay[] = [];
    for (const call of calls) {
      if (askedAt - call.at > this.options.queue.maxAgeMs) {
        stale.push(call);
        continue;
      }
      // Audio times given before the context existed mean nothing on it: queued calls play now.
      try {
        this.playNow(graph, call.name, call.params, { ...call.options, at: undefined });
      } catch (error) {
        // Strict mode throws on invalid parameters, but the caller has long returned: say it here.
        console.error(`[cairn audio] a queued play('${call.name}') failed: ${(error as Error).message}`);
      }
    }
    if (stale.length > 0) {
      const longest = Math.max(...stale.map((c) => askedAt - c.at));
      this.drop(
        'stale',
        stale.length,
        `${stale.length} queued call(s) (${[...new Set(stale.map((c) => c.name))].join(', ')}) waited up to ${(longest / 1000).toFixed(1)} s before sound was asked to start (limit ${(this.options.queue.maxAgeMs / 1000).toFixed(1)} s)`,
      );
    }
  }

  private dropQueue(reason: DropReason): void {
    const count = this.queue.length;
    this.queue.length = 0;
    this.stats.queued = 0;
    if (count > 0) this.drop(reason, count, `${count} queued call(s) dropped: sound is ${reason}`);
  }

  /** Counts calls that will never play, by reason, and says why in `stats.dropReason`. */
  private drop(reason: DropReason, count: number, why: string): void {
    this.stats.dropped += count;
    this.stats.droppedBy[reason] += count;
    this.stats.dropReason = why;
  }

  private buildGraph(context: AudioContext): void {
    this.graph = new AudioGraph(context, {
      random: this.random,
      mix: { ...this.options.mix, volumes: this.volumes },
      limits: this.options.limits,
      counters: this.counters,
    });
    // Per-recipe figures follow what sounds: a voice an earlier-scheduled call displaces is taken back.
    this.graph.events.on('voice', ({ sound, params, change }) => {
      this.stats.byRecipe[sound] = (this.stats.byRecipe[sound] ?? 0) + change;
      const surface = (params as { surface?: unknown }).surface;
      if (typeof surface === 'string') this.stats.bySurface[surface] = (this.stats.bySurface[surface] ?? 0) + change;
    });
    this.graph.bus!.setMuted(this.mutedValue, true);
    this.graph.bus!.setMuffled(this.pausedValue, true);
    this.meter = new BusMeter(context, this.graph.bus!.output, { workletUrl: this.options.meterWorkletUrl });
  }

  private releaseGraph(): void {
    this.meter?.dispose();
    this.graph?.dispose();
    this.meter = null;
    this.graph = null;
  }

  private onRunning(): void {
    const graph = this.graph!;
    if (this.musicOn && !graph.music.playing) graph.music.start();
    if (this.ambience.wind > 0 && graph.wind.currentLevel !== this.ambience.wind) graph.wind.setLevel(this.ambience.wind);
    if (this.ambience.fire > 0 && graph.fire.currentLevel !== this.ambience.fire) graph.fire.setLevel(this.ambience.fire);
    this.flushQueue(graph);
    this.tick();
  }

  private syncCounters(): void {
    Object.assign(this.stats, this.counters);
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    console.warn(`[cairn audio] ${message} (silent in production; throws in development)`);
  }

  private save(): void {
    this.store.save({ muted: this.mutedValue, volumes: this.volumes });
  }
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** Sound: footsteps, ambience, music, menu clicks. */
    audio: AudioEngine;
  }
}
