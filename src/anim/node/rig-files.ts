import type { Document } from '@gltf-transform/core';
import type { AnimationClip, Object3D } from 'three';
import { createHumanoid } from '../../rig/humanoid.ts';
import { CLIP_STATES, formatClipStates, matchClipStates } from '../../rig/clip-names.ts';
import { describeLoss, RigLoadError, type ImportReport } from '../../rig/load.ts';
import { exportGlb, readModelFile, writeModelGlb, type ModelFile } from '../../rig/node/model-file.ts';
import { createAnimationLibrary } from '../library/index.ts';
import { createRetargetContext, type RetargetContext, type RetargetOptions } from '../retarget/retarget-clip.ts';
import { rigFromObject, type RigDescription } from '../retarget/rig-description.ts';
import { createCc4Character } from '../rigs/cc4-character.ts';

/**
 * Rigs for the command-line tools: a file (glTF, GLB, FBX) or a built-in character, described for
 * the retargeter, with its clips and the three.js object to export results on.
 */
export interface RigSource {
  /** What the user named: a path or `builtin:mannequin` / `builtin:cc4`. */
  label: string;
  description: RigDescription;
  clips: AnimationClip[];
  /** The model (skinned meshes and bones), for exporting retargeted clips onto it. */
  object: Object3D;
  /** The glTF document of a glTF/GLB file (keeps textures for the output); null otherwise. */
  document: Document | null;
  /** What importing found (units, rigid parts, skeleton-only); null for built-ins. */
  report: ImportReport | null;
}

export const BUILTIN_RIGS = ['builtin:mannequin', 'builtin:cc4'] as const;

/** The built-in mannequin (with the whole library) or the CC4-style character (no clips). */
export function builtinRig(label: string): RigSource {
  if (label === 'builtin:mannequin') {
    const humanoid = createHumanoid({ detail: 'low' });
    humanoid.object.name = 'cairn-mannequin';
    return {
      label,
      description: rigFromObject(humanoid.object, 'cairn-mannequin', humanoid.bones),
      clips: createAnimationLibrary(),
      object: humanoid.object,
      document: null,
      report: null,
    };
  }
  if (label === 'builtin:cc4') {
    const character = createCc4Character({ detail: 'low' });
    return {
      label,
      description: rigFromObject(character.object, 'cairn-cc4', character.bones),
      clips: [],
      object: character.object,
      document: null,
      report: null,
    };
  }
  throw new RigLoadError(`unknown built-in rig (built-ins: ${BUILTIN_RIGS.join(', ')})`, label);
}

/**
 * Loads a rig from a path (.glb, .gltf, .fbx, .bvh; skeleton-only files included) or a built-in
 * name. Throws {@link RigLoadError} naming the file and the reason when it cannot be read, parsed,
 * or has no skeleton.
 */
export async function loadRigSource(label: string): Promise<RigSource> {
  if (label.startsWith('builtin:')) return builtinRig(label);
  const loaded = await loadModelFile(label);
  return {
    label,
    description: rigFromObject(loaded.object, loaded.object.name, loaded.bones),
    clips: loaded.clips,
    object: loaded.object,
    document: loaded.document,
    report: loaded.report,
  };
}

/**
 * What a command prints about a rig it read: the import's notes (its losses marked `!`), and the
 * map from the file's clips to the animation states the world and the crowd play
 * (src/rig/clip-names.ts), so a pack whose clip names are not read shows before it is used.
 */
export function describeRigFile(rig: RigSource): string[] {
  const lines: string[] = [];
  const losses = new Set((rig.report?.losses ?? []).map(describeLoss));
  for (const note of rig.report?.notes ?? []) lines.push(`  ${losses.has(note) ? '! ' : ''}${note}`);
  if (rig.report && rig.clips.length) {
    const names = rig.clips.map((clip) => clip.name);
    const states = matchClipStates(names);
    const unused = names.filter((name) => !Object.values(states).includes(name));
    lines.push(`  clips → states: ${formatClipStates(CLIP_STATES, states)}`);
    if (unused.length) lines.push(`  clips no state plays: ${unused.slice(0, 10).join(', ')}${unused.length > 10 ? ', …' : ''}`);
  }
  return lines;
}

/**
 * The retarget context for a pair of rigs a command read. When they cannot be paired, what the
 * import said about each file (its losses too) is printed before the refusal, so nothing is hidden
 * behind the first error.
 */
export function pairRigs(source: RigSource, target: RigSource, options: RetargetOptions, io: { out(line: string): void }): RetargetContext {
  try {
    return createRetargetContext(source.description, target.description, options);
  } catch (error) {
    for (const [label, rig] of [
      ['source', source],
      ['target', target],
    ] as const) {
      const lines = describeRigFile(rig);
      if (lines.length) io.out(`${label} ${rig.label}:\n${lines.join('\n')}`);
    }
    throw error;
  }
}

/** Reads and imports a model file; {@link RigLoadError} names the file and what is wrong with it. */
export function loadModelFile(path: string): Promise<ModelFile> {
  return readModelFile(path);
}

/** Exports a model with clips as GLB bytes (three's GLTFExporter; built-in rigs have no document). */
export async function exportRigGlb(object: Object3D, clips: readonly AnimationClip[]): Promise<Uint8Array> {
  return exportGlb(object, clips);
}

/** Writes a rig with clips to a .glb file, from its glTF document when it has one (textures intact). */
export function writeGlb(path: string, rig: Pick<RigSource, 'object' | 'document'>, clips: readonly AnimationClip[]): Promise<number> {
  return writeModelGlb(path, rig, clips);
}
