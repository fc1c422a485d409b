/**
 * The loudness meter's AudioWorklet processor: wraps {@link LoudnessMeter} on the audio thread, so
 * every sample of the mix bus is metered (no analyser window that a short sound can fall between).
 * This file is the *source*: build-worklet.ts bundles it into meter-worklet.js, which the engine
 * loads by a module-relative URL. Regenerate after a change here or in loudness-meter.ts:
 *   npx tsx src/audio/meter/build-worklet.ts
 *
 * Messages: from the main thread `{ type: 'reset' }`; to it `{ type: 'reading', reading, frame }`
 * about 30 times a second (each reading's peaks and RMS cover the time since the previous one).
 */
import { LoudnessMeter } from './loudness-meter.ts';

/** Name the processor registers under. Keep in step with METER_PROCESSOR_NAME in bus-meter.ts. */
const PROCESSOR_NAME = 'cairn-loudness-meter';
/** Render quanta (128 frames) between readings: ≈ 30 per second at 48 kHz. */
const QUANTA_PER_READING = 12;

// AudioWorkletGlobalScope is not in TypeScript's DOM library.
declare const sampleRate: number;
declare const currentFrame: number;
declare function registerProcessor(name: string, processor: new (options?: unknown) => unknown): void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}

class LoudnessMeterProcessor extends AudioWorkletProcessor {
  private readonly meter = new LoudnessMeter(sampleRate, { channels: 2 });
  private quanta = 0;

  constructor() {
    super();
    this.port.onmessage = (event: MessageEvent<{ type?: string }>) => {
      if (event.data?.type === 'reset') this.meter.reset();
    };
  }

  process(inputs: Float32Array[][]): boolean {
    const input = inputs[0];
    // No input connected yet (or any more): nothing to meter, but stay alive.
    if (input && input.length > 0) {
      // A mono input is metered as both channels (it plays on both speakers).
      const left = input[0]!;
      this.meter.process([left, input[1] ?? left], left.length);
    }
    if (++this.quanta >= QUANTA_PER_READING) {
      this.quanta = 0;
      this.port.postMessage({ type: 'reading', reading: this.meter.take(), frame: currentFrame });
    }
    return true;
  }
}

registerProcessor(PROCESSOR_NAME, LoudnessMeterProcessor);
