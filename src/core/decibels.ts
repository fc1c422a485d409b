/** Level conversions shared by the audio and voice modules. Pure. */

/** Floor for silent signals, so meters and logs never show −Infinity. */
export const SILENCE_DB = -120;

/** Amplitude (1 = full scale) to dBFS, floored at `floor` (default {@link SILENCE_DB}). */
export function toDb(amplitude: number, floor = SILENCE_DB): number {
  return amplitude > 0 ? Math.max(floor, 20 * Math.log10(amplitude)) : floor;
}

/** dBFS to amplitude (1 = full scale). */
export function fromDb(db: number): number {
  return Math.pow(10, db / 20);
}
