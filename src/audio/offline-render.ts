import { AudioGraph } from './audio-graph.ts';
import { AudioRandom } from './audio-random.ts';
import { planShape, type Layer } from './layers.ts';
import type { MixSettings } from './mix-settings.ts';
import { CAIRN_PROGRESSION } from './music-theory.ts';
import { getRecipe } from './recipes/index.ts';

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
}

/** The seed golden renders and tests use. */
export const TEST_SEED = 1234;

function createContext(options: OfflineRenderOptions, duration: number): OfflineAudioContext {
  const sampleRate = options.sampleRate ?? 48000;
  return new OfflineAudioContext({ numberOfChannels: options.channels ?? 2, length: Math.max(1, Math.ceil(duration * sampleRate)), sampleRate });
}

/**
 * Builds a graph on an offline context, lets `setup` play into it at audio time 0, and renders.
 * `setup` may schedule anything the live engine can (recipes, layers, music, ambience).
 */
export async function renderScene(duration: number, setup: (graph: AudioGraph) => void, options: OfflineRenderOptions = {}): Promise<AudioBuffer> {
  if (!(duration > 0 && duration <= 120)) throw new RangeError(`renderScene: duration must be in (0, 120] seconds (got ${duration})`);
  const context = createContext(options, duration);
  const graph = new AudioGraph(context, { random: new AudioRandom(options.seed ?? TEST_SEED), mix: options.mix ?? null });
  if (options.muffled) {
    if (!graph.bus) throw new Error('renderScene: muffled needs a mix bus (pass mix: {})');
    graph.bus.setMuffled(true, true);
  }
  setup(graph);
  const buffer = await context.startRendering();
  graph.dispose();
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
  return renderScene(duration, (graph) => graph.play(name, params, { at: 0, bypassGuards: true }), options);
}

/** Renders planned layers (for comparing a changed plan against a recipe's golden). */
export async function renderLayers(layers: Layer[], options: OfflineRenderOptions = {}): Promise<AudioBuffer> {
  const duration = options.duration ?? planShape(layers).end * 1.09 + 0.1;
  return renderScene(duration, (graph) => graph.playLayers('custom', 'effects', layers, 0, true), options);
}

/** The channels of a rendered buffer as plain arrays' views. */
export function channelsOf(buffer: AudioBuffer): Float32Array[] {
  return Array.from({ length: buffer.numberOfChannels }, (_, i) => buffer.getChannelData(i));
}
