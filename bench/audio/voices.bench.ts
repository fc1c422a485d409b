/**
 * Voices sustained per frame budget: how many simultaneous strikes the audio thread renders before
 * it underruns, against the cheapest possible voice (one oscillator under one gain) as the peer.
 * Two measures, both in Chromium:
 * - live: N voices kept sounding in the real AudioContext while AudioContext.playbackStats counts
 *   underruns; the largest N with none is the figure;
 * - offline: an OfflineAudioContext renders N voices as fast as it can; audio-thread time per
 *   voice per 128-frame render quantum, and how many fit in one quantum's real-time budget.
 */
import type { AudioWindow } from '../../tests/harness/audio.ts';
import { withSfxPage } from './lib/sfx-page.ts';

interface Figures {
  sampleRate: number;
  baseLatency: number;
  outputLatency: number;
  quantumUs: number;
  offline: Record<string, { usPerVoiceQuantum: number; voicesPerQuantum: number }>;
  live: Record<string, { sustained: number; firstUnderrun: number | null; baseline: number; steps: Array<[number, number]> }>;
  playbackStats: boolean;
}

const figures = await withSfxPage((page) =>
  page.evaluate(async (): Promise<Figures> => {
    const { cairn } = window as unknown as AudioWindow;
    const A = cairn.sfx.audio;
    const engine = cairn.audio;
    const context = engine.context!;
    engine.setMusic(false);
    engine.setAmbience({ wind: 0 });
    engine.setMuted(true);
    const quantumUs = (128 / context.sampleRate) * 1e6;
    // The effects bus holds 24 voices in the product; the stress renders lift that cap so the figure
    // measures the audio thread, not the limiter.
    const stressLimits = { perBus: { effects: { max: 4096, steal: 'oldest' as const } } };
    const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

    /** A bare sine voice: the peer every recipe is compared with. */
    const sineLayers = [A.tone('sine', 440, 440, 0, 0.005, 0.45, 0.1)];

    // Offline: render 2 s of N voices, started every 0.5 s, and time it.
    const offline: Figures['offline'] = {};
    for (const [name, play] of [
      ['sine voice', (g: InstanceType<typeof A.AudioGraph>, at: number) => g.playLayers('sine', 'effects', sineLayers, at, true)],
      ['strike', (g: InstanceType<typeof A.AudioGraph>, at: number) => g.play('strike', {}, { at, bypassGuards: true })],
    ] as const) {
      const voices = 64;
      const seconds = 2;
      const started = performance.now();
      await A.renderScene(
        seconds,
        (graph) => {
          for (let at = 0; at < seconds; at += 0.5) for (let i = 0; i < voices; i++) play(graph, at);
        },
        { mix: {}, sampleRate: context.sampleRate, limits: stressLimits, preRoll: 0 },
      );
      const ms = performance.now() - started;
      const quanta = (seconds * context.sampleRate) / 128;
      const usPerVoiceQuantum = (ms * 1000) / quanta / voices;
      offline[name] = { usPerVoiceQuantum, voicesPerQuantum: quantumUs / usPerVoiceQuantum };
    }

    // Live: keep N voices sounding for 2 s (retriggered every 0.45 s) and count underruns, against
    // the underruns of the same 2 s with no voices at all (a busy machine underruns on its own).
    const playback = (): number => (context as AudioContext & { playbackStats: { underrunEvents: number } }).playbackStats.underrunEvents;
    const hold = async (n: number, play: (at: number) => unknown): Promise<number> => {
      await wait(600);
      const before = playback();
      const end = context.currentTime + 2;
      for (let at = context.currentTime + 0.05; at < end; at += 0.45) {
        for (let i = 0; i < n; i++) play(at);
        while (context.currentTime < at) await wait(20);
      }
      await wait(500);
      return playback() - before;
    };
    const live: Figures['live'] = {};
    if ('playbackStats' in context) {
      const graph = new A.AudioGraph(context, { mix: {}, limits: stressLimits });
      for (const [name, play] of [
        ['sine voice', (at: number) => graph.playLayers('sine', 'effects', sineLayers, at, true)],
        ['strike', (at: number) => graph.play('strike', {}, { at, bypassGuards: true })],
      ] as const) {
        const baseline = await hold(0, play);
        const steps: Array<[number, number]> = [[0, baseline]];
        let sustained = 0;
        let firstUnderrun: number | null = null;
        for (let n = 4; n <= 2048; n *= 2) {
          const underruns = await hold(n, play);
          steps.push([n, underruns]);
          if (underruns > baseline + 2) {
            firstUnderrun = n;
            break;
          }
          sustained = n;
        }
        live[name] = { sustained, firstUnderrun, baseline, steps };
      }
      graph.dispose();
    }
    return {
      sampleRate: context.sampleRate,
      baseLatency: context.baseLatency,
      outputLatency: context.outputLatency,
      quantumUs,
      offline,
      live,
      playbackStats: 'playbackStats' in context,
    };
  }),
);

const sineOffline = figures.offline['sine voice']!;
const strikeOffline = figures.offline.strike!;
console.log(
  `\n## voices sustained per frame budget (Chromium, ${figures.sampleRate} Hz, render quantum ${figures.quantumUs.toFixed(0)} µs, base latency ${(figures.baseLatency * 1000).toFixed(0)} ms, output latency ${(figures.outputLatency * 1000).toFixed(0)} ms)`,
);
console.log('\noffline render, full mix bus, 64 voices × 2 s:');
console.log(`${'voice'.padEnd(12)}  ${'µs / voice / quantum'.padStart(22)}  ${'voices per quantum budget'.padStart(26)}  vs sine voice`);
for (const [name, f] of Object.entries(figures.offline)) {
  console.log(
    `${name.padEnd(12)}  ${f.usPerVoiceQuantum.toFixed(3).padStart(22)}  ${f.voicesPerQuantum.toFixed(0).padStart(26)}  × ${(f.usPerVoiceQuantum / sineOffline.usPerVoiceQuantum).toPrecision(3)} cost${name === 'sine voice' ? ' (baseline)' : ''}`,
  );
}
if (figures.playbackStats) {
  console.log(
    '\nlive AudioContext, voices held for 2 s, AudioContext.playbackStats underruns (a step fails above the no-voice baseline + 2):',
  );
  console.log(
    `${'voice'.padEnd(12)}  ${'sustained'.padStart(10)}  ${'first underrun at'.padStart(18)}  vs sine voice   steps [voices, underruns]`,
  );
  const sineLive = figures.live['sine voice']!;
  for (const [name, f] of Object.entries(figures.live)) {
    console.log(
      `${name.padEnd(12)}  ${String(f.sustained).padStart(10)}  ${String(f.firstUnderrun ?? '> 2048').padStart(18)}  × ${(f.sustained / Math.max(1, sineLive.sustained)).toPrecision(3)}${name === 'sine voice' ? ' (baseline)' : ''}   ${JSON.stringify(f.steps)}`,
    );
  }
} else {
  console.log('\n(AudioContext.playbackStats is not available in this browser: no live underrun figure)');
}
console.log(
  `\nA strike costs ${(strikeOffline.usPerVoiceQuantum / sineOffline.usPerVoiceQuantum).toFixed(1)}× a bare sine voice; ${strikeOffline.voicesPerQuantum.toFixed(0)} strikes fill one core's render budget offline.`,
);
