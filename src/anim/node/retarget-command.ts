/**
 * The `npm run retarget` command (bin/retarget.ts): retargets a whole animation library from one rig
 * onto another and writes the target model with the new clips to a GLB. `--help` lists the options.
 * Exit status: 0 every clip retargeted; 1 some clips failed (the others are written); 2 nothing could
 * be done (a rig, a file or an option is unusable).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnimationClip } from 'three';
import { loadModelFile, loadRigSource, writeGlb, type RigSource } from './rig-files.ts';
import { consoleIO, mapChoice, parseArgs, progressPrinter, type CommandIO } from './cli.ts';
import { createRetargetContext, RetargetError } from '../retarget/retarget-clip.ts';
import { formatClipReports, retargetLibrary } from '../retarget/retarget-library.ts';

const HELP = `Retarget an animation library onto another rig.

  npm run retarget -- [--source RIG] [--clips FILE]… [--target RIG] [--out OUT.glb] [options]

  --source RIG        rig the clips are authored on, with its clips: a .glb/.gltf/.fbx file or
                      builtin:mannequin (default: builtin:mannequin, the 55-clip library)
  --clips FILE        more clip files authored on the source rig (repeatable)
  --target RIG        rig to retarget onto: a file or builtin:cc4 (default: builtin:cc4)
  --out FILE.glb      write the target model with the retargeted clips
  --report FILE.json  write the per-clip report (and the bone map) as JSON
  --clip NAME         retarget only this clip (repeatable)
  --source-map MAP    detect (default), auto, mannequin, cc4 or mixamo
  --target-map MAP    the same for the target
  --in-place          drop horizontal root motion (turns and vertical motion stay)
  --export-builtin DIR  write DIR/mannequin-library.glb and DIR/cc4.glb and exit
  --help

Exit status: 0 all clips retargeted, 1 some clips failed (the rest are written), 2 nothing could be done.`;

export async function retargetCommand(argv: readonly string[], io: CommandIO = consoleIO): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    // Unusable input: say why, with every problem.
    io.err(error instanceof RetargetError ? error.message : `retarget: ${(error as Error).message}`);
    return 2;
  }
}

async function run(argv: readonly string[], io: CommandIO): Promise<number> {
  const args = parseArgs(argv, ['source', 'clips', 'target', 'out', 'report', 'clip', 'source-map', 'target-map', 'export-builtin'], ['in-place', 'help']);
  if (args.flags.has('help')) {
    io.out(HELP);
    return 0;
  }
  const exportDir = args.values.get('export-builtin')?.[0];
  if (exportDir) {
    await mkdir(exportDir, { recursive: true });
    for (const [label, file] of [['builtin:mannequin', 'mannequin-library.glb'], ['builtin:cc4', 'cc4.glb']] as const) {
      const rig = await loadRigSource(label);
      const bytes = await writeGlb(join(exportDir, file), rig.object, rig.clips);
      io.out(`wrote ${join(exportDir, file)} (${rig.description.bones.length} bones, ${rig.clips.length} clips, ${(bytes / 1024).toFixed(0)} KiB)`);
    }
    return 0;
  }

  const source = await loadRigSource(args.values.get('source')?.[0] ?? 'builtin:mannequin');
  const target = await loadRigSource(args.values.get('target')?.[0] ?? 'builtin:cc4');
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
  if (only) for (const name of only) if (!clips.some((c) => c.name === name)) fileProblems.push(`clip "${name}" is not in the source library`);
  for (const problem of fileProblems) io.err(`✗ ${problem}`);
  if (selected.length === 0) {
    io.err(`nothing to retarget: ${source.label} carries no clips${args.values.has('clips') ? ' and no --clips file gave any' : ''}`);
    return 2;
  }

  const context = createRetargetContext(source.description, target.description, {
    sourceMap: mapChoice(args.values.get('source-map')?.[0]),
    targetMap: mapChoice(args.values.get('target-map')?.[0]),
    rootMotion: args.flags.has('in-place') ? 'in-place' : 'hips',
  });
  describeContext(source, target, context, io);
  const progress = progressPrinter('retargeting', io);
  const result = retargetLibrary(selected, context, progress);
  progress.done();
  io.out(formatClipReports(result.reports));
  const failed = result.reports.filter((r) => !r.ok).length;
  io.out(`\n${result.clips.length}/${selected.length} clips retargeted in ${result.ms.toFixed(0)} ms (${(result.ms / selected.length).toFixed(1)} ms per clip)`);

  const out = args.values.get('out')?.[0];
  if (out && result.clips.length) {
    const bytes = await writeGlb(out, target.object, result.clips);
    io.out(`wrote ${out} (${target.description.name} with ${result.clips.length} clips, ${(bytes / 1024).toFixed(0)} KiB)`);
  }
  const reportPath = args.values.get('report')?.[0];
  if (reportPath) {
    const map = Object.fromEntries(context.mapping.pairs.map((p) => [p.canonical, { source: source.description.bones[p.source]!.name, target: target.description.bones[p.target]!.name }]));
    await writeFile(reportPath, JSON.stringify({ source: source.label, target: target.label, ratios: context.ratios, map, problems: context.mapping.problems, files: fileProblems, clips: result.reports }, null, 2));
    io.out(`wrote ${reportPath}`);
  }
  return failed || fileProblems.length ? 1 : 0;
}

function describeContext(source: RigSource, target: RigSource, context: ReturnType<typeof createRetargetContext>, io: CommandIO): void {
  const { mapping, ratios } = context;
  io.out(`source ${source.label}: ${source.description.bones.length} bones (${mapping.source.mapName} map), ${source.clips.length} clips`);
  io.out(`target ${target.label}: ${target.description.bones.length} bones (${mapping.target.mapName} map)`);
  io.out(`${mapping.pairs.length} bones mapped; ${mapping.droppedSource.length} source bones dropped; ${mapping.unmappedTarget.length} target bones follow their parents`);
  io.out(`ratios: horizontal ${ratios.horizontal.toFixed(4)} (legs ${ratios.sourceLegLength.toFixed(3)} → ${ratios.targetLegLength.toFixed(3)} m), vertical ${ratios.vertical.toFixed(4)} (hips ${ratios.sourceHipHeight.toFixed(3)} → ${ratios.targetHipHeight.toFixed(3)} m)`);
  for (const problem of mapping.problems) io.out(`${problem.severity === 'error' ? '✗' : '!'} ${problem.message}`);
}

