import type { AnimationClip } from 'three';
import { withDefaults } from '../../core/options.ts';
import type { ProgressListener } from '../../core/progress.ts';
import { retargetClip, type ClipReport, type RetargetContext } from './retarget-clip.ts';

/** A whole library's outcome: the clips that retargeted, and a report for every clip. */
export interface LibraryResult {
  /** The clips that retargeted. */
  clips: AnimationClip[];
  /** A report for every clip, in input order. */
  reports: ClipReport[];
  /** Wall-clock milliseconds spent. */
  ms: number;
}

/**
 * Retargets every clip; a clip that fails gets a report with the reason and the others still
 * retarget. Clips with duplicate names are reported (a mixer can hold only one of them).
 * `onProgress` hears `done` of `total` clips after each, `label` the clip just finished.
 */
export function retargetLibrary(clips: readonly AnimationClip[], context: RetargetContext, onProgress?: ProgressListener): LibraryResult {
  const start = performance.now();
  const out: AnimationClip[] = [];
  const reports: ClipReport[] = [];
  const seen = new Set<string>();
  clips.forEach((clip, i) => {
    const { clip: result, report } = retargetClip(clip, context);
    if (seen.has(clip.name)) report.warnings.push(`another clip is also named "${clip.name}"`);
    seen.add(clip.name);
    reports.push(report);
    if (result) out.push(result);
    onProgress?.({ done: i + 1, total: clips.length, label: clip.name });
  });
  return { clips: out, reports, ms: performance.now() - start };
}

/** Options of {@link retargetLibraryAsync}. */
export interface RetargetLibraryAsyncOptions {
  /** Hears `done` of `total` clips after each, `label` the clip just finished. */
  onProgress?: ProgressListener;
  /** Stops the work early (the result holds what was done). */
  signal?: AbortSignal;
  /** Milliseconds of work between yields to the event loop. Default 12. */
  budgetMs?: number;
}

const RETARGET_LIBRARY_ASYNC_DEFAULTS: Required<Pick<RetargetLibraryAsyncOptions, 'budgetMs'>> = { budgetMs: 12 };

/**
 * The same, yielding to the event loop between clips so a page stays responsive and can draw a
 * progress bar. Stops early (with what it has) when `signal` aborts.
 */
export async function retargetLibraryAsync(
  clips: readonly AnimationClip[],
  context: RetargetContext,
  options: RetargetLibraryAsyncOptions = {},
): Promise<LibraryResult> {
  const start = performance.now();
  const out: AnimationClip[] = [];
  const reports: ClipReport[] = [];
  const budget = withDefaults(RETARGET_LIBRARY_ASYNC_DEFAULTS, options).budgetMs;
  let sliceStart = performance.now();
  for (let i = 0; i < clips.length; i++) {
    if (options.signal?.aborted) break;
    const { clip, report } = retargetClip(clips[i]!, context);
    reports.push(report);
    if (clip) out.push(clip);
    options.onProgress?.({ done: i + 1, total: clips.length, label: clips[i]!.name });
    if (performance.now() - sliceStart > budget) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      sliceStart = performance.now();
    }
  }
  return { clips: out, reports, ms: performance.now() - start };
}

/** One line per clip for a terminal or a log: "✓ walk_fwd  (62 keys, 61 tracks)" or "✗ name: reason". */
export function formatClipReports(reports: readonly ClipReport[]): string {
  return reports
    .map((r) => {
      if (!r.ok) return `✗ ${r.clip}: ${r.error}`;
      const notes = [...r.warnings, r.droppedTracks.length ? `${r.droppedTracks.length} helper track(s) dropped` : ''].filter(Boolean);
      return `✓ ${r.clip}  (${r.keys} keys, ${r.tracksOut} tracks${notes.length ? `; ${notes.join('; ')}` : ''})`;
    })
    .join('\n');
}
