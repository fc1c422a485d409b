/**
 * RNNoise real-time factor: milliseconds of CPU per 10 ms frame (480 samples at 48 kHz).
 * 1. Node: the denoiser core exactly as the worklet runs it (128-sample blocks through the
 *    framer, the WASM, the aligned wet/dry mix) against the framer alone (the cost of framing).
 * 2. Chromium: the real worklet file, rendered by an OfflineAudioContext, against the same graph
 *    with a plain GainNode where the worklet sits (what the fallback chain costs).
 * Same-run, interleaved rounds; ratios against the cheaper path.
 */
import createRNNWasmModuleSync from '@jitsi/rnnoise-wasm/dist/rnnoise-sync.js';
import { Mulberry32 } from '../../src/core/rng.ts';
import { BlockFramer } from '../../src/voice/denoise/block-framer.ts';
import { RNNOISE_FRAME, RnnoiseDenoiser } from '../../src/voice/denoise/rnnoise-denoiser.ts';
import { compare, median, printComparison, type Measured } from '../lib/measure.ts';
import { withVoicePage } from './lib/voice-page.ts';

// ---------------------------------------------------------------- Node: the core
const rng = new Mulberry32(5);
const BLOCKS = 15; // 15 × 128 = 1920 samples = 4 RNNoise frames per call
const input = Float32Array.from(
  { length: 128 * BLOCKS * 64 },
  (_, i) => 0.2 * Math.sin(i * 0.03) * Math.sin(i * 0.0007) + rng.range(-0.02, 0.02),
);
const output = new Float32Array(128);
const denoiser = new RnnoiseDenoiser(createRNNWasmModuleSync());
const framer = new BlockFramer(RNNOISE_FRAME, () => undefined);
let at = 0;
const run = (process: (block: Float32Array, out: Float32Array) => void) => () => {
  for (let b = 0; b < BLOCKS; b++) {
    process(input.subarray(at, at + 128), output);
    at = (at + 128) % input.length;
  }
  return output[0];
};
const node = compare(
  [
    { name: 'framing only (BlockFramer)', run: run((i, o) => framer.process(i, o)) },
    { name: 'RNNoise denoiser (WASM, as in the worklet)', run: run((i, o) => denoiser.process(i, o)) },
  ],
  { rounds: 9, callsPerRound: 60 },
);
const framesPerCall = (128 * BLOCKS) / RNNOISE_FRAME;
printComparison(
  'Node: ms per 10 ms frame',
  node.map((r) => ({ ...r, msPerCall: r.msPerCall / framesPerCall })),
);
const nodeFrame = node[1]!.msPerCall / framesPerCall;
console.log(`RNNoise in Node: ${nodeFrame.toFixed(3)} ms per 10 ms frame = real-time factor ${(nodeFrame / 10).toFixed(3)}`);

// ---------------------------------------------------------------- Chromium: the real worklet
await withVoicePage(async (page) => {
  const seconds = 20;
  const rounds = 4;
  const timings = await page.evaluate(
    async ({ seconds, rounds }) => {
      const { CaptureChain } = window.cairn.voiceModule as typeof import('../../src/voice/index.ts');
      const length = 48_000 * seconds;
      const noise = new Float32Array(length);
      let s = 1;
      for (let i = 0; i < length; i++) {
        s = (s * 16807) % 2147483647;
        noise[i] = 0.2 * Math.sin(i * 0.03) * Math.sin(i * 0.0007) + 0.02 * ((s / 2147483647) * 2 - 1);
      }
      const render = async (withWorklet: boolean) => {
        const ctx = new OfflineAudioContext(1, length, 48_000);
        const buffer = ctx.createBuffer(1, length, 48_000);
        buffer.copyToChannel(noise, 0);
        const source = new AudioBufferSourceNode(ctx, { buffer });
        if (withWorklet) {
          const chain = await CaptureChain.create(ctx, { mode: 'open' });
          if (!chain.denoiserNode) throw new Error(`the worklet did not load: ${chain.denoiser.error}`);
          source.connect(chain.input);
          chain.denoiserNode.connect(ctx.destination);
        } else {
          source.connect(new GainNode(ctx)).connect(ctx.destination);
        }
        source.start();
        const start = performance.now();
        await ctx.startRendering();
        return performance.now() - start;
      };
      await render(true); // warm-up: compiles the WASM once
      const plain: number[] = [];
      const worklet: number[] = [];
      for (let r = 0; r < rounds; r++) {
        plain.push(await render(false));
        worklet.push(await render(true));
      }
      return { plain, worklet };
    },
    { seconds, rounds },
  );
  const frames = (seconds * 48_000) / RNNOISE_FRAME;
  const results: Measured[] = [
    { name: 'plain GainNode (fallback cost)', msPerCall: median(timings.plain) / frames, calls: rounds * frames },
    { name: 'RNNoise AudioWorklet', msPerCall: median(timings.worklet) / frames, calls: rounds * frames },
  ];
  printComparison(`Chromium OfflineAudioContext, ${seconds} s rendered: ms per 10 ms frame`, results);
  const extra = results[1]!.msPerCall - results[0]!.msPerCall;
  console.log(
    `RNNoise worklet in Chromium: ${results[1]!.msPerCall.toFixed(3)} ms per 10 ms frame (${extra.toFixed(3)} ms above the plain graph) = real-time factor ${(results[1]!.msPerCall / 10).toFixed(3)}`,
  );
});
