import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LOUDNESS_TARGETS, type PlayCounters, type SoundClass } from '../../src/audio/index.ts';
import { audioStats } from '../harness/audio.ts';
import { collectPageErrors, launchChromium, MEDIA_ARGS, openPage, waitForCairn } from '../harness/browser.ts';

/**
 * Voice limits, cooldowns and class budgets judged on the audio clock, whatever order the calls
 * come in: seeded offline renders through the pre-rolled mix bus on a real OfflineAudioContext,
 * measured with the BS.1770 meter as the loudness bands are (loudness-targets.ts), each in both
 * call orders; one pile-up played live against its offline render; and the start queue on a
 * context that takes longer than the queue's age bound to start.
 */
const base = inject('serverUrl');

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium({ args: MEDIA_ARGS });
});
afterAll(async () => browser?.close());

/** One play() call: a recipe at `t` seconds into the render. */
interface Call {
  recipe: string;
  params: Record<string, unknown>;
  t: number;
}

interface Measured {
  /** Highest momentary loudness (400 ms), LUFS. */
  momentaryMax: number;
  truePeakDb: number;
  /** Seconds from the render's start to the first sample above −60 dBFS. */
  firstAudible: number;
  /** Longest run of exact zeros between the first audible sample and `silenceUntil`, seconds. */
  longestSilence: number;
  counters: PlayCounters;
}

/** Renders `calls` (in call order `order`) through the mix bus, seeded, and measures the result. */
function render(
  page: Page,
  calls: Call[],
  order: 'earliest first' | 'latest first',
  duration: number,
  silenceUntil = 0,
): Promise<Measured> {
  return page.evaluate(
    async ({ calls, order, duration, silenceUntil }) => {
      const A = window.cairn.sfx!.audio;
      const sorted = [...calls].sort((a, b) => a.t - b.t);
      if (order === 'latest first') sorted.reverse();
      let counters = {} as PlayCounters;
      const buffer = await A.renderScene(
        duration,
        (graph, start) => {
          for (const call of sorted) graph.play(call.recipe, call.params, { at: start + call.t });
          counters = { ...graph.counters };
        },
        { mix: {} },
      );
      const channels = A.channelsOf(buffer);
      const reading = A.measureLoudness(channels, buffer.sampleRate);
      const [left, right] = channels as [Float32Array, Float32Array];
      let first = -1;
      let silence = 0;
      let run = 0;
      const end = Math.min(left.length, Math.round(silenceUntil * buffer.sampleRate));
      for (let i = 0; i < left.length; i++) {
        const a = Math.max(Math.abs(left[i]!), Math.abs(right[i]!));
        if (first < 0 && a > 1e-3) first = i;
        if (first >= 0 && i < end) {
          run = a === 0 ? run + 1 : 0;
          silence = Math.max(silence, run);
        }
      }
      return {
        momentaryMax: reading.momentaryMax,
        truePeakDb: A.toDb(reading.truePeak),
        firstAudible: first / buffer.sampleRate,
        longestSilence: silence / buffer.sampleRate,
        counters,
      };
    },
    { calls, order, duration, silenceUntil },
  );
}

const every = (count: number, spacing: number, recipe: string, params: Record<string, unknown> = {}): Call[] =>
  Array.from({ length: count }, (_, i) => ({ recipe, params, t: i * spacing }));

const ORDERS = ['earliest first', 'latest first'] as const;

describe('limits, cooldowns and class budgets in audio time (offline, through the bus)', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await openPage(browser, { width: 640, height: 480 });
    errors = collectPageErrors(page);
    await page.goto(`${base}/sfx.html?seed=1234`);
    await waitForCairn(page);
  });
  afterAll(async () => page?.close());

  it('lets six groans 350 ms apart (limit 2, oldest steals) sound from their starts in both call orders', async () => {
    for (const order of ORDERS) {
      const m = await render(page, every(6, 0.35, 'groan'), order, 3.2, 2.0);
      console.info(
        `six groans, ${order}: first heard ${m.firstAudible.toFixed(3)} s, longest digital silence ${m.longestSilence.toFixed(3)} s, played ${m.counters.played}, stolen ${m.counters.stolen}`,
      );
      // Before: 1.4 s of digital silence, the first heard 1.53 s late, only the last two played.
      expect(m.firstAudible, order).toBeLessThan(0.1);
      expect(m.longestSilence, order).toBeLessThan(0.01);
      // Each groan sounds until the one two after it starts (0.7 s): six played, four stolen while sounding.
      expect(m.counters.played, order).toBe(6);
      expect(m.counters.stolen, order).toBe(4);
      expect(m.counters.refused, order).toBe(0);
    }
    expect(errors).toEqual([]);
  });

  it('keeps the first strikes of fifty 10 ms apart, the same in both call orders, inside the impacts band', async () => {
    const [min, max] = LOUDNESS_TARGETS.impacts.range;
    const results: Measured[] = [];
    for (const order of ORDERS) {
      const m = await render(page, every(50, 0.01, 'strike'), order, 1.5);
      results.push(m);
      console.info(
        `fifty strikes 10 ms apart, ${order}: first heard ${m.firstAudible.toFixed(3)} s, M max ${m.momentaryMax.toFixed(2)} LUFS, ${m.truePeakDb.toFixed(2)} dBTP, played ${m.counters.played}, skipped ${m.counters.skippedCooldown}, stolen ${m.counters.stolen}`,
      );
      // Before: the first 256 ms lost; M max −10.8 LUFS, −1.15 dBTP with 8 voices at once.
      expect(m.firstAudible, order).toBeLessThan(0.02);
      expect(m.momentaryMax, order).toBeLessThanOrEqual(max);
      expect(m.momentaryMax, order).toBeGreaterThanOrEqual(min);
      expect(m.truePeakDb, order).toBeLessThanOrEqual(LOUDNESS_TARGETS.impacts.truePeakDb);
      // Every call is accounted for: played, skipped by the cooldown, or refused by a limit or the budget.
      expect(m.counters.played, order).toBeGreaterThanOrEqual(4);
      expect(m.counters.played + m.counters.skippedCooldown + m.counters.refused, order).toBe(50);
    }
    // The cooldown takes the same strikes in both orders (one every 30 ms: 16 of the 50).
    expect(results[1]!.counters.skippedCooldown).toBe(results[0]!.counters.skippedCooldown);
    expect(50 - results[0]!.counters.skippedCooldown).toBeGreaterThanOrEqual(13);
  });

  it('holds cooldowns whatever the call order: fifty strikes inside 49 ms, latest first, play as two', async () => {
    const one = await render(page, every(1, 0, 'strike'), 'earliest first', 1.2);
    for (const order of ORDERS) {
      const m = await render(page, every(50, 0.001, 'strike'), order, 1.2);
      console.info(
        `fifty strikes inside 49 ms, ${order}: ${(m.momentaryMax - one.momentaryMax).toFixed(2)} LU over one strike, ${m.truePeakDb.toFixed(2)} dBTP, played ${m.counters.played}`,
      );
      // Before, latest first: all fifty played, +3.7 LU over one strike and −0.80 dBTP.
      expect(m.counters.played, order).toBe(2);
      expect(m.counters.skippedCooldown, order).toBe(48);
      expect(m.momentaryMax - one.momentaryMax, order).toBeLessThan(1.5);
      expect(m.truePeakDb, order).toBeLessThanOrEqual(LOUDNESS_TARGETS.impacts.truePeakDb);
    }
  });

  it('holds every triggered class to its band and true-peak cap however many triggers arrive', async () => {
    // Each class's sounds at their loudest parameters, every 10 ms for two seconds.
    const floods: Record<Exclude<SoundClass, 'ambience' | 'music'>, Call[]> = {
      impacts: [
        ...every(200, 0.01, 'strike', { intensity: 1.5 }),
        ...every(200, 0.01, 'crack-line', { intensity: 1.5, count: 24 }),
        ...every(200, 0.01, 'groan', { intensity: 1.5 }),
      ],
      footsteps: [
        ...every(200, 0.01, 'footstep', { surface: 'leaves', intensity: 2 }),
        ...every(200, 0.01, 'land', { surface: 'stone', impact: 40 }),
        ...every(200, 0.01, 'jump', { surface: 'leaves' }),
      ],
      ui: [...every(200, 0.01, 'chime', { streak: 7 }), ...every(200, 0.01, 'ui-click'), ...every(200, 0.01, 'ui-confirm')],
    };
    const failures: string[] = [];
    for (const [soundClass, calls] of Object.entries(floods) as [keyof typeof floods, Call[]][]) {
      const target = LOUDNESS_TARGETS[soundClass];
      for (const order of ORDERS) {
        const m = await render(page, calls, order, 3);
        const line = `${soundClass} flood, ${order}: M max ${m.momentaryMax.toFixed(2)} LUFS (${target.range.join('…')}), ${m.truePeakDb.toFixed(2)} dBTP (cap ${target.truePeakDb}), played ${m.counters.played} of ${calls.length}`;
        console.info(line);
        if (m.momentaryMax > target.range[1] || m.momentaryMax < target.range[0] || m.truePeakDb > target.truePeakDb) failures.push(line);
      }
    }
    expect(failures.join('\n')).toBe('');
  });

  it('plays a pile-up live as it renders offline (budget gains and steals on the live context)', async () => {
    await page.mouse.click(320, 30);
    await expect.poll(async () => (await audioStats(page)).state, { timeout: 10_000 }).toBe('running');
    await expect.poll(async () => (await audioStats(page)).loudness.source, { timeout: 10_000 }).toBe('worklet');
    const result = await page.evaluate(async () => {
      const { cairn } = window;
      const engine = cairn.audio!;
      const A = cairn.sfx!.audio;
      const context = engine.context!;
      const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
      engine.setMusic(false);
      engine.setAmbience({ wind: 0 });
      await sleep(2500);
      engine.setSeed(1234);
      engine.resetMeters();
      await sleep(200);
      const at = context.currentTime + 0.15;
      // Latest first, scheduled ahead: the order that used to lose the first strikes.
      for (let i = 49; i >= 0; i--) engine.play('strike', {}, { at: at + i * 0.01 });
      while (context.currentTime < at + 1.6) await sleep(50);
      await sleep(150);
      const live = { momentary: engine.stats.loudness.momentaryMax, truePeak: engine.stats.loudness.truePeakMaxDb };
      const buffer = await A.renderScene(
        1.6,
        (graph, start) => {
          for (let i = 49; i >= 0; i--) graph.play('strike', {}, { at: start + i * 0.01 });
        },
        { mix: {}, sampleRate: context.sampleRate },
      );
      const reading = A.measureLoudness(A.channelsOf(buffer), buffer.sampleRate);
      engine.setMusic(true);
      engine.setAmbience({ wind: 0.5 });
      return { live, offline: { momentary: reading.momentaryMax, truePeak: A.toDb(reading.truePeak) } };
    });
    console.info(
      `fifty strikes latest first, live vs offline: M max ${result.live.momentary.toFixed(2)} / ${result.offline.momentary.toFixed(2)} LUFS, ${result.live.truePeak.toFixed(2)} / ${result.offline.truePeak.toFixed(2)} dBTP`,
    );
    expect(Math.abs(result.live.momentary - result.offline.momentary)).toBeLessThan(1);
    expect(Math.abs(result.live.truePeak - result.offline.truePeak)).toBeLessThan(1);
    expect(result.live.momentary).toBeLessThanOrEqual(LOUDNESS_TARGETS.impacts.range[1]);
    expect(errors).toEqual([]);
  });
});

describe('the start queue on a slow start', () => {
  it('keeps sounds asked for before the gesture through a start slower than the age bound, and says why it drops a stale one', async () => {
    const page = await openPage(browser, { width: 640, height: 480 });
    const errors = collectPageErrors(page);
    // A device that takes 1.2 s to start (longer than the queue's 1 s age bound, shorter than the
    // 1.5 s before sound is called blocked): a real context, suspended as a browser creates it
    // (headless Chromium here would start it at once), whose resume() settles 1.2 s late.
    await page.addInitScript(() => {
      const Native = window.AudioContext;
      window.AudioContext = class SlowToStart extends Native {
        constructor(options?: AudioContextOptions) {
          super(options);
          void Native.prototype.suspend.call(this);
        }
        override resume(): Promise<void> {
          return new Promise((resolve, reject) => setTimeout(() => Native.prototype.resume.call(this).then(resolve, reject), 1200));
        }
      };
    });
    await page.goto(`${base}/sfx.html?seed=1234`);
    await waitForCairn(page);
    // A strike 1.3 s before the gesture (stale by then), a click at the gesture.
    await page.evaluate(() => window.cairn.audio!.play('strike'));
    await page.waitForTimeout(1300);
    await page.evaluate(() => window.cairn.audio!.play('ui-click'));
    expect((await audioStats(page)).queued).toBe(2);
    await page.mouse.click(320, 30);
    await expect.poll(async () => (await audioStats(page)).state, { timeout: 10_000 }).toBe('running');
    const s = await audioStats(page);
    console.info(`slow start: played ${JSON.stringify(s.byRecipe)}, dropped ${s.dropped} (${s.dropReason})`);
    // Before: both dropped (the click had waited 1.2 s for the context), counted but not said why.
    expect(s.byRecipe['ui-click']).toBe(1);
    expect(s.byRecipe.strike ?? 0).toBe(0);
    expect(s.dropped).toBe(1);
    expect(s.droppedBy).toEqual({ full: 0, stale: 1, unavailable: 0, disposed: 0 });
    expect(s.dropReason).toMatch(/1 queued call\(s\) \(strike\) waited up to 1\.\d s before sound was asked to start \(limit 1\.0 s\)/);
    expect(errors).toEqual([]);
    await page.close();
  });
});
