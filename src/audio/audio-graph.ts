import { withDefaults } from '../core/options.ts';
import { Emitter } from '../core/emitter.ts';
import { AudioRandom } from './audio-random.ts';
import { FireAmbience } from './ambience/fire.ts';
import { WindAmbience } from './ambience/wind.ts';
import { ChimeStreak } from './chime-streak.ts';
import { DEFAULT_CLASS_BUDGETS, envelopeOf, type ClassBudget } from './class-budget.ts';
import { Cooldowns } from './cooldowns.ts';
import { planShape, STOP_MARGIN, validateLayer, type Layer } from './layers.ts';
import { MixBus } from './mix-bus.ts';
import type { MixSettings } from './mix-settings.ts';
import { MusicPlayer } from './music-player.ts';
import type { Chord, Progression } from './music-theory.ts';
import { getRecipe, RECIPES, type BusName, type RecipeContext } from './recipes/index.ts';
import { Synth, type NoiseDraw, type ScheduledSound } from './synth.ts';
import {
  VoiceLimiter,
  type LimiterChanges,
  type VoiceInfo,
  type VoiceLimit,
  type VoiceLimiterOptions,
  type VoiceRequest,
} from './voice-limiter.ts';

/** Per-bus voice limits. */
export const DEFAULT_BUS_LIMITS: Record<BusName, VoiceLimit> = {
  effects: { max: 24, steal: 'quietest' },
  music: { max: 24, steal: 'oldest' },
  ambience: { max: 10, steal: 'oldest' },
  ui: { max: 6, steal: 'oldest' },
};

/** Per-sound limits of the non-recipe voices (music notes, fire crackles). */
const EXTRA_SOUND_LIMITS: Record<string, VoiceLimit> = {
  'music-pad': { max: 8, steal: 'oldest' },
  'music-bass': { max: 3, steal: 'oldest' },
  'music-arp': { max: 6, steal: 'oldest' },
  'fire-crackle': { max: 6, steal: 'oldest' },
};

/** Limits built from the recipes' own `limit` plus the bus limits. */
export function defaultLimits(): Required<Pick<VoiceLimiterOptions, 'perSound' | 'perBus'>> {
  const perSound: Record<string, VoiceLimit> = { ...EXTRA_SOUND_LIMITS };
  for (const recipe of Object.values(RECIPES)) perSound[recipe.name] = recipe.limit;
  return { perSound, perBus: { ...DEFAULT_BUS_LIMITS } };
}

/**
 * Running totals an engine keeps across graphs (a rebuilt context keeps counting). They say what
 * sounds: decisions are taken in audio-time order, so a call for an earlier time can still change
 * what a voice scheduled ahead does; the counts move with it, and are final once its start passes.
 */
export interface PlayCounters {
  /** Calls of play() with a known recipe. */
  triggered: number;
  /** Voices that sound, sounded or are due to; one cancelled before it starts leaves this count. */
  played: number;
  /** Triggers a cooldown skips (including ones an earlier-scheduled trigger displaced before they started). */
  skippedCooldown: number;
  /** Voices a voice limit or a class budget turned away (or withdrew before they started). */
  refused: number;
  /** Voices cut short after they started, another taking their place (or due to be). */
  stolen: number;
  /** Calls with an unknown recipe name. */
  unknown: number;
  /** Calls refused for invalid parameters. */
  invalid: number;
}

/** Zeroed play counters. */
export function createCounters(): PlayCounters {
  return { triggered: 0, played: 0, skippedCooldown: 0, refused: 0, stolen: 0, unknown: 0, invalid: 0 };
}

/** Options of one {@link AudioGraph.play}. */
export interface PlayOptions {
  /** Audio time to start at. Default: now. */
  at?: number;
  /** Skip cooldowns and the per-sound voice limit (stress tests and benchmarks only). Bus limits still hold. */
  bypassGuards?: boolean;
}

/** A voice: what it is and how to stop it early. */
export interface VoiceHandle {
  /** The voice's id, unique in its graph. */
  id: number;
  /** The recipe (or ambience) that made it. */
  sound: string;
  /** The bus it plays on. */
  bus: BusName;
  /** Audio time it starts at (s). */
  start: number;
  /** When it has decayed to silence, or (stolen) faded out. */
  end: number;
  /**
   * True when it gave way before it started: a sound asked for later but due earlier took its
   * place (a cooldown or a voice limit, judged in audio-time order). It never sounds.
   */
  cancelled: boolean;
  /** Fades out over `fadeSeconds` (default 5 ms) and stops. */
  stop(fadeSeconds?: number): void;
}

/** Options of an {@link AudioGraph}. */
export interface AudioGraphOptions {
  /** The seeded sequence behind vary(), noise and offsets. */
  random?: AudioRandom;
  /** Mix bus settings; `null` for a dry graph (buses straight to the destination, for golden renders). */
  mix?: Partial<MixSettings> | null;
  /** Voice limits per sound and bus. Default: the limiter's own. */
  limits?: VoiceLimiterOptions;
  /** The music's chords and tempo. Default the built-in progression. */
  progression?: Progression;
  /** Counters to add to (an engine keeps one set across rebuilt graphs). Default a fresh set. */
  counters?: PlayCounters;
  /** Fade of a stolen voice, seconds. Default 0.005. */
  stealFadeSeconds?: number;
  /**
   * A voice due further ahead than this (seconds) stays virtual, decided but without nodes, until
   * {@link AudioGraph.schedule} (the engine's tick) or {@link AudioGraph.materialize} brings it
   * within reach: a flood scheduled ahead in any order costs bookkeeping, not nodes made and
   * cancelled. Default 1.
   */
  horizonSeconds?: number;
}

/**
 * Defaults of an {@link AudioGraph}'s plain options: a stolen voice fades in 5 ms, the horizon is
 * 1 s. Left out, `random` and `counters` are fresh ones, `mix` is the default mix, `limits` the
 * {@link defaultLimits} and `progression` the music's own.
 */
const AUDIO_GRAPH_DEFAULTS: Required<Pick<AudioGraphOptions, 'stealFadeSeconds' | 'horizonSeconds'>> = {
  stealFadeSeconds: 0.005,
  horizonSeconds: 1,
};

interface LiveVoice extends VoiceHandle {
  /** Its nodes: none while it is virtual (due beyond the horizon). */
  gain: GainNode | null;
  sounds: ScheduledSound[];
  request: Request;
  stopped: boolean;
  /** Where its sources stop when nothing cuts it short. */
  naturalEnd: number;
  /** Its class budget's gain. */
  level: number;
}

/**
 * One call of play() or playLayers() that may still sound: planned once its cooldown accepts it,
 * held by the limiter, a voice once admitted. Kept while a decision about it can still change.
 */
interface Request {
  id: number;
  sound: string;
  bus: BusName;
  at: number;
  /** The recipe to plan (null: layers were given). */
  recipe: AnyRecipe | null;
  params: object;
  layers: Layer[] | null;
  info: VoiceInfo | null;
  /** Its class and sampled envelope, where its class has a gain budget. */
  budget: VoiceRequest['budget'];
  /** Its noise layers' draws, made when it is first admitted (in call order, as the sequence runs live). */
  draws: (NoiseDraw | null)[] | null;
  bypassGuards: boolean;
  voice: LiveVoice | null;
}

type AnyRecipe = ReturnType<typeof getRecipe>;

/** What an {@link AudioGraph} emits. */
export interface AudioGraphEvents extends Record<string, unknown> {
  /**
   * A recipe's voice was made (`change` 1) or cancelled before it started (−1): per-recipe counts
   * follow what sounds, also when an earlier-scheduled call later takes a voice's place.
   */
  voice: {
    /** The recipe. */
    sound: string;
    /** The parameters it was called with. */
    params: object;
    /** 1: a voice was made; −1: one was cancelled before it started. */
    change: 1 | -1;
  };
}

/**
 * Everything that makes sound on one audio context: the mix bus, the synth, voices with cooldowns
 * and limits, the music and the ambiences. The live engine owns one per context (and builds a new
 * one if the platform closes it); offline renders build one on an OfflineAudioContext.
 */
export class AudioGraph {
  /** The context the graph's nodes live on. */
  readonly context: BaseAudioContext;
  /** The seeded sequence behind vary(), noise and offsets. */
  readonly random: AudioRandom;
  /** The mix bus, or null for a dry graph. */
  readonly bus: MixBus | null;
  /** Where each bus's sounds enter. */
  readonly inputs: Record<BusName, AudioNode>;
  /** Builds the layered voices recipes are made of. */
  readonly synth: Synth;
  /** Caps voices per sound and bus and keeps class budgets. */
  readonly limiter: VoiceLimiter;
  /** Per-sound cooldowns: a trigger within a sound's cooldown after its last one is skipped. */
  readonly cooldowns = new Cooldowns();
  /** Raises the pitch of chimes that come in quick succession. */
  readonly streak = new ChimeStreak();
  /** The procedural music. */
  readonly music: MusicPlayer;
  /** The wind ambience. */
  readonly wind: WindAmbience;
  /** The fire ambience. */
  readonly fire: FireAmbience;
  /** What happened to every call: played, skipped, refused, stolen, invalid. */
  readonly counters: PlayCounters;
  /** What the graph emits: voices made and cancelled. */
  readonly events = new Emitter<AudioGraphEvents>();
  private readonly voices = new Map<number, LiveVoice>();
  private readonly requests = new Map<number, Request>();
  private readonly stealFade: number;
  private readonly horizon: number;
  /** Admitted voices without nodes yet (due beyond the horizon). */
  private readonly virtual = new Set<LiveVoice>();
  private readonly budgets: Record<string, ClassBudget>;
  private nextId = 1;
  private disposed = false;

  constructor(context: BaseAudioContext, options: AudioGraphOptions = {}) {
    this.context = context;
    this.random = options.random ?? new AudioRandom();
    this.counters = options.counters ?? createCounters();
    ({ stealFadeSeconds: this.stealFade, horizonSeconds: this.horizon } = withDefaults(AUDIO_GRAPH_DEFAULTS, options));
    if (options.mix === null) {
      this.bus = null;
      const direct = (): GainNode => {
        const gain = context.createGain();
        gain.connect(context.destination);
        return gain;
      };
      this.inputs = { effects: direct(), music: direct(), ambience: direct(), ui: direct() };
    } else {
      this.bus = new MixBus(context, options.mix ?? {});
      this.inputs = this.bus.inputs;
    }
    this.synth = new Synth(context, this.random, this.inputs.effects);
    const limits = defaultLimits();
    this.budgets = { ...DEFAULT_CLASS_BUDGETS, ...options.limits?.budgets };
    this.limiter = new VoiceLimiter({
      perSound: { ...limits.perSound, ...options.limits?.perSound },
      perBus: { ...limits.perBus, ...options.limits?.perBus },
      defaultSound: options.limits?.defaultSound,
      budgets: this.budgets,
    });
    this.music = new MusicPlayer(this, { progression: options.progression, seed: this.random.seed });
    this.wind = new WindAmbience(this.synth, this.inputs.ambience);
    this.fire = new FireAmbience(this.synth, this.random, this, this.inputs.ambience);
  }

  /** The chord the music plays at `time` (the tonic chord when the music is off). */
  chordAt(time = this.context.currentTime): Chord {
    return this.music.chordAt(time);
  }

  /**
   * Plans and plays a recipe. Returns the voice, or null when a cooldown or a voice limit skipped it.
   * Both are judged in audio-time order: a call for an earlier time than sounds already scheduled
   * takes its place among them, and may cancel one that has not started yet (its handle says
   * `cancelled`) or bring back one that was skipped. Throws UnknownRecipeError for an unknown name
   * and RangeError for invalid parameters (the engine decides whether that is loud or silent).
   */
  play(name: string, params: object = {}, options: PlayOptions = {}): VoiceHandle | null {
    const recipe = getRecipe(name);
    const now = this.context.currentTime;
    const at = Math.max(options.at ?? now, now);
    this.counters.triggered++;
    if (this.disposed) return null;
    const request: Request = {
      id: this.nextId++,
      sound: recipe.name,
      bus: recipe.bus,
      at,
      recipe,
      params,
      layers: null,
      info: null,
      budget: undefined,
      draws: null,
      bypassGuards: options.bypassGuards ?? false,
      voice: null,
    };
    if (request.bypassGuards) {
      this.plan(request);
      this.schedule1([request], [], now);
      return this.handleOf(request);
    }
    this.prune(now);
    return this.counted(() => {
      const decision = this.cooldowns.request(recipe.name, at, recipe.cooldownMs, request.id, now);
      if (decision.kept || decision.accepted) this.requests.set(request.id, request);
      const add: Request[] = [];
      let failure: unknown = null;
      if (decision.accepted) {
        try {
          this.plan(request);
          add.push(request);
        } catch (error) {
          failure = error;
        }
      }
      // Skipped calls that an earlier one brought back: planned now, in time order, silently on failure.
      const revivedRequests = decision.revived.flatMap((id) => this.requests.get(id) ?? []).sort((a, b) => a.at - b.at || a.id - b.id);
      for (const revived of revivedRequests) {
        try {
          if (!revived.layers) this.plan(revived);
          add.push(revived);
        } catch {
          // Counted as invalid by plan(); the call has long returned, so it stays silent.
        }
      }
      const displaced = decision.displaced.filter((id) => this.requests.get(id)?.info);
      this.apply(
        this.limiter.update(
          add.map((r) => this.limiterRequest(r)),
          displaced,
          now,
        ),
        displaced,
      );
      if (failure) throw failure;
      return this.handleOf(request);
    });
  }

  /** Plays already planned layers as one voice of `sound` on `bus` (music notes, crackles, custom sounds). */
  playLayers(sound: string, bus: BusName, layers: Layer[], at = this.context.currentTime, bypassGuards = false): VoiceHandle | null {
    if (this.disposed || layers.length === 0) return null;
    const now = this.context.currentTime;
    const request: Request = {
      id: this.nextId++,
      sound,
      bus,
      at: Math.max(at, now),
      recipe: null,
      params: {},
      layers,
      info: null,
      budget: undefined,
      draws: null,
      bypassGuards,
      voice: null,
    };
    request.info = infoOf(request, layers);
    this.prune(now);
    this.schedule1([request], [], now);
    return this.handleOf(request);
  }

  /** Voices sounding now (not those scheduled ahead), in total and per bus. */
  voiceCounts(): {
    /** Voices on every bus. */
    total: number;
  } & Record<BusName, number> {
    const now = this.context.currentTime;
    this.limiter.reap(now);
    return {
      total: this.limiter.soundingAt(now),
      effects: this.limiter.soundingAt(now, { bus: 'effects' }),
      music: this.limiter.soundingAt(now, { bus: 'music' }),
      ambience: this.limiter.soundingAt(now, { bus: 'ambience' }),
      ui: this.limiter.soundingAt(now, { bus: 'ui' }),
    };
  }

  /** Fades out every voice on `bus` (music stopping, a scene change); calls waiting on the bus are forgotten. */
  fadeOutBus(bus: BusName, seconds = 0.3): void {
    const now = this.context.currentTime;
    const ids: number[] = [];
    for (const request of this.requests.values()) if (request.bus === bus) ids.push(request.id);
    for (const id of ids) this.requests.delete(id);
    this.counted(() => this.apply(this.limiter.remove(ids, now), []));
    for (const voice of [...this.voices.values()]) if (voice.bus === bus) this.fadeVoice(voice, seconds);
  }

  /**
   * Schedules music beats and fire crackles up to `until` (audio time), makes the nodes of voices
   * now within the horizon, and forgets finished voices.
   */
  schedule(until: number): void {
    if (this.disposed) return;
    this.music.scheduleUntil(until);
    this.fire.scheduleUntil(until);
    const now = this.context.currentTime;
    this.materialize(Math.max(until, now + this.horizon));
    this.limiter.reap(now);
    this.prune(now);
  }

  /** Makes the nodes of every virtual voice due before `until` (an offline render passes Infinity before rendering). */
  materialize(until: number): void {
    for (const voice of [...this.virtual]) if (voice.start < until) this.makeNodes(voice);
  }

  /** Silences every voice at once and disconnects every node (the context itself is the caller's). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const voice of [...this.voices.values()]) this.fadeVoice(voice, 0);
    this.voices.clear();
    this.virtual.clear();
    this.requests.clear();
    this.limiter.clear();
    this.events.clear();
    try {
      this.wind.dispose();
      this.fire.dispose();
      this.bus?.dispose();
      if (!this.bus) for (const input of Object.values(this.inputs)) input.disconnect();
    } catch {
      // A closed context's nodes may refuse stop(); they are silent and collectable anyway.
    }
  }

  /** Plans a recipe call (the seeded sequence moves here, in call order); counts and rethrows invalid parameters. */
  private plan(request: Request): void {
    const recipe = request.recipe!;
    let merged: Record<string, unknown> = { ...recipe.defaults, ...request.params };
    if (recipe.name === 'chime' && (request.params as { streak?: number }).streak === undefined) {
      merged = { ...merged, streak: this.streak.next(request.at) };
    }
    const context: RecipeContext = {
      vary: (value, amount) => this.random.vary(value, amount),
      range: (min, max) => this.random.range(min, max),
      chord: this.chordAt(request.at),
    };
    let layers: Layer[];
    try {
      layers = recipe.plan(merged as never, context);
      layers.forEach(validateLayer);
    } catch (error) {
      this.counters.invalid++;
      throw error;
    }
    if (layers.length === 0) throw new RangeError(`${recipe.name}: the plan has no layers`);
    request.layers = layers;
    request.info = infoOf(request, layers);
    if (this.budgets[recipe.soundClass] && !request.bypassGuards) {
      const shape = planShape(layers);
      request.budget = { soundClass: recipe.soundClass, envelope: envelopeOf(layers, shape.start, this.context.sampleRate) };
    }
  }

  private limiterRequest(request: Request): VoiceRequest {
    return { ...request.info!, ignoreSoundLimit: request.bypassGuards, budget: request.budget };
  }

  /** Adds requests to the limiter (removing `remove`) and applies what changed. */
  private schedule1(add: Request[], remove: number[], now: number): void {
    for (const request of add) this.requests.set(request.id, request);
    this.counted(() =>
      this.apply(
        this.limiter.update(
          add.map((r) => this.limiterRequest(r)),
          remove,
          now,
        ),
        remove,
      ),
    );
  }

  /** Runs `fn` and moves the limiter's and cooldowns' counts into the play counters. */
  private counted<T>(fn: () => T): T {
    const before = {
      played: this.limiter.admitted,
      refused: this.limiter.refused,
      stolen: this.limiter.stolen,
      skipped: this.cooldowns.skipped,
    };
    try {
      return fn();
    } finally {
      this.counters.played += this.limiter.admitted - before.played;
      this.counters.refused += this.limiter.refused - before.refused;
      this.counters.stolen += this.limiter.stolen - before.stolen;
      this.counters.skippedCooldown += this.cooldowns.skipped - before.skipped;
    }
  }

  /** Makes nodes for voices admitted, cancels those withdrawn or `removed` before they start, moves stealing fades. */
  private apply(changes: LimiterChanges, removed: readonly number[]): void {
    for (const id of removed) {
      const voice = this.requests.get(id)?.voice;
      if (voice) this.cancelVoice(voice);
    }
    for (const voice of changes.withdrawn) {
      const live = this.requests.get(voice.id)?.voice;
      if (live) this.cancelVoice(live);
    }
    for (const info of changes.admitted) {
      const request = this.requests.get(info.id);
      if (request && !request.voice) this.startVoice(request);
    }
    for (const { voice, gain } of changes.gains) {
      const live = this.requests.get(voice.id)?.voice;
      if (live && !live.stopped) {
        live.level = gain;
        this.cutVoice(live, this.limiter.cutOf(live.id));
      }
    }
    for (const { voice, at } of changes.cuts) {
      const live = this.requests.get(voice.id)?.voice;
      if (live) this.cutVoice(live, at);
    }
  }

  private handleOf(request: Request): VoiceHandle | null {
    return request.voice;
  }

  /** Makes the voice of an admitted request: its nodes now, or (due beyond the horizon) later. */
  private startVoice(request: Request): void {
    const info = request.info!;
    const voice: LiveVoice = {
      id: request.id,
      sound: request.sound,
      bus: request.bus,
      start: info.start,
      end: info.end,
      naturalEnd: info.end,
      level: this.limiter.gainOf(request.id),
      cancelled: false,
      gain: null,
      sounds: [],
      request,
      stopped: false,
      stop: (fadeSeconds = this.stealFade) => this.stopVoice(voice, fadeSeconds),
    };
    request.voice = voice;
    request.draws ??= this.synth.drawLayers(request.layers!);
    this.voices.set(voice.id, voice);
    if (request.recipe) this.events.emit('voice', { sound: request.sound, params: request.params, change: 1 });
    if (info.start < this.context.currentTime + this.horizon) this.makeNodes(voice);
    else this.virtual.add(voice);
  }

  /** Gives a voice its nodes, at its level and with its stealing fade as decided now. */
  private makeNodes(voice: LiveVoice): void {
    this.virtual.delete(voice);
    if (voice.stopped || voice.gain) return;
    const gain = this.context.createGain();
    gain.gain.value = voice.level;
    gain.connect(this.inputs[voice.bus]);
    voice.gain = gain;
    voice.sounds = this.synth.renderLayers(voice.request.layers!, voice.request.at, gain, voice.request.draws ?? undefined);
    const cut = this.limiter.cutOf(voice.id);
    if (cut !== null) this.cutVoice(voice, cut);
    // The voice's gain goes when its last layer has ended.
    const last = voice.sounds.reduce((a, b) => (b.stop > a.stop ? b : a));
    last.source.addEventListener('ended', () => this.releaseVoice(voice), { once: true });
  }

  /** Fades a voice out from `at` (another voice takes its place then), or (null) lets it play to its end again. */
  private cutVoice(voice: LiveVoice, at: number | null): void {
    if (voice.stopped) return;
    const now = this.context.currentTime;
    if (!voice.gain) {
      // Virtual: the nodes are made with the steal as it stands then.
      voice.end = at === null ? voice.naturalEnd : Math.min(voice.naturalEnd, at + this.stealFade + 0.001);
      return;
    }
    try {
      const param = voice.gain.gain;
      // Only a future steal ever moves, so the gain is still the voice's level until then.
      param.cancelScheduledValues(now);
      param.setValueAtTime(voice.level, now);
      if (at === null) {
        for (const sound of voice.sounds) sound.source.stop(sound.stop);
        voice.end = voice.naturalEnd;
        return;
      }
      const from = Math.max(at, now);
      const stopAt = from + this.stealFade + 0.001;
      param.setValueAtTime(voice.level, from);
      param.linearRampToValueAtTime(0, stopAt);
      // The last stop() call wins, so a steal that moves later (or goes) restores the sources.
      for (const sound of voice.sounds) sound.source.stop(Math.min(sound.stop, stopAt));
      voice.end = Math.min(voice.naturalEnd, stopAt);
    } catch {
      // The context is closed: its nodes are already silent.
    }
  }

  /** Silences a voice that has not started: it never sounds. */
  private cancelVoice(voice: LiveVoice): void {
    if (voice.stopped) return;
    voice.stopped = true;
    voice.cancelled = true;
    voice.end = voice.start;
    this.voices.delete(voice.id);
    const request = this.requests.get(voice.id);
    if (request?.voice === voice) request.voice = null;
    if (request?.recipe) this.events.emit('voice', { sound: request.sound, params: request.params, change: -1 });
    this.virtual.delete(voice);
    if (!voice.gain) return;
    const now = this.context.currentTime;
    try {
      voice.gain.gain.cancelScheduledValues(now);
      voice.gain.gain.setValueAtTime(0, now);
      voice.gain.disconnect();
      for (const sound of voice.sounds) sound.source.stop(Math.max(now, voice.start));
    } catch {
      // The context is closed: its nodes are already silent.
    }
  }

  /** handle.stop(): the voice fades from now, and its place is free from now on. */
  private stopVoice(voice: LiveVoice, fadeSeconds: number): void {
    if (voice.stopped || this.disposed) return;
    const now = this.context.currentTime;
    const request = this.requests.get(voice.id);
    if (request) this.requests.delete(voice.id);
    this.counted(() => this.apply(this.limiter.remove(voice.id, now), []));
    this.fadeVoice(voice, fadeSeconds);
  }

  private fadeVoice(voice: LiveVoice, fadeSeconds: number): void {
    if (voice.stopped) return;
    voice.stopped = true;
    const now = this.context.currentTime;
    // Stopped before it started: it never sounds, and the per-recipe counts take it back.
    if (voice.start >= now && voice.request.recipe)
      this.events.emit('voice', { sound: voice.sound, params: voice.request.params, change: -1 });
    const stopAt = now + Math.max(0, fadeSeconds) + 0.001;
    voice.end = Math.min(voice.end, stopAt);
    this.virtual.delete(voice);
    if (!voice.gain) {
      // Virtual: it has no nodes and never will.
      this.voices.delete(voice.id);
      return;
    }
    try {
      const param = voice.gain.gain;
      param.cancelScheduledValues(now);
      param.setValueAtTime(param.value, now);
      param.linearRampToValueAtTime(0, stopAt);
      for (const sound of voice.sounds) {
        // A source scheduled to start after stopAt never sounds: stop it at its own start.
        if (sound.stop > stopAt) sound.source.stop(stopAt);
      }
    } catch {
      // The context is closed: its nodes are already silent.
    }
  }

  private releaseVoice(voice: LiveVoice): void {
    voice.gain?.disconnect();
    if (this.voices.get(voice.id) !== voice) return;
    this.voices.delete(voice.id);
    const request = this.requests.get(voice.id);
    if (request?.voice === voice) {
      this.requests.delete(voice.id);
      this.limiter.forget(voice.id);
    }
  }

  /** Forgets calls that can no longer sound: skipped or refused ones whose time has passed. */
  private prune(now: number): void {
    for (const [id, request] of this.requests) if (!request.voice && (request.info?.start ?? request.at) < now) this.requests.delete(id);
  }
}

/** The limiter's view of a planned request. */
function infoOf(request: Request, layers: readonly Layer[]): VoiceInfo {
  const shape = planShape(layers);
  const at = request.at;
  return {
    id: request.id,
    sound: request.sound,
    bus: request.bus,
    start: at + shape.start,
    peakTime: at + shape.peakTime,
    end: at + shape.end + STOP_MARGIN,
    peak: shape.peak,
  };
}
