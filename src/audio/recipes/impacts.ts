import { noise, tone, type Layer } from '../layers.ts';
import { defineRecipe, requireNumber } from './recipe.ts';

/**
 * Stone impacts: a strike, a crack running along a line of slabs, a slab's groan. Layer values are
 * the design numbers; `vary()` moves each by up to ±8 % per hit so no two sound the same.
 */

/**
 * Loudness from an intensity parameter: the square root, so a tap (0.1) is still an impact a
 * player hears (−10 dB) and a heavy blow (1.5) stays inside the class's band (+1.8 dB).
 */
export function impactGain(intensity: number): number {
  return Math.sqrt(intensity);
}

/** Level of each impact recipe, set by the impacts' loudness band (loudness-targets.ts). */
export const IMPACT_GAIN = {
  /** A blow on stone. */
  strike: 0.8,
  /** A crack running along a line of slabs. */
  'crack-line': 1.7,
  /** A slab shifting under load. */
  groan: 1,
} as const;

/** Parameters of an impact recipe: how hard. */
export interface IntensityParams {
  /** 0.1 (a tap) … 1.5 (a heavy blow). Default 1. */
  intensity?: number;
}

/** Five layers, all starting within 20 ms: sine body, two triangle knocks, a band-passed crack, a low-passed gravel tail. */
export const strike = defineRecipe<IntensityParams>({
  name: 'strike',
  summary: 'A blow on stone: sine body, two triangle knocks, band-passed crack, gravel tail.',
  bus: 'effects',
  soundClass: 'impacts',
  cooldownMs: 30,
  limit: { max: 8, steal: 'quietest' },
  defaults: { intensity: 1 },
  plan(params, { vary }) {
    const k = impactGain(requireNumber('strike', 'intensity', params.intensity ?? 1, 0.1, 1.5)) * IMPACT_GAIN.strike;
    return [
      tone('sine', vary(150), vary(62), 0, 0.002, vary(0.32), 0.42 * k),
      tone('triangle', vary(640), vary(390), vary(0.002), 0.001, vary(0.07), 0.17 * k),
      tone('triangle', vary(1320), vary(860), vary(0.006), 0.001, vary(0.05), 0.11 * k),
      noise('bandpass', vary(3400), vary(1500), 1.3, 0, 0.001, vary(0.055), 0.38 * k),
      noise('lowpass', vary(1600), vary(320), 0.7, vary(0.016), 0.012, vary(0.42), 0.13 * k),
    ];
  },
});

/** Parameters of the {@link crackLine} recipe. */
export interface CrackLineParams extends IntensityParams {
  /** Slabs along the line, 1…24. Default 6. */
  count?: number;
  /** Stereo position of the first and last slab (−1…1), so the direction is heard. Default −0.6 → 0.6. */
  panFrom?: number;
  /** Stereo position of the last slab (−1…1). Default 0.6. */
  panTo?: number;
}

/** Seconds between neighbouring slabs cracking. */
export const CRACK_SPACING = 0.022;
/** Each slab's crack is this much higher than the one before. */
export const CRACK_PITCH_STEP = 1.06;

/** A crack that runs along a line of slabs: 22 ms apart, each 6 % higher, panned from start to end. */
export const crackLine = defineRecipe<CrackLineParams>({
  name: 'crack-line',
  summary: 'A crack running along a line of slabs, 22 ms apart, each 6 % higher.',
  bus: 'effects',
  soundClass: 'impacts',
  cooldownMs: 40,
  limit: { max: 3, steal: 'oldest' },
  defaults: { count: 6, intensity: 1, panFrom: -0.6, panTo: 0.6 },
  plan(params, { vary }) {
    const count = Math.round(requireNumber('crack-line', 'count', params.count ?? 6, 1, 24));
    const k = impactGain(requireNumber('crack-line', 'intensity', params.intensity ?? 1, 0.1, 1.5)) * IMPACT_GAIN['crack-line'];
    const panFrom = requireNumber('crack-line', 'panFrom', params.panFrom ?? -0.6, -1, 1);
    const panTo = requireNumber('crack-line', 'panTo', params.panTo ?? 0.6, -1, 1);
    // One variation per line, then exact steps: the rising 6 % is what tells the listener the direction.
    const crackHigh = vary(1900);
    const crackLow = crackHigh * 0.5;
    const tickHigh = vary(520);
    const tickLow = tickHigh * 0.635;
    const layers: Layer[] = [];
    for (let i = 0; i < count; i++) {
      const ratio = Math.pow(CRACK_PITCH_STEP, i);
      const t = i * CRACK_SPACING;
      const pan = count > 1 ? panFrom + ((panTo - panFrom) * i) / (count - 1) : (panFrom + panTo) / 2;
      const level = k / Math.sqrt(1 + i * 0.15);
      layers.push(noise('bandpass', crackHigh * ratio, crackLow * ratio, 2.2, t, 0.001, vary(0.07), 0.58 * level, pan));
      layers.push(tone('triangle', tickHigh * ratio, tickLow * ratio, t, 0.001, vary(0.045), 0.22 * level, pan));
    }
    return layers;
  },
});

/** A heavy slab shifting: two low triangles a fifth apart, a rumble, three creaks. */
export const groan = defineRecipe<IntensityParams>({
  name: 'groan',
  summary: 'A slab shifting under load: low triangles, a rumble and creaks.',
  bus: 'effects',
  soundClass: 'impacts',
  cooldownMs: 300,
  limit: { max: 2, steal: 'oldest' },
  defaults: { intensity: 1 },
  plan(params, { vary }) {
    const k = impactGain(requireNumber('groan', 'intensity', params.intensity ?? 1, 0.1, 1.5)) * IMPACT_GAIN.groan;
    const layers: Layer[] = [
      tone('triangle', vary(72), vary(48), 0, 0.18, vary(1.1), 0.24 * k),
      tone('triangle', vary(107), vary(71), 0.02, 0.2, vary(0.95), 0.1 * k),
      noise('lowpass', vary(260), vary(110), 0.9, 0.05, 0.2, vary(1.0), 0.26 * k),
    ];
    for (let i = 0; i < 3; i++) {
      layers.push(noise('bandpass', vary(900), vary(650), 9, vary(0.12 + 0.26 * i), 0.03, vary(0.12), 0.1 * k));
    }
    return layers;
  },
});
