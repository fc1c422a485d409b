import { describe, expect, it } from 'vitest';
import { AudioRandom, VARY_AMOUNT } from '../../../src/audio/audio-random.ts';
import { GAMEPLAY_SLICE } from '../../../src/audio/gameplay-slice.ts';
import { planShape, validateLayer, type Layer } from '../../../src/audio/layers.ts';
import { CAIRN_PROGRESSION, chimeMidi, midiToHz, type Chord } from '../../../src/audio/music-theory.ts';
import {
  CRACK_PITCH_STEP,
  CRACK_SPACING,
  getRecipe,
  RECIPE_NAMES,
  RECIPES,
  UnknownRecipeError,
  type RecipeContext,
} from '../../../src/audio/recipes/index.ts';
import { SURFACES } from '../../../src/audio/surfaces.ts';

function context(seed = 1234, chord: Chord = CAIRN_PROGRESSION.chords[0]!): RecipeContext {
  const random = new AudioRandom(seed);
  return { vary: (v, a) => random.vary(v, a), range: (a, b) => random.range(a, b), chord };
}

/** A context whose vary() returns values unchanged: the recipe's design numbers. */
const exact: RecipeContext = { vary: (v) => v, range: (a) => a, chord: CAIRN_PROGRESSION.chords[0]! };

function plan(name: string, params: object = {}, ctx = context()): Layer[] {
  const recipe = getRecipe(name);
  return recipe.plan({ ...recipe.defaults, ...params } as never, ctx);
}

describe('AudioRandom.vary', () => {
  it('moves a value by at most ±8 %, using the whole range', () => {
    const random = new AudioRandom(7);
    let low = Infinity;
    let high = -Infinity;
    for (let i = 0; i < 20000; i++) {
      const v = random.vary(100);
      low = Math.min(low, v);
      high = Math.max(high, v);
    }
    expect(VARY_AMOUNT).toBe(0.08);
    expect(low).toBeGreaterThanOrEqual(92);
    expect(high).toBeLessThanOrEqual(108);
    expect(low).toBeLessThan(92.1);
    expect(high).toBeGreaterThan(107.9);
  });

  it('replays exactly from a seed (the test mode)', () => {
    const a = new AudioRandom(1234);
    const b = new AudioRandom(1234);
    const c = new AudioRandom(1235);
    const seqA = Array.from({ length: 8 }, () => a.vary(1));
    expect(Array.from({ length: 8 }, () => b.vary(1))).toEqual(seqA);
    expect(Array.from({ length: 8 }, () => c.vary(1))).not.toEqual(seqA);
    a.reseed(1234);
    expect(a.vary(1)).toBe(seqA[0]);
  });
});

describe('recipes', () => {
  it('all plan valid layers with their defaults, and plans replay from the seed', () => {
    for (const name of RECIPE_NAMES) {
      const layers = plan(name);
      expect(layers.length, name).toBeGreaterThan(0);
      layers.forEach(validateLayer);
      expect(plan(name)).toEqual(layers);
    }
  });

  it('strike: five layers — sine body, two triangle knocks, band-passed crack, low-passed gravel — all within 20 ms', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const layers = plan('strike', {}, context(seed));
      expect(layers.map((l) => (l.kind === 'tone' ? l.type : l.filter))).toEqual(['sine', 'triangle', 'triangle', 'bandpass', 'lowpass']);
      expect(Math.max(...layers.map((l) => l.t))).toBeLessThan(0.02);
    }
    // The body is the low, long layer; the crack the bright, short one.
    const [body, , , crack, gravel] = plan('strike', {}, exact);
    expect(body!.f0).toBeLessThan(200);
    expect(crack!.f0).toBeGreaterThan(2000);
    expect(gravel!.decay).toBeGreaterThan(crack!.decay);
  });

  it('vary() moves every strike value by at most ±8 % of its design value', () => {
    const design = plan('strike', {}, exact);
    for (let seed = 1; seed <= 100; seed++) {
      const varied = plan('strike', {}, context(seed));
      varied.forEach((layer, i) => {
        const d = design[i]!;
        for (const key of ['f0', 'f1', 't', 'decay'] as const) {
          if (d[key] === 0) expect(layer[key]).toBe(0);
          else expect(Math.abs(layer[key] / d[key] - 1)).toBeLessThanOrEqual(0.08 + 1e-12);
        }
      });
    }
    // Two hits are never the same.
    expect(plan('strike', {}, context(1))).not.toEqual(plan('strike', {}, context(2)));
  });

  it('crack-line: one crack per slab, 22 ms apart, each 6 % higher, panned from the first slab to the last', () => {
    const layers = plan('crack-line', { count: 8, panFrom: -1, panTo: 1 });
    const cracks = layers.filter((l) => l.kind === 'noise');
    expect(cracks).toHaveLength(8);
    cracks.forEach((crack, i) => {
      expect(crack.t).toBeCloseTo(i * CRACK_SPACING, 12);
      if (i > 0) {
        expect(crack.f0 / cracks[i - 1]!.f0).toBeCloseTo(CRACK_PITCH_STEP, 12);
        expect(crack.f1 / cracks[i - 1]!.f1).toBeCloseTo(CRACK_PITCH_STEP, 12);
        expect(crack.pan!).toBeGreaterThan(cracks[i - 1]!.pan!);
      }
    });
    expect(cracks[0]!.pan).toBe(-1);
    expect(cracks[7]!.pan).toBe(1);
    expect(CRACK_SPACING).toBe(0.022);
    expect(CRACK_PITCH_STEP).toBe(1.06);
    // Length is audible: a longer line lasts longer.
    expect(planShape(plan('crack-line', { count: 16 })).end).toBeGreaterThan(planShape(plan('crack-line', { count: 4 })).end + 0.2);
  });

  it('footsteps differ by surface and run louder than walk', () => {
    const fingerprints = new Set(
      SURFACES.map((surface) =>
        JSON.stringify(plan('footstep', { surface }, exact).map((l) => [l.kind, l.kind === 'tone' ? l.type : l.filter, l.f0])),
      ),
    );
    expect(fingerprints.size).toBe(SURFACES.length);
    const walk = planShape(plan('footstep', { surface: 'stone', intensity: 1 }, exact)).peak;
    const run = planShape(plan('footstep', { surface: 'stone', intensity: 1.3 }, exact)).peak;
    // Loudness follows the square root of intensity, so a sprint stays a footstep.
    expect(run).toBeCloseTo(walk * Math.sqrt(1.3), 9);
  });

  it('land gets heavier with the fall speed', () => {
    const soft = planShape(plan('land', { surface: 'dirt', impact: 3 }, exact)).peak;
    const hard = planShape(plan('land', { surface: 'dirt', impact: 12 }, exact)).peak;
    // impact/6 clamped to 0.4…1.6, through the square-root loudness curve: 0.5 → 1.6 is ×1.79.
    expect(hard).toBeGreaterThan(soft * 1.7);
  });

  it('chime: the pitch is a tone of the chord the music plays, climbing with the streak', () => {
    for (const chord of CAIRN_PROGRESSION.chords) {
      for (let streak = 0; streak < 5; streak++) {
        const [fundamental] = plan('chime', { streak }, { ...context(), chord });
        expect(fundamental!.f0).toBeCloseTo(midiToHz(chimeMidi(chord, streak)), 9);
      }
    }
    const f = CAIRN_PROGRESSION.chords[1]!;
    const pitches = [0, 1, 2, 3].map((streak) => plan('chime', { streak }, { ...context(), chord: f })[0]!.f0);
    expect([...pitches].sort((a, b) => a - b)).toEqual(pitches);
  });

  it('rejects bad parameters with a clear message', () => {
    expect(() => plan('footstep', { surface: 'lava' })).toThrow(
      /footstep: surface must be one of grass, leaves, sand, dirt, stone, snow, water \(got "lava"\)/,
    );
    expect(() => plan('strike', { intensity: Number.NaN })).toThrow(/strike: intensity must be a number in \[0.1, 1.5\]/);
    expect(() => plan('crack-line', { count: 100 })).toThrow(/count/);
    expect(() => plan('land', { impact: -1 })).toThrow(/impact/);
  });

  it('an unknown name is an UnknownRecipeError that lists the known ones', () => {
    expect(() => getRecipe('thunderclap')).toThrow(UnknownRecipeError);
    expect(() => getRecipe('thunderclap')).toThrow(
      'Unknown sound recipe "thunderclap". Known recipes: strike, crack-line, groan, footstep, jump, land, chime, ui-click, ui-confirm.',
    );
    // Object prototype names are not recipes.
    expect(() => getRecipe('toString')).toThrow(UnknownRecipeError);
  });

  it('puts menu sounds on the ui bus and world sounds on effects', () => {
    for (const name of RECIPE_NAMES) expect(RECIPES[name].bus, name).toBe(name.startsWith('ui-') ? 'ui' : 'effects');
  });

  it('the gameplay slice only uses valid recipes and parameters, and stays clear of cooldowns', () => {
    const last = new Map<string, number>();
    for (const event of GAMEPLAY_SLICE.events) {
      plan(event.recipe, event.params ?? {}).forEach(validateLayer);
      const previous = last.get(event.recipe);
      if (previous !== undefined) expect(event.at - previous, event.recipe).toBeGreaterThanOrEqual(RECIPES[event.recipe].cooldownMs / 1000);
      last.set(event.recipe, event.at);
      expect(event.at).toBeLessThan(GAMEPLAY_SLICE.duration);
    }
  });
});
