/** In-place iterative radix-2 FFT (Cooley–Tukey). `re` and `im` have the same power-of-two length. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  if (n !== im.length) throw new RangeError(`fft: re and im lengths differ (${n} vs ${im.length})`);
  if (n === 0 || (n & (n - 1)) !== 0) throw new RangeError(`fft: length must be a power of two (got ${n})`);
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      let t = re[i]!;
      re[i] = re[j]!;
      re[j] = t;
      t = im[i]!;
      im[i] = im[j]!;
      im[j] = t;
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const angle = (-2 * Math.PI) / size;
    const wr = Math.cos(angle);
    const wi = Math.sin(angle);
    const half = size >> 1;
    for (let start = 0; start < n; start += size) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < half; k++) {
        const a = start + k;
        const b = a + half;
        const tr = re[b]! * cr - im[b]! * ci;
        const ti = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
        const next = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = next;
      }
    }
  }
}

/** Average power spectrum (Welch: Hann windows, 50 % overlap) of `samples`; `size / 2 + 1` bins. */
export function powerSpectrum(samples: ArrayLike<number>, size = 2048): Float64Array {
  const bins = size / 2 + 1;
  const power = new Float64Array(bins);
  const window = new Float64Array(size);
  for (let i = 0; i < size; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / size);
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  let frames = 0;
  const hop = size / 2;
  for (let start = 0; start + size <= Math.max(samples.length, size); start += hop) {
    for (let i = 0; i < size; i++) {
      re[i] = (samples[start + i] ?? 0) * window[i]!;
      im[i] = 0;
    }
    fft(re, im);
    for (let k = 0; k < bins; k++) power[k] = power[k]! + re[k]! * re[k]! + im[k]! * im[k]!;
    frames++;
  }
  for (let k = 0; k < bins; k++) power[k] = power[k]! / frames;
  return power;
}
