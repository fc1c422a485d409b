import { chimeMidi, midiToHz } from '../music-theory.ts';
import { noise, tone } from '../layers.ts';
import { defineRecipe, requireNumber } from './recipe.ts';

/** Level of the chime, set by the UI class's loudness band (loudness-targets.ts): high streak steps read loudest. */
export const CHIME_GAIN = 0.7;

/** Parameters of the {@link chime} recipe. */
export interface ChimeParams {
  /** Pickups so far in this streak (0 = first). The engine fills it from its streak counter. */
  streak?: number;
}

/**
 * A crystal pickup: its pitch is a tone of the chord the music is playing, one chord tone higher
 * per pickup in a streak. Pitch is never varied (it must stay in key); decays and levels are.
 */
export const chime = defineRecipe<ChimeParams>({
  name: 'chime',
  summary: 'A crystal chime on a tone of the current chord, one chord tone higher per pickup in a streak.',
  bus: 'effects',
  soundClass: 'ui',
  cooldownMs: 55,
  limit: { max: 6, steal: 'oldest' },
  defaults: { streak: 0 },
  plan(params, { vary, chord }) {
    const streak = requireNumber('chime', 'streak', params.streak ?? 0, 0, 1e6);
    const f = midiToHz(chimeMidi(chord, streak));
    const g = CHIME_GAIN;
    return [
      tone('sine', f, f * 0.999, 0, 0.002, vary(1.4), 0.2 * g),
      tone('triangle', f * 2, f * 2, 0, 0.001, vary(0.25), 0.045 * g),
      // 2.76 × is the second mode of a free bar: the inharmonic glint that says "crystal".
      tone('sine', f * 2.76, f * 2.76, 0, 0.001, vary(0.5), 0.065 * g),
      tone('sine', f * 5.4, f * 5.4, 0, 0.001, vary(0.12), 0.025 * g),
      noise('highpass', vary(7000), vary(9000), 0.7, 0, 0.001, 0.03, 0.04 * g),
    ];
  },
});
