import { PARITY_REFERENCE_HEIGHT, type ParityReport } from './parity-check.ts';

/**
 * The parity baseline: each clip's drift figures as last accepted. A later change that makes a clip
 * drift noticeably more than its baseline fails the check even while it is still inside the
 * absolute bounds, so a regression is caught when it starts, not when it is already visible.
 */
export interface ParityBaseline {
  /** The baseline format's version. */
  version: 1;
  /** The source rig's name. */
  source: string;
  /** The target rig's name. */
  target: string;
  /** Samples per second the figures were taken at. */
  sampleRate: number;
  /** Each clip's accepted drift figures, by clip name. */
  clips: Record<
    string,
    {
      /** Largest frame-varying position drift (m). */
      positionDrift: number;
      /** Largest frame-varying rotation drift (degrees). */
      rotationDriftDeg: number;
      /** Frame-varying vertical drift of the hips (m). */
      pelvisVerticalDrift: number;
    }
  >;
}

/**
 * How much worse than its baseline a clip may get: a factor plus a floor (so figures at float noise
 * level, a few micrometres, may wobble without failing). Defaults: ×1.5 + 0.2 mm, ×1.5 + 0.02°.
 */
export interface BaselineTolerance {
  /** How many times its baseline a figure may reach. */
  factor: number;
  /** Position slack on top (m). */
  positionFloor: number;
  /** Rotation slack on top (degrees). */
  rotationFloorDeg: number;
}

/** The default tolerance: ×1.5 + 0.2 mm, ×1.5 + 0.02°. */
export const DEFAULT_BASELINE_TOLERANCE: BaselineTolerance = { factor: 1.5, positionFloor: 0.0002, rotationFloorDeg: 0.02 };

/** A baseline from a report (figures rounded to 0.1 µm / 0.0001°, so the file diffs cleanly). */
export function makeBaseline(report: ParityReport): ParityBaseline {
  const round = (v: number, digits: number): number => Number(v.toFixed(digits));
  return {
    version: 1,
    source: report.source,
    target: report.target,
    sampleRate: report.sampleRate,
    clips: Object.fromEntries(
      report.clips.map((c) => [
        c.clip,
        {
          positionDrift: round(c.positionDrift.value, 7),
          rotationDriftDeg: round(c.rotationDriftDeg.value, 4),
          pelvisVerticalDrift: round(c.pelvisVerticalDrift, 7),
        },
      ]),
    ),
  };
}

/** What {@link compareWithBaseline} found. */
export interface BaselineComparison {
  /** Clips worse than their baseline beyond the tolerance, with the figures. */
  regressions: string[];
  /** Clips in the baseline that the run did not check (removed or renamed). */
  missing: string[];
  /** Clips the run checked that the baseline does not know (new clips: not a failure). */
  added: string[];
  /** True when nothing regressed. */
  ok: boolean;
}

/** Compares a run against a baseline. Rigs or sample rate that differ make every clip a regression. */
export function compareWithBaseline(
  report: ParityReport,
  baseline: ParityBaseline,
  tolerance: BaselineTolerance = DEFAULT_BASELINE_TOLERANCE,
): BaselineComparison {
  const regressions: string[] = [];
  if (baseline.version !== 1) regressions.push(`baseline version ${String(baseline.version)} is not understood (expected 1)`);
  if (baseline.source !== report.source || baseline.target !== report.target)
    regressions.push(`baseline is for ${baseline.source} → ${baseline.target}, this run is ${report.source} → ${report.target}`);
  if (baseline.sampleRate !== report.sampleRate)
    regressions.push(`baseline sampled at ${baseline.sampleRate} Hz, this run at ${report.sampleRate} Hz`);
  const checked = new Set<string>();
  const added: string[] = [];
  for (const clip of report.clips) {
    checked.add(clip.clip);
    const base = baseline.clips[clip.clip];
    if (!base) {
      added.push(clip.clip);
      continue;
    }
    const limit = (value: number, floor: number): number => value * tolerance.factor + floor;
    if (clip.positionDrift.value > limit(base.positionDrift, tolerance.positionFloor)) {
      regressions.push(
        `${clip.clip}: position drift ${(clip.positionDrift.value * 1000).toFixed(3)} mm on ${clip.positionDrift.bone} (baseline ${(base.positionDrift * 1000).toFixed(3)} mm)`,
      );
    }
    if (clip.rotationDriftDeg.value > limit(base.rotationDriftDeg, tolerance.rotationFloorDeg)) {
      regressions.push(
        `${clip.clip}: rotation drift ${clip.rotationDriftDeg.value.toFixed(4)}° on ${clip.rotationDriftDeg.bone} (baseline ${base.rotationDriftDeg.toFixed(4)}°)`,
      );
    }
    if (clip.pelvisVerticalDrift > limit(base.pelvisVerticalDrift, tolerance.positionFloor)) {
      regressions.push(
        `${clip.clip}: pelvis vertical drift ${(clip.pelvisVerticalDrift * 1000).toFixed(3)} mm (baseline ${(base.pelvisVerticalDrift * 1000).toFixed(3)} mm)`,
      );
    }
  }
  const missing = Object.keys(baseline.clips).filter((name) => !checked.has(name));
  for (const name of missing) regressions.push(`${name}: in the baseline but not checked (removed, renamed or failed to load)`);
  return { regressions, missing, added, ok: regressions.length === 0 };
}

/** A per-clip table for a terminal or a report file. */
export function formatParityReport(report: ParityReport): string {
  const lines = [
    `parity ${report.source} → ${report.target}, ${report.clips.length} clips at ${report.sampleRate} Hz, ${report.ms.toFixed(0)} ms`,
    `bounds${report.boundScale.target === 1 ? '' : ` (lengths ×${report.boundScale.target.toFixed(2)} for the target's size: ${(report.boundScale.target * PARITY_REFERENCE_HEIGHT).toFixed(2)} m tall against the mannequin's ${PARITY_REFERENCE_HEIGHT} m)`}: position drift ≤ ${(report.bounds.positionDrift * 1000).toFixed(2)} mm, rotation drift ≤ ${report.bounds.rotationDriftDeg}°, locomotion pelvis vertical drift ≤ ${(report.bounds.pelvisVerticalDrift * 1000).toFixed(1)} mm; bind alignment residual ${report.alignmentResidualDeg.value.toFixed(4)}°, pelvis facing ${report.pelvisFacingDeg.toFixed(1)}° from the source's, pelvis tilt ≤ ${report.bounds.pelvisTiltDeg}° (worst ${report.pelvisTiltDeg.value.toFixed(2)}°${report.pelvisTiltDeg.clip ? ` in ${report.pelvisTiltDeg.clip}` : ''})`,
    `${'clip'.padEnd(20)} ${'frames'.padStart(6)}  ${'pos drift mm'.padStart(12)}  ${'rot drift °'.padStart(11)}  ${'hips y mm'.padStart(9)}  ${'bind offset mm'.padStart(14)}  worst bone`,
  ];
  for (const c of report.clips) {
    lines.push(
      `${(c.ok ? '✓ ' : '✗ ') + c.clip.padEnd(18)} ${String(c.frames).padStart(6)}  ${(c.positionDrift.value * 1000).toFixed(4).padStart(12)}  ${c.rotationDriftDeg.value.toFixed(4).padStart(11)}  ${(c.pelvisVerticalDrift * 1000).toFixed(4).padStart(9)}  ${(c.positionOffset.value * 1000).toFixed(1).padStart(14)}  ${c.positionDrift.bone}${c.failures.length ? `  — ${c.failures.join('; ')}` : ''}`,
    );
  }
  return lines.join('\n');
}
