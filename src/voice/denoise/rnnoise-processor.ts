/**
 * The RNNoise AudioWorklet processor. This file is the *source*: build-worklet.ts bundles it with
 * the synchronous RNNoise build (WASM inlined) into one self-contained file,
 * rnnoise-worklet.js, which the capture chain loads by a module-relative URL. Regenerate after any
 * change here or in rnnoise-denoiser.ts / block-framer.ts:
 *   npx tsx src/voice/denoise/build-worklet.ts
 *
 * Messages to the main thread (port): `{ type: 'ready', latency, sampleRate }` once; then
 * `{ type: 'stats', frames, vad }` every 50 frames (0.5 s); `{ type: 'error', message }` if it
 * cannot run (the main thread then switches to the plain chain).
 */
import createRNNWasmModuleSync from '@jitsi/rnnoise-wasm/dist/rnnoise-sync.js';
import { RNNOISE_SAMPLE_RATE, RnnoiseDenoiser } from './rnnoise-denoiser.ts';

/** Name the processor registers under. Keep in step with RNNOISE_PROCESSOR_NAME in capture-chain.ts. */
const PROCESSOR_NAME = 'cairn-rnnoise';
const STATS_EVERY_FRAMES = 50;

// AudioWorkletGlobalScope is not in TypeScript's DOM library.
declare const sampleRate: number;
declare function registerProcessor(name: string, processor: new (options?: unknown) => unknown): void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}

class RnnoiseProcessor extends AudioWorkletProcessor {
  private denoiser: RnnoiseDenoiser | null = null;
  private mono = new Float32Array(128);
  private lastReport = 0;
  private vadSum = 0;
  private vadCount = 0;

  constructor() {
    super();
    if (sampleRate !== RNNOISE_SAMPLE_RATE) {
      this.port.postMessage({
        type: 'error',
        message: `RNNoise needs a ${RNNOISE_SAMPLE_RATE} Hz context; this one runs at ${sampleRate} Hz`,
      });
      return;
    }
    try {
      this.denoiser = new RnnoiseDenoiser(createRNNWasmModuleSync());
      this.port.postMessage({ type: 'ready', latency: this.denoiser.latency, sampleRate });
    } catch (error) {
      this.port.postMessage({ type: 'error', message: `RNNoise failed to start: ${(error as Error).message ?? String(error)}` });
    }
  }

  process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const output = outputs[0]!;
    const out = output[0];
    if (!out) return true;
    const input = inputs[0] ?? [];
    let source: Float32Array | null = null;
    if (input.length === 1) source = input[0]!;
    else if (input.length > 1) {
      // Down-mix to mono: voice is captured mono; a stereo device gets averaged.
      if (this.mono.length !== out.length) this.mono = new Float32Array(out.length);
      this.mono.fill(0);
      for (const channel of input) for (let i = 0; i < out.length; i++) this.mono[i]! += channel[i]! / input.length;
      source = this.mono;
    }
    if (!this.denoiser) {
      // Failed to start: pass the input through so the voice still goes out (the main thread rebuilds the chain).
      if (source) out.set(source);
      else out.fill(0);
    } else {
      this.denoiser.process(source, out);
      this.vadSum += this.denoiser.vad;
      this.vadCount++;
      if (this.denoiser.frames - this.lastReport >= STATS_EVERY_FRAMES) {
        this.lastReport = this.denoiser.frames;
        this.port.postMessage({ type: 'stats', frames: this.denoiser.frames, vad: this.vadSum / Math.max(1, this.vadCount) });
        this.vadSum = 0;
        this.vadCount = 0;
      }
    }
    for (let c = 1; c < output.length; c++) output[c]!.set(out);
    return true;
  }
}

registerProcessor(PROCESSOR_NAME, RnnoiseProcessor);
