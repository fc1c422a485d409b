/**
 * One verdict for one pair: `npm run retarget` runs the trajectory-parity check on what it
 * retargeted and exits with its verdict, the one `npm run retarget:check` gives on the same pair;
 * and the check's length bounds are in proportion to the characters' size. Real files from
 * tests/fixtures/import (see its README).
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { checkCommand } from '../../../src/anim/node/check-command.ts';
import type { CommandIO } from '../../../src/anim/node/cli.ts';
import { retargetCommand } from '../../../src/anim/node/retarget-command.ts';
import { loadRigSource } from '../../../src/anim/node/rig-files.ts';
import { libraryClip } from '../../../src/anim/library/index.ts';
import {
  checkLibraryParity,
  characterHeight,
  DEFAULT_PARITY_BOUNDS,
  PARITY_REFERENCE_HEIGHT,
  scaleParityBounds,
} from '../../../src/anim/parity/parity-check.ts';
import { createRetargetContext } from '../../../src/anim/retarget/retarget-clip.ts';
import { retargetLibrary } from '../../../src/anim/retarget/retarget-library.ts';

vi.setConfig({ testTimeout: 120_000 });

const FIXTURES = join(import.meta.dirname, '../../fixtures/import');
const ROBOT = join(FIXTURES, 'robot-expressive.glb');
const MALE_CASUAL = join(FIXTURES, 'quaternius-male-casual.fbx');

function capture(): CommandIO & { text(): string } {
  const lines: string[] = [];
  return { out: (l) => lines.push(l), err: (l) => lines.push(l), text: () => lines.join('\n') };
}

/** The verdict's lines: from PASS or FAIL to the end. */
function verdictOf(text: string): string {
  return text.slice(text.search(/^(PASS|FAIL)/m));
}

describe('npm run retarget and npm run retarget:check agree', () => {
  it.each([
    // The whole library onto the three.js robot (4.46 m tall): passes both, bounds scaled ×2.41.
    ['the library onto the three.js robot', 'builtin:mannequin', ROBOT, ['sprint', 'walk_fwd', 'idle'], 0],
    // Male_Casual's own clips onto the mannequin: its death clip pushes a shin through its own floor.
    ['Male_Casual’s clips onto the mannequin', MALE_CASUAL, 'builtin:mannequin', ['HumanArmature|Man_Death', 'HumanArmature|Man_Walk'], 1],
  ] as const)('%s: the same exit status and the same verdict', async (_what, source, target, clips, status) => {
    const args = [source, target, ...clips.flatMap((clip) => ['--clip', clip])];
    const retarget = capture();
    const check = capture();
    expect(await retargetCommand(args, retarget), retarget.text()).toBe(status);
    expect(await checkCommand(args, check), check.text()).toBe(status);
    expect(verdictOf(retarget.text())).toBe(verdictOf(check.text()));
    if (status === 1)
      expect(verdictOf(retarget.text())).toMatch(
        /^FAIL: 1 bound failure\(s\), 0 regression\(s\), 0 rig\(s\) with unmapped core bones\n✗ HumanArmature\|Man_Death: the source clip itself puts LowerLegR \d+\.\d+ mm below its bind-pose floor/,
      );
  });
});

describe('bounds in proportion to the character', () => {
  it('holds the 4.46 m robot to 2.41 mm of drift, where 1 mm failed its sprint at 1.74 mm', async () => {
    const robot = await loadRigSource(ROBOT);
    const mannequin = await loadRigSource('builtin:mannequin');
    expect(characterHeight(robot.description)).toBeCloseTo(4.46, 2);
    expect(characterHeight(mannequin.description)).toBeCloseTo(PARITY_REFERENCE_HEIGHT, 2);
    const context = createRetargetContext(mannequin.description, robot.description);
    const sprint = [libraryClip('sprint')];
    const report = checkLibraryParity(sprint, retargetLibrary(sprint, context).clips, context);
    expect(report.boundScale.target).toBeCloseTo(4.46 / PARITY_REFERENCE_HEIGHT, 2);
    expect(report.bounds.positionDrift).toBeCloseTo(0.001 * report.boundScale.target, 6);
    const drift = report.clips[0]!.positionDrift;
    expect(drift.bone).toBe('FootR');
    // 0.04 % of its height: over the mannequin's absolute millimetre, under the robot's share of it.
    expect(drift.value).toBeGreaterThan(DEFAULT_PARITY_BOUNDS.positionDrift);
    expect(drift.value).toBeLessThan(report.bounds.positionDrift);
    expect(report.ok).toBe(true);
    // The same figures against unscaled bounds fail, as they did.
    const unscaled = checkLibraryParity(sprint, retargetLibrary(sprint, context).clips, context, {
      bounds: scaleParityBounds(DEFAULT_PARITY_BOUNDS, { target: 1 / report.boundScale.target, source: 1 }),
    });
    expect(unscaled.failures).toEqual([expect.stringMatching(/^sprint: position drift 1\.7\d mm on FootR exceeds 1\.00 mm$/)]);
  });

  it('holds a 0.49 m character to a quarter of the millimetre', async () => {
    const male = await loadRigSource(MALE_CASUAL);
    const context = createRetargetContext((await loadRigSource('builtin:mannequin')).description, male.description);
    const walk = [libraryClip('walk_fwd')];
    const report = checkLibraryParity(walk, retargetLibrary(walk, context).clips, context);
    expect(report.boundScale.target).toBeCloseTo(0.485 / PARITY_REFERENCE_HEIGHT, 2);
    expect(report.bounds.positionDrift).toBeLessThan(0.0003);
    expect(report.bounds.footSlide).toBeCloseTo(DEFAULT_PARITY_BOUNDS.footSlide * report.boundScale.target, 6);
    expect(report.ok).toBe(true);
  });
});
