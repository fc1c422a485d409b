import { AudioRandom } from './audio-random.ts';
import { FireAmbience } from './ambience/fire.ts';
import { WindAmbience } from './ambience/wind.ts';
import { ChimeStreak } from './chime-streak.ts';
import { Cooldowns } from './cooldowns.ts';
import { planShape, validateLayer, type Layer } from './layers.ts';
import { MixBus } from './mix-bus.ts';
import type { MixSettings } from './mix-settings.ts';
import { MusicPlayer } from './music-player.ts';
import type { Chord, Progression } from './music-theory.ts';
import { getRecipe, RECIPES, type BusName, type RecipeContext } from './recipes/index.ts';
import { Synth, type ScheduledSound } from './synth.ts';
import { VoiceLimiter, type VoiceLimit, type VoiceLimiterOptions } from './voice-limiter.ts';

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

/** Running totals an engine keeps across graphs (a rebuilt context keeps counting). */
export interface PlayCounters {
  /** Calls of play() with a known recipe. */
  triggered: number;
  /** Voices that started. */
  played: number;
  skippedCooldown: number;
  refused: number;
  stolen: number;
  /** Calls with an unknown recipe name. */
  unknown: number;
  /** Calls refused for invalid parameters. */
  invalid: number;
}

export function createCounters(): PlayCounters {
  return { triggered: 0, played: 0, skippedCooldown: 0, refused: 0, stolen: 0, unknown: 0, invalid: 0 };
}

export interface PlayOptions {
  /** Audio time to start at. Default: now. */
  at?: number;
  /** Skip cooldowns and the per-sound voice limit (stress tests and benchmarks only). Bus limits still hold. */
  bypassGuards?: boolean;
}

/** A playing voice: what it is and how to stop it early. */
export interface VoiceHandle {
  id: number;
  sound: string;
  bus: BusName;
  start: number;
  end: number;
  /** Fades out over `fadeSeconds` (default 5 ms) and stops. */
  stop(fadeSeconds?: number): void;
}

export interface AudioGraphOptions {
  /** The seeded sequence behind vary(), noise and offsets. */
  random?: AudioRandom;
  /** Mix bus settings; `null` for a dry graph (buses straight to the destination, for golden renders). */
  mix?: Partial<MixSettings> | null;
  limits?: VoiceLimiterOptions;
  progression?: Progression;
  counters?: PlayCounters;
  /** Fade of a stolen voice, seconds. Default 0.005. */
  stealFadeSeconds?: number;
}

interface LiveVoice extends VoiceHandle {
  gain: GainNode;
  sounds: ScheduledSound[];
  stopped: boolean;
}

/**
 * Everything that makes sound on one audio context: the mix bus, the synth, voices with cooldowns
 * and limits, the music and the ambiences. The live engine owns one per context (and builds a new
 * one if the platform closes it); offline renders build one on an OfflineAudioContext.
 */
export class AudioGraph {
  readonly context: BaseAudioContext;
  readonly random: AudioRandom;
  /** The mix bus, or null for a dry graph. */
  readonly bus: MixBus | null;
  /** Where each bus's sounds enter. */
  readonly inputs: Record<BusName, AudioNode>;
  readonly synth: Synth;
  readonly limiter: VoiceLimiter;
  readonly cooldowns = new Cooldowns();
  readonly streak = new ChimeStreak();
  readonly music: MusicPlayer;
  readonly wind: WindAmbience;
  readonly fire: FireAmbience;
  readonly counters: PlayCounters;
  private readonly voices = new Map<number, LiveVoice>();
  private readonly stealFade: number;
  private nextId = 1;
  private disposed = false;

  constructor(context: BaseAudioContext, options: AudioGraphOptions = {}) {
    this.context = context;
    this.random = options.random ?? new AudioRandom();
    this.counters = options.counters ?? createCounters();
    this.stealFade = options.stealFadeSeconds ?? 0.005;
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
    this.limiter = new VoiceLimiter({
      perSound: { ...limits.perSound, ...options.limits?.perSound },
      perBus: { ...limits.perBus, ...options.limits?.perBus },
      defaultSound: options.limits?.defaultSound,
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
   * Throws UnknownRecipeError for an unknown name and RangeError for invalid parameters (the engine
   * decides whether that is loud or silent).
   */
  play(name: string, params: object = {}, options: PlayOptions = {}): VoiceHandle | null {
    const recipe = getRecipe(name);
    const at = Math.max(options.at ?? this.context.currentTime, this.context.currentTime);
    this.counters.triggered++;
    if (!options.bypassGuards && !this.cooldowns.tryTrigger(recipe.name, at, recipe.cooldownMs)) {
      this.counters.skippedCooldown++;
      return null;
    }
    let merged: Record<string, unknown> = { ...recipe.defaults, ...params };
    if (recipe.name === 'chime' && (params as { streak?: number }).streak === undefined) {
      merged = { ...merged, streak: this.streak.next(at) };
    }
    const context: RecipeContext = {
      vary: (value, amount) => this.random.vary(value, amount),
      range: (min, max) => this.random.range(min, max),
      chord: this.chordAt(at),
    };
    let layers: Layer[];
    try {
      layers = recipe.plan(merged as never, context);
      layers.forEach(validateLayer);
    } catch (error) {
      this.counters.invalid++;
      throw error;
    }
    return this.playLayers(recipe.name, recipe.bus, layers, at, options.bypassGuards);
  }

  /** Plays already planned layers as one voice of `sound` on `bus` (music notes, crackles, custom sounds). */
  playLayers(sound: string, bus: BusName, layers: Layer[], at = this.context.currentTime, bypassGuards = false): VoiceHandle | null {
    if (this.disposed || layers.length === 0) return null;
    const shape = planShape(layers);
    const info = { sound, bus, start: at + shape.start, peakTime: at + shape.peakTime, end: at + shape.end + 0.02, peak: shape.peak };
    const now = this.context.currentTime;
    // Guards off skips cooldowns and the per-sound limit, never the bus limit.
    const decision = this.limiter.admit(info, now, { ignoreSoundLimit: bypassGuards });
    if (!decision.admitted) {
      this.counters.refused++;
      return null;
    }
    for (const victim of decision.victims) {
      this.voices.get(victim.id)?.stop(this.stealFade);
      this.counters.stolen++;
    }
    const gain = this.context.createGain();
    gain.connect(this.inputs[bus]);
    const sounds = this.synth.renderLayers(layers, at, gain);
    const id = this.nextId++;
    const voice: LiveVoice = {
      id,
      sound,
      bus,
      start: info.start,
      end: info.end,
      gain,
      sounds,
      stopped: false,
      stop: (fadeSeconds = this.stealFade) => this.stopVoice(voice, fadeSeconds),
    };
    this.voices.set(id, voice);
    this.limiter.add({ id, ...info });
    this.counters.played++;
    // The voice's gain goes when its last layer has ended.
    const last = sounds.reduce((a, b) => (b.stop > a.stop ? b : a));
    last.source.addEventListener('ended', () => this.releaseVoice(voice), { once: true });
    return voice;
  }

  /** Voices sounding now (not those scheduled ahead), in total and per bus. */
  voiceCounts(): { total: number } & Record<BusName, number> {
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

  /** Fades out every voice on `bus` (music stopping, a scene change). */
  fadeOutBus(bus: BusName, seconds = 0.3): void {
    for (const voice of this.voices.values()) if (voice.bus === bus) voice.stop(seconds);
  }

  /** Schedules music beats and fire crackles up to `until` (audio time) and forgets finished voices. */
  schedule(until: number): void {
    if (this.disposed) return;
    this.music.scheduleUntil(until);
    this.fire.scheduleUntil(until);
    this.limiter.reap(this.context.currentTime);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const voice of [...this.voices.values()]) this.stopVoice(voice, 0);
    this.voices.clear();
    this.limiter.clear();
    try {
      this.wind.dispose();
      this.fire.dispose();
      this.bus?.dispose();
      if (!this.bus) for (const input of Object.values(this.inputs)) input.disconnect();
    } catch {
      // A closed context's nodes may refuse stop(); they are silent and collectable anyway.
    }
  }

  private stopVoice(voice: LiveVoice, fadeSeconds: number): void {
    if (voice.stopped) return;
    voice.stopped = true;
    this.limiter.remove(voice.id);
    const now = this.context.currentTime;
    const stopAt = now + Math.max(0, fadeSeconds) + 0.001;
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
    this.voices.delete(voice.id);
    this.limiter.remove(voice.id);
    voice.gain.disconnect();
  }
}
