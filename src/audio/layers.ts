/**
 * A sound is planned as layers before any node exists: each layer is one call of a synth building
 * block (`tone` or `noiseHit`). Recipes return layers (pure, testable in Node); the synth turns them
 * into short-lived Web Audio nodes.
 */

export type WaveType = 'sine' | 'triangle' | 'square' | 'sawtooth';
/** A noise layer's filter type. */
export type NoiseFilter = 'lowpass' | 'highpass' | 'bandpass';

interface LayerBase {
  /** Start, seconds after the sound's trigger time. */
  t: number;
  /** Seconds from 0.0001 up to `peak`. */
  attack: number;
  /** Seconds from `peak` back down to 0.0001. */
  decay: number;
  /** Peak linear gain. */
  peak: number;
  /** Stereo position −1 (left) … 1 (right). Default 0. */
  pan?: number;
}

/** An oscillator gliding exponentially from `f0` to `f1` Hz over its envelope. */
export interface ToneLayer extends LayerBase {
  /** Discriminates the layer: an oscillator. */
  kind: 'tone';
  /** The oscillator's waveform. */
  type: WaveType;
  /** Frequency at the start (Hz). */
  f0: number;
  /** Frequency at the end (Hz). */
  f1: number;
}

/** The shared white-noise buffer through a filter swept exponentially from `f0` to `f1` Hz. */
export interface NoiseLayer extends LayerBase {
  /** Discriminates the layer: filtered noise. */
  kind: 'noise';
  /** The filter type. */
  filter: NoiseFilter;
  /** Filter frequency at the start (Hz). */
  f0: number;
  /** Filter frequency at the end (Hz). */
  f1: number;
  /** Filter Q. */
  q: number;
}

/** One layer of a sound: an oscillator or filtered noise, under one attack–decay envelope. */
export type Layer = ToneLayer | NoiseLayer;

/** The envelope floor every layer starts from and returns to (exponential ramps cannot reach 0). */
export const ENVELOPE_FLOOR = 0.0001;

/** Extra time after a layer's envelope ends before its source stops (ramps finish cleanly). */
export const STOP_MARGIN = 0.02;

/** A tone layer: waveform, frequencies gliding f0 → f1 (Hz), start `t`, attack and decay (s), peak gain, optional pan. */
export function tone(
  type: WaveType,
  f0: number,
  f1: number,
  t: number,
  attack: number,
  decay: number,
  peak: number,
  pan?: number,
): ToneLayer {
  return { kind: 'tone', type, f0, f1, t, attack, decay, peak, ...(pan !== undefined && { pan }) };
}

/** A noise layer: filter, frequencies gliding f0 → f1 (Hz), Q, start `t`, attack and decay (s), peak gain, optional pan. */
export function noise(
  filter: NoiseFilter,
  f0: number,
  f1: number,
  q: number,
  t: number,
  attack: number,
  decay: number,
  peak: number,
  pan?: number,
): NoiseLayer {
  return { kind: 'noise', filter, f0, f1, q, t, attack, decay, peak, ...(pan !== undefined && { pan }) };
}

/** Timing and loudness of a plan, relative to its trigger time. */
export interface PlanShape {
  /** Earliest layer start. */
  start: number;
  /** When the loudest layer peaks. */
  peakTime: number;
  /** When the last layer has decayed. */
  end: number;
  /** Sum of the layers' peaks: a safe upper bound on the voice's amplitude. */
  peak: number;
}

/** The timing and loudness bound of a set of layers (all zero for none). */
export function planShape(layers: readonly Layer[]): PlanShape {
  if (layers.length === 0) return { start: 0, peakTime: 0, end: 0, peak: 0 };
  let start = Infinity;
  let end = 0;
  let peak = 0;
  let loudest = layers[0]!;
  for (const layer of layers) {
    start = Math.min(start, layer.t);
    end = Math.max(end, layer.t + layer.attack + layer.decay);
    peak += layer.peak;
    if (layer.peak > loudest.peak) loudest = layer;
  }
  return { start, peakTime: loudest.t + loudest.attack, end, peak };
}

/** Checks a layer's numbers before they reach the audio graph (where NaN would throw or go silent). */
export function validateLayer(layer: Layer): void {
  const bad = (what: string): never => {
    throw new RangeError(`invalid ${layer.kind} layer: ${what} (${JSON.stringify(layer)})`);
  };
  if (!(layer.f0 > 0 && layer.f1 > 0 && Number.isFinite(layer.f0) && Number.isFinite(layer.f1))) bad('frequencies must be finite and > 0');
  if (!(layer.t >= 0 && Number.isFinite(layer.t))) bad('t must be ≥ 0');
  if (!(layer.attack > 0 && layer.decay > 0 && Number.isFinite(layer.attack + layer.decay))) bad('attack and decay must be > 0');
  if (!(layer.peak > ENVELOPE_FLOOR && Number.isFinite(layer.peak))) bad(`peak must be > ${ENVELOPE_FLOOR}`);
  if (layer.kind === 'noise' && !(layer.q > 0)) bad('q must be > 0');
  if (layer.pan !== undefined && !(layer.pan >= -1 && layer.pan <= 1)) bad('pan must be in −1…1');
}
