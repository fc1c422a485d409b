import { Emitter } from '../core/emitter.ts';
import { withDefaults } from '../core/options.ts';
import { BroadcastDelay } from './broadcast-delay.ts';
import { DENOISE_WET, RNNOISE_FRAME, RNNOISE_INTERNAL_DELAY, RNNOISE_SAMPLE_RATE } from './denoise/rnnoise-denoiser.ts';
import { rms, toDb } from './levels.ts';
import { PushToTalk, type TalkMode } from './push-to-talk.ts';

/** Name the RNNoise processor registers under (see denoise/rnnoise-processor.ts). */
export const RNNOISE_PROCESSOR_NAME = 'cairn-rnnoise';

/**
 * The worklet file, by a module-relative URL: Vite sees `new URL('…', import.meta.url)` and emits
 * the file for the dev server, the build and any path prefix. One self-contained file (WASM
 * inlined), so it needs no second request from inside the worklet.
 */
export function defaultWorkletUrl(): URL {
  return new URL('./denoise/rnnoise-worklet.js', import.meta.url);
}

/**
 * The microphone constraints: echo cancellation on (speakers feed back into the mic), the
 * browser's own noise suppression off (RNNoise does that job better and without the browser's
 * pumping), automatic gain on (people sit at every distance from their mic).
 */
export const CAPTURE_CONSTRAINTS: MediaTrackConstraints = {
  echoCancellation: true,
  noiseSuppression: false,
  autoGainControl: true,
  channelCount: 1,
  sampleRate: RNNOISE_SAMPLE_RATE,
};

/**
 * The soft compressor after the denoiser: evens out near/far speech without audible pumping.
 * 3:1 above −24 dBFS with a wide knee; 5 ms attack keeps plosives in check, 250 ms release avoids
 * breathing between words.
 */
export const COMPRESSOR_SETTINGS = {
  /** dBFS above which it compresses. */
  threshold: -24,
  /** Knee width (dB). */
  knee: 24,
  /** Compression ratio (n : 1). */
  ratio: 3,
  /** Attack (s). */
  attack: 0.005,
  /** Release (s). */
  release: 0.25,
} as const;
/** The fallback chain's high-pass: removes rumble and handling noise under the voice band. */
export const FALLBACK_HIGHPASS_HZ = 100;

/** Where the RNNoise denoiser stands: loading its worklet, on, or failed (the fallback chain runs). */
export type DenoiserState = 'loading' | 'on' | 'failed';

/** The denoiser's figures for the HUD. */
export interface DenoiserFigures {
  /** Where it stands. */
  state: DenoiserState;
  /** Why it failed (shown in red on the HUD), or null. */
  error: string | null;
  /** Mean voice probability over the last half second, 0..1 (RNNoise's VAD). */
  vad: number;
  /** 10 ms frames processed. */
  frames: number;
  /** Added latency, ms (framing plus RNNoise's own delay: 30 ms). */
  latencyMs: number;
  /** Fixed wet share of the mix (0.92). */
  wet: number;
}

/** Options of a {@link CaptureChain}. */
export interface CaptureChainOptions {
  /** URL of the RNNoise worklet. Default {@link defaultWorkletUrl}; a bad one exercises the fallback. */
  workletUrl?: string | URL;
  /** Push-to-talk mode at start. Default 'push-to-talk'. */
  mode?: TalkMode;
  /** Broadcast delay length, s. Default 5 (the delay starts off). */
  delaySeconds?: number;
}

/** Defaults of a {@link CaptureChain}: push-to-talk, a 5 s delay (off), the bundled worklet. */
function captureChainDefaults(): Required<CaptureChainOptions> {
  return { workletUrl: defaultWorkletUrl(), mode: 'push-to-talk', delaySeconds: 5 };
}

/** What a {@link CaptureChain} emits. */
export interface CaptureChainEvents extends Record<string, unknown> {
  /** The denoiser failed (once) and the chain switched to high-pass + compressor. */
  denoiserFailed: {
    /** Why, in words. */
    reason: string;
  };
}

/**
 * The one fixed capture chain, no knobs:
 *
 *   source → RNNoise worklet (92% wet / 8% dry, aligned) → soft compressor → push-to-talk gain
 *          → broadcast delay → output (→ MediaStreamAudioDestinationNode → the senders)
 *
 * If the worklet cannot load or start, the chain is rebuilt as source → high-pass 100 Hz →
 * compressor → …, the voice keeps going out, and `denoiser.state` is 'failed' with the reason.
 * Works on any BaseAudioContext, so tests render the exact graph in an OfflineAudioContext.
 */
export class CaptureChain extends Emitter<CaptureChainEvents> {
  /** Connect the microphone (or any source) here. */
  readonly input: GainNode;
  /** The voice compressor after the denoiser (or the fallback high-pass). */
  readonly compressor: DynamicsCompressorNode;
  /** The push-to-talk gain. */
  readonly ptt: PushToTalk;
  /** The broadcast delay at the end of the chain. */
  readonly delay: BroadcastDelay;
  /** The chain's end: what goes to the peers. */
  readonly output: GainNode;
  /** Level meter after the compressor, before push-to-talk: "your mic level" even while silent. */
  readonly meter: AnalyserNode;
  /** The denoiser's figures, refreshed live. */
  readonly denoiser: DenoiserFigures;
  private worklet: AudioWorkletNode | null = null;
  private highpass: BiquadFilterNode | null = null;
  private readonly meterBuffer: Float32Array<ArrayBuffer>;
  private disposed = false;

  /** The context the chain's nodes live on. */
  readonly context: BaseAudioContext;
  /**
   * Settles once the denoiser is wired in or the fallback is in place. The denoiser starts loading
   * a microtask after construction, so a `denoiserFailed` listener added right after `new` hears
   * every failure.
   */
  readonly ready: Promise<void>;

  constructor(context: BaseAudioContext, options: CaptureChainOptions = {}) {
    super();
    this.context = context;
    const resolved = withDefaults(captureChainDefaults(), options);
    this.input = context.createGain();
    this.compressor = new DynamicsCompressorNode(context, COMPRESSOR_SETTINGS);
    this.ptt = new PushToTalk(context, { mode: resolved.mode });
    this.delay = new BroadcastDelay(context, { seconds: resolved.delaySeconds });
    this.output = context.createGain();
    this.meter = new AnalyserNode(context, { fftSize: 2048 });
    this.meterBuffer = new Float32Array(this.meter.fftSize);
    this.denoiser = {
      state: 'loading',
      error: null,
      vad: 0,
      frames: 0,
      latencyMs: ((RNNOISE_FRAME + RNNOISE_INTERNAL_DELAY) / RNNOISE_SAMPLE_RATE) * 1000,
      wet: DENOISE_WET,
    };
    this.compressor.connect(this.meter);
    this.compressor.connect(this.ptt.node).connect(this.delay.input);
    this.delay.output.connect(this.output);
    this.ready = Promise.resolve().then(() => this.loadDenoiser(resolved.workletUrl));
  }

  /** Builds the chain; resolves once the denoiser is wired in or the fallback is in place. */
  static async create(context: BaseAudioContext, options: CaptureChainOptions = {}): Promise<CaptureChain> {
    const chain = new CaptureChain(context, options);
    await chain.ready;
    return chain;
  }

  /** The RNNoise worklet node (its output is the 92/8 mix), or null once the fallback is in use. */
  get denoiserNode(): AudioWorkletNode | null {
    return this.worklet;
  }

  /** Current mic level after the compressor, dBFS. */
  micLevelDb(): number {
    this.meter.getFloatTimeDomainData(this.meterBuffer);
    return toDb(rms(this.meterBuffer));
  }

  /** Disconnects every node, closes the worklet's port and removes every listener. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.worklet?.port.close();
    for (const node of [this.input, this.worklet, this.highpass, this.compressor, this.meter, this.output]) node?.disconnect();
    this.ptt.dispose();
    this.delay.dispose();
    this.clear();
  }

  private async loadDenoiser(url: string | URL): Promise<void> {
    if (this.disposed) return;
    const context = this.context;
    if (context.sampleRate !== RNNOISE_SAMPLE_RATE) {
      this.useFallback(`RNNoise needs a ${RNNOISE_SAMPLE_RATE} Hz audio context; this one runs at ${context.sampleRate} Hz`);
      return;
    }
    try {
      await context.audioWorklet.addModule(url);
      const node = new AudioWorkletNode(context, RNNOISE_PROCESSOR_NAME, {
        numberOfInputs: 1,
        numberOfOutputs: 1,
        outputChannelCount: [1],
        channelCount: 1,
        channelCountMode: 'explicit',
        channelInterpretation: 'speakers',
      });
      node.port.onmessage = (event: MessageEvent) => {
        const message = readWorkletMessage(event.data);
        if (message) this.onWorkletMessage(message);
      };
      node.onprocessorerror = () => this.useFallback('the RNNoise processor crashed');
      this.worklet = node;
      this.input.connect(node).connect(this.compressor);
    } catch (error) {
      this.useFallback(`the RNNoise worklet did not load from ${String(url)}: ${(error as Error).message || String(error)}`);
    }
  }

  private onWorkletMessage(data: WorkletMessage): void {
    if (data.type === 'ready') {
      if (this.denoiser.state === 'loading') this.denoiser.state = 'on';
    } else if (data.type === 'stats') {
      this.denoiser.frames = data.frames;
      this.denoiser.vad = data.vad;
    } else {
      this.useFallback(data.message);
    }
  }

  /** Rewires to high-pass + compressor; the voice keeps flowing. */
  private useFallback(reason: string): void {
    if (this.disposed || this.denoiser.state === 'failed') return;
    this.denoiser.state = 'failed';
    this.denoiser.error = reason;
    if (this.worklet) {
      this.input.disconnect(this.worklet);
      this.worklet.disconnect();
      this.worklet.port.close();
      this.worklet = null;
    }
    this.highpass = new BiquadFilterNode(this.context, { type: 'highpass', frequency: FALLBACK_HIGHPASS_HZ, Q: Math.SQRT1_2 });
    this.input.connect(this.highpass).connect(this.compressor);
    this.emit('denoiserFailed', { reason });
  }
}

/** What the RNNoise worklet tells the page (rnnoise-processor.ts posts them). */
type WorkletMessage = { type: 'ready' } | { type: 'stats'; frames: number; vad: number } | { type: 'error'; message: string };

/** A worklet message read field by field (null for anything else). */
function readWorkletMessage(data: unknown): WorkletMessage | null {
  if (typeof data !== 'object' || data === null || !('type' in data)) return null;
  if (data.type === 'ready') return { type: 'ready' };
  if (data.type === 'stats') {
    const frames = 'frames' in data ? Number(data.frames) || 0 : 0;
    const vad = 'vad' in data ? Number(data.vad) || 0 : 0;
    return { type: 'stats', frames, vad };
  }
  if (data.type === 'error') return { type: 'error', message: 'message' in data ? String(data.message) : 'unknown worklet error' };
  return null;
}
