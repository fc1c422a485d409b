/**
 * The q-quantile (0–1) of latencies counted in a 1-ms-bucket histogram holding `total` samples, in
 * ms; NaN when empty. Buckets, not sorted samples: generators record millions of deliveries.
 */
export function histogramQuantile(histogram: Uint32Array, total: number, q: number): number {
  if (total === 0) return Number.NaN;
  const target = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let ms = 0; ms < histogram.length; ms++) {
    seen += histogram[ms]!;
    if (seen >= target) return ms;
  }
  return histogram.length - 1;
}
