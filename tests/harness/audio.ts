import type { Page } from 'playwright-core';
import type * as AudioModule from '../../src/audio/index.ts';
import type { AudioEngine, AudioStats } from '../../src/audio/index.ts';

/** What the sound page publishes as `cairn.sfx`. */
export interface SfxLab {
  audio: typeof AudioModule;
  playSlice(): number;
  flood(count?: number): number;
}

/** Typed accessors for code that runs inside the page. */
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
 * Reads the live output after the soft clipper with its own AnalyserNodes (one per channel, 32768
 * samples ≈ 0.7 s, read every 100 ms) while `action` runs on the page: `slice` plays the scripted
 * gameplay slice, `flood` twenty strikes at once, `none` just listens. Every sample is covered by
 * some reading as long as `longestGap` < `windowSeconds`, so `peak` is the true peak.
 */
export function measureOutput(page: Page, seconds: number, action: 'slice' | 'flood' | 'none' = 'none'): Promise<OutputMeasurement> {
  return page.evaluate(
    async ({ seconds, action }) => {
      const { cairn } = window as unknown as AudioWindow;
      const engine = cairn.audio;
      const A = cairn.sfx.audio;
      const context = engine.context!;
      const tap = new A.MeterTap(context, engine.graph!.bus!.output, 32768);
      const windowSeconds = 32768 / context.sampleRate;
      // Let the analyser fill with what is playing before the action starts.
      const begin = context.currentTime;
      const start = action === 'slice' ? cairn.sfx.playSlice() : action === 'flood' ? cairn.sfx.flood() : begin;
      const end = start + seconds;
      const blocks: number[] = [];
      let peak = 0;
      let last = begin;
      let longestGap = 0;
      await new Promise<void>((resolve) => {
        const id = setInterval(() => {
          const now = context.currentTime;
          tap.read();
          const [left, right] = tap.samples;
          const n = left.length;
          if (now >= start) blocks.push(A.measureLevel(left.subarray(n - 2048), right.subarray(n - 2048)).rms);
          peak = Math.max(peak, A.measureLevel(left, right).peak);
          longestGap = Math.max(longestGap, now - last);
          last = now;
          if (now >= end) {
            clearInterval(id);
            resolve();
          }
        }, 100);
      });
      tap.dispose();
      return { blocks, median: A.median(blocks), peak, longestGap, windowSeconds, readings: blocks.length };
    },
    { seconds, action },
  );
}

/** `cairn.stats.audio`, copied out of the page. */
export function audioStats(page: Page): Promise<AudioStats> {
  return page.evaluate(() => JSON.parse(JSON.stringify((window as unknown as AudioWindow).cairn.stats.audio)));
}

/** Emulates the tab being hidden or shown (headless pages are always visible). */
export async function setTabHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((hidden) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}
