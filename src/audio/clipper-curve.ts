/**
 * The soft clipper at the very end of the mix bus: linear up to a knee, then a tanh that bends
 * towards a ceiling it never reaches. Pure maths; the WaveShaperNode gets {@link createSoftClipCurve}.
 */

export interface SoftClipOptions {
  /** |x| up to this passes unchanged. Default 0.75. */
  knee?: number;
  /** The asymptote the tanh section approaches; no output ever reaches it. Default 0.86. */
  ceiling?: number;
}

/**
 * The bend starts at −2.5 dBFS and the largest output is softClip(1) ≈ 0.858 (−1.33 dBFS): with the
 * inter-sample peaks a soft-clipped flood adds (≤ 0.25 dB measured at 4× oversampling), nothing the
 * bus puts out reaches −1 dBTP, the true-peak cap of its loudest classes (loudness-targets.ts),
 * however many sounds pile up.
 */
export const SOFT_CLIP_KNEE = 0.75;
/** The soft clipper's asymptote: no output reaches it (softClip(1) ≈ 0.858, −1.33 dBFS). */
export const SOFT_CLIP_CEILING = 0.86;

/**
 * Linear to `knee`, then `knee + (ceiling − knee) · tanh((|x| − knee) / (ceiling − knee))`, odd-symmetric.
 * Continuous with slope 1 at the knee (the tanh's slope at 0 is 1), so the bend adds no click.
 */
export function softClip(x: number, options: SoftClipOptions = {}): number {
  const knee = options.knee ?? SOFT_CLIP_KNEE;
  const ceiling = options.ceiling ?? SOFT_CLIP_CEILING;
  if (!(ceiling > knee && knee > 0)) throw new RangeError(`softClip: need 0 < knee < ceiling (knee ${knee}, ceiling ${ceiling})`);
  const magnitude = Math.abs(x);
  if (magnitude <= knee) return x;
  const room = ceiling - knee;
  return Math.sign(x) * (knee + room * Math.tanh((magnitude - knee) / room));
}

/**
 * Samples {@link softClip} over [−1, 1] for a WaveShaperNode. The length is forced odd so the middle
 * entry is exactly 0 (silence in, silence out). WaveShaper clamps inputs beyond ±1 to the end
 * entries, so the largest output is `softClip(1)` (≈ 0.858 with the defaults), below the ceiling.
 */
export function createSoftClipCurve(length = 8193, options: SoftClipOptions = {}): Float32Array<ArrayBuffer> {
  const n = length % 2 === 1 ? length : length + 1;
  if (n < 3) throw new RangeError(`createSoftClipCurve: length must be ≥ 3 (got ${length})`);
  const curve = new Float32Array(n);
  for (let i = 0; i < n; i++) curve[i] = softClip((2 * i) / (n - 1) - 1, options);
  return curve;
}
