import { AudioGraph } from './audio-graph.ts';
import { AudioRandom } from './audio-random.ts';
import { planShape, type Layer } from './layers.ts';
import type { MixSettings } from './mix-settings.ts';
import { CAIRN_PROGRESSION } from './music-theory.ts';
import { getRecipe } from './recipes/index.ts';
import type { VoiceLimiterOptions } from './voice-limiter.ts';

/**
 * Renders sounds faster than real time on an OfflineAudioContext, with a seed, so the same call
 * gives the same samples: what golden files, level checks and benchmarks are built on.
 */
export interface OfflineRenderOptions {
  /** Default 1234 (the test seed). */
  seed?: number;
  /** Default 48000. */
  sampleRate?: number;
  /** Default 2 (stereo, so panning renders). */
  channels?: number;
  /** Seconds; default: the sound's length plus 0.1 s. */
  duration?: number;
  /** `null` (default) renders dry, straight to the output; settings render through the full mix bus. */
  mix?: Partial<MixSettings> | null;
  /** Render with the pause low-pass swept down (needs a mix bus). */
  muffled?: boolean;
  /**
   * Seconds of silence rendered through the mix bus before the scene and cut from the result, so
   * the compressor and limiter meet the sound at rest, as they do live (a cold compressor starts
   * fully clamped and holds transients down by 7–21 dB). Default {@link MIX_PRE_ROLL_SECONDS} with
   * a mix bus, 0 dry.
   */
  preRoll?: number;
  /** Voice limits of the graph (default: the recipes' and buses' own). Stress renders raise the bus limits here. */
  limits?: VoiceLimiterOptions;
}

/** The pre-roll of renders through the mix bus: long enough for the cold compressor to release. */
export const MIX_PRE_ROLL_SECONDS = 1;

/** The seed golden renders and tests use. */
export const TEST_SEED = 1234;

function createContext(options: OfflineRenderOptions, duration: number): OfflineAudioContext {
  const sampleRate = options.sampleRate ?? 48000;
  return new OfflineAudioContext({
    numberOfChannels: options.channels ?? 2,
    length: Math.max(1, Math.ceil(duration * sampleRate)),
    sampleRate,
  });
}

/**
 * Builds a graph on an offline context, lets `setup` play into it, and renders `duration` seconds
 * from audio time `start` (the end of the pre-roll; 0 for dry renders): `setup` schedules at
 * `start + t`. It may schedule anything the live engine can (recipes, layers, music, ambience).
 */
export async function renderScene(
  duration: number,
  setup: (graph: AudioGraph, start: number) => void,
  options: OfflineRenderOptions = {},
): Promise<AudioBuffer> {
  if (!(duration > 0 && duration <= 120)) throw new RangeError(`renderScene: duration must be in (0, 120] seconds (got ${duration})`);
  const mix = options.mix ?? null;
  const preRoll = options.preRoll ?? (mix ? MIX_PRE_ROLL_SECONDS : 0);
  if (!(preRoll >= 0 && preRoll <= 10)) throw new RangeError(`renderScene: preRoll must be in [0, 10] seconds (got ${preRoll})`);
  const sampleRate = options.sampleRate ?? 48000;
  // The pre-roll in whole samples, so the cut lands exactly on audio time `start`.
  const skip = Math.round(preRoll * sampleRate);
  const start = skip / sampleRate;
  const context = createContext(options, start + duration);
  const graph = new AudioGraph(context, { random: new AudioRandom(options.seed ?? TEST_SEED), mix, limits: options.limits });
  if (options.muffled) {
    if (!graph.bus) throw new Error('renderScene: muffled needs a mix bus (pass mix: {})');
    graph.bus.setMuffled(true, true);
  }
  setup(graph, start);
  // Voices due beyond the graph's horizon wait for a tick live; offline, everything is made now.
  graph.materialize(Infinity);
  const rendered = await context.startRendering();
  graph.dispose();
  if (skip === 0) return rendered;
  const length = rendered.length - skip;
  const buffer = new AudioBuffer({ length, numberOfChannels: rendered.numberOfChannels, sampleRate });
  for (let c = 0; c < rendered.numberOfChannels; c++) buffer.copyToChannel(rendered.getChannelData(c).subarray(skip), c);
  return buffer;
}

/** Renders one recipe with its defaults overridden by `params`, guards off (every call sounds). */
export async function renderRecipe(name: string, params: object = {}, options: OfflineRenderOptions = {}): Promise<AudioBuffer> {
  const recipe = getRecipe(name);
  const seed = options.seed ?? TEST_SEED;
  // Plan once with a throwaway sequence to learn the length; the render replans with the real one.
  const probe = new AudioRandom(seed);
  const layers = recipe.plan({ ...recipe.defaults, ...params } as never, {
    vary: (v, a) => probe.vary(v, a),
    range: (a, b) => probe.range(a, b),
    chord: CAIRN_PROGRESSION.chords[0]!,
  });
  const duration = options.duration ?? planShape(layers).end * 1.09 + 0.1;
  return renderScene(duration, (graph, start) => graph.play(name, params, { at: start, bypassGuards: true }), options);
}

/** Renders planned layers (for comparing a changed plan against a recipe's golden). */
export async function renderLayers(layers: Layer[], options: OfflineRenderOptions = {}): Promise<AudioBuffer> {
  const duration = options.duration ?? planShape(layers).end * 1.09 + 0.1;
  return renderScene(duration, (graph, start) => graph.playLayers('custom', 'effects', layers, start, true), options);
}

/** The channels of a rendered buffer as plain arrays' views. */
export function channelsOf(buffer: AudioBuffer): Float32Array[] {
  return Array.from({ length: buffer.numberOfChannels }, (_, i) => buffer.getChannelData(i));
}
