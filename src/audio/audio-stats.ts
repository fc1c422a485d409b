import type { PlayCounters } from './audio-graph.ts';
import { LOUDNESS_FLOOR } from './meter/loudness-meter.ts';
import type { BusVolumes } from './mix-settings.ts';

/**
 * - `waiting`: no context yet; the first pointerdown/keydown creates it.
 * - `running`: sound is on.
 * - `suspended`: the tab is hidden; it resumes when shown.
 * - `blocked`: the browser would not start audio; the next gesture retries.
 * - `interrupted`: the platform stopped the context; recovering (resume, or a new context).
 * - `unavailable`: no Web Audio here; the game runs silently.
 */
export type AudioEngineState = 'waiting' | 'running' | 'suspended' | 'blocked' | 'interrupted' | 'unavailable' | 'disposed';

/**
 * The mix bus's loudness and true peak (ITU-R BS.1770-4 / EBU R 128), metered on every sample by
 * the AudioWorklet after the soft clipper. Loudness in LUFS, peaks in dBFS / dBTP; −120 is silence.
 */
export interface LoudnessStats {
  /** 'worklet' (every sample) or 'analyser' (the ≈ 46 ms window fallback: no LUFS, peaks can be missed). */
  source: 'worklet' | 'analyser' | 'none';
  /** Last 400 ms. */
  momentary: number;
  /** Last 3 s. */
  shortTerm: number;
  /** Gated, since the sound started or {@link AudioEngine.resetMeters}. */
  integrated: number;
  /** Highest momentary loudness since the start or the last reset (LUFS). */
  momentaryMax: number;
  /** Highest short-term loudness since the start or the last reset (LUFS). */
  shortTermMax: number;
  /** Highest true peak since the previous tick, dBTP. */
  truePeakDb: number;
  /** Highest true peak in the last 1.5 s, dBTP. */
  truePeakHoldDb: number;
  /** Highest true peak since start or reset, dBTP. */
  truePeakMaxDb: number;
}

/** `window.cairn.stats.audio`: what the HUD and the tests read. Levels are after the soft clipper. */
export interface AudioStats extends PlayCounters {
  /** Where sound stands. */
  state: AudioEngineState;
  /** The AudioContext's own state, or 'none'. */
  contextState: string;
  /** Muted. */
  muted: boolean;
  /** Paused (the world muffled behind a menu). */
  paused: boolean;
  /** Output RMS since the previous tick (every sample), linear. */
  rms: number;
  /** Output sample peak since the previous tick (every sample), linear. */
  peak: number;
  /** {@link rms} in dBFS. */
  rmsDb: number;
  /** {@link peak} in dBFS. */
  peakDb: number;
  /** Highest sample peak in the last 1.5 s. */
  peakHold: number;
  /** Highest sample peak since start. */
  maxPeak: number;
  /** Loudness and true peak, after the soft clipper. */
  loudness: LoudnessStats;
  /** Voices sounding now (scheduled ones count once they start; a stolen voice is gone at once). */
  voices: number;
  /** {@link voices} per bus. */
  voicesByBus: {
    /** On the effects bus. */
    effects: number;
    /** On the music bus. */
    music: number;
    /** On the ambience bus. */
    ambience: number;
    /** On the UI bus. */
    ui: number;
  };
  /** Name of the chord the music is playing. */
  chord: string;
  /** The music is playing. */
  music: boolean;
  /** The wind's level (0…1). */
  wind: number;
  /** The fire's level (0…1). */
  fire: number;
  /** Volume per bus (0…1). */
  volumes: BusVolumes;
  /** The context's sample rate (Hz; 0 until known). */
  sampleRate: number;
  /** Seconds, from the context (0 until known). */
  baseLatency: number;
  /** Seconds, from the context (0 until known). */
  outputLatency: number;
  /** Audio-thread underruns reported by the context (AudioContext.playbackStats), or null where unavailable. */
  underruns: number | null;
  /** Times the engine brought sound back after the platform interrupted or closed the context. */
  recoveries: number;
  /** Contexts created (1 normally; more after the platform closed one). */
  contexts: number;
  /** Calls made while sound could not run, waiting to play when it starts (bounded; see `queue`). */
  queued: number;
  /** Calls that never played: the queue was full, they waited too long, or sound is unavailable. */
  dropped: number;
  /**
   * `dropped` by reason: `full` (the oldest gave way to a newer call), `stale` (waited longer than
   * the queue's age bound before sound was asked to start), `unavailable` (no Web Audio),
   * `disposed` (the engine went first).
   */
  droppedBy: {
    /** The oldest gave way to a newer call. */
    full: number;
    /** Waited longer than the queue's age bound. */
    stale: number;
    /** No Web Audio. */
    unavailable: number;
    /** The engine went first. */
    disposed: number;
  };
  /** The last drop in words ('' before any). */
  dropReason: string;
  /** The recipe of the last voice started ('' before any). */
  lastRecipe: string;
  /** Voices started per recipe name since start. */
  byRecipe: Record<string, number>;
  /** Voices started per `surface` parameter (footsteps, jumps, landings). */
  bySurface: Record<string, number>;
  /** The ground under the listener, where a world plugin reports it ('' elsewhere). */
  surface: string;
  /** The seed of vary(), noise and offsets. */
  seed: number;
  /** Why sound is off, when it is. */
  reason: string;
}

/** Loudness figures before anything is metered. */
export function silentLoudness(): LoudnessStats {
  return {
    source: 'none',
    momentary: LOUDNESS_FLOOR,
    shortTerm: LOUDNESS_FLOOR,
    integrated: LOUDNESS_FLOOR,
    momentaryMax: LOUDNESS_FLOOR,
    shortTermMax: LOUDNESS_FLOOR,
    truePeakDb: LOUDNESS_FLOOR,
    truePeakHoldDb: LOUDNESS_FLOOR,
    truePeakMaxDb: LOUDNESS_FLOOR,
  };
}

/** The stats object of a new engine: nothing playing, nothing measured. */
export function createAudioStats(init: {
  counters: PlayCounters;
  muted: boolean;
  music: boolean;
  wind: number;
  fire: number;
  volumes: BusVolumes;
  seed: number;
}): AudioStats {
  return {
    ...init.counters,
    state: 'waiting',
    contextState: 'none',
    muted: init.muted,
    paused: false,
    rms: 0,
    peak: 0,
    rmsDb: LOUDNESS_FLOOR,
    peakDb: LOUDNESS_FLOOR,
    peakHold: 0,
    maxPeak: 0,
    loudness: silentLoudness(),
    voices: 0,
    voicesByBus: { effects: 0, music: 0, ambience: 0, ui: 0 },
    chord: '',
    music: init.music,
    wind: init.wind,
    fire: init.fire,
    volumes: { ...init.volumes },
    sampleRate: 0,
    baseLatency: 0,
    outputLatency: 0,
    underruns: null,
    recoveries: 0,
    contexts: 0,
    queued: 0,
    dropped: 0,
    droppedBy: { full: 0, stale: 0, unavailable: 0, disposed: 0 },
    dropReason: '',
    lastRecipe: '',
    byRecipe: {},
    bySurface: {},
    surface: '',
    seed: init.seed,
    reason: 'waiting for a click or key press',
  };
}

declare module '../world/cairn-global.ts' {
  interface CairnStats {
    /** Sound: the bus, its meters, voices. */
    audio?: AudioStats;
  }
}
