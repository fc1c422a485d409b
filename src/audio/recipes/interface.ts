import { tone } from '../layers.ts';
import { defineRecipe } from './recipe.ts';

/** Menu sounds. They play on the `ui` bus, after the pause low-pass, so a muffled world leaves them crisp. */

export const uiClick = defineRecipe<Record<string, never>>({
  name: 'ui-click',
  summary: 'A short, bright click for buttons.',
  bus: 'ui',
  soundClass: 'ui',
  cooldownMs: 25,
  limit: { max: 4, steal: 'oldest' },
  defaults: {},
  plan(_params, { vary }) {
    // A click is over in 30 ms, so it needs a high peak to read as loud as the other menu sounds.
    return [
      tone('sine', vary(1850, 0.03), vary(1350, 0.03), 0, 0.001, vary(0.03), 0.5),
      tone('triangle', vary(3700, 0.03), vary(3100, 0.03), 0, 0.001, 0.012, 0.125),
    ];
  },
});

/** Two rising notes (a fifth) for confirming a choice. */
export const uiConfirm = defineRecipe<Record<string, never>>({
  name: 'ui-confirm',
  summary: 'Two rising notes (a fifth) for confirming a choice.',
  bus: 'ui',
  soundClass: 'ui',
  cooldownMs: 60,
  limit: { max: 2, steal: 'oldest' },
  defaults: {},
  plan() {
    return [
      tone('sine', 880, 880, 0, 0.004, 0.12, 0.26),
      tone('sine', 1320, 1320, 0.06, 0.004, 0.16, 0.22),
      tone('triangle', 2640, 2640, 0.06, 0.002, 0.08, 0.05),
    ];
  },
});
