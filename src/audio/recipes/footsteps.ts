import { clamp } from '../../core/math.ts';
import { noise, tone, type Layer } from '../layers.ts';
import { isSurface, SURFACES, type Surface } from '../surfaces.ts';
import { defineRecipe, requireNumber, type RecipeContext } from './recipe.ts';

/**
 * Footsteps by surface, jump and land. Each surface is a small table of layers (kind, filter or
 * wave, f0, f1, q, start, attack, decay, peak); the code varies and scales them.
 */

type Row = readonly [
  kind: 'noise' | 'tone',
  shape: string,
  f0: number,
  f1: number,
  q: number,
  t: number,
  attack: number,
  decay: number,
  peak: number,
];

/** Each surface's layers as rows: kind, filter or wave, f0, f1 (Hz), q, start, attack, decay (s), peak. */
export const FOOTSTEP_LAYERS: Record<Surface, readonly Row[]> = {
  // Soft: low-passed brush, a faint high swish, a small thump.
  grass: [
    ['noise', 'lowpass', 2200, 800, 0.7, 0, 0.004, 0.09, 0.22],
    ['noise', 'highpass', 5200, 3800, 0.7, 0.01, 0.01, 0.06, 0.05],
    ['tone', 'sine', 95, 60, 0, 0, 0.003, 0.06, 0.12],
  ],
  // Dry leaves and twigs: bright crackles spread over 50 ms.
  leaves: [
    ['noise', 'highpass', 2600, 1800, 0.8, 0, 0.003, 0.05, 0.14],
    ['noise', 'bandpass', 4200, 3000, 3, 0.025, 0.002, 0.03, 0.1],
    ['noise', 'bandpass', 3600, 2700, 3, 0.05, 0.002, 0.025, 0.08],
    ['tone', 'sine', 90, 58, 0, 0, 0.003, 0.05, 0.1],
  ],
  // Grainy: a band of noise with a second, brighter grain burst.
  sand: [
    ['noise', 'bandpass', 1300, 700, 1.1, 0, 0.01, 0.11, 0.24],
    ['noise', 'bandpass', 2600, 1800, 1.5, 0.03, 0.005, 0.06, 0.08],
    ['tone', 'sine', 80, 55, 0, 0, 0.003, 0.05, 0.08],
  ],
  // Packed earth: dull low-passed scuff and a firmer thump.
  dirt: [
    ['noise', 'lowpass', 1100, 380, 0.9, 0, 0.003, 0.08, 0.3],
    ['tone', 'sine', 110, 62, 0, 0, 0.002, 0.07, 0.16],
    ['noise', 'bandpass', 2400, 1900, 2, 0.01, 0.002, 0.03, 0.06],
  ],
  // Hard: a click, a bright band of noise, a short knock.
  stone: [
    ['tone', 'triangle', 2300, 1700, 0, 0, 0.001, 0.022, 0.1],
    ['noise', 'bandpass', 3200, 2200, 2.5, 0, 0.001, 0.035, 0.2],
    ['tone', 'sine', 130, 80, 0, 0, 0.002, 0.05, 0.16],
  ],
  // Compacting snow: two narrow squeaks over a soft crunch.
  snow: [
    ['noise', 'bandpass', 2800, 2000, 4, 0, 0.008, 0.05, 0.24],
    ['noise', 'bandpass', 3400, 2400, 5, 0.045, 0.006, 0.05, 0.18],
    ['noise', 'lowpass', 1500, 600, 0.7, 0, 0.01, 0.12, 0.2],
  ],
  // Wading: an upward-swept splash, a bubble, spray.
  water: [
    ['noise', 'bandpass', 700, 2600, 1.4, 0, 0.015, 0.16, 0.22],
    ['tone', 'sine', 380, 900, 0, 0.03, 0.004, 0.05, 0.07],
    ['noise', 'highpass', 3000, 5000, 0.7, 0.02, 0.02, 0.12, 0.05],
  ],
};

/**
 * Per-surface gain, set so a walking step on every surface sits in the footsteps' loudness band
 * (loudness-targets.ts): the soft surfaces (snow, sand, water) spread their energy where the ear
 * (and K-weighting) hears less of it, so they need more.
 */
export const SURFACE_GAIN: Record<Surface, number> = {
  grass: 2.0,
  leaves: 1.7,
  sand: 2.7,
  dirt: 1.6,
  stone: 1.8,
  snow: 3.0,
  water: 2.3,
};

/**
 * Loudness from an intensity parameter: the square root, so the whole range (a tiptoe at 0.2, a
 * sprint at 2) stays inside the class's band while still being heard (−7 dB … +3 dB around a walk).
 */
export function intensityGain(intensity: number): number {
  return Math.sqrt(intensity);
}

function surfaceParam(recipe: string, value: unknown): Surface {
  if (!isSurface(value)) throw new RangeError(`${recipe}: surface must be one of ${SURFACES.join(', ')} (got ${JSON.stringify(value)})`);
  return value;
}

/** The layers of one footstep on `surface`, each value varied, peaks scaled by the surface's gain and `gain`. */
export function stepLayers(surface: Surface, gain: number, { vary }: RecipeContext, offset = 0): Layer[] {
  const g = gain * SURFACE_GAIN[surface];
  return FOOTSTEP_LAYERS[surface].map(([kind, shape, f0, f1, q, t, attack, decay, peak]) =>
    kind === 'tone'
      ? tone(shape as 'sine', vary(f0), vary(f1), offset + t, attack, vary(decay), vary(peak) * g)
      : noise(shape as 'lowpass', vary(f0), vary(f1), q, offset + t, attack, vary(decay), vary(peak) * g),
  );
}

/** Parameters of the {@link footstep} recipe. */
export interface FootstepParams {
  /** Default 'grass'. */
  surface?: Surface;
  /** 0.2 … 2: walking is 1, running about 1.3. Default 1. */
  intensity?: number;
}

/** One footstep; the surface picks the layers, the intensity scales them. */
export const footstep = defineRecipe<FootstepParams>({
  name: 'footstep',
  summary: 'One footstep; the surface (grass, leaves, sand, dirt, stone, snow, water) picks the layers.',
  bus: 'effects',
  soundClass: 'footsteps',
  cooldownMs: 60,
  limit: { max: 4, steal: 'oldest' },
  defaults: { surface: 'grass', intensity: 1 },
  plan(params, ctx) {
    const surface = surfaceParam('footstep', params.surface ?? 'grass');
    const intensity = requireNumber('footstep', 'intensity', params.intensity ?? 1, 0.2, 2);
    return stepLayers(surface, intensityGain(intensity), ctx);
  },
});

/** Parameters of the {@link jump} recipe. */
export interface JumpParams {
  /** The surface pushed off from. Default 'grass'. */
  surface?: Surface;
}

/** A jump's push-off: a firm step on the surface and an upward whoosh. */
export const jump = defineRecipe<JumpParams>({
  name: 'jump',
  summary: 'Push-off: a firm step on the surface and an upward whoosh.',
  bus: 'effects',
  soundClass: 'footsteps',
  cooldownMs: 150,
  limit: { max: 2, steal: 'oldest' },
  defaults: { surface: 'grass' },
  plan(params, ctx) {
    const surface = surfaceParam('jump', params.surface ?? 'grass');
    return [...stepLayers(surface, 0.8, ctx), noise('bandpass', ctx.vary(450), ctx.vary(1400), 0.9, 0.02, 0.06, ctx.vary(0.16), 0.25)];
  },
});

/** Parameters of the {@link land} recipe. */
export interface LandParams {
  /** Default 'grass'. */
  surface?: Surface;
  /** Downward speed at touch-down, m/s (0…40). Louder and heavier when faster. Default 6. */
  impact?: number;
}

/** A landing: a heavy step on the surface and a body thump scaled by the fall speed. */
export const land = defineRecipe<LandParams>({
  name: 'land',
  summary: 'Touch-down: a heavy step on the surface, a body thump scaled by the fall speed.',
  bus: 'effects',
  soundClass: 'footsteps',
  cooldownMs: 150,
  limit: { max: 2, steal: 'oldest' },
  defaults: { surface: 'grass', impact: 6 },
  plan(params, ctx) {
    const surface = surfaceParam('land', params.surface ?? 'grass');
    const impact = requireNumber('land', 'impact', params.impact ?? 6, 0, 40);
    const k = intensityGain(clamp(impact / 6, 0.4, 1.6));
    return [
      ...stepLayers(surface, 0.6 * k, ctx),
      tone('sine', ctx.vary(120), ctx.vary(45), 0, 0.003, ctx.vary(0.2), 0.2 * k),
      noise('lowpass', ctx.vary(700), ctx.vary(200), 0.8, 0, 0.005, ctx.vary(0.14), 0.14 * k),
    ];
  },
});
