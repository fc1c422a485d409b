import { toDb } from '../core/decibels.ts';
import { measureLoudness } from './meter/loudness-meter.ts';
import { channelsOf, renderRecipe, renderScene, TEST_SEED } from './offline-render.ts';
import type { RecipeName, SoundClass } from './recipes/index.ts';
import { SURFACES } from './surfaces.ts';

/**
 * Where a class of sound sits in the mix, measured at the mix bus output (default volumes, the bus
 * at rest, after the soft clipper) with the BS.1770-4 meter. One-shots are judged by their loudest
 * 400 ms (`momentaryMax`), beds by their gated loudness over four seconds (`integrated`).
 */
export interface LoudnessTarget {
  /** What the class is judged by: the loudest 400 ms, or the gated loudness over the render. */
  measure: 'momentaryMax' | 'integrated';
  /** LUFS band for the class's sounds at their default parameters (a walk, a normal blow, wind 0.5). */
  nominal: readonly [min: number, max: number];
  /** LUFS band for every parameter the sounds accept (a tiptoe and a sprint, a tap and a heavy blow). */
  range: readonly [min: number, max: number];
  /** Highest true peak allowed anywhere in the range, dBTP. */
  truePeakDb: number;
}

/**
 * The loudness targets, as data: impacts on top, UI clear above the world, footsteps under the
 * impacts, ambience under the footsteps, music a bed under everything that happens. The ranges
 * let intensity be heard without leaving the class; true peaks keep 1 dB below full scale.
 */
export const LOUDNESS_TARGETS: Readonly<Record<SoundClass, LoudnessTarget>> = {
  impacts: { measure: 'momentaryMax', nominal: [-24, -16], range: [-34, -14], truePeakDb: -1 },
  ui: { measure: 'momentaryMax', nominal: [-26, -17], range: [-27, -15], truePeakDb: -1 },
  footsteps: { measure: 'momentaryMax', nominal: [-30, -24], range: [-36, -18], truePeakDb: -1 },
  ambience: { measure: 'integrated', nominal: [-30, -23], range: [-38, -19], truePeakDb: -6 },
  music: { measure: 'integrated', nominal: [-24, -19], range: [-24, -19], truePeakDb: -3 },
};

/** One render the targets are checked on: a recipe with parameters, or a continuous layer at a level. */
export type LoudnessCase = {
  /** The case's name in reports. */
  id: string;
  /** The class it is judged in. */
  soundClass: SoundClass;
  /** Its parameters are the nominal ones: judged against the nominal band, else the range. */
  nominal: boolean;
} & (
  | {
      /** A recipe call. */
      kind: 'recipe';
      /** The recipe. */
      recipe: RecipeName;
      /** Its parameters. */
      params: Record<string, unknown>;
    }
  | {
      /** A continuous layer. */
      kind: 'scene';
      /** Which layer. */
      scene: 'wind' | 'fire' | 'music';
      /** Its level (0…1). */
      level: number;
    }
);

const recipeCase = (
  soundClass: SoundClass,
  nominal: boolean,
  recipe: RecipeName,
  params: Record<string, unknown>,
  label = '',
): LoudnessCase => ({
  id: `${recipe}${label}`,
  soundClass,
  nominal,
  kind: 'recipe',
  recipe,
  params,
});
const sceneCase = (soundClass: SoundClass, nominal: boolean, scene: 'wind' | 'fire' | 'music', level: number): LoudnessCase => ({
  id: `${scene} ${level}`,
  soundClass,
  nominal,
  kind: 'scene',
  scene,
  level,
});

/**
 * Every recipe in its class across its parameter range: impacts at both ends and the middle of
 * their intensity range, every footstep surface from a tiptoe to a sprint, jumps and landings (from
 * a hop to a long fall) on every surface, the chime over a streak, wind and fire over their levels,
 * the music.
 */
export const LOUDNESS_CASES: readonly LoudnessCase[] = [
  ...[0.1, 0.5, 1, 1.5].flatMap((k) => [
    recipeCase('impacts', k === 1, 'strike', { intensity: k }, ` ${k}`),
    recipeCase('impacts', k === 1, 'crack-line', { intensity: k, count: 6 }, ` ${k}`),
    recipeCase('impacts', k === 1, 'groan', { intensity: k }, ` ${k}`),
  ]),
  recipeCase('impacts', false, 'crack-line', { intensity: 1, count: 1 }, ' 1 slab'),
  recipeCase('impacts', false, 'crack-line', { intensity: 1.5, count: 24 }, ' 1.5 24 slabs'),
  ...SURFACES.flatMap((surface) => [
    recipeCase('footsteps', false, 'footstep', { surface, intensity: 0.2 }, ` ${surface} 0.2`),
    recipeCase('footsteps', true, 'footstep', { surface, intensity: 1 }, ` ${surface} 1`),
    recipeCase('footsteps', false, 'footstep', { surface, intensity: 2 }, ` ${surface} 2`),
    recipeCase('footsteps', true, 'jump', { surface }, ` ${surface}`),
    recipeCase('footsteps', true, 'land', { surface, impact: 6 }, ` ${surface} 6 m/s`),
  ]),
  // Landings scale the step and the thump alike on every surface: the range ends on the softest and hardest.
  ...(['snow', 'stone'] as const).flatMap((surface) => [
    recipeCase('footsteps', false, 'land', { surface, impact: 0 }, ` ${surface} 0 m/s`),
    recipeCase('footsteps', false, 'land', { surface, impact: 40 }, ` ${surface} 40 m/s`),
  ]),
  recipeCase('ui', true, 'chime', { streak: 0 }, ' 0'),
  recipeCase('ui', false, 'chime', { streak: 7 }, ' 7'),
  recipeCase('ui', true, 'ui-click', {}),
  recipeCase('ui', true, 'ui-confirm', {}),
  sceneCase('ambience', false, 'wind', 0.25),
  sceneCase('ambience', true, 'wind', 0.5),
  sceneCase('ambience', false, 'wind', 0.85),
  sceneCase('ambience', false, 'fire', 0.3),
  sceneCase('ambience', true, 'fire', 0.6),
  sceneCase('ambience', false, 'fire', 1),
  sceneCase('music', true, 'music', 1),
];

/** What a case measured, and whether it meets its class. */
export interface LoudnessCaseResult {
  /** The case's id. */
  id: string;
  /** Its sound class. */
  soundClass: SoundClass;
  /** Whether its parameters are the nominal ones (judged against the nominal band, else the range). */
  nominal: boolean;
  /** The class's measure, LUFS. */
  lufs: number;
  /** Its highest true peak (dBTP). */
  truePeakDb: number;
  /** Short-term loudness at its highest, LUFS (3 s windows). */
  shortTermMax: number;
  /** Whether it meets its class's band and true-peak cap. */
  ok: boolean;
}

/** Seconds a continuous layer is rendered for its integrated loudness. */
const SCENE_SECONDS = 4;

/** Renders one case through the mix bus (offline, pre-rolled, seeded) and measures it. */
export async function measureLoudnessCase(
  c: LoudnessCase,
  options: { sampleRate?: number; seed?: number } = {},
): Promise<LoudnessCaseResult> {
  const render = { mix: {}, sampleRate: options.sampleRate ?? 48000, channels: 2, seed: options.seed ?? TEST_SEED };
  let buffer: AudioBuffer;
  if (c.kind === 'recipe') buffer = await renderRecipe(c.recipe, c.params, render);
  else {
    const { scene, level } = c;
    buffer = await renderScene(
      SCENE_SECONDS,
      (graph, start) => {
        // Ambience glides in over 0.8 s: start it inside the pre-roll so the measured span is steady.
        if (scene === 'wind') graph.wind.setLevel(level, 0.01);
        if (scene === 'fire') graph.fire.setLevel(level, 0.01);
        if (scene === 'music') graph.music.start(start);
        graph.schedule(start + SCENE_SECONDS);
      },
      render,
    );
  }
  const reading = measureLoudness(channelsOf(buffer), buffer.sampleRate);
  const target = LOUDNESS_TARGETS[c.soundClass];
  const lufs = target.measure === 'momentaryMax' ? reading.momentaryMax : reading.integrated;
  const truePeakDb = toDb(reading.truePeak);
  const [min, max] = c.nominal ? target.nominal : target.range;
  return {
    id: c.id,
    soundClass: c.soundClass,
    nominal: c.nominal,
    lufs,
    truePeakDb,
    shortTermMax: reading.shortTermMax,
    ok: lufs >= min && lufs <= max && truePeakDb <= target.truePeakDb,
  };
}

/**
 * Measures many cases, rendering up to `concurrency` at once (offline contexts render on their own
 * threads, so a batch finishes sooner than one case after another). Results keep the cases' order.
 */
export async function measureLoudnessCases(
  cases: readonly LoudnessCase[],
  options: { sampleRate?: number; seed?: number; concurrency?: number } = {},
): Promise<LoudnessCaseResult[]> {
  const results: LoudnessCaseResult[] = [];
  const size = Math.max(1, options.concurrency ?? 8);
  for (let i = 0; i < cases.length; i += size)
    results.push(...(await Promise.all(cases.slice(i, i + size).map((c) => measureLoudnessCase(c, options)))));
  return results;
}
