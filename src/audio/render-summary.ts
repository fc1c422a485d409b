import { powerSpectrum } from './fft.ts';
import { measureLevel, toDb } from './level-meter.ts';

/**
 * A compact fingerprint of a rendered sound, for golden files: its loudness envelope over time and
 * its spectrum in log-spaced bands. Small enough to commit as JSON, precise enough that changing a
 * recipe (a pitch, a decay, a filter, a layer) shows. Pure.
 */
export interface RenderSummary {
  /** Sample rate of the render (Hz). */
  sampleRate: number;
  /** Length of the render (s). */
  durationSeconds: number;
  /** Channels rendered. */
  channels: number;
  /** Largest |sample| over all channels. */
  peak: number;
  /** RMS over all channels and the whole render. */
  rms: number;
  /** RMS of the channel mix per `frameMs` frame, dBFS (floor −100), one decimal. */
  envelopeDb: number[];
  /** Frame length of {@link envelopeDb} (ms). */
  frameMs: number;
  /** Average power per band, dB (floor −140), one decimal. */
  bandsDb: number[];
  /** Band edges in Hz (`bandsDb.length + 1` of them). */
  bandEdgesHz: number[];
  /** Power-weighted mean frequency, Hz. */
  centroidHz: number;
}

/** Options of {@link summariseRender}. */
export interface SummaryOptions {
  /** Envelope frame length. Default 10 ms. */
  frameMs?: number;
  /** Spectrum bands. Default 24. */
  bands?: number;
  /** Lowest and highest band edge. Default 40 Hz … 16 kHz. */
  lowHz?: number;
  /** Highest band edge. Default 16 kHz. */
  highHz?: number;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
/** Six significant digits: renders differ run to run around the 7th (float order in the audio thread). */
const sig6 = (x: number): number => Number(x.toPrecision(6));

/** Mixes channels to mono by averaging. */
export function mixDown(channels: readonly ArrayLike<number>[]): Float32Array {
  const length = Math.max(0, ...channels.map((c) => c.length));
  const out = new Float32Array(length);
  for (const channel of channels) for (let i = 0; i < channel.length; i++) out[i] = out[i]! + channel[i]! / channels.length;
  return out;
}

/** A render's figures: peak, RMS, envelope, band powers and spectral centroid, rounded so golden files stay stable. */
export function summariseRender(channels: readonly ArrayLike<number>[], sampleRate: number, options: SummaryOptions = {}): RenderSummary {
  if (channels.length === 0) throw new RangeError('summariseRender: no channels');
  const frameMs = options.frameMs ?? 10;
  const bandCount = options.bands ?? 24;
  const lowHz = options.lowHz ?? 40;
  const highHz = Math.min(options.highHz ?? 16000, sampleRate / 2);
  const mono = mixDown(channels);
  const { peak, rms } = measureLevel(...channels);

  const frame = Math.max(1, Math.round((sampleRate * frameMs) / 1000));
  const envelopeDb: number[] = [];
  for (let start = 0; start < mono.length; start += frame) {
    envelopeDb.push(round1(toDb(measureLevel(mono.subarray(start, Math.min(mono.length, start + frame))).rms, -100)));
  }

  const size = 2048;
  const power = powerSpectrum(mono, size);
  const binHz = sampleRate / size;
  const bandEdgesHz = Array.from({ length: bandCount + 1 }, (_, i) => lowHz * Math.pow(highHz / lowHz, i / bandCount));
  const bandsDb = bandEdgesHz.slice(0, -1).map((lo, i) => {
    const hi = bandEdgesHz[i + 1]!;
    let sum = 0;
    for (let k = Math.ceil(lo / binHz); k < hi / binHz && k < power.length; k++) sum += power[k]!;
    return round1(sum > 0 ? Math.max(-140, 10 * Math.log10(sum / size)) : -140);
  });
  let weighted = 0;
  let total = 0;
  for (let k = 1; k < power.length; k++) {
    weighted += power[k]! * k * binHz;
    total += power[k]!;
  }
  return {
    sampleRate,
    durationSeconds: mono.length / sampleRate,
    channels: channels.length,
    peak: sig6(peak),
    rms: sig6(rms),
    envelopeDb,
    frameMs,
    bandsDb,
    bandEdgesHz: bandEdgesHz.map((f) => Math.round(f)),
    centroidHz: total > 0 ? Math.round(weighted / total) : 0,
  };
}

/** How far a render may differ from its golden summary ({@link compareSummaries}). */
export interface SummaryTolerance {
  /** Largest allowed envelope difference per frame, dB. Default 1.5. */
  envelopeDb?: number;
  /** Largest allowed band difference, dB. Default 1.5. */
  bandDb?: number;
  /** Frames and bands quieter than this (in both) are not compared, dB. Default −60 (envelope) / max band − 60. */
  floorDb?: number;
  /** Largest allowed relative peak and RMS difference. Default 0.05. */
  level?: number;
  /** Largest allowed relative centroid difference. Default 0.03. */
  centroid?: number;
}

/** What {@link compareSummaries} found. */
export interface SummaryComparison {
  /** True when every figure is within tolerance. */
  ok: boolean;
  /** One line per mismatch, worst first is not guaranteed; capped at 12 lines. */
  problems: string[];
}

/**
 * Compares a fresh render's summary with a golden one; lists what is out of tolerance. The defaults
 * are tight (a seeded render in the same engine is identical) but leave room for the small float
 * differences between Chromium builds and CPUs.
 */
export function compareSummaries(actual: RenderSummary, golden: RenderSummary, tolerance: SummaryTolerance = {}): SummaryComparison {
  const envTol = tolerance.envelopeDb ?? 1.5;
  const bandTol = tolerance.bandDb ?? 1.5;
  const floor = tolerance.floorDb ?? -60;
  const levelTol = tolerance.level ?? 0.05;
  const centroidTol = tolerance.centroid ?? 0.03;
  const problems: string[] = [];
  const relative = (a: number, b: number): number => Math.abs(a - b) / Math.max(Math.abs(b), 1e-9);

  if (actual.sampleRate !== golden.sampleRate) problems.push(`sample rate ${actual.sampleRate} ≠ golden ${golden.sampleRate}`);
  if (actual.envelopeDb.length !== golden.envelopeDb.length)
    problems.push(`length ${actual.envelopeDb.length} frames ≠ golden ${golden.envelopeDb.length}`);
  if (relative(actual.peak, golden.peak) > levelTol) problems.push(`peak ${actual.peak.toFixed(4)} vs golden ${golden.peak.toFixed(4)}`);
  if (relative(actual.rms, golden.rms) > levelTol) problems.push(`rms ${actual.rms.toFixed(4)} vs golden ${golden.rms.toFixed(4)}`);
  if (relative(actual.centroidHz, golden.centroidHz) > centroidTol)
    problems.push(`spectral centroid ${actual.centroidHz} Hz vs golden ${golden.centroidHz} Hz`);

  const frames = Math.min(actual.envelopeDb.length, golden.envelopeDb.length);
  for (let i = 0; i < frames; i++) {
    const a = actual.envelopeDb[i]!;
    const g = golden.envelopeDb[i]!;
    if (Math.max(a, g) > floor && Math.abs(a - g) > envTol)
      problems.push(`envelope at ${i * actual.frameMs} ms: ${a} dB vs golden ${g} dB`);
  }
  const bandFloor = Math.max(...golden.bandsDb) - 60;
  for (let i = 0; i < Math.min(actual.bandsDb.length, golden.bandsDb.length); i++) {
    const a = actual.bandsDb[i]!;
    const g = golden.bandsDb[i]!;
    if (Math.max(a, g) > bandFloor && Math.abs(a - g) > bandTol) {
      problems.push(`band ${golden.bandEdgesHz[i]}–${golden.bandEdgesHz[i + 1]} Hz: ${a} dB vs golden ${g} dB`);
    }
  }
  return { ok: problems.length === 0, problems: problems.slice(0, 12) };
}
