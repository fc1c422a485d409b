/**
 * The `npm run retarget:check` command (bin/retarget-check.ts): the trajectory-parity check. Loads
 * both rigs headless, retargets every clip, samples source and target at 60 Hz through three.js's
 * AnimationMixer, and compares every mapped bone's world position and rotation with the scaled
 * source: constant per-bone offsets (bind deltas) are reported, frame-varying drift is bounded, and a
 * baseline catches a clip that got worse. `--help` lists the options.
 * The verdict is src/anim/node/verdict.ts, the one `npm run retarget` gives too.
 * Exit status: 0 pass; 1 a clip fails its bounds or regressed against the baseline; 2 unusable input.
 */
import { writeFile } from 'node:fs/promises';
import { describeRigFile, pairRigs, loadRigSource, writeGlb } from './rig-files.ts';
import { consoleIO, expandShortOptions, parseArgs, progressPrinter, type CommandIO } from './cli.ts';
import { resolveMapOption } from './map-file.ts';
import { coreBoneGaps, formatBoneMap } from '../retarget/bone-map.ts';
import { RigLoadError } from '../../rig/import/errors.ts';
import { RetargetError } from '../retarget/retarget-clip.ts';
import { formatClipReports, retargetLibrary } from '../retarget/retarget-library.ts';

import { defaultBaseline, judgeRetarget, verdictLines } from './verdict.ts';

export { BUILTIN_BASELINE } from './verdict.ts';

const HELP = `Trajectory-parity check: does the retargeted motion follow the source?

  npm run retarget:check -- [--source A.glb] [--target B.glb] [options]

  --source RIG          rig with clips: a .glb/.gltf/.fbx/.bvh file (skeleton-only mocap works)
                        or builtin:mannequin (default)
  --target RIG          rig to retarget onto: a file or builtin:cc4 (default)
  --baseline FILE.json  compare against this baseline (default for the built-in pair:
                        tests/fixtures/anim/parity-baseline.json)
  --write-baseline      write this run's figures as the new baseline (to --baseline or the default)
  --report FILE.json    write the full per-clip report as JSON
  --out FILE.glb        also write the target model with the retargeted clips
  --clip NAME           check only this clip (repeatable)
  --sample-rate HZ      samples per second (default 60)
  --source-map MAP / --target-map MAP   detect (default), auto, mannequin, cc4, mixamo, or
                        FILE.json (canonical bone → bone name); --map FILE.json is --target-map
  --in-place            retarget without horizontal root motion
  --help

The bone map is printed. Fails when hips, spine or an arm or leg chain is unmapped in either rig.
Exit status: 0 pass, 1 a clip fails, regressed or a core bone is unmapped, 2 the input cannot be used.`;

export async function checkCommand(argv: readonly string[], io: CommandIO = consoleIO): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    // Unusable input: say why, with every problem.
    io.err(error instanceof RetargetError || error instanceof RigLoadError ? error.message : `retarget:check: ${(error as Error).message}`);
    return 2;
  }
}

async function run(argv: readonly string[], io: CommandIO): Promise<number> {
  const args = parseArgs(
    expandShortOptions(argv, { o: 'out', h: 'help' }),
    ['source', 'target', 'baseline', 'report', 'out', 'clip', 'sample-rate', 'source-map', 'target-map', 'map'],
    ['write-baseline', 'in-place', 'help'],
  );
  if (args.flags.has('help')) {
    io.out(HELP);
    return 0;
  }
  if (args.positional.length > 2) throw new Error(`expected at most two paths (SOURCE TARGET), got ${args.positional.length}`);
  const sourceLabel = args.positional[0] ?? args.values.get('source')?.[0] ?? 'builtin:mannequin';
  const targetLabel = args.positional[1] ?? args.values.get('target')?.[0] ?? 'builtin:cc4';
  const sourceMap = await resolveMapOption(args.values.get('source-map')?.[0]);
  const targetMap = await resolveMapOption(args.values.get('target-map')?.[0] ?? args.values.get('map')?.[0]);
  const source = await loadRigSource(sourceLabel);
  const target = await loadRigSource(targetLabel);
  const only = args.values.get('clip');
  const clips = only ? source.clips.filter((c) => only.includes(c.name)) : source.clips;
  if (clips.length === 0) {
    io.err(`nothing to check: ${sourceLabel} carries ${only ? 'none of the requested clips' : 'no clips'}`);
    return 2;
  }
  const sampleRate = Number(args.values.get('sample-rate')?.[0] ?? 60);
  if (!(sampleRate > 0)) throw new Error('--sample-rate must be a positive number');

  const context = pairRigs(source, target, { sourceMap, targetMap, rootMotion: args.flags.has('in-place') ? 'in-place' : 'hips' }, io);
  io.out(
    `source ${sourceLabel} (${context.mapping.source.mapName} map) → target ${targetLabel} (${context.mapping.target.mapName} map): ${context.mapping.pairs.length} bones mapped`,
  );
  for (const line of [...describeRigFile(source), ...describeRigFile(target)]) io.out(line);
  io.out('bone map (canonical: source → target):');
  for (const line of formatBoneMap(context.mapping, source.description, target.description)) io.out(line);
  for (const problem of context.mapping.problems) io.out(`! ${problem.message}`);
  const gaps = coreBoneGaps(context.mapping, source.description.name, target.description.name);

  const retargetProgress = progressPrinter('retargeting', io);
  const retargeted = retargetLibrary(clips, context, retargetProgress);
  retargetProgress.done();
  const failedClips = retargeted.reports.filter((r) => !r.ok);
  if (failedClips.length) io.out(formatClipReports(failedClips));

  const verdict = await judgeRetarget(
    clips,
    retargeted.clips,
    context,
    {
      sampleRate,
      gaps,
      writeBaseline: args.flags.has('write-baseline'),
      baselinePath:
        args.values.get('baseline')?.[0] ?? defaultBaseline(sourceLabel, targetLabel, only !== undefined, args.flags.has('in-place')),
    },
    io,
  );
  const { report, regressions } = verdict;
  io.out(
    `retarget ${retargeted.ms.toFixed(0)} ms (${(retargeted.ms / clips.length).toFixed(1)} ms/clip), parity ${report.ms.toFixed(0)} ms (${(report.ms / clips.length).toFixed(1)} ms/clip)`,
  );
  const reportPath = args.values.get('report')?.[0];
  if (reportPath) {
    await writeFile(reportPath, JSON.stringify({ ...report, retarget: retargeted.reports, regressions }, null, 2));
    io.out(`wrote ${reportPath}`);
  }
  const out = args.values.get('out')?.[0];
  if (out) {
    const bytes = await writeGlb(out, target, retargeted.clips);
    io.out(`wrote ${out} (${retargeted.clips.length} clips, ${(bytes / 1024).toFixed(0)} KiB)`);
  }
  for (const line of verdictLines(verdict, gaps)) io.out(line);
  return verdict.ok ? 0 : 1;
}
