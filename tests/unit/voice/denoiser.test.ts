import { readFileSync } from 'node:fs';
import createRNNWasmModuleSync from '@jitsi/rnnoise-wasm/dist/rnnoise-sync.js';
import { describe, expect, it } from 'vitest';
import { BlockFramer } from '../../../src/voice/denoise/block-framer.ts';
import { RNNOISE_FRAME, RNNOISE_INTERNAL_DELAY, RnnoiseDenoiser } from '../../../src/voice/denoise/rnnoise-denoiser.ts';
import { REGENERATE_COMMAND, WORKLET_FILE, recordedSourceHash, workletSourceHash } from '../../../src/voice/denoise/worklet-source-hash.ts';
import { Mulberry32 } from '../../../src/core/rng.ts';

describe('BlockFramer', () => {
  it('turns 128-sample blocks into 480-sample frames and back with exactly one frame of delay', () => {
    const frames: number[] = [];
    const framer = new BlockFramer(480, (frame) => {
      frames.push(frame.length);
      for (let i = 0; i < frame.length; i++) frame[i] = frame[i]! * 2;
    });
    const input = Float32Array.from({ length: 128 * 40 }, (_, i) => i + 1);
    const output = new Float32Array(input.length);
    for (let i = 0; i < input.length; i += 128) framer.process(input.subarray(i, i + 128), output.subarray(i, i + 128));
    expect(framer.latency).toBe(480);
    expect(frames.every((n) => n === 480)).toBe(true);
    expect(frames.length).toBe(Math.floor(input.length / 480));
    for (let i = 0; i < 480; i++) expect(output[i]).toBe(0);
    for (let i = 480; i < output.length; i++) expect(output[i]).toBe(2 * input[i - 480]!);
  });

  it('works for odd block sizes and silence (an unconnected input)', () => {
    const framer = new BlockFramer(480, () => undefined);
    const sizes = [1, 127, 128, 479, 480, 481, 1000, 3];
    let t = 0;
    const out: number[] = [];
    for (const size of sizes) {
      const input = Float32Array.from({ length: size }, (_, i) => t + i + 1);
      const output = new Float32Array(size);
      framer.process(input, output);
      out.push(...output);
      t += size;
    }
    out.forEach((value, i) => expect(value).toBe(i < 480 ? 0 : i - 480 + 1));
    const silent = new Float32Array(480);
    framer.process(null, silent);
    expect(silent.some((v) => v !== 0)).toBe(true); // still draining the earlier input
    framer.process(null, silent);
    expect(silent.every((v) => v === 0)).toBe(true);
  });

  it('refuses a nonsense frame size', () => {
    expect(() => new BlockFramer(0, () => undefined)).toThrow(/positive integer/);
  });
});

describe('RnnoiseDenoiser (the real RNNoise WASM, in Node)', () => {
  const module = createRNNWasmModuleSync();

  /** A vowel-like test signal: a 140 Hz pulse train through two formant resonances, 1 s. */
  function vowel(): Float32Array {
    const rng = new Mulberry32(3);
    const out = new Float32Array(48_000);
    let y1 = 0,
      y2 = 0,
      z1 = 0,
      z2 = 0;
    for (let i = 0; i < out.length; i++) {
      const pulse = i % Math.round(48_000 / 140) === 0 ? 1 : 0;
      const x = pulse + 0.01 * rng.range(-1, 1);
      const y = x + 1.96 * Math.cos((2 * Math.PI * 700) / 48_000) * y1 - 0.9604 * y2;
      y2 = y1;
      y1 = y;
      const z = y + 1.96 * Math.cos((2 * Math.PI * 1200) / 48_000) * z1 - 0.9604 * z2;
      z2 = z1;
      z1 = z;
      out[i] = z;
    }
    let peak = 0;
    for (const v of out) peak = Math.max(peak, Math.abs(v));
    return out.map((v) => (0.4 * v) / peak);
  }

  it('lines the dry share up with the denoised output: the output peaks in correlation at `latency`', () => {
    const input = vowel();
    const denoiser = new RnnoiseDenoiser(module, 1);
    expect(denoiser.latency).toBe(RNNOISE_FRAME + RNNOISE_INTERNAL_DELAY);
    const output = new Float32Array(input.length);
    for (let i = 0; i < input.length; i += 128) denoiser.process(input.subarray(i, i + 128), output.subarray(i, i + 128));
    const correlation = (lag: number) => {
      let c = 0,
        a = 0,
        b = 0;
      for (let i = 4800; i + lag < input.length; i++) {
        c += input[i]! * output[i + lag]!;
        a += input[i]! ** 2;
        b += output[i + lag]! ** 2;
      }
      return c / Math.sqrt(a * b);
    };
    let best = 0;
    for (let lag = 0; lag <= 2400; lag += 48) if (correlation(lag) > correlation(best)) best = lag;
    expect(best).toBe(denoiser.latency);
    expect(correlation(best)).toBeGreaterThan(0.8);
    denoiser.dispose();
  });

  it('removes white noise down to the dry share (−22 dB) and reports a low voice probability', () => {
    const rng = new Mulberry32(11);
    const input = Float32Array.from({ length: 96_000 }, () => rng.range(-0.1, 0.1));
    const denoiser = new RnnoiseDenoiser(module);
    const output = new Float32Array(input.length);
    for (let i = 0; i < input.length; i += 128) denoiser.process(input.subarray(i, i + 128), output.subarray(i, i + 128));
    let ein = 0,
      eout = 0;
    for (let i = 48_000; i < 96_000; i++) {
      ein += input[i]! ** 2;
      eout += output[i]! ** 2;
    }
    const dropDb = 10 * Math.log10(eout / ein);
    expect(dropDb).toBeLessThan(-20);
    expect(dropDb).toBeGreaterThan(-23); // the 8% dry share is still there
    expect(denoiser.vad).toBeLessThan(0.2);
    expect(denoiser.frames).toBe(200);
    denoiser.dispose();
    expect(() => denoiser.process(null, new Float32Array(128))).toThrow(/after dispose/);
  });
});

describe('the generated worklet file', () => {
  it('is up to date with its sources and self-contained', () => {
    const generated = readFileSync(WORKLET_FILE, 'utf8');
    expect(recordedSourceHash(generated), `rnnoise-worklet.js is stale; regenerate it with: ${REGENERATE_COMMAND}`).toBe(
      workletSourceHash(),
    );
    expect(generated).not.toMatch(/^\s*import\s/m);
    expect(generated).toContain('registerProcessor(PROCESSOR_NAME, RnnoiseProcessor)');
    expect(generated).toMatch(/(var|const|let) PROCESSOR_NAME = "cairn-rnnoise"/);
    // The WASM is inlined as a data: URI, so the worklet never fetches anything.
    expect(generated).toMatch(/data:application\/octet-stream;base64,/);
  });
});
