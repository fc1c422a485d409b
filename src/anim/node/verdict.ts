/**
 * The one verdict on a retarget, shared by `npm run retarget` and `npm run retarget:check`: the
 * trajectory-parity check on every retargeted clip (bounds scaled to the characters' size), the
 * baseline for the built-in pair, and the core bones both rigs must map. The same pair gives the
 * same verdict, and the same exit status, whichever command ran it.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AnimationClip } from 'three';
import { compareWithBaseline, formatParityReport, makeBaseline, type ParityBaseline } from '../parity/baseline.ts';
import { checkLibraryParity, type ParityReport } from '../parity/parity-check.ts';
import type { RetargetContext } from '../retarget/retarget-clip.ts';
import { progressPrinter, type CommandIO } from './cli.ts';

/** The baseline `npm test` and the built-in rigs use. */
export const BUILTIN_BASELINE = resolve(import.meta.dirname, '../../../tests/fixtures/anim/parity-baseline.json');

/** What the verdict needs besides the clips and the pair. */
export interface VerdictOptions {
  /** Samples per second. */
  sampleRate: number;
  /** Compare against this baseline (none: no baseline). */
  baselinePath?: string;
  /** Write this run's figures as the baseline instead of comparing. */
  writeBaseline?: boolean;
  /** Core bones unmapped in either rig (`coreBoneGaps`): each one fails the verdict. */
  gaps: readonly string[];
}

/** The verdict and what it was made from. */
export interface Verdict {
  ok: boolean;
  report: ParityReport;
  regressions: string[];
}

/**
 * The baseline a pair is held to by default: the committed one for the built-in pair retargeted
 * whole with root motion, none otherwise.
 */
export function defaultBaseline(sourceLabel: string, targetLabel: string, selected: boolean, inPlace: boolean): string | undefined {
  return sourceLabel === 'builtin:mannequin' && targetLabel === 'builtin:cc4' && !selected && !inPlace ? BUILTIN_BASELINE : undefined;
}

/**
 * Runs the parity check on `retargeted` against `clips`, compares with (or writes) the baseline,
 * and prints the table and the figures. The caller prints {@link verdictLines} last.
 */
export async function judgeRetarget(
  clips: readonly AnimationClip[],
  retargeted: readonly AnimationClip[],
  context: RetargetContext,
  options: VerdictOptions,
  io: CommandIO,
): Promise<Verdict> {
  const progress = progressPrinter('checking', io);
  const report = checkLibraryParity(clips, retargeted, context, { sampleRate: options.sampleRate, onProgress: progress });
  progress.done();
  io.out(formatParityReport(report));
  let regressions: string[] = [];
  const path = options.baselinePath;
  if (options.writeBaseline) {
    if (!path) throw new Error('--write-baseline needs --baseline FILE for rigs other than the built-in pair');
    await writeFile(path, `${JSON.stringify(makeBaseline(report), null, 2)}\n`);
    io.out(`wrote baseline ${path}`);
  } else if (path) {
    if (!existsSync(path)) throw new Error(`baseline ${path} does not exist (create it with --write-baseline)`);
    let baseline: ParityBaseline;
    try {
      baseline = JSON.parse(await readFile(path, 'utf8')) as ParityBaseline;
    } catch (error) {
      throw new Error(`baseline ${path} is not valid JSON (${(error as Error).message})`, { cause: error });
    }
    const comparison = compareWithBaseline(report, baseline);
    regressions = comparison.regressions;
    io.out(
      comparison.ok
        ? `baseline ${path}: no regressions${comparison.added.length ? ` (${comparison.added.length} new clips: ${comparison.added.join(', ')})` : ''}`
        : `baseline ${path}: ${regressions.length} regression(s)`,
    );
    for (const line of regressions) io.out(`✗ ${line}`);
  }
  return { ok: report.ok && regressions.length === 0 && options.gaps.length === 0, report, regressions };
}

/**
 * The verdict's last lines: PASS, or FAIL with the count of each cause and every failure. `extra`
 * are the command's own failures (a clip that did not retarget, an unreadable `--clips` file).
 */
export function verdictLines(verdict: Verdict, gaps: readonly string[], extra: readonly string[] = []): string[] {
  if (verdict.ok && extra.length === 0) return ['PASS'];
  return [
    `FAIL: ${verdict.report.failures.length} bound failure(s), ${verdict.regressions.length} regression(s), ${gaps.length} rig(s) with unmapped core bones${extra.length ? `, ${extra.length} other problem(s)` : ''}`,
    ...[...gaps, ...verdict.report.failures, ...extra].map((failure) => `✗ ${failure}`),
  ];
}
