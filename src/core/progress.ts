/**
 * How far a long job has come: `done` of `total` steps (clips retargeted, bytes downloaded, files
 * loaded). The one progress shape: functions take it as `onProgress?: ProgressListener`, classes
 * emit it as the payload (or the `progress` field of the payload) of one of their events.
 *
 * ```ts
 * import { progressFraction, type Progress, type ProgressListener } from 'cairn-world/core';
 *
 * const seen: Progress[] = [];
 * const listener: ProgressListener = (progress) => seen.push(progress);
 * listener({ done: 1, total: 4, label: 'walk' });
 * listener({ done: 512, total: null });
 * if (progressFraction(seen[0]!) !== 0.25 || progressFraction(seen[1]!) !== null) throw new Error('fractions');
 * ```
 */
export interface Progress {
  /** Steps done so far (clips, files, bytes: the job says which). */
  done: number;
  /** Steps in all; null when not known yet (a download whose server sends no Content-Length). */
  total: number | null;
  /** What was just done (a clip's name, a file's id), when the job names its steps. */
  label?: string;
}

/**
 * Hears {@link Progress}: the type of every `onProgress` option. A job whose steps have names of
 * its own narrows the payload (`ProgressListener<LoadTemplateProgress>`, whose `label` is a phase).
 */
export type ProgressListener<P extends Progress = Progress> = (update: P) => void;

/** `done / total` clamped to 0..1; null while the total is unknown (or 0). */
export function progressFraction(progress: Progress): number | null {
  if (progress.total === null || progress.total <= 0) return null;
  return Math.min(1, Math.max(0, progress.done / progress.total));
}
