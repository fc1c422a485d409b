import { toDb } from '../core/decibels.ts';
import { measureLoudness } from './meter/loudness-meter.ts';
import { channelsOf, renderRecipe, renderScene, TEST_SEED } from './offline-render.ts';
import type { RecipeName } from './recipes/index.ts';
import { SURFACES } from './surfaces.ts';

/** The families a mix is balanced by. */
export type SoundClass = 'ui' | 'footsteps' | 'impacts' | 'ambience' | 'music';

/**
 * Where a class of sound sits in the mix, measured at the mix bus output (default volumes, the bus
 * at rest, after the soft clipper) with the BS.1770-4 meter. One-shots are judged by their loudest
 * 400 ms (`momentaryMax`), beds by their gated loudness over a few seconds (`integrated`).
 */
export interface LoudnessTarget {
  measure: 'momentaryMax' | 'integrated';
  /** Lowest and highest loudness allowed, LUFS, at every intensity the class's sounds take. */
  lufs: readonly [min: number, max: number];
  /** Highest true peak allowed, dBTP. */
  truePeakDb: number;
}

/**
 * The loudness targets, as data. The bands are wide enough for a sound's intensity range (a tap and
 * a heavy blow are both impacts) and narrow enough that no class drowns another: ambience sits
 * under footsteps, footsteps under impacts, and the true peak keeps 1 dB below full scale.
 */
export const LOUDNESS_TARGETS: Readonly<Record<SoundClass, LoudnessTarget>> = {
  ui: { measure: 'momentaryMax', lufs: [-24, -14], truePeakDb: -1 },
  footsteps: { measure: 'momentaryMax', lufs: [-30, -17], truePeakDb: -1 },
  impacts: { measure: 'momentaryMax', lufs: [-26, -12], truePeakDb: -1 },
  ambience: { measure: 'integrated', lufs: [-36, -22], truePeakDb: -1 },
  music: { measure: 'integrated', lufs: [-26, -18], truePeakDb: -1 },
};

/** One render the targets are checked on: a recipe with parameters, or a continuous layer at a level. */
export type LoudnessCase =
  | { id: string; soundClass: SoundClass; kind: 'recipe'; recipe: RecipeName; params: Record<string, unknown> }
  | { id: string; soundClass: SoundClass; kind: 'scene'; scene: 'wind' | 'fire' | 'music'; level: number };

const recipeCase = (soundClass: SoundClass, recipe: RecipeName, params: Record<string, unknown>, label = ''): LoudnessCase => ({
  id: `${recipe}${label}`,
  soundClass,
  kind: 'recipe',
  recipe,
  params,
});

/**
 * Every recipe in its class across its parameter range: impacts at the ends and middle of their
 * intensity range, every footstep surface at a soft walk and a hard run, jumps and landings on every
 * surface, the chime over a streak, wind and fire over their levels, the music.
 */
export const LOUDNESS_CASES: readonly LoudnessCase[] = [
  ...[0.1, 0.5, 1, 1.5].flatMap((k) => [
    recipeCase('impacts', 'strike', { intensity: k }, ` ${k}`),
    recipeCase('impacts', 'crack-line', { intensity: k, count: 6 }, ` ${k}`),
    recipeCase('impacts', 'groan', { intensity: k }, ` ${k}`),
  ]),
  recipeCase('impacts', 'crack-line', { intensity: 1, count: 1 }, ' 1 slab'),
  recipeCase('impacts', 'crack-line', { intensity: 1, count: 24 }, ' 24 slabs'),
  ...SURFACES.flatMap((surface) => [
    recipeCase('footsteps', 'footstep', { surface, intensity: 0.6 }, ` ${surface} 0.6`),
    recipeCase('footsteps', 'footstep', { surface, intensity: 1 }, ` ${surface} 1`),
    recipeCase('footsteps', 'footstep', { surface, intensity: 1.6 }, ` ${surface} 1.6`),
    recipeCase('footsteps', 'jump', { surface }, ` ${surface}`),
    recipeCase('footsteps', 'land', { surface, impact: 3 }, ` ${surface} 3 m/s`),
    recipeCase('footsteps', 'land', { surface, impact: 12 }, ` ${surface} 12 m/s`),
  ]),
  recipeCase('ui', 'chime', { streak: 0 }, ' 0'),
  recipeCase('ui', 'chime', { streak: 6 }, ' 6'),
  recipeCase('ui', 'ui-click', {}),
  recipeCase('ui', 'ui-confirm', {}),
  ...[0.25, 0.5, 0.85].map((level): LoudnessCase => ({ id: `wind ${level}`, soundClass: 'ambience', kind: 'scene', scene: 'wind', level })),
  ...[0.3, 1].map((level): LoudnessCase => ({ id: `fire ${level}`, soundClass: 'ambience', kind: 'scene', scene: 'fire', level })),
  { id: 'music', soundClass: 'music', kind: 'scene', scene: 'music', level: 1 },
];

/** What a case measured, and whether it meets its class. */
export interface LoudnessCaseResult {
  id: string;
  soundClass: SoundClass;
  /** The class's measure, LUFS. */
  lufs: number;
  truePeakDb: number;
  /** Short-term loudness at its highest, LUFS (3 s windows). */
  shortTermMax: number;
  ok: boolean;
}

/** Seconds a continuous layer is rendered for its integrated loudness. */
const SCENE_SECONDS = 6;

/** Renders one case through the mix bus (offline, pre-rolled, seeded) and measures it. */
export async function measureLoudnessCase(c: LoudnessCase, options: { sampleRate?: number; seed?: number } = {}): Promise<LoudnessCaseResult> {
  const render = { mix: {}, sampleRate: options.sampleRate ?? 48000, channels: 2, seed: options.seed ?? TEST_SEED };
  let buffer: AudioBuffer;
  if (c.kind === 'recipe') buffer = await renderRecipe(c.recipe, c.params, { ...render, duration: c.recipe === 'groan' ? 2 : 1.2 });
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
  return { id: c.id, soundClass: c.soundClass, lufs, truePeakDb, shortTermMax: reading.shortTermMax, ok: lufs >= target.lufs[0] && lufs <= target.lufs[1] && truePeakDb <= target.truePeakDb };
}
