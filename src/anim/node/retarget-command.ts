/**
 * The `npm run retarget` command (bin/retarget.ts): retargets a whole animation library from one rig
 * onto another and writes the target model with the new clips to a GLB. `--help` lists the options.
 * Its verdict is the trajectory-parity check's (src/anim/node/verdict.ts), as `npm run
 * retarget:check` gives it on the same pair.
 * Exit status: 0 every clip retargeted and passed; 1 a clip failed to retarget or its parity bounds
 * (the others are written); 2 nothing could be done (a rig, a file or an option is unusable).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnimationClip } from 'three';
import { describeRigFile, pairRigs, loadModelFile, loadRigSource, writeGlb, type RigSource } from './rig-files.ts';
import { consoleIO, expandShortOptions, parseArgs, progressPrinter, type CommandIO } from './cli.ts';
import { resolveMapOption } from './map-file.ts';
import { defaultBaseline, judgeRetarget, verdictLines } from './verdict.ts';
import { boneMapToJson, coreBoneGaps, formatBoneMap } from '../retarget/bone-map.ts';
import { RigLoadError } from '../../rig/import/errors.ts';
import { createRetargetContext, RetargetError } from '../retarget/retarget-clip.ts';
import { formatClipReports, retargetLibrary } from '../retarget/retarget-library.ts';

const HELP = `Retarget an animation library onto another rig.

  npm run retarget -- [SOURCE] [TARGET] [-o OUT.glb] [options]

  SOURCE (or --source RIG)  rig the clips are authored on, with its clips: a .glb/.gltf/.fbx/.bvh
                      file (skeleton-only mocap works) or builtin:mannequin (default: the 55-clip library)
  TARGET (or --target RIG)  rig to retarget onto: a .glb/.gltf/.fbx file or builtin:cc4 (default)
  -o, --out FILE.glb  write the target model with the retargeted clips (a glTF target keeps its
                      textures and materials; its own clips are replaced)
  --clips FILE        more clip files authored on the source rig (repeatable)
  --report FILE.json  write the per-clip report (and the bone map) as JSON
  --clip NAME         retarget only this clip (repeatable)
  --source-map MAP    detect (default), auto, mannequin, cc4, mixamo, or FILE.json (canonical → bone name)
  --target-map MAP    the same for the target
  --map FILE.json     shorthand for --target-map FILE.json
  --write-map FILE.json  write the target's map (edit it and pass it back with --target-map)
  --in-place          drop horizontal root motion (turns and vertical motion stay)
  --baseline FILE.json  hold the result to this parity baseline too (default for the built-in
                      pair: tests/fixtures/anim/parity-baseline.json)
  --sample-rate HZ    parity samples per second (default 60)
  --export-builtin DIR  write DIR/mannequin-library.glb and DIR/cc4.glb and exit
  --help

The bone map is printed. Hips, spine and both arm and leg chains must map in both rigs. Every
retargeted clip then goes through the trajectory-parity check (npm run retarget:check): its
verdict is this command's, with bounds in proportion to the characters' size.
Exit status: 0 every clip retargeted and passed; 1 a clip failed to retarget or its parity bounds,
regressed against the baseline, a core bone is unmapped or a --clips file is unusable (what could be
retargeted is still written); 2 nothing could be done.`;

export async function retargetCommand(argv: readonly string[], io: CommandIO = consoleIO): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    // Unusable input: say why, with every problem.
    io.err(error instanceof RetargetError || error instanceof RigLoadError ? error.message : `retarget: ${(error as Error).message}`);
    return 2;
  }
}

async function run(argv: readonly string[], io: CommandIO): Promise<number> {
  const args = parseArgs(
    expandShortOptions(argv, { o: 'out', h: 'help' }),
    [
      'source',
      'clips',
      'target',
      'out',
      'report',
      'clip',
      'source-map',
      'target-map',
      'map',
      'write-map',
      'export-builtin',
      'baseline',
      'sample-rate',
    ],
    ['in-place', 'help'],
  );
  if (args.flags.has('help')) {
    io.out(HELP);
    return 0;
  }
  const exportDir = args.values.get('export-builtin')?.[0];
  if (exportDir) {
    await mkdir(exportDir, { recursive: true });
    for (const [label, file] of [
      ['builtin:mannequin', 'mannequin-library.glb'],
      ['builtin:cc4', 'cc4.glb'],
    ] as const) {
      const rig = await loadRigSource(label);
      const bytes = await writeGlb(join(exportDir, file), rig, rig.clips);
      io.out(
        `wrote ${join(exportDir, file)} (${rig.description.bones.length} bones, ${rig.clips.length} clips, ${(bytes / 1024).toFixed(0)} KiB)`,
      );
    }
    return 0;
  }
  if (args.positional.length > 2)
    throw new Error(`expected at most two paths (SOURCE TARGET), got ${args.positional.length}: ${args.positional.join(' ')}`);
  if (args.positional[0] && args.values.has('source')) throw new Error('the source is given twice (a path and --source)');
  if (args.positional[1] && args.values.has('target')) throw new Error('the target is given twice (a path and --target)');
  const sourceLabel = args.positional[0] ?? args.values.get('source')?.[0] ?? 'builtin:mannequin';
  const targetLabel = args.positional[1] ?? args.values.get('target')?.[0] ?? 'builtin:cc4';
  const sourceMap = await resolveMapOption(args.values.get('source-map')?.[0]);
  const targetMap = await resolveMapOption(args.values.get('target-map')?.[0] ?? args.values.get('map')?.[0]);

  const source = await loadRigSource(sourceLabel);
  const target = await loadRigSource(targetLabel);
  if (target.report?.skeletonOnly)
    io.out(`! target ${targetLabel} has no mesh (skeleton only): the output carries bones and clips, nothing to see`);
  const clips: AnimationClip[] = [...source.clips];
  const fileProblems: string[] = [];
  for (const file of args.values.get('clips') ?? []) {
    try {
      const loaded = await loadModelFile(file);
      if (loaded.clips.length === 0) fileProblems.push(`${file}: has no animation clips`);
      clips.push(...loaded.clips);
    } catch (error) {
      // One unreadable file does not stop the others.
      fileProblems.push((error as Error).message);
    }
  }
  const only = args.values.get('clip');
  const selected = only ? clips.filter((c) => only.includes(c.name)) : clips;
  if (only)
    for (const name of only) if (!clips.some((c) => c.name === name)) fileProblems.push(`clip "${name}" is not in the source library`);
  for (const problem of fileProblems) io.err(`✗ ${problem}`);
  if (selected.length === 0) {
    io.err(`nothing to retarget: ${source.label} carries no clips${args.values.has('clips') ? ' and no --clips file gave any' : ''}`);
    return 2;
  }

  const context = pairRigs(source, target, { sourceMap, targetMap, rootMotion: args.flags.has('in-place') ? 'in-place' : 'hips' }, io);
  describeContext(source, target, context, io);
  const gaps = coreBoneGaps(context.mapping, source.description.name, target.description.name);
  const writeMap = args.values.get('write-map')?.[0];
  if (writeMap) {
    await writeFile(writeMap, `${JSON.stringify(boneMapToJson(context.mapping.target, target.description), null, 2)}\n`);
    io.out(`wrote ${writeMap} (the target's map; edit it and pass --target-map ${writeMap})`);
  }
  const progress = progressPrinter('retargeting', io);
  const result = retargetLibrary(selected, context, progress);
  progress.done();
  io.out(formatClipReports(result.reports));
  io.out(
    `\n${result.clips.length}/${selected.length} clips retargeted in ${result.ms.toFixed(0)} ms (${(result.ms / selected.length).toFixed(1)} ms per clip)`,
  );
  // The verdict is the parity check's, as `npm run retarget:check` gives it on the same pair.
  const sampleRate = Number(args.values.get('sample-rate')?.[0] ?? 60);
  if (!(sampleRate > 0)) throw new Error('--sample-rate must be a positive number');
  const verdict = await judgeRetarget(
    selected,
    result.clips,
    context,
    {
      sampleRate,
      gaps,
      baselinePath:
        args.values.get('baseline')?.[0] ?? defaultBaseline(sourceLabel, targetLabel, only !== undefined, args.flags.has('in-place')),
    },
    io,
  );

  const out = args.values.get('out')?.[0];
  if (out && result.clips.length) {
    const bytes = await writeGlb(out, target, result.clips);
    io.out(
      `wrote ${out} (${target.description.name} with ${result.clips.length} clips, ${(bytes / 1024).toFixed(0)} KiB${target.document ? ', textures and materials from the file' : ''})`,
    );
  } else if (!out) {
    io.out('nothing written (give -o OUT.glb to write the result)');
  }
  const reportPath = args.values.get('report')?.[0];
  if (reportPath) {
    const map = Object.fromEntries(
      context.mapping.pairs.map((p) => [
        p.canonical,
        { source: source.description.bones[p.source]!.name, target: target.description.bones[p.target]!.name },
      ]),
    );
    await writeFile(
      reportPath,
      JSON.stringify(
        {
          source: source.label,
          target: target.label,
          ratios: context.ratios,
          map,
          gaps,
          problems: context.mapping.problems,
          files: fileProblems,
          clips: result.reports,
          parity: verdict.report,
          regressions: verdict.regressions,
        },
        null,
        2,
      ),
    );
    io.out(`wrote ${reportPath}`);
  }
  for (const line of verdictLines(verdict, gaps, fileProblems)) io.out(line);
  return verdict.ok && fileProblems.length === 0 ? 0 : 1;
}

function describeContext(source: RigSource, target: RigSource, context: ReturnType<typeof createRetargetContext>, io: CommandIO): void {
  const { mapping, ratios } = context;
  for (const [label, rig] of [
    ['source', source],
    ['target', target],
  ] as const) {
    io.out(
      `${label} ${rig.label}: ${rig.description.bones.length} bones (${label === 'source' ? mapping.source.mapName : mapping.target.mapName} map)${label === 'source' ? `, ${rig.clips.length} clips` : ''}`,
    );
    for (const line of describeRigFile(rig)) io.out(line);
  }
  io.out('bone map (canonical: source → target):');
  for (const line of formatBoneMap(mapping, source.description, target.description)) io.out(line);
  io.out(
    `${mapping.pairs.length} bones mapped; ${mapping.droppedSource.length} source bones dropped; ${mapping.unmappedTarget.length} target bones follow their parents`,
  );
  io.out(
    `ratios: horizontal ${ratios.horizontal.toFixed(4)} (legs ${ratios.sourceLegLength.toFixed(3)} → ${ratios.targetLegLength.toFixed(3)} m), vertical ${ratios.vertical.toFixed(4)} (hips ${ratios.sourceHipHeight.toFixed(3)} → ${ratios.targetHipHeight.toFixed(3)} m)`,
  );
  for (const problem of mapping.problems) io.out(`${problem.severity === 'error' ? '✗' : '!'} ${problem.message}`);
}
