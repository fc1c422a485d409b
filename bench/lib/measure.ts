/**
 * Same-run comparisons for noisy machines: candidates are measured in interleaved rounds (A, B, A,
 * B…) so drift hits both alike, and each figure is reported against a baseline as a ratio.
 */
import { recordTable } from './record.ts';

export interface Candidate {
  name: string;
  /** One unit of work; return something so the JIT cannot drop it. */
  run: () => unknown;
  /** Calls per round for this candidate (cheap ones need more to rise above timer resolution). */
  callsPerRound?: number;
}

export interface Measured {
  name: string;
  /** Median ms per call over the rounds. */
  msPerCall: number;
  calls: number;
}

let sink: unknown;

/**
 * Times each candidate in `rounds` interleaved rounds of `callsPerRound` calls and returns the
 * median ms per call of each. Runs one warm-up round first.
 */
export function compare(candidates: Candidate[], options: { rounds?: number; callsPerRound?: number } = {}): Measured[] {
  const rounds = options.rounds ?? 15;
  const calls = options.callsPerRound ?? 1000;
  const samples = candidates.map(() => [] as number[]);
  for (let round = -1; round < rounds; round++) {
    candidates.forEach((candidate, i) => {
      const n = candidate.callsPerRound ?? calls;
      const start = performance.now();
      for (let k = 0; k < n; k++) sink = candidate.run();
      const ms = (performance.now() - start) / n;
      if (round >= 0) samples[i]!.push(ms);
    });
  }
  void sink;
  return candidates.map((candidate, i) => ({
    name: candidate.name,
    msPerCall: median(samples[i]!),
    calls: rounds * (candidate.callsPerRound ?? calls),
  }));
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Formats a duration in the most readable unit. */
export function formatMs(ms: number): string {
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  if (ms >= 1e-3) return `${(ms * 1e3).toFixed(2)} µs`;
  return `${(ms * 1e6).toFixed(1)} ns`;
}

/**
 * Prints a table whose last column is each row's ratio against the baseline row (the first by
 * default): "× 0.01" means one hundredth of the baseline's cost.
 */
export function printComparison(title: string, results: Measured[], baseline = results[0]!.name): void {
  const base = results.find((r) => r.name === baseline);
  if (!base) throw new Error(`no baseline "${baseline}"`);
  console.log(`\n## ${title}`);
  recordTable({
    title,
    columns: ['candidate', 'per call', `vs ${baseline}`],
    rows: results.map((r) => [
      r.name,
      formatMs(r.msPerCall),
      `× ${(r.msPerCall / base.msPerCall).toPrecision(3)}${r.name === baseline ? ' (baseline)' : ''}`,
    ]),
  });
  const width = Math.max(...results.map((r) => r.name.length), 10);
  console.log(`${'candidate'.padEnd(width)}  ${'per call'.padStart(12)}  vs ${baseline}`);
  for (const r of results) {
    const ratio = r.msPerCall / base.msPerCall;
    const speedup = base.msPerCall / r.msPerCall;
    console.log(
      `${r.name.padEnd(width)}  ${formatMs(r.msPerCall).padStart(12)}  × ${ratio.toPrecision(3)}${r.name === baseline ? ' (baseline)' : ` (${speedup >= 1 ? `${speedup.toPrecision(3)}× faster` : `${(1 / speedup).toPrecision(3)}× slower`})`}`,
    );
  }
}
