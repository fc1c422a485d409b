import { channelsOf, renderRecipe, renderScene, TEST_SEED, type OfflineRenderOptions } from './offline-render.ts';
import type { RecipeName } from './recipes/index.ts';
import { summariseRender, type RenderSummary } from './render-summary.ts';
import { SURFACES } from './surfaces.ts';

/**
 * The renders a golden file pins down: every recipe (footsteps on every surface, the chime at two
 * streak steps) and the three continuous layers (wind, fire, music). Rendered dry, seeded, offline.
 */
export type GoldenCase =
  | {
      /** The case's name in the golden file. */
      id: string;
      /** A recipe call. */
      kind: 'recipe';
      /** The recipe. */
      recipe: RecipeName;
      /** Its parameters. */
      params: Record<string, unknown>;
    }
  | {
      /** The case's name in the golden file. */
      id: string;
      /** A continuous layer. */
      kind: 'scene';
      /** Which layer. */
      scene: 'wind' | 'fire' | 'music';
      /** Seconds rendered. */
      duration: number;
    };

/** Every recipe case and continuous layer rendered for the golden summaries. */
export const GOLDEN_CASES: readonly GoldenCase[] = [
  { id: 'strike', kind: 'recipe', recipe: 'strike', params: {} },
  { id: 'crack-line-8', kind: 'recipe', recipe: 'crack-line', params: { count: 8 } },
  { id: 'groan', kind: 'recipe', recipe: 'groan', params: {} },
  ...SURFACES.map((surface): GoldenCase => ({ id: `footstep-${surface}`, kind: 'recipe', recipe: 'footstep', params: { surface } })),
  { id: 'jump', kind: 'recipe', recipe: 'jump', params: { surface: 'grass' } },
  { id: 'land-stone', kind: 'recipe', recipe: 'land', params: { surface: 'stone', impact: 9 } },
  { id: 'chime-0', kind: 'recipe', recipe: 'chime', params: { streak: 0 } },
  { id: 'chime-3', kind: 'recipe', recipe: 'chime', params: { streak: 3 } },
  { id: 'ui-click', kind: 'recipe', recipe: 'ui-click', params: {} },
  { id: 'ui-confirm', kind: 'recipe', recipe: 'ui-confirm', params: {} },
  { id: 'wind', kind: 'scene', scene: 'wind', duration: 2 },
  { id: 'fire', kind: 'scene', scene: 'fire', duration: 2 },
  { id: 'music', kind: 'scene', scene: 'music', duration: 4 },
];

/** Renders one golden case (48 kHz stereo, dry, the test seed unless given) and summarises it. */
export async function renderGoldenCase(golden: GoldenCase, options: OfflineRenderOptions = {}): Promise<RenderSummary> {
  const opts: OfflineRenderOptions = { seed: TEST_SEED, sampleRate: 48000, channels: 2, mix: null, ...options };
  let buffer: AudioBuffer;
  if (golden.kind === 'recipe') buffer = await renderRecipe(golden.recipe, golden.params, opts);
  else {
    const { scene, duration } = golden;
    buffer = await renderScene(
      duration,
      (graph) => {
        if (scene === 'wind') graph.wind.setLevel(0.6, 0.01);
        if (scene === 'fire') graph.fire.setLevel(1, 0.01);
        if (scene === 'music') graph.music.start(0);
        graph.schedule(duration);
      },
      opts,
    );
  }
  return summariseRender(channelsOf(buffer), buffer.sampleRate);
}
