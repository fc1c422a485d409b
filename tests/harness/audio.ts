import type { Page } from 'playwright-core';
import type { SfxLab } from '../../app/sfx.ts';
import type { AudioEngine, AudioStats } from '../../src/audio/index.ts';

/** The sound page's window with its audio handles present (the benches' accessors). */
export type AudioWindow = Window & { cairn: { audio: AudioEngine; sfx: SfxLab; stats: { audio: AudioStats } } };

export interface OutputMeasurement {
  /** RMS of the newest 2048 samples (both channels) at each reading. */
  blocks: number[];
  /** Median of `blocks`. */
  median: number;
  /** Largest |sample| seen after the soft clipper over the whole span. */
  peak: number;
  /** Longest stretch of audio time between readings, s (must stay under the window for full peak coverage). */
  longestGap: number;
  /** Audio seconds one reading's window covers. */
  windowSeconds: number;
  readings: number;
}

/**
 * Reads the live output after the soft clipper with its own AnalyserNodes while `action` runs on
 * the page: `slice` plays the scripted gameplay slice, `flood` twenty strikes at once, `none` just
 * listens. Each reading takes the newest 2048 samples for the RMS blocks; for the peak it reads four
 * 32768-sample analyser pairs behind delay lines of 0, 0.7, 1.4 and 2.1 s, so one reading covers the
 * last ≈ 2.8 s. Every sample is seen as long as `longestGap` < `windowSeconds`, even when the
 * page's main thread stalls (a loaded machine), so `peak` is the true peak.
 */
export function measureOutput(page: Page, seconds: number, action: 'slice' | 'flood' | 'none' = 'none'): Promise<OutputMeasurement> {
  return page.evaluate(
    async ({ seconds, action }) => {
      const { cairn } = window;
      const engine = cairn.audio!;
      const A = cairn.sfx!.audio;
      const context = engine.context!;
      const output = engine.graph!.bus!.output;
      const delays = [0, 0.7, 1.4, 2.1];
      const delayNodes: DelayNode[] = [];
      const taps = delays.map((seconds) => {
        if (seconds === 0) return new A.MeterTap(context, output, 32768);
        const delay = context.createDelay(3);
        delay.delayTime.value = seconds;
        output.connect(delay);
        delayNodes.push(delay);
        return new A.MeterTap(context, delay, 32768);
      });
      const windowSeconds = 32768 / context.sampleRate + delays[delays.length - 1]!;
      const begin = context.currentTime;
      const start = action === 'slice' ? cairn.sfx!.playSlice() : action === 'flood' ? cairn.sfx!.flood() : begin;
      const end = start + seconds;
      const blocks: number[] = [];
      let peak = 0;
      let last = begin;
      let longestGap = 0;
      await new Promise<void>((resolve) => {
        const id = setInterval(() => {
          const now = context.currentTime;
          for (const [i, tap] of taps.entries()) {
            const level = tap.read();
            // The delayed taps hold audio from before the analysers existed as silence: harmless for a peak.
            peak = Math.max(peak, level.peak);
            if (i === 0 && now >= start) {
              const [left, right] = tap.samples;
              const n = left.length;
              blocks.push(A.measureLevel(left.subarray(n - 2048), right.subarray(n - 2048)).rms);
            }
          }
          longestGap = Math.max(longestGap, now - last);
          last = now;
          if (now >= end) {
            clearInterval(id);
            resolve();
          }
        }, 100);
      });
      for (const tap of taps) tap.dispose();
      for (const delay of delayNodes) output.disconnect(delay);
      return { blocks, median: A.median(blocks), peak, longestGap, windowSeconds, readings: blocks.length };
    },
    { seconds, action },
  );
}

/** `cairn.stats.audio`, copied out of the page. */
export function audioStats(page: Page): Promise<AudioStats> {
  return page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.audio)));
}

/** Emulates the tab being hidden or shown (headless pages are always visible). */
export async function setTabHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((hidden) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}
