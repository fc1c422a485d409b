/**
 * Benchmarks' machine-readable results. `npm run bench -- --record` (bench/run.ts) runs each
 * bench with `CAIRN_BENCH_RECORD` set to a scratch file; every table a bench reports through
 * {@link recordTable} (printComparison does it for every comparison) is appended there, and
 * run.ts writes bench/results/<name>.json from it with the date, the command, the machine and
 * the bench's printed output. BENCHMARKS.md is generated from those files (bench/lib/report.ts).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** One table of figures, as printed. */
export interface BenchTable {
  title: string;
  columns: string[];
  rows: string[][];
}

/** The machine a result was measured on. */
export interface BenchMachine {
  cores: number;
  /** Load average: the three figures from os.loadavg() at start and end, or as noted by hand. */
  load: string;
  /** Node's version (`v20.19.0`), or null where not recorded. */
  node: string | null;
  /** Chromium's version for benches that drive it, or null. */
  chromium: string | null;
  /** Anything else that bears on the figures (other work on the machine, SwiftShader). */
  note?: string;
}

/** bench/results/<name>.json. */
export interface BenchResult {
  /** The bench file, relative to the repository root. */
  bench: string;
  title: string;
  /** What it measures and against what, in a sentence or two. */
  about: string;
  /** ISO date (and time where known, UTC) of the run. */
  date: string;
  command: string;
  machine: BenchMachine;
  tables: BenchTable[];
  /** Short readings of the figures (targets met or not). */
  notes: string[];
  /** What the bench printed, for benches that print their own tables (recorded runs only). */
  output?: string;
}

/** Appends `table` to the run's record when recording (`CAIRN_BENCH_RECORD`); a no-op otherwise. */
export function recordTable(table: BenchTable): void {
  const file = process.env.CAIRN_BENCH_RECORD;
  if (file) appendFileSync(file, JSON.stringify(table) + '\n');
}

/** Tables appended by {@link recordTable}, one JSON per line. */
export function parseRecordedTables(text: string): BenchTable[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as BenchTable);
}

/** The load average as recorded: `1.20 1.10 0.90`. */
export function loadNow(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

/** This machine, for a result: cores, load at start → end, Node's and Chromium's versions. */
export function machineNow(loadAtStart: string, usesChromium: boolean): BenchMachine {
  let chromium: string | null = null;
  if (usesChromium) {
    try {
      chromium = execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
    } catch {
      chromium = null;
    }
  }
  return { cores: cpus().length, load: `${loadAtStart} → ${loadNow()}`, node: process.version, chromium };
}

/** The results file's name for a bench: bench/assets/search.bench.ts → assets-search. */
export function resultName(benchPath: string): string {
  return benchPath
    .replace(/^bench\//, '')
    .replace(/\.bench\.ts$/, '')
    .replaceAll('/', '-');
}
