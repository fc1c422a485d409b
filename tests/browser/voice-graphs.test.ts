/**
 * The capture chain's parts measured on real Web Audio graphs in Chromium: the RNNoise worklet
 * (loaded from the built page by its module-relative URL), the fallback chain, the push-to-talk
 * envelope and the five-second broadcast delay. OfflineAudioContext renders them sample-exactly;
 * `suspend(t)` runs the production press/release/dump code at exact render times.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, launchChromium } from '../harness/browser.ts';
import { addClicksBetweenWords, energyIn, speak, type SpeechWithClicks } from '../harness/voice-signals.ts';

const base = inject('serverUrl');

function toBase64(samples: Float32Array): string {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64');
}

function fromBase64(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

/** Mean power over [from, to) seconds of a 48 kHz signal. */
function power(samples: Float32Array, from: number, to: number): number {
  const a = Math.round(from * 48_000);
  const b = Math.round(to * 48_000);
  let sum = 0;
  for (let i = a; i < b; i++) sum += samples[i]! * samples[i]!;
  return sum / (b - a);
}

const db = (ratio: number) => 10 * Math.log10(ratio);

describe('voice capture graphs (Chromium Web Audio, OfflineAudioContext)', () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let signal: SpeechWithClicks;

  beforeAll(async () => {
    signal = addClicksBetweenWords(
      speak('The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs. How vexingly quick daft zebras jump.', {
        wordsPerMinute: 150,
        wordGapSeconds: 0.15,
      }),
    );
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 320, height: 240 } });
    errors = collectPageErrors(page);
    // The voice page without joining: it carries the module's classes as cairn.voiceModule.
    await page.goto(`${base}/voice.html?join=0`);
    await page.waitForFunction(() => window.cairn?.ready === true && !!window.cairn.voiceModule, undefined, { timeout: 60_000 });
  });

  afterAll(async () => browser?.close());

  it('the RNNoise worklet removes keyboard clicks between words (≥ 10 dB) and keeps the speech (≤ 3 dB lost)', async () => {
    expect(signal.clicks.length).toBeGreaterThanOrEqual(15);
    const rendered = await page.evaluate(async (input) => {
      const bytes = Uint8Array.from(atob(input), (c) => c.charCodeAt(0));
      const samples = new Float32Array(bytes.buffer);
      const ctx = new OfflineAudioContext(1, samples.length + 4800, 48_000);
      const { CaptureChain } = window.cairn.voiceModule!;
      // The production chain, loading the worklet from its module-relative URL in the built page.
      const chain = await CaptureChain.create(ctx, { mode: 'open' });
      const buffer = ctx.createBuffer(1, samples.length, 48_000);
      buffer.copyToChannel(samples, 0);
      const source = new AudioBufferSourceNode(ctx, { buffer });
      source.connect(chain.input);
      chain.denoiserNode!.connect(ctx.destination);
      source.start();
      const out = await ctx.startRendering();
      // Let the worklet's stats message arrive.
      await new Promise((r) => setTimeout(r, 100));
      const data = out.getChannelData(0);
      let binary = '';
      const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      for (let i = 0; i < raw.length; i += 0x8000) binary += String.fromCharCode(...raw.subarray(i, i + 0x8000));
      return { output: btoa(binary), denoiser: chain.denoiser };
    }, toBase64(signal.mixed));
    expect(rendered.denoiser.state).toBe('on');
    expect(rendered.denoiser.frames).toBeGreaterThan(1000);
    const output = fromBase64(rendered.output);

    // Find the chain's delay from the signal itself rather than trusting the constant.
    const correlation = (lag: number) => {
      let c = 0;
      for (let i = 0; i + lag < signal.mixed.length; i += 2) c += signal.mixed[i]! * output[i + lag]!;
      return c;
    };
    let lag = 0;
    for (let l = 0; l <= 4800; l += 16) if (correlation(l) > correlation(lag)) lag = l;
    expect(lag).toBe(1440); // 10 ms framing + RNNoise's own 20 ms, as documented

    const clickDrop = db(energyIn(output, signal.clicks, lag) / energyIn(signal.mixed, signal.clicks));
    const speechDrop = db(energyIn(output, signal.speech, lag) / energyIn(signal.mixed, signal.speech));
    console.log(
      `[voice] RNNoise worklet: clicks ${clickDrop.toFixed(1)} dB over ${signal.clicks.length} clicks, speech ${speechDrop.toFixed(2)} dB over ${signal.speech.length} frames`,
    );
    expect(clickDrop).toBeLessThanOrEqual(-10);
    expect(speechDrop).toBeGreaterThanOrEqual(-3);
  });

  it('falls back to high-pass + compressor when the worklet cannot load, and the voice still goes through', async () => {
    const result = await page.evaluate(async () => {
      const { CaptureChain } = window.cairn.voiceModule!;
      const render = async (hz: number) => {
        const ctx = new OfflineAudioContext(1, 48_000, 48_000);
        const chain = await CaptureChain.create(ctx, { mode: 'open', workletUrl: '/no-such-worklet.js' });
        const osc = new OscillatorNode(ctx, { frequency: hz });
        const level = new GainNode(ctx, { gain: 0.1 });
        osc.connect(level).connect(chain.input);
        chain.output.connect(ctx.destination);
        osc.start();
        const out = (await ctx.startRendering()).getChannelData(0);
        let sum = 0;
        for (let i = 24_000; i < 48_000; i++) sum += out[i]! * out[i]!;
        return { power: sum / 24_000, denoiser: chain.denoiser };
      };
      return { voice: await render(1000), rumble: await render(30) };
    });
    expect(result.voice.denoiser.state).toBe('failed');
    expect(result.voice.denoiser.error).toMatch(/did not load from .*no-such-worklet\.js/);
    // A 1 kHz tone at −20 dBFS comes out at a healthy level…
    expect(db(result.voice.power)).toBeGreaterThan(-30);
    // …while 30 Hz rumble is cut by the 100 Hz high-pass.
    expect(db(result.rumble.power / result.voice.power)).toBeLessThan(-15);
  });

  it('push-to-talk: the first 20 ms after a press carry the voice, and a release falls silent within 0.4 s', async () => {
    const r = await page.evaluate(async () => {
      const { PushToTalk, PTT_RELEASE_SECONDS } = window.cairn.voiceModule!;
      const ctx = new OfflineAudioContext(1, 48_000 * 2.5, 48_000);
      const ptt = new PushToTalk(ctx, { mode: 'push-to-talk' });
      const osc = new OscillatorNode(ctx, { frequency: 440 });
      const level = new GainNode(ctx, { gain: 0.5 });
      osc.connect(level).connect(ptt.node).connect(ctx.destination);
      osc.start();
      const times: { press: number; release: number } = { press: 0, release: 0 };
      void ctx.suspend(0.5).then(() => {
        times.press = ctx.currentTime;
        ptt.press();
        void ctx.resume();
      });
      void ctx.suspend(1.5).then(() => {
        times.release = ctx.currentTime;
        ptt.release();
        void ctx.resume();
      });
      const out = await ctx.startRendering();
      const data = out.getChannelData(0);
      let binary = '';
      const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      for (let i = 0; i < raw.length; i += 0x8000) binary += String.fromCharCode(...raw.subarray(i, i + 0x8000));
      return { output: btoa(binary), times, releaseSeconds: PTT_RELEASE_SECONDS };
    });
    const out = fromBase64(r.output);
    const { press, release } = r.times;
    expect(press).toBeCloseTo(0.5, 2);
    const steady = power(out, press + 0.5, release);
    expect(db(power(out, 0.05, press) / steady)).toBeLessThan(-90); // silent before the press
    // The first syllable survives: the first 20 ms keep most of their energy (≥ −3 dB).
    expect(db(power(out, press, press + 0.02) / steady)).toBeGreaterThan(-3);
    // The release drains rather than cuts: the first 20 ms after letting go still sound…
    expect(db(power(out, release, release + 0.02) / steady)).toBeGreaterThan(-3);
    // …and the output is silent (−60 dB) within the release time.
    expect(r.releaseSeconds).toBe(0.4);
    expect(db(power(out, release + r.releaseSeconds, release + r.releaseSeconds + 0.05) / steady)).toBeLessThan(-60);
  });

  it('the broadcast delay lags by 5 s ± 50 ms, and a dump silences within 50 ms and counts down', async () => {
    const r = await page.evaluate(async () => {
      const { BroadcastDelay } = window.cairn.voiceModule!;
      const seconds = 13;
      const ctx = new OfflineAudioContext(2, 48_000 * seconds, 48_000);
      // Channel 0: a 1 kHz burst at 1.0 s through the delay. Channel 1: a steady tone, dumped at 7.0 s.
      const burstDelay = new BroadcastDelay(ctx);
      const toneDelay = new BroadcastDelay(ctx);
      burstDelay.enable();
      toneDelay.enable();
      const merger = new ChannelMergerNode(ctx, { numberOfInputs: 2 });
      const burst = new OscillatorNode(ctx, { frequency: 1000 });
      const burstGain = new GainNode(ctx, { gain: 0 });
      burstGain.gain.setValueAtTime(0.5, 1.0);
      burstGain.gain.setValueAtTime(0, 1.05);
      burst.connect(burstGain).connect(burstDelay.input);
      burstDelay.output.connect(merger, 0, 0);
      const tone = new OscillatorNode(ctx, { frequency: 300 });
      const toneGain = new GainNode(ctx, { gain: 0.5 });
      tone.connect(toneGain).connect(toneDelay.input);
      toneDelay.output.connect(merger, 0, 1);
      merger.connect(ctx.destination);
      burst.start();
      tone.start();
      const seen: Record<string, { phase: string; resumesIn: number; time: number }> = {};
      const look = (name: string, at: number, action?: () => void) =>
        void ctx.suspend(at).then(() => {
          action?.();
          seen[name] = { phase: toneDelay.phase, resumesIn: toneDelay.resumesIn, time: ctx.currentTime };
          void ctx.resume();
        });
      look('building', 2);
      look('on', 6.5);
      look('dump', 7, () => toneDelay.dump());
      look('counting', 9);
      look('back', 12.5);
      const out = await ctx.startRendering();
      const pack = (data: Float32Array) => {
        let binary = '';
        const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        for (let i = 0; i < raw.length; i += 0x8000) binary += String.fromCharCode(...raw.subarray(i, i + 0x8000));
        return btoa(binary);
      };
      return { burst: pack(out.getChannelData(0)), tone: pack(out.getChannelData(1)), seen };
    });
    const burst = fromBase64(r.burst);
    const tone = fromBase64(r.tone);

    // Delay: the burst that went in at 1.000 s comes out 5 s later.
    const threshold = 0.1;
    const onset = burst.findIndex((v) => Math.abs(v) > threshold) / 48_000;
    expect(Math.abs(onset - 6.0)).toBeLessThan(0.05);
    expect(power(burst, 0, 5.9)).toBe(0); // nothing came through the bypass leg

    // While building up, the countdown runs; then the delayed voice is on air.
    expect(r.seen.building!.phase).toBe('building');
    expect(r.seen.building!.resumesIn).toBeCloseTo(3, 1);
    expect(r.seen.on!.phase).toBe('on');

    // Dump at 7 s: silent within 50 ms, countdown from 5 s, audio back 5 s later.
    const dumpAt = r.seen.dump!.time;
    expect(r.seen.dump!.phase).toBe('dumped');
    expect(r.seen.dump!.resumesIn).toBeCloseTo(5, 2);
    expect(r.seen.counting!.resumesIn).toBeCloseTo(5 - (r.seen.counting!.time - dumpAt), 2);
    const before = power(tone, 6.5, dumpAt);
    expect(db(power(tone, dumpAt + 0.05, dumpAt + 0.1) / before)).toBeLessThan(-60);
    expect(power(tone, dumpAt + 0.1, dumpAt + 4.9)).toBeLessThan(before * 1e-6);
    expect(r.seen.back!.phase).toBe('on');
    expect(db(power(tone, dumpAt + 5.2, 12.9) / before)).toBeGreaterThan(-1);
  });

  it('left no page errors', () => {
    expect(errors).toEqual([]);
  });
});
