/** Level helpers for meters and measurements. Pure. */

/** Floor for silent signals, so meters and logs never show −Infinity. */
export const SILENCE_DB = -120;

/** Root-mean-square of a block of samples. */
export function rms(samples: ArrayLike<number>, start = 0, end = samples.length): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += samples[i]! * samples[i]!;
  return end > start ? Math.sqrt(sum / (end - start)) : 0;
}

/** Amplitude (1 = full scale) to dBFS, floored at {@link SILENCE_DB}. */
export function toDb(amplitude: number): number {
  return amplitude > 0 ? Math.max(SILENCE_DB, 20 * Math.log10(amplitude)) : SILENCE_DB;
}

/** Energy ratio to dB. */
export function powerRatioDb(numerator: number, denominator: number): number {
  if (denominator <= 0) return numerator > 0 ? Infinity : 0;
  return numerator > 0 ? 10 * Math.log10(numerator / denominator) : -Infinity;
}
