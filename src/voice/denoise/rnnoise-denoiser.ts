import { BlockFramer } from './block-framer.ts';

/** The parts of the Emscripten RNNoise module (`@jitsi/rnnoise-wasm`) the denoiser uses. */
export interface RnnoiseModule {
  /** Creates a denoiser state; returns its pointer (0 on failure). */
  _rnnoise_create(model?: number): number;
  /** Frees a denoiser state. */
  _rnnoise_destroy(state: number): void;
  /** Denoises 480 samples from `input` into `output` (may alias); returns the voice probability. */
  _rnnoise_process_frame(state: number, output: number, input: number): number;
  /** Allocates `bytes` on the module's heap; returns the pointer. */
  _malloc(bytes: number): number;
  /** Frees what {@link _malloc} returned. */
  _free(pointer: number): void;
  /** The module's heap as floats. */
  HEAPF32: Float32Array;
}

/** RNNoise works on 10 ms frames at 48 kHz. */
export const RNNOISE_FRAME = 480;
/** The sample rate RNNoise works at (Hz). */
export const RNNOISE_SAMPLE_RATE = 48_000;
/**
 * RNNoise's own delay: its output frame is the input from two frames (20 ms) earlier (overlapping
 * analysis windows). Measured by cross-correlation in tests/unit/voice/denoiser.test.ts. The dry
 * share is delayed by the same amount so wet and dry add up in phase.
 */
export const RNNOISE_INTERNAL_DELAY = 960;
/** RNNoise expects 16-bit-scaled floats: Web Audio's ±1 is multiplied by this going in, divided coming out. */
export const RNNOISE_SCALE = 32_768;
/**
 * Wet share of the output. RNNoise suppresses unvoiced consonants (s, f, t) along with noise; an 8%
 * dry share lets them through at −22 dB while noise between words still drops by well over 10 dB.
 */
export const DENOISE_WET = 0.92;

/**
 * RNNoise with block framing and a time-aligned wet/dry mix: `process` takes any block size and
 * returns `0.92 × denoised + 0.08 × dry`, both delayed by {@link RnnoiseDenoiser.latency} (30 ms). Pure apart from the
 * WASM module passed in, so it runs in the AudioWorklet and in Node alike.
 */
export class RnnoiseDenoiser {
  /** Voice probability of the last frame, 0..1. */
  vad = 0;
  /** Frames processed so far. */
  frames = 0;
  private readonly framer: BlockFramer;
  private readonly state: number;
  private readonly pointer: number;
  /** Dry input, held back by RNNOISE_INTERNAL_DELAY to line up with the denoised output. */
  private readonly dryLine = new Float32Array(RNNOISE_INTERNAL_DELAY + RNNOISE_FRAME);
  private disposed = false;

  private readonly module: RnnoiseModule;
  /** Share of denoised signal in the output, 0…1 (the rest is the dry input, delayed to line up). */
  readonly wet: number;

  constructor(
    module: RnnoiseModule,
    /** Wet share, 0..1. Fixed at {@link DENOISE_WET} in Cairn's chain; tests and benches vary it. */
    wet = DENOISE_WET,
  ) {
    this.module = module;
    this.wet = wet;
    this.state = module._rnnoise_create();
    if (!this.state) throw new Error('rnnoise_create returned null');
    this.pointer = module._malloc(RNNOISE_FRAME * 4);
    const dry = 1 - wet;
    this.framer = new BlockFramer(RNNOISE_FRAME, (frame) => {
      // HEAPF32 is read every frame: a memory growth would replace the view.
      const heap = this.module.HEAPF32;
      const base = this.pointer >> 2;
      for (let k = 0; k < RNNOISE_FRAME; k++) heap[base + k] = frame[k]! * RNNOISE_SCALE;
      this.vad = this.module._rnnoise_process_frame(this.state, this.pointer, this.pointer);
      const line = this.dryLine;
      line.copyWithin(0, RNNOISE_FRAME);
      line.set(frame, RNNOISE_INTERNAL_DELAY);
      const out = this.module.HEAPF32;
      for (let k = 0; k < RNNOISE_FRAME; k++) frame[k] = (wet * out[base + k]!) / RNNOISE_SCALE + dry * line[k]!;
      this.frames++;
    });
  }

  /** Samples between input and output: one frame of framing plus RNNoise's own 20 ms (30 ms). */
  get latency(): number {
    return this.framer.latency + RNNOISE_INTERNAL_DELAY;
  }

  /** Denoises `input` (null: silence) into `output`, one render block at a time. */
  process(input: Float32Array | null, output: Float32Array): void {
    if (this.disposed) throw new Error('RnnoiseDenoiser used after dispose()');
    this.framer.process(input, output);
  }

  /** Frees the denoiser's state and buffer. Calling it again does nothing. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.module._free(this.pointer);
    this.module._rnnoise_destroy(this.state);
  }
}
