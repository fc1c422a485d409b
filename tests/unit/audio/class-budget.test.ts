import { describe, expect, it } from 'vitest';
import { AudioRandom } from '../../../src/audio/audio-random.ts';
import {
  BudgetTimeline,
  budgetGain,
  DEFAULT_CLASS_BUDGETS,
  ENVELOPE_STEP,
  envelopeOf,
  LOUDNESS_WINDOW,
  type VoiceEnvelope,
} from '../../../src/audio/class-budget.ts';
import { planShape, tone, type Layer } from '../../../src/audio/layers.ts';
import { CAIRN_PROGRESSION } from '../../../src/audio/music-theory.ts';
import { RECIPES } from '../../../src/audio/recipes/index.ts';
import { MIN_BUDGET_GAIN, VoiceLimiter } from '../../../src/audio/voice-limiter.ts';

const budget = DEFAULT_CLASS_BUDGETS.impacts;

/** Power of an envelope at step i (tones of one voice add in power). */
const powerAt = (e: VoiceEnvelope, i: number): number => (e.tone[i] ?? 0) ** 2 + (e.noise[i] ?? 0);

function strikePlan(random: AudioRandom, intensity = 1.5): Layer[] {
  return RECIPES.strike.plan(
    { intensity },
    { vary: (v, a) => random.vary(v, a), range: (a, b) => random.range(a, b), chord: CAIRN_PROGRESSION.chords[0]! },
  );
}

describe('envelopeOf', () => {
  it('samples a layer as the synth plays it: its peak, and the energy of its exponential decay', () => {
    const e = envelopeOf([tone('sine', 500, 500, 0, 0.001, 0.5, 0.5)]);
    expect(e.peakAmplitude).toBeCloseTo(0.5, 2);
    // ∫ (p·e^(r·τ/d))² dτ over the decay = p²·d/(2|r|), r = ln(1e-4/p); a sine's mean square is 1/2, in both channels.
    const r = Math.abs(Math.log(1e-4 / 0.5));
    const expected = 2 * 0.5 * ((0.25 * 0.5) / (2 * r));
    let energy = 0;
    for (let i = 0; i < e.tone.length; i++) energy += powerAt(e, i) * ENVELOPE_STEP;
    // 500 Hz sits where the K weighting is within a few hundredths of a dB of flat.
    expect(energy / expected).toBeGreaterThan(0.97);
    expect(energy / expected).toBeLessThan(1.03);
    expect(e.peakEnergy).toBeCloseTo(energy, 4);
  });

  it('weights power as the loudness meter does: +4 dB above the shelf, less in the deep bass, half when panned', () => {
    const power = (layer: Layer): number => envelopeOf([layer]).peakEnergy;
    const mid = power(tone('sine', 500, 500, 0, 0.001, 0.2, 0.5));
    expect(10 * Math.log10(power(tone('sine', 6000, 6000, 0, 0.001, 0.2, 0.5)) / mid)).toBeCloseTo(4, 0);
    expect(power(tone('sine', 30, 30, 0, 0.001, 0.2, 0.5))).toBeLessThan(mid / 2);
    expect(power(tone('sine', 500, 500, 0, 0.001, 0.2, 0.5, 0.5)) / mid).toBeCloseTo(0.5, 2);
  });
});

describe('BudgetTimeline', () => {
  it('sums voices on the audio clock, takes them back exactly, and keeps working after forgetting the past', () => {
    const e = envelopeOf([tone('sine', 500, 500, 0, 0.001, 0.2, 0.5)]);
    const timeline = new BudgetTimeline();
    timeline.add(e, 1, 1, Infinity, 1);
    timeline.add(e, 1.05, 0.5, Infinity, 1);
    const at = (time: number): number => timeline.view(time, 0, 1).amplitude[0]!;
    expect(at(1.06)).toBeCloseTo(e.amplitude[60]! + 0.5 * e.amplitude[10]!, 9);
    // A voice cut off at 1.07 adds nothing after it.
    timeline.add(e, 1.05, 0.5, Infinity, -1);
    timeline.add(e, 1.05, 0.5, 1.07, 1);
    expect(at(1.08)).toBeCloseTo(e.amplitude[80]!, 9);
    timeline.add(e, 1, 1, Infinity, -1);
    timeline.add(e, 1.05, 0.5, 1.07, -1);
    expect(Math.abs(at(1.06))).toBeLessThan(1e-12);
    // An hour later the past is forgotten, and voices are summed as before (live ticks trim it).
    timeline.trim(1000);
    timeline.add(e, 3600.5, 1, Infinity, 1);
    expect(at(3600.5)).toBeCloseTo(e.amplitude[0]!, 9);
    expect(at(1.06)).toBe(0);
    // Voices arriving in reverse order grow it on the other side.
    for (let i = 50; i >= 0; i--) timeline.add(e, 3590 + i * 0.01, 1, Infinity, 1);
    expect(at(3590)).toBeCloseTo(e.amplitude[0]!, 9);
  });
});

describe('budgetGain', () => {
  const e = envelopeOf(strikePlan(new AudioRandom(1)));

  it('leaves a voice alone in its class at full level', () => {
    expect(budgetGain(e, 1, [], budget)).toBe(1);
  });

  it('gives nothing to a second voice at the very moment of the first (peaks add), full level once it has faded', () => {
    expect(budgetGain(e, 1, [{ envelope: e, start: 1, gain: 1, until: Infinity }], budget)).toBe(0);
    const after = 1 + e.amplitude.length * ENVELOPE_STEP + LOUDNESS_WINDOW;
    expect(budgetGain(e, after, [{ envelope: e, start: 1, gain: 1, until: Infinity }], budget)).toBe(1);
    // A voice cut short frees the budget from its cut on.
    expect(budgetGain(e, 1.2, [{ envelope: e, start: 1, gain: 1, until: 1.01 }], budget)).toBeGreaterThan(
      budgetGain(e, 1.2, [{ envelope: e, start: 1, gain: 1, until: Infinity }], budget),
    );
  });

  it('holds a pile of strikes to the loudest one alone plus the budget, in any call order', () => {
    const plans = Array.from({ length: 16 }, (_, i) => strikePlan(new AudioRandom(100 + i), 0.5 + (i % 3) * 0.5));
    const run = (order: number[]): { gains: number[]; cuts: (number | null)[]; envelopes: VoiceEnvelope[]; refused: number } => {
      const limiter = new VoiceLimiter({ perSound: { strike: RECIPES.strike.limit }, budgets: { impacts: budget } });
      const envelopes = plans.map((layers) => envelopeOf(layers, planShape(layers).start));
      for (const i of order) {
        const start = 1 + i * 0.03;
        const shape = planShape(plans[i]!);
        limiter.admit(
          {
            id: i + 1,
            sound: 'strike',
            bus: 'effects',
            start,
            peakTime: start + shape.peakTime,
            end: start + shape.end + 0.02,
            peak: shape.peak,
            budget: { soundClass: 'impacts', envelope: envelopes[i]! },
          },
          0,
        );
      }
      return {
        gains: plans.map((_, i) => (limiter.isAdmitted(i + 1) ? limiter.gainOf(i + 1) : 0)),
        cuts: plans.map((_, i) => limiter.cutOf(i + 1)),
        envelopes,
        refused: limiter.refused,
      };
    };
    const forward = run(plans.map((_, i) => i));
    const backward = run(plans.map((_, i) => plans.length - 1 - i));
    expect(backward.gains).toEqual(forward.gains);
    expect(backward.cuts).toEqual(forward.cuts);
    expect(backward.refused).toBe(forward.refused);
    // The first plays at full level, later ones are turned down; one that would be inaudible under the pile is refused.
    expect(forward.gains[0]).toBe(1);
    expect(Math.min(...forward.gains.slice(1))).toBeLessThan(1);
    expect(forward.refused).toBeGreaterThan(0);
    expect(forward.gains.filter((g) => g > 0).every((g) => g >= MIN_BUDGET_GAIN)).toBe(true);
    // The pile's planned energy over every 400 ms window, tones in phase across voices (the budget's worst case).
    const steps = Math.round(2 / ENVELOPE_STEP);
    const tones = new Float64Array(steps);
    const noise = new Float64Array(steps);
    forward.envelopes.forEach((env, i) => {
      const offset = Math.round((i * 0.03) / ENVELOPE_STEP);
      const cut = forward.cuts[i];
      const until = cut === null ? Infinity : Math.round((cut - 1 - i * 0.03) / ENVELOPE_STEP);
      for (let j = 0; j < env.tone.length && j < until && j + offset < steps; j++) {
        tones[j + offset]! += forward.gains[i]! * env.tone[j]!;
        noise[j + offset]! += forward.gains[i]! ** 2 * env.noise[j]!;
      }
    });
    let most = 0;
    let window = 0;
    const w = Math.round(LOUDNESS_WINDOW / ENVELOPE_STEP);
    for (let k = 0; k < steps; k++) {
      window += (tones[k]! ** 2 + noise[k]!) * ENVELOPE_STEP;
      if (k >= w) window -= (tones[k - w]! ** 2 + noise[k - w]!) * ENVELOPE_STEP;
      most = Math.max(most, window);
    }
    const loudest = Math.max(...forward.envelopes.map((env) => env.peakEnergy));
    expect(10 * Math.log10(most / loudest)).toBeLessThanOrEqual(budget.loudnessDb + 0.01);
    // A flurry still reads as more than one strike.
    expect(10 * Math.log10(most / loudest)).toBeGreaterThan(budget.loudnessDb - 0.5);
  });
});
