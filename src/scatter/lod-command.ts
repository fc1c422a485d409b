import { basename, resolve } from 'node:path';
import { describeLoss, refusalOf, RigLoadError } from '../rig/import/errors.ts';
import { gltfBytesForThree, readGltfFile } from '../rig/node/model-file.ts';
import type { SimplifierFlags } from 'meshoptimizer/simplifier';
import { parseGltfProp } from './gltf-prop.ts';
import { bakeLodLevelsSync, LOD_RATIOS, MIN_LEVEL_TRIANGLES, simplifierReady } from './lod-bake.ts';
import { prepareGeometry } from './prop-lod.ts';

/**
 * The `npm run lod -- FILE.glb` command (Node only; bin/lod.ts is its entry): bakes Cairn's LOD
 * levels for every piece of a glTF/GLB prop with meshoptimizer, exactly as the scatter catalog
 * does, and prints triangles per level.
 *
 * Exit status: 0 when every level of every piece shrank and kept a shape, 1 when some level did not
 * shrink or collapsed to fewer than {@link MIN_LEVEL_TRIANGLES} triangles (piece and level named),
 * 2 for bad arguments or a file that cannot be read or parsed (in the import layer's words). A
 * texture the file names but lacks is said (`!`), not a refusal.
 */

export const LOD_USAGE = `usage: npm run lod -- FILE.glb [options]
  --flags Permissive[,Prune…]  meshoptimizer flags (default Permissive)
  --ratios 1,0.5,0.15          triangle fraction per level
  --compare                    also show what no flags, LockBorder and Permissive each achieve
  --json                       machine-readable output`;

export interface LodPieceReport {
  piece: string;
  material: string;
  vertices: number;
  triangles: number[];
  errors: number[];
  shrank: boolean;
  /** Per level: it collapsed to fewer than {@link MIN_LEVEL_TRIANGLES} triangles. */
  degenerate: boolean[];
  ms: number;
  compare?: Record<string, number[]>;
}

export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
}

const KNOWN_FLAGS: SimplifierFlags[] = [
  'LockBorder',
  'Sparse',
  'ErrorAbsolute',
  'Prune',
  'Regularize',
  'Permissive',
  'RegularizeLight',
  'PreserveFolds',
  'ErrorClamped',
];

class UsageError extends Error {}

export async function runLodCommand(args: string[], io: CommandIO = { out: console.log, err: console.error }): Promise<number> {
  let options: { file: string; flags: SimplifierFlags[]; ratios: number[]; compare: boolean; json: boolean };
  try {
    options = parseArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`lod: ${error.message}\n${LOD_USAGE}`);
    return 2;
  }
  const path = resolve(options.file);
  const name = basename(path);
  if (!/\.(glb|gltf)$/i.test(name)) {
    io.err(`lod: ${name} is not a .glb or .gltf file`);
    return 2;
  }
  // Read through the import layer (glTF Transform): external .bin files, data: URIs, embedded images.
  // Refusals are worded by the import layer (src/rig/import/errors.ts), as everywhere else.
  let data: ArrayBuffer;
  let pieces;
  let losses: string[];
  try {
    const { document, missingTextures } = await readGltfFile(path);
    losses = missingTextures.map((file) => describeLoss({ kind: 'missing-texture', file }));
    if (document.getRoot().listMeshes().length === 0)
      throw RigLoadError.because(document.getRoot().listSkins().length ? 'no-mesh' : 'no-skeleton', path, {
        bones: document.getRoot().listSkins()[0]?.listJoints().length,
      });
    data = await gltfBytesForThree(document);
    await simplifierReady();
    pieces = await parseGltfProp(data, name);
  } catch (error) {
    io.err(`lod: ${refusalOf(error, name).message}`);
    return 2;
  }

  const { flags, ratios } = options;
  const reports: LodPieceReport[] = pieces.map((piece, i) => {
    const label = piece.name ?? `piece ${i}`;
    const { positions, indices } = prepareGeometry(piece.geometry);
    const start = performance.now();
    const levels = bakeLodLevelsSync({ positions, indices, label }, { flags, ratios, strict: false });
    const ms = performance.now() - start;
    const shrank = levels.triangles.every((t, level) => level === 0 || t < levels.triangles[level - 1]!);
    const report: LodPieceReport = {
      piece: label,
      material: piece.material.name || '(unnamed)',
      vertices: positions.length / 3,
      triangles: levels.triangles,
      errors: levels.errors,
      shrank,
      degenerate: levels.degenerate,
      ms,
    };
    if (options.compare) {
      report.compare = {};
      for (const variant of [[], ['LockBorder'], ['Permissive'], ['Permissive', 'Prune']] as SimplifierFlags[][]) {
        report.compare[variant.join('+') || 'none'] = bakeLodLevelsSync(
          { positions, indices, label },
          { flags: variant, ratios, strict: false },
        ).triangles;
      }
    }
    return report;
  });

  const failed = reports.filter((r) => !r.shrank);
  const collapsed = reports.filter((r) => r.degenerate.some(Boolean));
  if (options.json) {
    io.out(
      JSON.stringify({ file: name, flags, ratios, pieces: reports, losses, ok: failed.length === 0 && collapsed.length === 0 }, null, 2),
    );
  } else {
    printTable(name, flags, ratios, reports, io);
    for (const loss of losses) io.out(`! ${loss}`);
  }
  for (const r of collapsed)
    for (const [level, bad] of r.degenerate.entries())
      if (bad)
        io.err(
          `lod: ${name}: LOD${level} of ${r.piece} keeps ${r.triangles[level] === 0 ? 'no triangle' : `${r.triangles[level]} triangle${r.triangles[level] === 1 ? '' : 's'}`} of ${r.triangles[0]} (error ${r.errors[level]!.toFixed(3)} of its size): the piece ${r.triangles[level] === 0 ? 'vanishes' : 'collapses to a sliver'} at that distance; a level needs at least ${MIN_LEVEL_TRIANGLES}`,
        );
  if (failed.length > 0) {
    io.err(
      `lod: ${failed.length} piece${failed.length === 1 ? '' : 's'} did not shrink at every level: ${failed.map((r) => `${r.piece} (${r.triangles.join(' → ')})`).join(', ')}. Try --flags Permissive, or look for tiny or fragmented pieces.`,
    );
    return 1;
  }
  return collapsed.length > 0 ? 1 : 0;
}

function parseArgs(args: string[]): { file: string; flags: SimplifierFlags[]; ratios: number[]; compare: boolean; json: boolean } {
  let file: string | undefined;
  let flags: SimplifierFlags[] = ['Permissive'];
  let ratios: number[] = [...LOD_RATIOS];
  let compare = false;
  let json = false;
  const value = (i: number, option: string): string => {
    const v = args[i];
    if (v === undefined || v.startsWith('--')) throw new UsageError(`${option} needs a value`);
    return v;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--flags') flags = value(++i, arg).split(',').filter(Boolean) as SimplifierFlags[];
    else if (arg === '--ratios') ratios = value(++i, arg).split(',').map(Number);
    else if (arg === '--compare') compare = true;
    else if (arg === '--json') json = true;
    else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else if (!file) file = arg;
    else throw new UsageError(`one file at a time (got ${file} and ${arg})`);
  }
  if (!file) throw new UsageError('no file given');
  if (ratios[0] !== 1 || ratios.some((r) => !(r > 0 && r <= 1)))
    throw new UsageError(`--ratios must start at 1 and stay in (0, 1] (got ${ratios.join(',')})`);
  for (const flag of flags)
    if (!KNOWN_FLAGS.includes(flag)) throw new UsageError(`unknown simplifier flag "${flag}" (known: ${KNOWN_FLAGS.join(', ')})`);
  return { file, flags, ratios, compare, json };
}

function printTable(name: string, flags: SimplifierFlags[], ratios: number[], reports: LodPieceReport[], io: CommandIO): void {
  const total = ratios.map((_, level) => reports.reduce((sum, r) => sum + r.triangles[level]!, 0));
  io.out(
    `${name}: ${reports.length} piece${reports.length === 1 ? '' : 's'}, flags [${flags.join(', ')}], levels ${ratios.map((r) => `${Math.round(r * 100)}%`).join(' / ')}`,
  );
  const width = Math.max(8, ...reports.map((r) => r.piece.length));
  io.out(
    `${'piece'.padEnd(width)}  ${'vertices'.padStart(8)}  ${ratios.map((_, l) => `LOD${l}`.padStart(8)).join('')}  ${'error'.padStart(13)}  ${'ms'.padStart(7)}`,
  );
  for (const r of reports) {
    io.out(
      `${r.piece.padEnd(width)}  ${String(r.vertices).padStart(8)}  ${r.triangles.map((t) => String(t).padStart(8)).join('')}  ${r.errors
        .slice(1)
        .map((e) => e.toFixed(3))
        .join(' / ')
        .padStart(
          13,
        )}  ${r.ms.toFixed(1).padStart(7)}${r.shrank ? '' : '  ← DID NOT SHRINK'}${r.degenerate.some(Boolean) ? '  ← COLLAPSES' : ''}`,
    );
    if (r.compare)
      for (const [variant, t] of Object.entries(r.compare)) io.out(`${''.padEnd(width)}    ${variant.padEnd(18)} ${t.join(' → ')}`);
  }
  io.out(`${'total'.padEnd(width)}  ${''.padStart(8)}  ${total.map((t) => String(t).padStart(8)).join('')}`);
}
