import { withDefaults } from '../../core/options.ts';

/**
 * Loudness and peak metering as ITU-R BS.1770-4 and EBU R 128 define them, as a pure DSP core with
 * no DOM and no imports: the mix bus's AudioWorklet wraps it (meter-processor.ts), offline renders
 * and Node tests call it directly.
 *
 * - K-weighting: the two biquads of BS.1770-4 (a +4 dB high shelf, then a 38 Hz high-pass), designed
 *   for any sample rate by the bilinear transform from their analogue prototypes (at 48 kHz they
 *   equal the standard's table to its 14 digits).
 * - Loudness of a span: −0.691 + 10·log10(Σ channels' mean square of the K-weighted signal).
 * - Momentary: the last 400 ms; short-term: the last 3 s; both advance every 100 ms.
 * - Integrated: 400 ms gating blocks every 100 ms (75 % overlap), gated twice: absolute −70 LUFS,
 *   then relative −10 LU below the loudness of the blocks that passed the first gate. Blocks are
 *   kept in a 0.01-LU histogram (power sums are exact), so hours of metering take constant memory.
 * - Sample peak: the largest |sample|. True peak: the largest |value| of the signal interpolated 4×
 *   with the 48-tap polyphase filter of BS.1770-4 Annex 2 (never below the sample peak).
 */

/** Reported for silence, where a level in dB would be −∞ (JSON cannot carry −∞). */
export const LOUDNESS_FLOOR = -120;
/** Gating, BS.1770-4 §2.8. */
export const ABSOLUTE_GATE_LUFS = -70;
/** The relative gate, BS.1770-4 §2.8: blocks this far (LU) under the ungated mean are left out. */
export const RELATIVE_GATE_LU = -10;

/** One reading of a {@link LoudnessMeter}. Loudness in LUFS (floored at {@link LOUDNESS_FLOOR}); peaks linear. */
export interface LoudnessReading {
  /** Loudness of the last 400 ms. */
  momentary: number;
  /** Loudness of the last 3 s. */
  shortTerm: number;
  /** Gated loudness since the last reset. */
  integrated: number;
  /** Highest momentary loudness since the last reset. */
  momentaryMax: number;
  /** Highest short-term loudness since the last reset. */
  shortTermMax: number;
  /** Largest |sample| since the previous reading. */
  samplePeak: number;
  /** Largest 4× interpolated |value| since the previous reading. */
  truePeak: number;
  /** Largest |sample| since the last reset. */
  samplePeakMax: number;
  /** Largest true peak since the last reset. */
  truePeakMax: number;
  /** RMS of every sample (all channels) since the previous reading. */
  rms: number;
  /** Seconds metered since the last reset. */
  seconds: number;
}

/** BS.1770-4 Annex 2: the 4 phases × 12 taps of the true-peak interpolator. */
export const TRUE_PEAK_PHASES: readonly (readonly number[])[] = [
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

/** Biquad coefficients, a0 normalised to 1. */
export interface BiquadCoefficients {
  /** Feed-forward coefficient of x[n]. */
  b0: number;
  /** Feed-forward coefficient of x[n−1]. */
  b1: number;
  /** Feed-forward coefficient of x[n−2]. */
  b2: number;
  /** Feedback coefficient of y[n−1]. */
  a1: number;
  /** Feedback coefficient of y[n−2]. */
  a2: number;
}

/** The two K-weighting stages for `sampleRate` (BS.1770-4 §2.1, designed by the bilinear transform). */
export function kWeighting(sampleRate: number): [BiquadCoefficients, BiquadCoefficients] {
  // Stage 1: the head's acoustic effect, a high shelf of +4 dB above ≈ 1.7 kHz.
  const gainDb = 3.999843853973347;
  const f0 = 1681.974450955533;
  const q = 0.7071752369554196;
  const k = Math.tan((Math.PI * f0) / sampleRate);
  const vh = Math.pow(10, gainDb / 20);
  const vb = Math.pow(vh, 0.4996667741545416);
  const a0 = 1 + k / q + k * k;
  const shelf = {
    b0: (vh + (vb * k) / q + k * k) / a0,
    b1: (2 * (k * k - vh)) / a0,
    b2: (vh - (vb * k) / q + k * k) / a0,
    a1: (2 * (k * k - 1)) / a0,
    a2: (1 - k / q + k * k) / a0,
  };
  // Stage 2: the RLB high-pass at ≈ 38 Hz (b = 1, −2, 1, unnormalised, as the standard gives it).
  const f1 = 38.13547087602444;
  const q1 = 0.5003270373238773;
  const k1 = Math.tan((Math.PI * f1) / sampleRate);
  const a01 = 1 + k1 / q1 + k1 * k1;
  const highpass = { b0: 1, b1: -2, b2: 1, a1: (2 * (k1 * k1 - 1)) / a01, a2: (1 - k1 / q1 + k1 * k1) / a01 };
  return [shelf, highpass];
}

/** LUFS of a mean-square power sum (BS.1770-4 eq. 2), floored. */
export function powerToLufs(power: number): number {
  return power > 0 ? Math.max(LOUDNESS_FLOOR, -0.691 + 10 * Math.log10(power)) : LOUDNESS_FLOOR;
}

const HISTOGRAM_LOW = ABSOLUTE_GATE_LUFS;
const HISTOGRAM_STEP = 0.01;
const HISTOGRAM_BINS = 8000; // −70 … +10 LUFS; louder blocks share the top bin (their power still counts exactly)
const TAPS = 12;

/** Options of a {@link LoudnessMeter}. */
export interface LoudnessMeterOptions {
  /** Channels metered (each weighted 1, as for mono and stereo). Default 2. */
  channels?: number;
}

/** Defaults of a {@link LoudnessMeter}: two channels. */
const LOUDNESS_METER_DEFAULTS: Required<LoudnessMeterOptions> = { channels: 2 };

/**
 * A BS.1770-4 / EBU R 128 meter fed block by block ({@link process}) and read at any moment
 * ({@link read}, {@link take}). Pure and allocation-free while metering.
 */
export class LoudnessMeter {
  /** Channels metered. */
  readonly channels: number;
  private readonly stage1: BiquadCoefficients;
  private readonly stage2: BiquadCoefficients;
  /** Per channel: stage 1 and 2 transposed direct-form II state (s1, s2 each). */
  private readonly filterState: Float64Array;
  /** Per channel: 24 samples of interpolator history (each sample written twice, so a window is contiguous). */
  private readonly history: Float64Array;
  private historyIndex = 0;
  private readonly subBlockLength: number;
  private subBlockRemaining: number;
  private subBlockSum = 0;
  /** The last 30 sub-block powers (3 s), a ring. */
  private readonly subBlocks = new Float64Array(30);
  private subBlockCount = 0;
  private readonly histogramCount = new Float64Array(HISTOGRAM_BINS);
  private readonly histogramPower = new Float64Array(HISTOGRAM_BINS);
  private momentaryValue = LOUDNESS_FLOOR;
  private shortTermValue = LOUDNESS_FLOOR;
  private momentaryMax = LOUDNESS_FLOOR;
  private shortTermMax = LOUDNESS_FLOOR;
  private samplePeak = 0;
  private truePeak = 0;
  private samplePeakMax = 0;
  private truePeakMax = 0;
  private squareSum = 0;
  private squareCount = 0;
  private samples = 0;

  /** Sample rate the K-weighting is designed for (Hz). */
  readonly sampleRate: number;

  constructor(sampleRate: number, options: LoudnessMeterOptions = {}) {
    this.sampleRate = sampleRate;
    if (!(sampleRate >= 8000 && sampleRate <= 384000))
      throw new RangeError(`LoudnessMeter: sampleRate must be in [8000, 384000] (got ${sampleRate})`);
    this.channels = withDefaults(LOUDNESS_METER_DEFAULTS, options).channels;
    if (!(Number.isInteger(this.channels) && this.channels >= 1 && this.channels <= 8))
      throw new RangeError(`LoudnessMeter: channels must be 1…8 (got ${this.channels})`);
    [this.stage1, this.stage2] = kWeighting(sampleRate);
    this.filterState = new Float64Array(4 * this.channels);
    this.history = new Float64Array(2 * TAPS * this.channels);
    this.subBlockLength = Math.round(sampleRate / 10);
    this.subBlockRemaining = this.subBlockLength;
  }

  /** Meters `length` samples (default: the first channel's length) of each channel. Missing channels count as silence. */
  process(input: readonly ArrayLike<number>[], length = input[0]?.length ?? 0): void {
    let offset = 0;
    while (offset < length) {
      const n = Math.min(length - offset, this.subBlockRemaining);
      for (let c = 0; c < this.channels; c++) {
        const channel = input[c];
        if (channel) this.processChannel(c, channel, offset, n);
      }
      this.historyIndex = (this.historyIndex + n) % TAPS;
      offset += n;
      this.samples += n;
      this.squareCount += n * this.channels;
      this.subBlockRemaining -= n;
      if (this.subBlockRemaining === 0) this.closeSubBlock();
    }
  }

  /** The figures now, without resetting anything. */
  read(): LoudnessReading {
    return {
      momentary: this.momentaryValue,
      shortTerm: this.shortTermValue,
      integrated: this.integrated(),
      momentaryMax: this.momentaryMax,
      shortTermMax: this.shortTermMax,
      samplePeak: this.samplePeak,
      truePeak: this.truePeak,
      samplePeakMax: this.samplePeakMax,
      truePeakMax: this.truePeakMax,
      rms: this.squareCount > 0 ? Math.sqrt(this.squareSum / this.squareCount) : 0,
      seconds: this.samples / this.sampleRate,
    };
  }

  /** {@link read}, then starts a new interval for `samplePeak`, `truePeak` and `rms`. */
  take(): LoudnessReading {
    const reading = this.read();
    this.samplePeak = 0;
    this.truePeak = 0;
    this.squareSum = 0;
    this.squareCount = 0;
    return reading;
  }

  /** Integrated loudness (LUFS) of everything since the last reset, gated. */
  integrated(): number {
    let count = 0;
    let power = 0;
    for (let i = 0; i < HISTOGRAM_BINS; i++) {
      count += this.histogramCount[i]!;
      power += this.histogramPower[i]!;
    }
    if (count === 0) return LOUDNESS_FLOOR;
    const gate = powerToLufs(power / count) + RELATIVE_GATE_LU;
    // Blocks above the relative gate: whole bins above it; the bin it falls in by the bin's centre.
    const first = Math.max(0, Math.floor((gate - HISTOGRAM_LOW) / HISTOGRAM_STEP + 0.5));
    count = 0;
    power = 0;
    for (let i = first; i < HISTOGRAM_BINS; i++) {
      count += this.histogramCount[i]!;
      power += this.histogramPower[i]!;
    }
    return count > 0 ? powerToLufs(power / count) : LOUDNESS_FLOOR;
  }

  /** Forgets everything: loudness history, maxima and filter state. */
  reset(): void {
    this.filterState.fill(0);
    this.history.fill(0);
    this.historyIndex = 0;
    this.subBlockRemaining = this.subBlockLength;
    this.subBlockSum = 0;
    this.subBlocks.fill(0);
    this.subBlockCount = 0;
    this.histogramCount.fill(0);
    this.histogramPower.fill(0);
    this.momentaryValue = this.shortTermValue = this.momentaryMax = this.shortTermMax = LOUDNESS_FLOOR;
    this.samplePeak = this.truePeak = this.samplePeakMax = this.truePeakMax = 0;
    this.squareSum = 0;
    this.squareCount = 0;
    this.samples = 0;
  }

  private processChannel(c: number, x: ArrayLike<number>, offset: number, n: number): void {
    const { b0, b1, b2, a1, a2 } = this.stage1;
    const h = this.stage2;
    const state = this.filterState;
    const base = 4 * c;
    let s1 = state[base]!;
    let s2 = state[base + 1]!;
    let t1 = state[base + 2]!;
    let t2 = state[base + 3]!;
    const history = this.history;
    const hbase = 2 * TAPS * c;
    let index = this.historyIndex;
    const p0 = TRUE_PEAK_PHASES[0]!;
    const p1 = TRUE_PEAK_PHASES[1]!;
    const p2 = TRUE_PEAK_PHASES[2]!;
    const p3 = TRUE_PEAK_PHASES[3]!;
    let sum = 0;
    let squares = 0;
    let peak = this.samplePeak;
    let truePeak = this.truePeak;
    for (let i = offset, end = offset + n; i < end; i++) {
      const v = x[i]!;
      squares += v * v;
      const a = v < 0 ? -v : v;
      if (a > peak) peak = a;
      // K-weighting, transposed direct form II, float64.
      const y1 = b0 * v + s1;
      s1 = b1 * v - a1 * y1 + s2;
      s2 = b2 * v - a2 * y1;
      const y2 = h.b0 * y1 + t1;
      t1 = h.b1 * y1 - h.a1 * y2 + t2;
      t2 = h.b2 * y1 - h.a2 * y2;
      sum += y2 * y2;
      // True peak: y_p[n] = Σ_k h_p[k] · x[n − k], for the 4 phases.
      history[hbase + index] = v;
      history[hbase + index + TAPS] = v;
      const newest = hbase + index + TAPS;
      let q0 = 0;
      let q1 = 0;
      let q2 = 0;
      let q3 = 0;
      for (let k = 0; k < TAPS; k++) {
        const s = history[newest - k]!;
        q0 += p0[k]! * s;
        q1 += p1[k]! * s;
        q2 += p2[k]! * s;
        q3 += p3[k]! * s;
      }
      if (q0 < 0) q0 = -q0;
      if (q1 < 0) q1 = -q1;
      if (q2 < 0) q2 = -q2;
      if (q3 < 0) q3 = -q3;
      const m = q0 > q1 ? (q0 > q2 ? (q0 > q3 ? q0 : q3) : q2 > q3 ? q2 : q3) : q1 > q2 ? (q1 > q3 ? q1 : q3) : q2 > q3 ? q2 : q3;
      if (m > truePeak) truePeak = m;
      index = index + 1 === TAPS ? 0 : index + 1;
    }
    state[base] = s1;
    state[base + 1] = s2;
    state[base + 2] = t1;
    state[base + 3] = t2;
    this.subBlockSum += sum;
    this.squareSum += squares;
    if (truePeak < peak) truePeak = peak;
    this.samplePeak = peak;
    this.truePeak = truePeak;
    if (peak > this.samplePeakMax) this.samplePeakMax = peak;
    if (truePeak > this.truePeakMax) this.truePeakMax = truePeak;
  }

  private closeSubBlock(): void {
    const ring = this.subBlocks;
    ring[this.subBlockCount % 30] = this.subBlockSum / this.subBlockLength;
    this.subBlockCount++;
    this.subBlockSum = 0;
    this.subBlockRemaining = this.subBlockLength;
    // Windows reaching back before the start count that time as silence.
    let last4 = 0;
    let last30 = 0;
    for (let i = 0; i < 30; i++) {
      const age = (this.subBlockCount - 1 - i + 30 * 4) % 30;
      const power = ring[age]!;
      if (i < 4) last4 += power;
      last30 += power;
      if (i + 1 >= this.subBlockCount) break;
    }
    const momentaryPower = last4 / 4;
    this.momentaryValue = powerToLufs(momentaryPower);
    this.shortTermValue = powerToLufs(last30 / 30);
    if (this.momentaryValue > this.momentaryMax) this.momentaryMax = this.momentaryValue;
    if (this.shortTermValue > this.shortTermMax) this.shortTermMax = this.shortTermValue;
    // A gating block is complete once four sub-blocks exist.
    if (this.subBlockCount >= 4) {
      const loudness = powerToLufs(momentaryPower);
      if (loudness > ABSOLUTE_GATE_LUFS) {
        const bin = Math.min(HISTOGRAM_BINS - 1, Math.floor((loudness - HISTOGRAM_LOW) / HISTOGRAM_STEP));
        this.histogramCount[bin] = this.histogramCount[bin]! + 1;
        this.histogramPower[bin] = this.histogramPower[bin]! + momentaryPower;
      }
    }
  }
}

/** Loudness and peaks of a finished render (every channel), read at its end. */
export function measureLoudness(channels: readonly ArrayLike<number>[], sampleRate: number): LoudnessReading {
  const meter = new LoudnessMeter(sampleRate, { channels: Math.max(1, channels.length) });
  meter.process(channels);
  const reading = meter.read();
  // The peaks of the whole render, not of the last interval.
  return { ...reading, samplePeak: reading.samplePeakMax, truePeak: reading.truePeakMax };
}
