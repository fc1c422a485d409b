/**
 * `npm run bench`: runs every bench/**\/*.bench.ts in its own process, one after another (they
 * share two cores; running them together would measure each other). Each prints its own figures
 * as ratios against the peer or naive path measured in the same run.
 * - `npm run bench -- crowd relay` runs only files whose path contains one of the words.
 * - `--record` also writes each bench's result to bench/results/<name>.json (its tables, date,
 *   command, machine and printed output; see bench/lib/record.ts) and regenerates BENCHMARKS.md.
 * - `--report` (`npm run bench:report`) only regenerates BENCHMARKS.md from bench/results.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { loadNow, machineNow, parseRecordedTables, resultName, type BenchResult } from './lib/record.ts';
import { parseBenchResult, readResults, renderBenchmarks } from './lib/report.ts';

const root = resolve(import.meta.dirname, '..');
const resultsDir = resolve(root, 'bench/results');
const args = process.argv.slice(2);
const record = args.includes('--record');
const reportOnly = args.includes('--report');
const filters = args.filter((arg) => !arg.startsWith('--'));

/** Environment variables benches read as options (recorded in the command). */
const OPTION_ENV = /^(CROWD|SCATTER|NET|WORLD|AUDIO|VOICE|ANIM|ASSETS|BENCH)_/;

function find(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'lib' || entry === 'results' ? [] : find(path);
    return entry.endsWith('.bench.ts') ? [path] : [];
  });
}

function writeReport(): void {
  writeFileSync(resolve(root, 'BENCHMARKS.md'), renderBenchmarks(readResults(resultsDir)));
  console.log(`BENCHMARKS.md written from ${relative(root, resultsDir)}/.`);
}

function runOne(file: string): boolean {
  const name = relative(root, file);
  console.log(`\n# ${name}`);
  const tsx = resolve(root, 'node_modules/tsx/dist/cli.mjs');
  if (!record) {
    const result = spawnSync(process.execPath, [tsx, file], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) console.log(`(${name} failed with exit code ${result.status})`);
    return result.status === 0;
  }
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-bench-'));
  const tablesFile = join(scratch, 'tables.jsonl');
  const loadAtStart = loadNow();
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const result = spawnSync(process.execPath, [tsx, file], {
    cwd: root,
    env: { ...process.env, CAIRN_BENCH_RECORD: tablesFile },
    stdio: ['inherit', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stdout.write(result.stdout ?? '');
  const ok = result.status === 0;
  if (!ok) console.log(`(${name} failed with exit code ${result.status}; its result is not recorded)`);
  else {
    const source = readFileSync(file, 'utf8');
    const options = Object.entries(process.env)
      .filter(([key]) => OPTION_ENV.test(key))
      .map(([key, value]) => `${key}=${value} `)
      .join('');
    const path = join(resultsDir, `${resultName(name)}.json`);
    // Title and description are written by hand once; a recorded run keeps them and replaces the figures.
    const previous = existsSync(path) ? parseBenchResult(JSON.parse(readFileSync(path, 'utf8')), path) : null;
    const next: BenchResult = {
      bench: name,
      title: previous?.title ?? name,
      about: previous?.about ?? '',
      date,
      command: `${options}npx tsx ${name}`,
      machine: machineNow(loadAtStart, /chromium|playwright/i.test(source)),
      tables: existsSync(tablesFile) ? parseRecordedTables(readFileSync(tablesFile, 'utf8')) : [],
      notes: [],
      output: result.stdout ?? '',
    };
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(path, JSON.stringify(next, null, 2) + '\n');
    console.log(`(recorded in ${relative(root, path)})`);
  }
  rmSync(scratch, { recursive: true, force: true });
  return ok;
}

if (reportOnly) {
  writeReport();
} else {
  const files = find(resolve(root, 'bench'))
    .sort()
    .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
  let failed = 0;
  for (const file of files) if (!runOne(file)) failed++;
  console.log(`\n${files.length - failed}/${files.length} benchmarks ran.`);
  if (record) writeReport();
  process.exit(failed ? 1 : 0);
}
