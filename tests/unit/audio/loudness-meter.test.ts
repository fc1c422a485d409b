import { describe, expect, it } from 'vitest';
import { kWeighting, LOUDNESS_FLOOR, LoudnessMeter, measureLoudness } from '../../../src/audio/meter/loudness-meter.ts';
import { toDb } from '../../../src/core/decibels.ts';
import { Mulberry32 } from '../../../src/core/rng.ts';

const SR = 48000;

/** A sine of `freq` Hz with its peak at `dbfs` (EBU Tech 3341 levels are sine peaks). */
function sine(freq: number, seconds: number, dbfs: number, phase = 0, rate = SR): Float64Array {
  const out = new Float64Array(Math.round(seconds * rate));
  const a = 10 ** (dbfs / 20);
  for (let i = 0; i < out.length; i++) out[i] = a * Math.sin((2 * Math.PI * freq * i) / rate + phase);
  return out;
}

function concat(...parts: Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Feeds the meter in render-quantum blocks (128 samples), as the worklet does. */
function meterInBlocks(channels: Float64Array[], rate = SR, block = 128): LoudnessMeter {
  const meter = new LoudnessMeter(rate, { channels: channels.length });
  for (let at = 0; at < channels[0]!.length; at += block) {
    const n = Math.min(block, channels[0]!.length - at);
    meter.process(
      channels.map((c) => c.subarray(at, at + n)),
      n,
    );
  }
  return meter;
}

// ── An independent reference, written plainly: the standard's 48 kHz coefficients typed in,
// direct-form I filters in float64, every gating block kept, true peak by zero-stuffing and a
// full 48-tap convolution. ─────────────────────────────────────────────────────────────────────
const REF_STAGE1 = { b: [1.53512485958697, -2.69169618940638, 1.19839281085285], a: [1, -1.69065929318241, 0.73248077421585] };
const REF_STAGE2 = { b: [1, -2, 1], a: [1, -1.99004745483398, 0.99007225036621] };
// BS.1770-4 Annex 2, the 48 coefficients in their published interleaved order (h[4k + p]).
const REF_FIR = (() => {
  const phases = [
    [
      0.001708984375, 0.010986328125, -0.0196533203125, 0.033203125, -0.0594482421875, 0.1373291015625, 0.97216796875, -0.102294921875,
      0.047607421875, -0.026611328125, 0.014892578125, -0.00830078125,
    ],
    [
      -0.0291748046875, 0.029296875, -0.0517578125, 0.089111328125, -0.16650390625, 0.465087890625, 0.77978515625, -0.2003173828125,
      0.1015625, -0.0582275390625, 0.0330810546875, -0.0189208984375,
    ],
    [
      -0.0189208984375, 0.0330810546875, -0.0582275390625, 0.1015625, -0.2003173828125, 0.77978515625, 0.465087890625, -0.16650390625,
      0.089111328125, -0.0517578125, 0.029296875, -0.0291748046875,
    ],
    [
      -0.00830078125, 0.014892578125, -0.026611328125, 0.047607421875, -0.102294921875, 0.97216796875, 0.1373291015625, -0.0594482421875,
      0.033203125, -0.0196533203125, 0.010986328125, 0.001708984375,
    ],
  ];
  const h = new Array<number>(48);
  for (let k = 0; k < 12; k++) for (let p = 0; p < 4; p++) h[4 * k + p] = phases[p]![k]!;
  return h;
})();

function refFilter(x: Float64Array, { b, a }: { b: number[]; a: number[] }): Float64Array {
  const y = new Float64Array(x.length);
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let n = 0; n < x.length; n++) {
    const v = b[0]! * x[n]! + b[1]! * x1 + b[2]! * x2 - a[1]! * y1 - a[2]! * y2;
    x2 = x1;
    x1 = x[n]!;
    y2 = y1;
    y1 = v;
    y[n] = v;
  }
  return y;
}

function refLoudness(channels: Float64Array[]): { integrated: number; momentary: number[]; shortTerm: number[] } {
  const weighted = channels.map((c) => refFilter(refFilter(c, REF_STAGE1), REF_STAGE2));
  const step = SR / 10;
  const meanSquare = (from: number, to: number): number => {
    let total = 0;
    for (const c of weighted) {
      let sum = 0;
      for (let i = Math.max(0, from); i < to; i++) sum += c[i]! * c[i]!;
      total += sum / (to - from);
    }
    return total;
  };
  const lufs = (power: number): number => (power > 0 ? -0.691 + 10 * Math.log10(power) : -Infinity);
  const blocks: number[] = [];
  const momentary: number[] = [];
  const shortTerm: number[] = [];
  for (let end = step; end <= weighted[0]!.length; end += step) {
    const m = meanSquare(end - 4 * step, end);
    momentary.push(lufs(m));
    shortTerm.push(lufs(meanSquare(end - 30 * step, end)));
    if (end >= 4 * step) blocks.push(m);
  }
  const absolute = blocks.filter((p) => lufs(p) > -70);
  const mean = (list: number[]): number => list.reduce((s, p) => s + p, 0) / list.length;
  const gate = lufs(mean(absolute)) - 10;
  const relative = absolute.filter((p) => lufs(p) > gate);
  return { integrated: lufs(mean(relative)), momentary, shortTerm };
}

function refTruePeak(x: Float64Array): number {
  let peak = 0;
  for (let n = 0; n < x.length; n++) peak = Math.max(peak, Math.abs(x[n]!));
  // Zero-stuff to 4×, convolve with the 48 taps.
  for (let m = 0; m < 4 * x.length; m++) {
    let y = 0;
    for (let j = 0; j < 48; j++) {
      const i = m - j;
      if (i >= 0 && i % 4 === 0) y += REF_FIR[j]! * x[i / 4]!;
    }
    peak = Math.max(peak, Math.abs(y));
  }
  return peak;
}

describe('LoudnessMeter (ITU-R BS.1770-4, EBU R 128)', () => {
  it('designs the K-weighting filter that the standard tabulates at 48 kHz', () => {
    const [s1, s2] = kWeighting(48000);
    expect(s1.b0).toBeCloseTo(REF_STAGE1.b[0]!, 12);
    expect(s1.b1).toBeCloseTo(REF_STAGE1.b[1]!, 12);
    expect(s1.b2).toBeCloseTo(REF_STAGE1.b[2]!, 12);
    expect(s1.a1).toBeCloseTo(REF_STAGE1.a[1]!, 12);
    expect(s1.a2).toBeCloseTo(REF_STAGE1.a[2]!, 12);
    expect(s2.a1).toBeCloseTo(REF_STAGE2.a[1]!, 12);
    expect(s2.a2).toBeCloseTo(REF_STAGE2.a[2]!, 12);
  });

  it('reads a stereo 1 kHz tone at −23 dBFS as −23.0 LUFS momentary, short-term and integrated (EBU Tech 3341 case 1)', () => {
    const tone = sine(1000, 20, -23);
    const r = meterInBlocks([tone, tone]).read();
    expect(Math.abs(r.momentary + 23)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(r.shortTerm + 23)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(r.integrated + 23)).toBeLessThanOrEqual(0.1);
    // And at −33 dBFS (case 2), at 44.1 kHz, where the filters are designed rather than tabulated.
    const quiet = sine(1000, 10, -33, 0, 44100);
    const q = meterInBlocks([quiet, quiet], 44100).read();
    expect(Math.abs(q.integrated + 33)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(q.shortTerm + 33)).toBeLessThanOrEqual(0.1);
  });

  it('gates quiet passages out of the integrated loudness (EBU Tech 3341 cases 3, 4 and 5)', () => {
    // EBU's durations scaled by 1/5: the gating works on the ratios, and the test stays quick.
    const t = (db: number, s: number): Float64Array => sine(1000, s / 5, db);
    // −36 / −23 / −36: the relative gate drops the −36 dB parts.
    const case3 = concat(t(-36, 10), t(-23, 60), t(-36, 10));
    // −72 / −36 / −23 / −36 / −72: the absolute gate drops −72.
    const case4 = concat(t(-72, 10), t(-36, 10), t(-23, 60), t(-36, 10), t(-72, 10));
    // −26 / −20 / −26: both halves count.
    const case5 = concat(t(-26, 20), t(-20, 20.1), t(-26, 20));
    for (const signal of [case3, case4, case5]) {
      const r = meterInBlocks([signal, signal]).read();
      expect(Math.abs(r.integrated + 23)).toBeLessThanOrEqual(0.1);
    }
    // The relative gate is doing the work: the quiet parts alone read −36 (and would pull the mean down).
    const quiet = t(-36, 10);
    expect(meterInBlocks([quiet, quiet]).read().integrated).toBeCloseTo(-36, 1);
  });

  it('matches the plain reference on noise bursts, at every 100 ms step', () => {
    const rng = new Mulberry32(7);
    const length = SR * 6;
    const left = new Float64Array(length);
    const right = new Float64Array(length);
    for (let i = 0; i < length; i++) {
      // Bursts of 250 ms every 700 ms, left louder than right, with a quiet floor.
      const on = i % Math.round(0.7 * SR) < 0.25 * SR;
      const g = on ? 0.5 : 0.003;
      left[i] = g * (rng.next() * 2 - 1);
      right[i] = 0.4 * g * (rng.next() * 2 - 1);
    }
    const meter = new LoudnessMeter(SR, { channels: 2 });
    const ref = refLoudness([left, right]);
    const step = SR / 10;
    let maxM = -Infinity;
    let maxS = -Infinity;
    for (let k = 0; k < ref.momentary.length; k++) {
      // Odd-sized chunks: sub-block boundaries fall inside them.
      for (let at = k * step; at < (k + 1) * step; at += 1000) {
        const n = Math.min(1000, (k + 1) * step - at);
        meter.process([left.subarray(at, at + n), right.subarray(at, at + n)], n);
      }
      const r = meter.read();
      expect(r.momentary).toBeCloseTo(ref.momentary[k]!, 6);
      expect(r.shortTerm).toBeCloseTo(ref.shortTerm[k]!, 6);
      maxM = Math.max(maxM, ref.momentary[k]!);
      maxS = Math.max(maxS, ref.shortTerm[k]!);
    }
    const r = meter.read();
    expect(r.integrated).toBeCloseTo(ref.integrated, 2);
    expect(r.momentaryMax).toBeCloseTo(maxM, 6);
    expect(r.shortTermMax).toBeCloseTo(maxS, 6);
  });

  it('finds the true peak between samples: a sine at fs/4 with 45° phase reads ≈ 3 dB over its sample peak', () => {
    const x = sine(SR / 4, 1, 0, Math.PI / 4);
    const r = measureLoudness([x, x], SR);
    expect(toDb(r.samplePeak)).toBeCloseTo(-3.01, 2);
    // EBU Tech 3341 case 16 expects 0 dBTP, tolerance +0.2 / −0.4.
    expect(toDb(r.truePeak)).toBeGreaterThan(-0.4);
    expect(toDb(r.truePeak)).toBeLessThan(0.2);
    expect(r.truePeak).toBeCloseTo(refTruePeak(x.subarray(0, 4800)), 9);
  });

  it('reads the overshoot of a full-scale square wave as a true peak above 0 dBFS, like the reference', () => {
    const x = new Float64Array(SR / 2);
    for (let i = 0; i < x.length; i++) x[i] = Math.floor(i / 24) % 2 === 0 ? 1 : -1; // 1 kHz
    const r = measureLoudness([x], SR);
    expect(r.samplePeak).toBe(1);
    expect(toDb(r.truePeak)).toBeGreaterThan(0.5);
    expect(r.truePeak).toBeCloseTo(refTruePeak(x), 9);
    // A 997 Hz sine at 0 dBFS (EBU Tech 3341 case 15): 0 dBTP, +0.2 / −0.4.
    const s = sine(997, 1, 0);
    expect(toDb(measureLoudness([s], SR).truePeak)).toBeGreaterThan(-0.4);
    expect(toDb(measureLoudness([s], SR).truePeak)).toBeLessThan(0.2);
  });

  it('keeps peaks per interval with take(), maxima until reset(), and reads silence at the floor', () => {
    const meter = new LoudnessMeter(SR);
    const loud = sine(1000, 0.5, -6);
    meter.process([loud, loud]);
    const first = meter.take();
    expect(first.samplePeak).toBeCloseTo(10 ** (-6 / 20), 3);
    const silence = new Float64Array(SR);
    meter.process([silence, silence]);
    const second = meter.take();
    expect(second.samplePeak).toBe(0);
    expect(second.rms).toBe(0);
    expect(second.samplePeakMax).toBeCloseTo(10 ** (-6 / 20), 3);
    expect(second.momentary).toBe(LOUDNESS_FLOOR);
    expect(second.momentaryMax).toBeGreaterThan(-10);
    meter.reset();
    const cleared = meter.read();
    expect(cleared.integrated).toBe(LOUDNESS_FLOOR);
    expect(cleared.truePeakMax).toBe(0);
    expect(cleared.seconds).toBe(0);
  });
});

describe('meter-worklet.js', () => {
  it('is generated from the current meter sources', async () => {
    const { readFileSync } = await import('node:fs');
    const { METER_REGENERATE_COMMAND, METER_WORKLET_FILE, meterWorkletSourceHash, recordedMeterSourceHash } =
      await import('../../../src/audio/meter/worklet-source-hash.ts');
    const generated = readFileSync(METER_WORKLET_FILE, 'utf8');
    expect(recordedMeterSourceHash(generated), `meter-worklet.js is stale; regenerate it with: ${METER_REGENERATE_COMMAND}`).toBe(
      meterWorkletSourceHash(),
    );
    expect(generated).toContain('registerProcessor(PROCESSOR_NAME, LoudnessMeterProcessor)');
    expect(generated).not.toMatch(/^\s*import\s/m);
  });
});
