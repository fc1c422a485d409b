/**
 * The cost of N spatial voices (8, 16, 32) in Chromium:
 * 1. main thread: one frame of the SpatialMixer's updates — the listener moves, and every voice
 *    gets a new position (the worst case; peers send at ≤ 10 Hz) — for N HRTF voices fed by real
 *    MediaStreams, against the 8-voice baseline;
 * 2. audio thread: an OfflineAudioContext rendering N HRTF panners against N equal-power panners
 *    (same sources, same settings), as a real-time factor.
 * Same-run, interleaved rounds.
 */
import { median, printComparison, type Measured } from '../lib/measure.ts';
import { withVoicePage } from './lib/voice-page.ts';

const COUNTS = [8, 16, 32];

await withVoicePage(async (page) => {
  const main = await page.evaluate(
    async ({ counts }) => {
      const { SpatialMixer } = window.cairn.voiceModule as typeof import('../../src/voice/index.ts');
      const ctx = new AudioContext({ sampleRate: 48_000 });
      await ctx.resume();
      const setups = counts.map((n) => {
        const mixer = new SpatialMixer(ctx);
        for (let id = 1; id <= n; id++) {
          const osc = new OscillatorNode(ctx, { frequency: 200 + id * 10 });
          const dest = ctx.createMediaStreamDestination();
          osc.connect(dest);
          osc.start();
          mixer.addStream(id, dest.stream);
        }
        return { n, mixer };
      });
      const frames = 240;
      const samples: Record<number, number[]> = Object.fromEntries(counts.map((n) => [n, [] as number[]]));
      let t = 0;
      for (let round = 0; round < 7; round++) {
        for (const { n, mixer } of setups) {
          const start = performance.now();
          for (let f = 0; f < frames; f++) {
            t += 1 / 60;
            mixer.setListener({ x: Math.sin(t) * 5, y: 0, z: Math.cos(t) * 5, facing: t });
            for (let id = 1; id <= n; id++)
              mixer.setPeerPosition(id, { x: Math.cos(t + id) * 10, y: 0, z: Math.sin(t * 0.5 + id) * 10, facing: 0 });
          }
          if (round > 0) samples[n]!.push((performance.now() - start) / frames);
        }
      }
      for (const { mixer } of setups) mixer.dispose();
      await ctx.close();
      return samples;
    },
    { counts: COUNTS },
  );
  printComparison(
    'main thread: ms per frame (listener + every voice moved)',
    COUNTS.map((n): Measured => ({ name: `${n} HRTF voices`, msPerCall: median(main[n]!), calls: 6 * 240 })),
  );

  // Chromium can deadlock an offline render against its HRTF database loader (hrtf-probe.ts,
  // docs/voice.md): seen about 1 run in 5 here before the realtime warm-up below. Should it
  // happen anyway, fail with a clear message instead of hanging.
  const run = await withDeadline(
    120_000,
    "loading HRTF and the offline renders did not finish in 120 s (Chromium's HRTF loader can deadlock an offline render, docs/voice.md). Run the benchmark again.",
    page.evaluate(
      async ({ counts }) => {
        const { VOICE_PANNER, HrtfProbe } = window.cairn.voiceModule as typeof import('../../src/voice/index.ts');
        // Load the HRTF database in a realtime context first, and keep that context open while the
        // offline renders run: an offline render that reaches an HRTF panner before Chromium's
        // loader thread has started can wait for it forever (hrtf-probe.ts, docs/voice.md).
        const holder = new AudioContext({ sampleRate: 48_000 });
        await holder.resume();
        await new HrtfProbe(holder, { intervalMs: 50 }).ready;
        const seconds = 4;
        const render = async (n: number, model: PanningModelType) => {
          const ctx = new OfflineAudioContext(2, 48_000 * seconds, 48_000);
          for (let i = 0; i < n; i++) {
            const osc = new OscillatorNode(ctx, { frequency: 150 + i * 17, type: 'sawtooth' });
            const panner = new PannerNode(ctx, {
              ...VOICE_PANNER,
              panningModel: model,
              positionX: Math.cos(i) * 5,
              positionZ: Math.sin(i) * 5,
            });
            panner.positionX.linearRampToValueAtTime(-Math.cos(i) * 5, seconds);
            osc.connect(panner).connect(ctx.destination);
            osc.start();
          }
          const start = performance.now();
          await ctx.startRendering();
          return performance.now() - start;
        };
        await render(8, 'HRTF'); // warm-up (JIT, the render thread)
        // Without its database Chromium's HRTF panner copies its input to both ears, and the HRTF
        // rows would time a pass-through: check that broadband noise 1 m to the right is heard louder on the right.
        const check = new OfflineAudioContext(2, 48_000, 48_000);
        const noise = check.createBuffer(1, 48_000, 48_000);
        noise.getChannelData(0).forEach((_, i, data) => (data[i] = ((Math.sin(i * 12.9898) * 43758.5453) % 1) * 0.5));
        const probe = new AudioBufferSourceNode(check, { buffer: noise });
        probe.connect(new PannerNode(check, { ...VOICE_PANNER, panningModel: 'HRTF', positionX: 1 })).connect(check.destination);
        probe.start();
        const heard = await check.startRendering();
        const { rms, toDb, hrtfIsPanning } = window.cairn.voiceModule as typeof import('../../src/voice/index.ts');
        const ears = [toDb(rms(heard.getChannelData(0))), toDb(rms(heard.getChannelData(1)))] as const;
        if (!hrtfIsPanning(ears[0], ears[1]))
          return {
            error: `HRTF is not panning in this browser (left ${ears[0].toFixed(1)} dB, right ${ears[1].toFixed(1)} dB): its database did not load, so HRTF would be timed as a pass-through`,
          };
        const result: Record<string, number[]> = {};
        for (let round = 0; round < 3; round++) {
          for (const n of counts) {
            for (const model of ['equalpower', 'HRTF'] as const)
              (result[`${n} ${model}`] ??= []).push((await render(n, model)) / (seconds * 1000));
          }
        }
        await holder.close();
        return { result, ild: ears[1] - ears[0] };
      },
      { counts: COUNTS },
    ),
  );
  if ('error' in run) throw new Error(run.error);
  const audio = run.result;
  console.log(`\nHRTF check: a source 1 m to the right is ${run.ild.toFixed(1)} dB louder in the right ear (HRTF data loaded)`);
  for (const n of COUNTS) {
    printComparison(
      `audio thread: ${n} voices, render time per second of audio (ms of CPU per ms of sound)`,
      (['equalpower', 'HRTF'] as const).map((model): Measured => ({
        name: `${n} ${model} panners`,
        msPerCall: median(audio[`${n} ${model}`]!),
        calls: 3,
      })),
    );
  }
});

/** `work`, or a rejection with `message` after `ms`. */
function withDeadline<T>(ms: number, message: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
