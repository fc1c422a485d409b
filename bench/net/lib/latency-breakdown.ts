import { histogramQuantile } from './histogram.ts';

/** One category's share of the deliveries and its latency quantiles (ms). */
export interface BreakdownRow {
  /** `dimension: value`, e.g. `path: neighbour cell`. */
  label: string;
  count: number;
  /** Fraction of all deliveries recorded (0–1). */
  share: number;
  p50: number;
  p99: number;
  max: number;
  /** Deliveries in this category slower than the overall p99: where the tail lives. */
  overP99: number;
}

/**
 * Latency histograms split by category, to find where a tail comes from: every delivery is
 * recorded once per dimension (`path`, `hop`, …) under that dimension's value, so each dimension's
 * rows add up to all deliveries, and `overP99` says which values hold the slowest 1 %. 1-ms
 * buckets up to 10 s, like the benchmarks' overall histogram. Pure: no sockets, no clock.
 */
export class LatencyBreakdown {
  private readonly histograms = new Map<string, { histogram: Uint32Array; count: number }>();
  private readonly all = new Uint32Array(10_001);
  private total = 0;

  /**
   * Records one delivery of `ms` under each `dimension: value` key (e.g. `path: same cell`). The
   * walkers call this for every delivery (tens of thousands a second beside 144 clients in one
   * process): with keys from a table and a reused array it allocates nothing, so the generator's
   * garbage collector does not stall every simulated client at once.
   */
  add(ms: number, keys: readonly string[]): void {
    const bucket = Math.min(Math.max(0, Math.round(ms)), 10_000);
    this.all[bucket]!++;
    this.total++;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      let entry = this.histograms.get(key);
      if (!entry) {
        entry = { histogram: new Uint32Array(10_001), count: 0 };
        this.histograms.set(key, entry);
      }
      entry.histogram[bucket]!++;
      entry.count++;
    }
  }

  /** Deliveries recorded. */
  get count(): number {
    return this.total;
  }

  /** The overall q-quantile (ms). */
  quantile(q: number): number {
    return histogramQuantile(this.all, this.total, q);
  }

  /** One row per `dimension: value`, sorted by label. */
  rows(): BreakdownRow[] {
    const p99 = this.quantile(0.99);
    const rows: BreakdownRow[] = [];
    for (const [label, { histogram, count }] of this.histograms) {
      let max = 0;
      let over = 0;
      for (let ms = 0; ms < histogram.length; ms++) {
        if (histogram[ms]! === 0) continue;
        max = ms;
        if (ms > p99) over += histogram[ms]!;
      }
      rows.push({
        label,
        count,
        share: this.total ? count / this.total : 0,
        p50: histogramQuantile(histogram, count, 0.5),
        p99: histogramQuantile(histogram, count, 0.99),
        max,
        overP99: over,
      });
    }
    return rows.sort((a, b) => a.label.localeCompare(b.label));
  }

  /** The rows as a markdown table. */
  table(): string {
    const lines = ['| category | deliveries | share | p50 | p99 | max | of the slowest 1 % |', '|---|--:|--:|--:|--:|--:|--:|'];
    const p99 = this.quantile(0.99);
    let overall = 0;
    for (let ms = p99 + 1; ms < this.all.length; ms++) overall += this.all[ms]!;
    for (const r of this.rows()) {
      lines.push(
        `| ${r.label} | ${r.count} | ${(r.share * 100).toFixed(1)}% | ${r.p50} ms | ${r.p99} ms | ${r.max} ms | ${overall ? ((r.overP99 / overall) * 100).toFixed(0) : 0}% |`,
      );
    }
    return lines.join('\n');
  }
}
