/** Level helpers for meters and measurements. Pure. */

/** dB conversions are shared with the audio module (one helper for both). */
export { SILENCE_DB, toDb } from '../core/decibels.ts';

/** Root-mean-square of a block of samples. */
export function rms(samples: ArrayLike<number>, start = 0, end = samples.length): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += samples[i]! * samples[i]!;
  return end > start ? Math.sqrt(sum / (end - start)) : 0;
}

/** Energy ratio to dB. */
export function powerRatioDb(numerator: number, denominator: number): number {
  if (denominator <= 0) return numerator > 0 ? Infinity : 0;
  return numerator > 0 ? 10 * Math.log10(numerator / denominator) : -Infinity;
}
