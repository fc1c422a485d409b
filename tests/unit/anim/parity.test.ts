import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createAnimationLibrary } from '../../../src/anim/library/index.ts';
import { compareWithBaseline, formatParityReport, makeBaseline, type ParityBaseline } from '../../../src/anim/parity/baseline.ts';
import { checkLibraryParity, DEFAULT_PARITY_BOUNDS, type ParityReport } from '../../../src/anim/parity/parity-check.ts';
import { createRetargetContext } from '../../../src/anim/retarget/retarget-clip.ts';
import { retargetLibrary } from '../../../src/anim/retarget/retarget-library.ts';
import { rigFromDef } from '../../../src/anim/retarget/rig-description.ts';
import { CC4_RIG } from '../../../src/anim/rigs/cc4.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';

// Whole-library work: seconds on an idle machine, more when the test run shares the cores.
vi.setConfig({ testTimeout: 30_000 });

const BASELINE = resolve(import.meta.dirname, '../../fixtures/anim/parity-baseline.json');
const library = createAnimationLibrary();
const context = createRetargetContext(rigFromDef(MANNEQUIN), rigFromDef(CC4_RIG));
const retargeted = retargetLibrary(library, context);
const report: ParityReport = checkLibraryParity(library, retargeted.clips, context);

describe('trajectory parity over the whole built-in library (mannequin → CC4)', () => {
  it('retargets every clip of the library, with tracks only on CC4 bones', () => {
    expect(retargeted.reports.filter((r) => !r.ok)).toEqual([]);
    expect(retargeted.clips.length).toBe(library.length);
    for (const clip of retargeted.clips) {
      expect(clip.validate(), clip.name).toBe(true);
      for (const track of clip.tracks) expect(context.target.index.has(track.name.split('.')[0]!), track.name).toBe(true);
    }
  });

  it('checks every clip at 60 Hz and every mapped bone', () => {
    expect(report.clips.length).toBe(library.length);
    expect(report.sampleRate).toBe(60);
    for (const clip of report.clips) {
      expect(clip.frames, clip.clip).toBe(Math.floor(library.find((c) => c.name === clip.clip)!.duration * 60 + 1e-6) + 1);
      expect(clip.bones).toBe(61);
    }
  });

  it('holds pelvis vertical drift to 3 mm in every locomotion clip', () => {
    const locomotion = report.clips.filter((c) => c.category === 'locomotion');
    expect(locomotion.length).toBeGreaterThanOrEqual(12);
    for (const clip of locomotion) expect(clip.pelvisVerticalDrift, clip.clip).toBeLessThanOrEqual(0.003);
  });

  it(`has no clip with frame-varying drift above ${DEFAULT_PARITY_BOUNDS.positionDrift * 1000} mm or ${DEFAULT_PARITY_BOUNDS.rotationDriftDeg}°`, () => {
    if (!report.ok) console.log(formatParityReport(report));
    expect(report.failures).toEqual([]);
    for (const clip of report.clips) {
      expect(clip.positionDrift.value, clip.clip).toBeLessThanOrEqual(DEFAULT_PARITY_BOUNDS.positionDrift);
      expect(clip.rotationDriftDeg.value, clip.clip).toBeLessThanOrEqual(DEFAULT_PARITY_BOUNDS.rotationDriftDeg);
    }
    expect(report.alignmentResidualDeg.value).toBeLessThan(DEFAULT_PARITY_BOUNDS.alignmentResidualDeg);
  });

  it('reports constant bind deltas separately from drift (the CC4 shoulders sit elsewhere on the chest)', () => {
    const idle = report.clips.find((c) => c.clip === 'idle')!;
    // A bind delta of centimetres, yet the frame-varying part stays at float noise.
    expect(idle.positionOffset.value).toBeGreaterThan(0.01);
    expect(idle.positionDrift.value).toBeLessThan(idle.positionOffset.value / 100);
  });

  it('matches the stored baseline (a clip that gets worse fails here)', () => {
    const baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as ParityBaseline;
    const comparison = compareWithBaseline(report, baseline);
    expect(comparison.regressions).toEqual([]);
    expect(comparison.missing).toEqual([]);
  });
});

describe('the parity check can fail', () => {
  const sample = library.filter((c) => ['walk_fwd', 'idle', 'sword_slash_1', 'jump'].includes(c.name));

  it('catches the A-to-T difference added to every frame (reference = bind)', () => {
    const broken = createRetargetContext(rigFromDef(MANNEQUIN), rigFromDef(CC4_RIG));
    broken.reference.worldRotation = broken.target.bones.map((b) => b.worldRotation.clone());
    const result = checkLibraryParity(sample, retargetLibrary(sample, broken).clips, context);
    expect(result.ok).toBe(false);
    const walk = result.clips.find((c) => c.clip === 'walk_fwd')!;
    expect(walk.positionDrift.value).toBeGreaterThan(0.01);
    expect(walk.rotationDriftDeg.value).toBeGreaterThan(5);
  });

  it('catches hips scaled by the wrong ratio (one ratio for both directions)', () => {
    const broken = createRetargetContext(rigFromDef(MANNEQUIN), rigFromDef(CC4_RIG));
    broken.ratios = { ...broken.ratios, horizontal: 1, vertical: 1 };
    const result = checkLibraryParity(sample, retargetLibrary(sample, broken).clips, context);
    expect(result.clips.find((c) => c.clip === 'walk_fwd')!.failures.join()).toMatch(/position drift/);
    expect(result.clips.find((c) => c.clip === 'jump')!.pelvisVerticalDrift).toBeGreaterThan(0.01);
  });

  it('fails a clip that did not retarget, and a baseline notices a regression inside the bounds', () => {
    const missing = checkLibraryParity(sample, [], context);
    expect(missing.failures).toEqual(expect.arrayContaining(['walk_fwd: the clip did not retarget']));
    const own = makeBaseline(report);
    const tightened: ParityBaseline = {
      ...own,
      clips: { ...own.clips, walk_fwd: { positionDrift: 0, rotationDriftDeg: 0, pelvisVerticalDrift: 0 } },
    };
    const worse: ParityReport = {
      ...report,
      clips: report.clips.map((c) => (c.clip === 'walk_fwd' ? { ...c, positionDrift: { bone: 'CC_Base_L_Foot', value: 0.0008 } } : c)),
    };
    const comparison = compareWithBaseline(worse, tightened);
    expect(comparison.ok).toBe(false);
    expect(comparison.regressions.join('\n')).toMatch(/walk_fwd: position drift 0\.800 mm on CC_Base_L_Foot \(baseline 0\.000 mm\)/);
    expect(compareWithBaseline({ ...report, target: 'other-rig' }, own).regressions[0]).toMatch(
      /baseline is for cairn-mannequin → cairn-cc4, this run is cairn-mannequin → other-rig/,
    );
    expect(compareWithBaseline({ ...report, clips: report.clips.slice(1) }, own).missing).toEqual(['idle']);
  });
});
