import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  compareSummaries,
  GAMEPLAY_SLICE,
  GOLDEN_CASES,
  RECIPE_NAMES,
  softClip,
  SOFT_CLIP_CEILING,
  SOFT_CLIP_KNEE,
  type RenderSummary,
} from '../../src/audio/index.ts';
import { audioStats, measureOutput, setTabHidden } from '../harness/audio.ts';
import { collectPageErrors, launchChromium, MEDIA_ARGS, openPage, waitForCairn } from '../harness/browser.ts';
import { ROOT } from '../harness/server.ts';

/**
 * The sound page in real Chromium: real AudioContext, real mix bus, real AnalyserNodes after the
 * soft clipper; golden renders on a real OfflineAudioContext. `?seed=1234` is the test seed.
 * Set CAIRN_UPDATE_AUDIO_GOLDENS=1 to rewrite tests/fixtures/audio/goldens.json after a deliberate
 * recipe change (and say so in the commit).
 */
const base = inject('serverUrl');
const GOLDENS = resolve(ROOT, 'tests/fixtures/audio/goldens.json');
const updateGoldens = process.env.CAIRN_UPDATE_AUDIO_GOLDENS === '1';

// One browser for the file; each page gets its own context (fresh storage, fresh audio).
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium({ args: MEDIA_ARGS });
});
afterAll(async () => browser?.close());

describe('the sound page (sfx.html)', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await openPage(browser, { width: 800, height: 600 });
    errors = collectPageErrors(page);
    await page.goto(`${base}/sfx.html?seed=1234`);
    await waitForCairn(page);
  });
  afterAll(async () => page?.close());

  it('creates nothing before a gesture, then builds the whole bus on the first pointerdown', async () => {
    // Even with autoplay allowed, nothing exists until the user acts.
    const before = await audioStats(page);
    expect(before.state).toBe('waiting');
    expect(before.contexts).toBe(0);
    expect(await page.evaluate(() => window.cairn.audio!.context)).toBeNull();
    // A sound asked for before the gesture waits in the queue (reported), and plays when sound starts.
    expect(await page.evaluate(() => window.cairn.audio!.play('ui-click'))).toBeNull();
    expect((await audioStats(page)).queued).toBe(1);

    await page.mouse.click(400, 30);
    await expect.poll(async () => (await audioStats(page)).state, { timeout: 10_000 }).toBe('running');
    const started = await audioStats(page);
    expect(started.queued).toBe(0);
    expect(started.byRecipe['ui-click']).toBe(1);
    expect(started.dropped).toBe(0);
    const bus = await page.evaluate(() => {
      const b = window.cairn.audio!.graph!.bus!;
      const curve = b.clipper.curve!;
      return {
        highpass: [b.highpass.type, b.highpass.frequency.value],
        compressor: [
          b.compressor.threshold.value,
          b.compressor.ratio.value,
          b.compressor.knee.value,
          b.compressor.attack.value,
          b.compressor.release.value,
        ],
        lowpass: [b.lowpass.type, b.lowpass.frequency.value],
        makeup: b.makeup.gain.value,
        limiter: [b.limiter.threshold.value, b.limiter.ratio.value],
        oversample: b.clipper.oversample,
        curveEnds: [curve[0], curve[curve.length - 1], curve[(curve.length - 1) / 2]],
      };
    });
    expect(bus.highpass).toEqual(['highpass', 35]);
    expect(bus.compressor[0]).toBe(-16);
    expect(bus.compressor[1]).toBe(4);
    expect(bus.compressor[2]).toBe(10);
    expect(bus.compressor[3]).toBeCloseTo(0.004, 5);
    expect(bus.compressor[4]).toBeCloseTo(0.2, 5);
    expect(bus.lowpass).toEqual(['lowpass', 18000]);
    expect(bus.makeup).toBe(2.25);
    expect(bus.limiter).toEqual([-3, 20]);
    expect(bus.oversample).toBe('2x');
    expect(bus.curveEnds[0]).toBeCloseTo(-softClip(1), 3);
    expect(bus.curveEnds[1]).toBeCloseTo(softClip(1), 3);
    expect(bus.curveEnds[2]).toBe(0);

    // Music and wind start with the sound, and the page's meters show the level from cairn.stats.
    await expect.poll(async () => (await audioStats(page)).rms, { timeout: 10_000 }).toBeGreaterThan(0.005);
    const s = await audioStats(page);
    expect(s.music).toBe(true);
    expect(s.chord).toMatch(/^(Am|F|C|G)$/);
    // Every sample is metered in the AudioWorklet: LUFS and true peak are live.
    await expect.poll(async () => (await audioStats(page)).loudness.source, { timeout: 10_000 }).toBe('worklet');
    await expect.poll(async () => (await audioStats(page)).loudness.shortTerm, { timeout: 10_000 }).toBeGreaterThan(-40);
    // The meters redraw on their own beat, a moment behind the stats.
    await expect
      .poll(async () => Number.parseFloat(await page.locator('#meter-rms-db').innerText()), { timeout: 10_000 })
      .toBeGreaterThan(-60);
    expect(Number.parseFloat(await page.locator('#meter-rms-db').innerText())).toBeLessThan(0);
  });

  it('keeps a scripted slice of gameplay in band after the soft clipper', async () => {
    const before = await audioStats(page);
    const m = await measureOutput(page, 10, 'slice');
    console.info(
      `gameplay slice after the soft clipper: median RMS ${m.median.toFixed(4)}, peak ${m.peak.toFixed(4)}, ${m.readings} readings, longest gap ${m.longestGap.toFixed(2)} s`,
    );
    // Every sample was inside some reading, so the peak is the real peak.
    expect(m.longestGap).toBeLessThan(m.windowSeconds);
    expect(m.readings).toBeGreaterThan(30);
    expect(m.median).toBeGreaterThan(0.04);
    expect(m.median).toBeLessThan(0.14);
    expect(m.peak).toBeLessThan(0.95);
    // Every scripted event really played through the engine: none skipped or refused.
    const s = await audioStats(page);
    const expected: Record<string, number> = {};
    for (const event of GAMEPLAY_SLICE.events) expected[event.recipe] = (expected[event.recipe] ?? 0) + 1;
    for (const [recipe, count] of Object.entries(expected))
      expect((s.byRecipe[recipe] ?? 0) - (before.byRecipe[recipe] ?? 0), recipe).toBe(count);
    expect(s.refused).toBe(before.refused);
    expect(s.maxPeak).toBeLessThan(0.95);
  });

  it('saturates twenty simultaneous strikes softly: no sample beyond the clipper ceiling', async () => {
    const live = await measureOutput(page, 1.2, 'flood');
    expect(live.longestGap).toBeLessThan(live.windowSeconds);
    // Loud enough to be in the clipper's bend, never past its ceiling.
    expect(live.peak).toBeGreaterThan(SOFT_CLIP_KNEE);
    expect(live.peak).toBeLessThan(SOFT_CLIP_CEILING);

    // The same through the same bus offline: every sample of both channels checked.
    const offline = await page.evaluate(async () => {
      const A = window.cairn.sfx!.audio;
      const buffer = await A.renderScene(
        2.5,
        (graph, start) => {
          graph.music.start(start);
          graph.schedule(start + 2.5);
          for (let i = 0; i < 20; i++) graph.play('strike', { intensity: 1.5 }, { at: start + 1.2, bypassGuards: true });
        },
        { mix: {} },
      );
      const [l, r] = A.channelsOf(buffer);
      let max = 0;
      for (const channel of [l!, r!]) for (const s of channel) max = Math.max(max, Math.abs(s));
      const dry = await A.renderScene(0.8, (graph) => {
        for (let i = 0; i < 20; i++) graph.play('strike', { intensity: 1.5 }, { at: 0.01, bypassGuards: true });
      });
      return { max, dryPeak: A.measureLevel(...A.channelsOf(dry)).peak };
    });
    // Twenty strikes dry would be far beyond full scale; the bus holds them under the ceiling.
    console.info(
      `twenty strikes: live peak ${live.peak.toFixed(4)}, offline peak ${offline.max.toFixed(4)} (dry sum ${offline.dryPeak.toFixed(2)})`,
    );
    expect(offline.dryPeak).toBeGreaterThan(3);
    expect(offline.max).toBeGreaterThan(SOFT_CLIP_KNEE + 0.05);
    expect(offline.max).toBeLessThan(SOFT_CLIP_CEILING);
  });

  it('holds a flood of triggers with cooldowns and voice limits (stealing with a short fade)', async () => {
    const before = await audioStats(page);
    const result = await page.evaluate(() => {
      const { cairn } = window;
      const engine = cairn.audio!;
      const graph = engine.graph!;
      const now = engine.context!.currentTime + 0.05;
      // 100 strikes in one instant: the 30 ms cooldown lets one through.
      const burst = Array.from({ length: 100 }, () => engine.play('strike', { intensity: 1 }, { at: now }));
      // 40 strikes 35 ms apart (each past the cooldown, each ringing ~0.4 s): the voice limit steals.
      for (let i = 0; i < 40; i++) engine.play('strike', { intensity: 1 }, { at: now + 0.1 + i * 0.035 });
      // The most strikes sounding together at any moment of the run.
      let most = 0;
      for (let t = now; t < now + 2; t += 0.002) most = Math.max(most, graph.limiter.soundingAt(t, { sound: 'strike' }));
      // Six crack-lines scheduled ahead, the later ones asked for first: never more than 3 at once.
      const t1 = now + 0.9;
      for (let i = 5; i >= 0; i--) engine.play('crack-line', { count: 8 }, { at: t1 + i * 0.05 });
      let cracks = 0;
      for (let t = t1; t < t1 + 1; t += 0.002) cracks = Math.max(cracks, graph.limiter.soundingAt(t, { sound: 'crack-line' }));
      // Guards off skip cooldowns and per-sound limits, never the effects bus limit.
      const t2 = now + 1.5;
      const guardsOff = Array.from({ length: 30 }, () => engine.play('strike', { intensity: 0.5 }, { at: t2, bypassGuards: true }));
      const busMost = graph.limiter.soundingAt(t2 + 0.01, { bus: 'effects' });
      return {
        played: burst.filter(Boolean).length,
        most,
        limit: graph.limiter.limitFor('strike').max,
        cracks,
        guardsOffPlayed: guardsOff.filter(Boolean).length,
        busMost,
      };
    });
    expect(result.played).toBe(1);
    // Never more than the limit at once (the impacts budget may keep the pile below it).
    expect(result.most).toBeLessThanOrEqual(result.limit);
    expect(result.most).toBeGreaterThan(1);
    expect(result.cracks).toBeLessThanOrEqual(3);
    expect(result.cracks).toBeGreaterThan(1);
    // Thirty at one instant with guards off: the bus holds 24 (the strikes already ringing give way,
    // then the last six asked for are refused; none is stolen before it has sounded).
    expect(result.guardsOffPlayed).toBe(24);
    expect(result.busMost).toBe(24);
    const after = await audioStats(page);
    expect(after.skippedCooldown - before.skippedCooldown).toBe(99);
    // The strikes past the limit were stolen while sounding or refused (by the limit or the budget).
    expect(after.stolen - before.stolen + after.refused - before.refused).toBeGreaterThanOrEqual(40 - result.limit - 2);
    const m = await measureOutput(page, 1.8);
    expect(m.peak).toBeLessThan(0.95);
  });

  it('mutes within 120 ms on M, stays muted while the tab is hidden and shown, and unmutes on M', async () => {
    // A 0.74 s analyser window, connected before the key press and read soon after 120 ms. Samples
    // are located by audio time, so a late reading (a busy main thread) still looks at the right moments.
    await page.evaluate(async () => {
      const { cairn } = window;
      const context = cairn.audio!.context!;
      const tap = new cairn.sfx!.audio.MeterTap(context, cairn.audio!.graph!.bus!.output, 32768);
      const record = (): void => void Object.assign(window, { muteAt: context.currentTime, muteTap: tap });
      window.addEventListener('keydown', record, { once: true, capture: true });
      // The analyser only holds what it heard since it was connected: let it hear 0.25 s before the
      // press, or the "sound before" window would read the zeros from before it existed.
      const connected = context.currentTime;
      while (context.currentTime < connected + 0.25) await new Promise((r) => setTimeout(r, 5));
    });
    await page.keyboard.press('KeyM');
    const after = await page.evaluate(async () => {
      const { cairn } = window;
      const context = cairn.audio!.context!;
      const { muteAt: at, muteTap: tap } = window as unknown as { muteAt: number; muteTap: import('../../src/audio/index.ts').MeterTap };
      while (context.currentTime < at + 0.14) await new Promise((r) => setTimeout(r, 5));
      const readAt = context.currentTime;
      tap.read();
      const [left, right] = tap.samples;
      const indexOf = (time: number): number => Math.round(left.length - (readAt - time) * context.sampleRate);
      const slice = (from: number, to: number): number =>
        cairn.sfx!.audio.measureLevel(left.subarray(indexOf(from), indexOf(to)), right.subarray(indexOf(from), indexOf(to))).peak;
      const result = {
        before: slice(at - 0.15, at - 0.01),
        by120: slice(at + 0.1, at + 0.12),
        lateBy: readAt - at,
        window: left.length / context.sampleRate,
        muted: cairn.audio!.muted,
      };
      tap.dispose();
      return result;
    });
    expect(after.muted).toBe(true);
    // The analyser window still reaches back past the key press.
    expect(after.lateBy + 0.15).toBeLessThan(after.window);
    // Sound before, silence from (at the latest) 100–120 ms after the press.
    expect(after.before).toBeGreaterThan(0.005);
    expect(after.by120).toBeLessThan(1e-4);

    await setTabHidden(page, true);
    await expect.poll(async () => (await audioStats(page)).contextState, { timeout: 10_000 }).toBe('suspended');
    expect((await audioStats(page)).state).toBe('suspended');
    await setTabHidden(page, false);
    await expect.poll(async () => (await audioStats(page)).state, { timeout: 10_000 }).toBe('running');
    // Shown again: still muted, still silent.
    expect((await audioStats(page)).muted).toBe(true);
    expect((await measureOutput(page, 0.5)).peak).toBeLessThan(1e-4);

    await page.keyboard.press('KeyM');
    expect((await audioStats(page)).muted).toBe(false);
    expect((await measureOutput(page, 1)).median).toBeGreaterThan(0.005);
  });

  it('muffles the world behind the pause menu and leaves menu sounds clear', async () => {
    const bands = await page.evaluate(async () => {
      const A = window.cairn.sfx!.audio;
      /** Energy above 3 kHz, in dB, of a sound rendered through the bus (pre-rolled, so the bus is at rest). */
      const high = async (recipe: string, muffled: boolean): Promise<number> => {
        const buffer = await A.renderScene(0.8, (graph, start) => graph.play(recipe, {}, { at: start, bypassGuards: true }), {
          mix: {},
          muffled,
        });
        const summary = A.summariseRender(A.channelsOf(buffer), buffer.sampleRate);
        const power = summary.bandsDb.reduce((sum, db, i) => (summary.bandEdgesHz[i]! >= 3000 ? sum + 10 ** (db / 10) : sum), 0);
        return 10 * Math.log10(power);
      };
      return {
        strikeOpen: await high('strike', false),
        strikeMuffled: await high('strike', true),
        clickOpen: await high('ui-click', false),
        clickMuffled: await high('ui-click', true),
      };
    });
    expect(bands.strikeOpen - bands.strikeMuffled).toBeGreaterThan(20);
    expect(Math.abs(bands.clickOpen - bands.clickMuffled)).toBeLessThan(1);

    // Live: the checkbox pauses, the cutoff sweeps down, the HUD figure says so.
    await page.locator('#paused').check();
    await expect
      .poll(() => page.evaluate(() => window.cairn.audio!.graph!.bus!.lowpass.frequency.value), {
        timeout: 5_000,
      })
      .toBeLessThan(1000);
    expect((await audioStats(page)).paused).toBe(true);
    await page.locator('#paused').uncheck();
    await expect
      .poll(() => page.evaluate(() => window.cairn.audio!.graph!.bus!.lowpass.frequency.value), {
        timeout: 5_000,
      })
      .toBeGreaterThan(15000);
  });

  it('plays the crystal chime on the chord the music is playing, one chord tone higher per pickup', async () => {
    const result = await page.evaluate(async () => {
      const { cairn } = window;
      const A = cairn.sfx!.audio;
      const graph = cairn.audio!.graph!;
      // The streak as the engine counts it, 0.2 s apart.
      const t0 = cairn.audio!.context!.currentTime + 0.05;
      const steps: number[] = [];
      for (let i = 0; i < 4; i++) {
        cairn.audio!.play('chime', {}, { at: t0 + i * 0.2 });
        steps.push(graph.streak.current);
      }
      const chord = graph.chordAt(t0);
      // Render the chime offline for each streak step and find its strongest partial.
      const fundamentals: number[] = [];
      for (const streak of [0, 1, 2]) {
        const buffer = await A.renderRecipe('chime', { streak }, { channels: 1 });
        const samples = buffer.getChannelData(0).subarray(0, 16384);
        const power = A.powerSpectrum(samples, 16384);
        let best = 0;
        for (let k = 1; k < power.length; k++) if (power[k]! > power[best]!) best = k;
        fundamentals.push((best * buffer.sampleRate) / 16384);
      }
      const tonic = A.CAIRN_PROGRESSION.chords[0]!;
      return { steps, chord: chord.name, fundamentals, expected: [0, 1, 2].map((s) => A.midiToHz(A.chimeMidi(tonic, s))) };
    });
    expect(result.steps).toEqual([0, 1, 2, 3]);
    expect(['Am', 'F', 'C', 'G']).toContain(result.chord);
    for (let i = 0; i < 3; i++) expect(Math.abs(result.fundamentals[i]! - result.expected[i]!)).toBeLessThan(4);
    // Am from E5: E5, A5, C6.
    expect(result.expected.map((f) => Math.round(f))).toEqual([659, 880, 1047]);
  });

  it('matches the golden render of every recipe, and a changed recipe does not', async () => {
    const summaries = await page.evaluate(async () => {
      const A = window.cairn.sfx!.audio;
      const out: Record<string, RenderSummary> = {};
      for (const golden of A.GOLDEN_CASES) out[golden.id] = await A.renderGoldenCase(golden);
      // Negative control: the strike's own plan with every pitch 25 % higher.
      const random = new A.AudioRandom(1234);
      const plan = A.RECIPES.strike.plan(
        { intensity: 1 },
        { vary: (v, a) => random.vary(v, a), range: (a, b) => random.range(a, b), chord: A.CAIRN_PROGRESSION.chords[0]! },
      );
      const raised = plan.map((layer) => ({ ...layer, f0: layer.f0 * 1.25, f1: layer.f1 * 1.25 }));
      const buffer = await A.renderLayers(raised, { sampleRate: 48000, channels: 2 });
      out['strike-raised'] = A.summariseRender(A.channelsOf(buffer), buffer.sampleRate);
      // Another seed: the same recipe, different variation.
      out['strike-seed-99'] = await A.renderGoldenCase(A.GOLDEN_CASES[0]!, { seed: 99 });
      return out;
    });
    if (updateGoldens || !existsSync(GOLDENS)) {
      if (!updateGoldens) throw new Error(`${GOLDENS} is missing. Run the browser test with CAIRN_UPDATE_AUDIO_GOLDENS=1 to create it.`);
      const goldens = Object.fromEntries(GOLDEN_CASES.map((c) => [c.id, summaries[c.id]]));
      mkdirSync(dirname(GOLDENS), { recursive: true });
      writeFileSync(GOLDENS, `${JSON.stringify(goldens)}\n`);
    }
    const goldens = JSON.parse(readFileSync(GOLDENS, 'utf8')) as Record<string, RenderSummary>;
    expect(Object.keys(goldens).sort()).toEqual(GOLDEN_CASES.map((c) => c.id).sort());
    const failures: string[] = [];
    for (const golden of GOLDEN_CASES) {
      const comparison = compareSummaries(summaries[golden.id]!, goldens[golden.id]!);
      if (!comparison.ok) failures.push(`${golden.id}:\n  ${comparison.problems.join('\n  ')}`);
    }
    expect(failures.join('\n')).toBe('');
    // Each golden is a real sound, not silence.
    for (const golden of GOLDEN_CASES) expect(goldens[golden.id]!.peak, golden.id).toBeGreaterThan(0.01);
    // A recipe that changed (pitch) fails its golden; so does the same strike with another seed's variation.
    expect(compareSummaries(summaries['strike-raised']!, goldens.strike!).ok).toBe(false);
    expect(compareSummaries(summaries['strike-seed-99']!, goldens.strike!).ok).toBe(false);
    // And different recipes never pass for each other.
    expect(compareSummaries(summaries['footstep-grass']!, goldens['footstep-stone']!).ok).toBe(false);
  });

  it('recovers when the platform suspends or closes the context, keeping the mute', async () => {
    const start = await audioStats(page);
    await page.evaluate(() => window.cairn.audio!.context!.suspend());
    await expect.poll(async () => (await audioStats(page)).recoveries, { timeout: 10_000 }).toBe(start.recoveries + 1);
    await expect.poll(async () => (await audioStats(page)).state, { timeout: 10_000 }).toBe('running');

    await page.evaluate(() => window.cairn.audio!.setMuted(true));
    await page.evaluate(() => window.cairn.audio!.context!.close());
    await expect.poll(async () => (await audioStats(page)).contexts, { timeout: 10_000 }).toBe(start.contexts + 1);
    await expect.poll(async () => (await audioStats(page)).state, { timeout: 10_000 }).toBe('running');
    const s = await audioStats(page);
    expect(s.recoveries).toBe(start.recoveries + 2);
    expect(s.muted).toBe(true);
    expect((await measureOutput(page, 0.4)).peak).toBeLessThan(1e-4);
    await page.evaluate(() => window.cairn.audio!.setMuted(false));
    // The new context makes sound: music is back and a strike plays.
    await page.evaluate(() => window.cairn.audio!.play('strike'));
    expect((await measureOutput(page, 0.6)).peak).toBeGreaterThan(0.05);
    expect((await audioStats(page)).music).toBe(true);
  });

  it('meters loudness and true peak on every sample, and an offline render through the pre-rolled bus equals the live sound', async () => {
    const result = await page.evaluate(async () => {
      const { cairn } = window;
      const engine = cairn.audio!;
      const A = cairn.sfx!.audio;
      const context = engine.context!;
      const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
      // The bus at rest: no music, no wind, the compressor released.
      engine.setMusic(false);
      engine.setAmbience({ wind: 0 });
      await sleep(2500);
      engine.setSeed(1234);
      engine.resetMeters();
      await sleep(200);
      const at = context.currentTime + 0.1;
      engine.play('strike', { intensity: 1 }, { at });
      while (context.currentTime < at + 1.2) await sleep(50);
      await sleep(150);
      const s = engine.stats;
      const live = {
        peakDb: A.toDb(s.maxPeak),
        truePeakDb: s.loudness.truePeakMaxDb,
        shortTerm: s.loudness.shortTermMax,
        momentary: s.loudness.momentaryMax,
      };
      const measure = async (preRoll?: number): Promise<typeof live> => {
        const buffer = await A.renderRecipe('strike', { intensity: 1 }, { mix: {}, sampleRate: context.sampleRate, preRoll });
        const m = A.measureLoudness(A.channelsOf(buffer), buffer.sampleRate);
        return { peakDb: A.toDb(m.samplePeak), truePeakDb: A.toDb(m.truePeak), shortTerm: m.shortTermMax, momentary: m.momentaryMax };
      };
      const offline = await measure();
      const cold = await measure(0);
      engine.setMusic(true);
      engine.setAmbience({ wind: 0.5 });
      return { live, offline, cold };
    });
    console.info(
      `strike live vs offline: peak ${result.live.peakDb.toFixed(2)} / ${result.offline.peakDb.toFixed(2)} dBFS (cold bus ${result.cold.peakDb.toFixed(2)}), short-term ${result.live.shortTerm.toFixed(2)} / ${result.offline.shortTerm.toFixed(2)} LUFS (cold ${result.cold.shortTerm.toFixed(2)})`,
    );
    // The worklet saw the whole transient (a 46 ms analyser window read 20 times a second did not).
    expect(result.live.peakDb).toBeGreaterThan(-8);
    expect(result.live.truePeakDb).toBeGreaterThanOrEqual(result.live.peakDb - 0.01);
    expect(Math.abs(result.live.peakDb - result.offline.peakDb)).toBeLessThan(1);
    expect(Math.abs(result.live.shortTerm - result.offline.shortTerm)).toBeLessThan(1);
    expect(Math.abs(result.live.momentary - result.offline.momentary)).toBeLessThan(1);
    // Without the pre-roll the cold compressor holds the strike down far more than 1 dB.
    expect(result.offline.peakDb - result.cold.peakDb).toBeGreaterThan(6);
    // The page draws the same figures.
    await expect.poll(async () => (await page.locator('#meter-source').innerText()).includes('dBTP'), { timeout: 5_000 }).toBe(true);
  });

  it("puts every recipe in its class's loudness band across its parameters (LOUDNESS_TARGETS)", async () => {
    const results = await page.evaluate(() => {
      const A = window.cairn.sfx!.audio;
      return A.measureLoudnessCases(A.LOUDNESS_CASES);
    });
    console.info(
      results
        .map(
          (r) =>
            `${r.ok ? 'ok ' : 'BAD'} ${r.soundClass.padEnd(9)} ${r.id.padEnd(24)} ${r.lufs.toFixed(1).padStart(6)} LUFS ${r.truePeakDb.toFixed(1).padStart(6)} dBTP`,
        )
        .join('\n'),
    );
    const failures = results
      .filter((r) => !r.ok)
      .map((r) => `${r.id} (${r.soundClass}${r.nominal ? ', nominal' : ''}): ${r.lufs.toFixed(1)} LUFS, ${r.truePeakDb.toFixed(1)} dBTP`);
    expect(failures.join('\n')).toBe('');
    // Every recipe is checked, in one class.
    const recipes = new Set(results.map((r) => r.id.split(' ')[0]));
    for (const name of RECIPE_NAMES) expect(recipes.has(name), name).toBe(true);
  });

  it('is silent about an unknown recipe in production and loud about it in development', async () => {
    const result = await page.evaluate(() => {
      const { cairn } = window;
      const before = cairn.stats.audio!.unknown;
      const voice = cairn.audio!.play('thunderclap');
      const invalid = cairn.audio!.play('footstep', { surface: 'lava' } as never);
      let strictError = '';
      const strict = new cairn.sfx!.audio.AudioEngine({ strict: true, storageKey: null, muteKey: null });
      try {
        strict.play('thunderclap');
      } catch (error) {
        strictError = (error as Error).message;
      }
      strict.dispose();
      return { voice, invalid, unknown: cairn.stats.audio!.unknown - before, strictError, pageStrict: cairn.audio!.strict };
    });
    // The page is a production build: bad names and parameters are silent there.
    expect(result.pageStrict).toBe(false);
    expect(result.voice).toBeNull();
    expect(result.invalid).toBeNull();
    expect(result.unknown).toBe(1);
    expect(result.strictError).toMatch(/Unknown sound recipe "thunderclap"\. Known recipes: strike, crack-line/);
    expect(errors).toEqual([]);
  });
});

describe('sound unavailable or blocked', () => {
  it('runs silently with a small notice where there is no Web Audio', async () => {
    const page = await openPage(browser, { width: 640, height: 480 });
    const errors = collectPageErrors(page);
    await page.addInitScript(() => {
      delete (window as unknown as { AudioContext?: unknown }).AudioContext;
      delete (window as unknown as { webkitAudioContext?: unknown }).webkitAudioContext;
    });
    await page.goto(`${base}/sfx.html`);
    await waitForCairn(page);
    await page.mouse.click(300, 30);
    await expect.poll(async () => (await audioStats(page)).state, { timeout: 5_000 }).toBe('unavailable');
    await expect.poll(() => page.locator('.cairn-notice').innerText()).toMatch(/Sound is unavailable[\s\S]*runs silently/);
    // The page keeps working: sounds are silent no-ops, the mute key still answers, nothing throws.
    expect(await page.evaluate(() => window.cairn.audio!.play('strike'))).toBeNull();
    await page.keyboard.press('KeyM');
    expect((await audioStats(page)).muted).toBe(true);
    const s = await audioStats(page);
    expect(s.dropped).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says sound is blocked, and starts on the next gesture when the browser allows it', async () => {
    const page = await openPage(browser, { width: 640, height: 480 });
    const errors = collectPageErrors(page);
    // Headless Chromium never enforces the autoplay policy, so emulate a browser that keeps a new
    // context suspended (resume() pending) until a later user gesture, as Chrome does when blocked.
    await page.addInitScript(() => {
      const Native = window.AudioContext;
      let gestures = 0;
      window.addEventListener('pointerdown', () => gestures++, true);
      window.AudioContext = class BlockedUntilSecondGesture extends Native {
        private readonly allowedFrom = gestures + 1;
        constructor(options?: AudioContextOptions) {
          super(options);
          void Native.prototype.suspend.call(this);
        }
        override resume(): Promise<void> {
          return gestures >= this.allowedFrom ? Native.prototype.resume.call(this) : new Promise<void>(() => undefined);
        }
      };
    });
    await page.goto(`${base}/sfx.html`);
    await waitForCairn(page);
    await page.mouse.click(300, 30);
    await expect.poll(async () => (await audioStats(page)).state, { timeout: 10_000 }).toBe('blocked');
    await expect.poll(() => page.locator('.cairn-notice').innerText()).toMatch(/Sound is waiting for you[\s\S]*Click or press any key/);
    await page.mouse.click(300, 30);
    await expect.poll(async () => (await audioStats(page)).state, { timeout: 10_000 }).toBe('running');
    await expect.poll(() => page.locator('.cairn-notice').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
