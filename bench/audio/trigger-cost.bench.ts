/**
 * Main-thread cost of triggering a recipe, in Chromium with real Web Audio: Cairn's `play('strike')`
 * (plan five layers with vary(), voice limits, nodes on the shared noise buffer) against the naive
 * way of making the same five-layer strike — a fresh noise AudioBuffer filled per hit — and against
 * a trigger inside the cooldown (skipped). Interleaved rounds, medians, ratios against the naive path.
 */
import type { AudioWindow } from '../../tests/harness/audio.ts';
import { median, printComparison, type Measured } from '../lib/measure.ts';
import { withSfxPage } from './lib/sfx-page.ts';

const ROUNDS = 15;
/** Calls per round: enough for each candidate to rise well above Chromium's 0.1 ms timer grain. */
const CALLS: Record<string, number> = { naive: 20, play: 20, skipped: 2000, plan: 20000 };

const samples = await withSfxPage((page) =>
  page.evaluate(
    async ({ rounds, calls }) => {
      const { cairn } = window as unknown as AudioWindow;
      const engine = cairn.audio;
      const context = engine.context!;
      engine.setMuted(true);
      const input = engine.graph!.inputs.effects;

      /** The obvious way: every hit fills its own noise buffer and wires its layers by hand. */
      const naiveStrike = (): void => {
        const t = context.currentTime + 0.01;
        const buffer = context.createBuffer(1, Math.round(context.sampleRate * 0.5), context.sampleRate);
        const data = buffer.getChannelData(0);
        for (let i = 0; i < data.length; i++) data[i] = Math.random() * 2 - 1;
        const layers: Array<[OscillatorType | BiquadFilterType, number, number, number, number]> = [
          ['sine', 150, 62, 0.32, 0.42],
          ['triangle', 640, 390, 0.07, 0.17],
          ['triangle', 1320, 860, 0.05, 0.11],
          ['bandpass', 3400, 1500, 0.055, 0.38],
          ['lowpass', 1600, 320, 0.42, 0.13],
        ];
        for (const [type, f0, f1, decay, peak] of layers) {
          const gain = context.createGain();
          gain.gain.setValueAtTime(0.0001, t);
          gain.gain.exponentialRampToValueAtTime(peak, t + 0.002);
          gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.002 + decay);
          gain.connect(input);
          let source: AudioScheduledSourceNode;
          if (type === 'bandpass' || type === 'lowpass') {
            const noise = context.createBufferSource();
            noise.buffer = buffer;
            const filter = context.createBiquadFilter();
            filter.type = type;
            filter.frequency.setValueAtTime(f0, t);
            filter.frequency.exponentialRampToValueAtTime(f1, t + decay);
            noise.connect(filter).connect(gain);
            source = noise;
          } else {
            const osc = context.createOscillator();
            osc.type = type as OscillatorType;
            osc.frequency.setValueAtTime(f0, t);
            osc.frequency.exponentialRampToValueAtTime(f1, t + decay);
            osc.connect(gain);
            source = osc;
          }
          source.start(t);
          source.stop(t + decay + 0.03);
        }
      };
      const random = new cairn.sfx.audio.AudioRandom(1);
      const planContext = {
        vary: (v: number, a?: number) => random.vary(v, a),
        range: (a: number, b: number) => random.range(a, b),
        chord: cairn.sfx.audio.CAIRN_PROGRESSION.chords[0]!,
      };
      const candidates: Array<[string, number, () => void]> = [
        ['naive strike (noise buffer per hit)', calls.naive!, naiveStrike],
        ["engine.play('strike') (guards bypassed)", calls.play!, () => void engine.play('strike', {}, { bypassGuards: true })],
        [
          "engine.play('strike') inside its cooldown",
          calls.skipped!,
          () => void engine.play('strike', {}, { at: context.currentTime + 10 }),
        ],
        ['plan only (RECIPES.strike.plan)', calls.plan!, () => void cairn.sfx.audio.RECIPES.strike.plan({ intensity: 1 }, planContext)],
      ];
      // Arm the cooldown far ahead so the third candidate is always skipped.
      engine.play('strike', {}, { at: context.currentTime + 10 });
      const out: Record<string, number[]> = Object.fromEntries(candidates.map(([name]) => [name, []]));
      for (let round = -1; round < rounds; round++) {
        for (const [name, n, run] of candidates) {
          const start = performance.now();
          for (let i = 0; i < n; i++) run();
          const ms = (performance.now() - start) / n;
          if (round >= 0) out[name]!.push(ms);
          // Let the voices ring out so the audio thread is idle for the next measurement.
          await new Promise((resolve) => setTimeout(resolve, 120));
        }
      }
      return out;
    },
    { rounds: ROUNDS, calls: CALLS },
  ),
);

const results: Measured[] = Object.entries(samples).map(([name, values]) => ({ name, msPerCall: median(values), calls: values.length }));
printComparison(`cost of triggering a recipe on the main thread (Chromium, ${ROUNDS} interleaved rounds, median per call)`, results);
