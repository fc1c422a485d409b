import { ENVELOPE_FLOOR, type Layer, type NoiseLayer } from './layers.ts';
import { kWeighting } from './meter/loudness-meter.ts';

/**
 * Per-class gain budgets: however many triggers arrive, the voices of one sound class (impacts,
 * footsteps, UI) sum to little more than the loudest of them alone. Each voice's level envelope is
 * known before it sounds (its layers are planned), so when a voice starts the budget gives it the
 * largest gain under which the class stays inside two bounds at every moment of its life:
 *
 * - **peak**: the summed amplitude envelope (a bound on the samples: layer envelopes add
 *   coherently) stays under the loudest member's own peak times `peakDb`, which holds the true peak;
 * - **loudness**: the summed power over the last 400 ms (the momentary loudness window of
 *   BS.1770) stays under the loudest member's own 400 ms energy times `loudnessDb`, which holds the
 *   momentary loudness.
 *
 * A voice already sounding keeps its level (no pumping): a pile-up is made of voices turned down as
 * the class fills, and one arriving into a quiet class plays at full level. Pure; audio times in
 * seconds. Judged in audio-time order with the voice limits (voice-limiter.ts).
 */

/** How far a class's pile-up may rise above its loudest voice alone. */
export interface ClassBudget {
  /** Summed amplitude over the loudest voice's peak, dB. */
  peakDb: number;
  /** Summed 400 ms energy over the loudest voice's own, dB (LU). */
  loudnessDb: number;
}

/** A voice's level over time, sampled every {@link ENVELOPE_STEP} from its start. */
export interface VoiceEnvelope {
  /** Expected peak per step: the sum of its layers' (tones at their amplitude, noise at its crest). */
  amplitude: Float32Array;
  /** Root of its tones' K-weighted power per step (tones of two voices may add in phase: a chime's repeats do). */
  tone: Float32Array;
  /** Its noise layers' K-weighted power per step (noise from different offsets adds in power). */
  noise: Float32Array;
  /** The highest `amplitude`. */
  peakAmplitude: number;
  /** Its highest energy (power × seconds) over a 400 ms window, alone. */
  peakEnergy: number;
}

/** Seconds between envelope samples. */
export const ENVELOPE_STEP = 0.001;

/** The momentary loudness window, seconds (ITU-R BS.1770-4). */
export const LOUDNESS_WINDOW = 0.4;

const WINDOW_STEPS = Math.round(LOUDNESS_WINDOW / ENVELOPE_STEP);

/** Mean square of each waveform at amplitude 1. */
const WAVE_POWER = { sine: 0.5, triangle: 1 / 3, square: 1, sawtooth: 1 / 3 } as const;

/** Peak over RMS of filtered noise over a short burst (a Gaussian's ±4σ). */
const NOISE_CREST = 4;

/** K-weighting power gain (BS.1770's shelf and high-pass) on a log-frequency table, per sample rate. */
const K_TABLES = new Map<number, Float64Array>();
const K_TABLE_LOW = Math.log(10);
const K_TABLE_STEPS = 512;

function kTable(sampleRate: number): Float64Array {
  let table = K_TABLES.get(sampleRate);
  if (table) return table;
  table = new Float64Array(K_TABLE_STEPS + 1);
  const high = Math.log(sampleRate / 2);
  const stages = kWeighting(sampleRate);
  for (let i = 0; i <= K_TABLE_STEPS; i++) {
    const w = (2 * Math.PI * Math.exp(K_TABLE_LOW + ((high - K_TABLE_LOW) * i) / K_TABLE_STEPS)) / sampleRate;
    let gain = 1;
    for (const { b0, b1, b2, a1, a2 } of stages) {
      // |H(e^jw)|² of one biquad.
      const re = (c0: number, c1: number, c2: number): number => c0 + c1 * Math.cos(w) + c2 * Math.cos(2 * w);
      const im = (c1: number, c2: number): number => -c1 * Math.sin(w) - c2 * Math.sin(2 * w);
      const num = re(b0, b1, b2) ** 2 + im(b1, b2) ** 2;
      const den = re(1, a1, a2) ** 2 + im(a1, a2) ** 2;
      gain *= num / den;
    }
    table[i] = gain;
  }
  K_TABLES.set(sampleRate, table);
  return table;
}

/**
 * The share of white noise's power a layer's filter passes at cutoff or centre `f`: its equivalent
 * noise bandwidth over Nyquist (second-order sections; Web Audio's low- and high-pass Q is in dB,
 * the band-pass Q linear).
 */
function noiseShare(filter: NoiseLayer['filter'], f: number, q: number, nyquist: number): number {
  const bandwidth =
    filter === 'bandpass'
      ? (Math.PI / 2) * (f / Math.max(q, 0.01))
      : filter === 'lowpass'
        ? (Math.PI / 2) * Math.pow(10, q / 20) * f
        : Math.max(0, nyquist - f);
  return Math.min(1, Math.max(1, bandwidth) / nyquist);
}

/**
 * Samples the envelope of planned layers (times relative to the voice's start `origin`): per step
 * the sum of its layers' expected peaks (tones their amplitude, noise `NOISE_CREST` times its
 * RMS through its filter) and their K-weighted power summed over the channels (a centred layer
 * feeds both, a panned one splits its power between them), each layer's frequency gliding as the
 * synth glides it. Close to what the loudness meter reads: budgets compare a class's voices by it.
 */
export function envelopeOf(layers: readonly Layer[], origin = 0, sampleRate = 48000): VoiceEnvelope {
  let end = 0;
  for (const l of layers) end = Math.max(end, l.t + l.attack + l.decay);
  const n = Math.max(1, Math.ceil((end - origin) / ENVELOPE_STEP) + 1);
  const amplitude = new Float32Array(n);
  const tonePower = new Float64Array(n);
  const noise = new Float32Array(n);
  const table = kTable(sampleRate);
  const nyquist = sampleRate / 2;
  const logLow = K_TABLE_LOW;
  const logSpan = Math.log(nyquist) - K_TABLE_LOW;
  for (const l of layers) {
    const peak = Math.max(l.peak, ENVELOPE_FLOOR);
    const ratio = Math.log(ENVELOPE_FLOOR / peak);
    const length = l.attack + l.decay;
    const glide = Math.log(l.f1 / l.f0);
    const channels = (l.pan ?? 0) === 0 ? 2 : 1;
    const first = Math.max(0, Math.ceil((l.t - origin) / ENVELOPE_STEP - 1e-9));
    const last = Math.min(n - 1, Math.floor((l.t + length - origin) / ENVELOPE_STEP));
    // Exponential ramps from and to the envelope floor and an exponential glide, as the synth
    // schedules them: stepped by multiplication, restarted exactly where the decay begins.
    const attackStep = Math.exp((-ratio * ENVELOPE_STEP) / l.attack);
    const decayStep = Math.exp((ratio * ENVELOPE_STEP) / l.decay);
    const glideStep = Math.exp((glide * ENVELOPE_STEP) / length);
    const tau0 = first * ENVELOPE_STEP + origin - l.t;
    let level = tau0 <= l.attack ? peak * Math.exp(ratio * (1 - tau0 / l.attack)) : peak * Math.exp((ratio * (tau0 - l.attack)) / l.decay);
    let f = l.f0 * Math.exp((glide * tau0) / length);
    // The K-weighting table's index moves linearly with the log frequency.
    let x = ((Math.log(f) - logLow) / logSpan) * K_TABLE_STEPS;
    const xStep = ((glide * ENVELOPE_STEP) / length / logSpan) * K_TABLE_STEPS;
    let decaying = tau0 > l.attack;
    const tonePowerOf = l.kind === 'tone' ? channels * WAVE_POWER[l.type] : 0;
    for (let i = first; i <= last; i++) {
      const tau = i * ENVELOPE_STEP + origin - l.t;
      if (!decaying && tau > l.attack) {
        decaying = true;
        level = peak * Math.exp((ratio * (tau - l.attack)) / l.decay);
      }
      const weight = table[Math.max(0, Math.min(K_TABLE_STEPS, Math.round(x)))]!;
      if (l.kind === 'tone') {
        amplitude[i]! += level;
        // Within a voice its tones differ in pitch: their powers add.
        tonePower[i]! += tonePowerOf * weight * level * level;
      } else {
        const share = noiseShare(l.filter, f, l.q, nyquist) / 3;
        amplitude[i]! += level * Math.min(1, NOISE_CREST * Math.sqrt(share));
        noise[i]! += channels * share * weight * level * level;
      }
      level *= decaying ? decayStep : attackStep;
      f *= glideStep;
      x += xStep;
    }
  }
  const tone = new Float32Array(n);
  for (let i = 0; i < n; i++) tone[i] = Math.sqrt(tonePower[i]!);
  let peakEnergy = 0;
  let windowed = 0;
  for (let i = 0; i < n + WINDOW_STEPS; i++) {
    if (i < n) windowed += (tonePower[i]! + noise[i]!) * ENVELOPE_STEP;
    const out = i - WINDOW_STEPS;
    if (out >= 0 && out < n) windowed -= (tonePower[out]! + noise[out]!) * ENVELOPE_STEP;
    peakEnergy = Math.max(peakEnergy, windowed);
  }
  let peakAmplitude = 0;
  for (const a of amplitude) peakAmplitude = Math.max(peakAmplitude, a);
  return { amplitude, tone, noise, peakAmplitude, peakEnergy };
}

/** A voice of the class already decided: its envelope from `start`, its gain, and where it stops counting. */
export interface BudgetMember {
  /** The voice's envelope (amplitude, tone and noise per step). */
  envelope: VoiceEnvelope;
  /** Audio time it starts (s). */
  start: number;
  /** The gain it was admitted at. */
  gain: number;
  /** Audio time it is cut off (stolen or stopped), or Infinity. */
  until: number;
}

/** Share of a voice's own peak below which its moments do not limit its gain (the tail's last −60 dB). */
const TAIL = 1e-3;

/**
 * The summed envelopes of one class's decided voices on the audio clock, in steps of
 * {@link ENVELOPE_STEP}: amplitudes and tone roots add (in phase), noise powers add. Voices are
 * added and taken away (with the gain and cut-off they had), so a new voice's budget reads the sum
 * over its own life instead of visiting every member.
 */
export class BudgetTimeline {
  /** Absolute step (round(time / step)) of index 0. */
  private base = 0;
  private amplitude: Float64Array = new Float64Array(0);
  private tone: Float64Array = new Float64Array(0);
  private noise: Float64Array = new Float64Array(0);

  /** Adds (`sign` 1) or takes away (−1) a voice's envelope from `start`, at `gain`, up to `until`. */
  add(envelope: VoiceEnvelope, start: number, gain: number, until: number, sign: 1 | -1): void {
    const first = Math.round(start / ENVELOPE_STEP);
    const cut = until === Infinity ? Infinity : Math.max(0, Math.round((until - start) / ENVELOPE_STEP));
    const length = Math.min(envelope.amplitude.length, cut);
    if (length <= 0 || gain <= 0) return;
    this.ensure(first, first + length);
    const g = sign * gain;
    const g2 = sign * gain * gain;
    const offset = first - this.base;
    for (let j = 0; j < length; j++) {
      this.amplitude[offset + j]! += g * envelope.amplitude[j]!;
      this.tone[offset + j]! += g * envelope.tone[j]!;
      this.noise[offset + j]! += g2 * envelope.noise[j]!;
    }
  }

  /**
   * The sums over steps `from` … `from + length − 1` after `start`'s step, as views into the
   * timeline (zeros where nothing was added). Valid until the next {@link add} or {@link trim}.
   */
  view(
    start: number,
    from: number,
    length: number,
  ): {
    /** Summed expected peaks per step. */
    amplitude: Float64Array;
    /** Summed tone amplitude per step (root of K-weighted power, added in phase). */
    tone: Float64Array;
    /** Summed noise power per step (K-weighted). */
    noise: Float64Array;
  } {
    const first = Math.round(start / ENVELOPE_STEP) + from;
    this.ensure(first, first + length);
    const offset = first - this.base;
    return {
      amplitude: this.amplitude.subarray(offset, offset + length),
      tone: this.tone.subarray(offset, offset + length),
      noise: this.noise.subarray(offset, offset + length),
    };
  }

  /** Forgets everything before audio time `time` (no budget window reaches back there any more). */
  trim(time: number): void {
    const drop = Math.round(time / ENVELOPE_STEP) - this.base;
    // Only worth a copy once a good stretch has passed.
    if (drop < 20 * WINDOW_STEPS) return;
    if (drop >= this.amplitude.length) {
      this.amplitude = this.tone = this.noise = new Float64Array(0);
      this.base += drop;
      return;
    }
    this.amplitude = this.amplitude.slice(drop);
    this.tone = this.tone.slice(drop);
    this.noise = this.noise.slice(drop);
    this.base += drop;
  }

  private ensure(from: number, to: number): void {
    const end = this.base + this.amplitude.length;
    if (this.amplitude.length > 0 && from >= this.base && to <= end) return;
    // Room to spare on the side that grew (voices come in either direction), so growing is amortised.
    const slack = Math.max(8 * WINDOW_STEPS, this.amplitude.length >> 1);
    const low = this.amplitude.length === 0 ? from - slack : from < this.base ? from - slack : this.base;
    const high = this.amplitude.length === 0 ? to + slack : to > end ? to + slack : end;
    const grow = (old: Float64Array): Float64Array => {
      const next = new Float64Array(high - low);
      if (old.length > 0) next.set(old, this.base - low);
      return next;
    };
    this.amplitude = grow(this.amplitude);
    this.tone = grow(this.tone);
    this.noise = grow(this.noise);
    this.base = low;
  }
}

/**
 * The largest gain (0…1) at which a voice starting at `start` keeps the class inside `budget`
 * together with `members` (the class's voices that sound or ring in a window during its life).
 * Loudness counts the worst case of tones adding in phase across voices (the same chime pitch
 * twice is +6 dB, not +3) and noise adding in power.
 */
export function budgetGain(envelope: VoiceEnvelope, start: number, members: readonly BudgetMember[], budget: ClassBudget): number {
  const timeline = new BudgetTimeline();
  for (const m of members) timeline.add(m.envelope, m.start, m.gain, m.until, 1);
  const loudest = members.reduce((most, m) => Math.max(most, m.envelope.peakAmplitude), 0);
  const loudestEnergy = members.reduce((most, m) => Math.max(most, m.envelope.peakEnergy), 0);
  return budgetGainOn(envelope, start, timeline, { amplitude: loudest, energy: loudestEnergy }, budget);
}

/**
 * {@link budgetGain} against the summed class `timeline`, whose loudest voice alone peaks at
 * `loudest` (amplitude, and energy over 400 ms).
 */
export function budgetGainOn(
  envelope: VoiceEnvelope,
  start: number,
  timeline: BudgetTimeline,
  loudest: { amplitude: number; energy: number },
  budget: ClassBudget,
): number {
  const maxAmplitude = Math.max(envelope.peakAmplitude, loudest.amplitude) * Math.pow(10, budget.peakDb / 20);
  const maxEnergy = Math.max(envelope.peakEnergy, loudest.energy) * Math.pow(10, budget.loudnessDb / 10);
  const n = envelope.amplitude.length;
  const w = WINDOW_STEPS;
  // Steps −w … n + w − 1 of the new voice's life: windows ending in its life or its last window reach back w steps.
  const length = n + 2 * w;
  const sums = timeline.view(start, -w, length);
  const { tone, noise } = sums;
  const amplitude = sums.amplitude.subarray(w, w + n);
  let gain = 1;
  const floorAmplitude = envelope.peakAmplitude * TAIL;
  for (let i = 0; i < n; i++) {
    const a = envelope.amplitude[i]!;
    if (a <= floorAmplitude) continue;
    gain = Math.min(gain, Math.max(0, maxAmplitude - amplitude[i]!) / a);
  }
  // Window sums, in power × steps, of the others' power, their tones times the new voice's, and the
  // new voice's own power; step k of the arrays is step k − w of the new voice.
  const ownTone = envelope.tone;
  const ownNoise = envelope.noise;
  const budgetSteps = maxEnergy / ENVELOPE_STEP;
  const floorSteps = (envelope.peakEnergy * TAIL * TAIL) / ENVELOPE_STEP;
  let others = 0;
  let cross = 0;
  let own = 0;
  for (let k = 0; k < length; k++) {
    const t = tone[k]!;
    others += t * t + noise[k]!;
    const i = k - w;
    if (i >= 0 && i < n) {
      const r = ownTone[i]!;
      cross += t * r;
      own += r * r + ownNoise[i]!;
    }
    const out = k - w;
    if (out >= 0) {
      const to = tone[out]!;
      others -= to * to + noise[out]!;
      const io = out - w;
      if (io >= 0 && io < n) {
        const r = ownTone[io]!;
        cross -= to * r;
        own -= r * r + ownNoise[io]!;
      }
    }
    if (k < w || own <= floorSteps) continue;
    // own·g² + 2·cross·g + others ≤ budget: the largest g that keeps this window in budget.
    const root = cross * cross + own * (budgetSteps - others);
    gain = Math.min(gain, root <= 0 ? 0 : Math.max(0, (Math.sqrt(root) - cross) / own));
  }
  return quantiseGain(Math.max(0, Math.min(1, gain)));
}

/**
 * Rounds a gain down to a 0.1 dB step (0 below −60 dB): inaudibly coarse, and a small change far
 * upstream in a pile-up then leaves later voices' gains as they were, so their decisions stand.
 */
function quantiseGain(gain: number): number {
  if (gain >= 1) return 1;
  if (gain < 1e-3) return 0;
  return Math.pow(10, (Math.floor((20 * Math.log10(gain)) / 0.1 + 1e-9) * 0.1) / 20);
}

/**
 * The budgets of the triggered classes. Peaks: a pile-up's summed amplitude stays at its loudest
 * voice's own peak (the cap of −1 dBTP leaves no headroom over the loudest single sounds). Loudness:
 * a pile-up may be 1 LU louder than its loudest voice alone, so a flurry still reads as more than
 * one hit while every class's band holds its loudest sound plus that (loudness-targets.ts). Ambience
 * and music are beds with their own levels, not budgeted.
 */
export const DEFAULT_CLASS_BUDGETS: Readonly<Record<'impacts' | 'footsteps' | 'ui', ClassBudget>> = {
  impacts: { peakDb: 0, loudnessDb: 1 },
  footsteps: { peakDb: 0, loudnessDb: 1 },
  ui: { peakDb: 0, loudnessDb: 1 },
};
