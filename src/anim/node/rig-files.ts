import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { AnimationClip, Object3D } from 'three';
import { GLTFExporter } from 'three/addons/exporters/GLTFExporter.js';
import { createHumanoid } from '../../rig/humanoid.ts';
import { parseRig, RigLoadError, type LoadedRig } from '../../rig/load.ts';
import { installFileReaderPolyfill } from '../../rig/node/file-reader-polyfill.ts';
import { createAnimationLibrary } from '../library/index.ts';
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
}

export const BUILTIN_RIGS = ['builtin:mannequin', 'builtin:cc4'] as const;

/** The built-in mannequin (with the whole library) or the CC4-style character (no clips). */
export function builtinRig(label: string): RigSource {
  if (label === 'builtin:mannequin') {
    const humanoid = createHumanoid({ detail: 'low' });
    humanoid.object.name = 'cairn-mannequin';
    return { label, description: rigFromObject(humanoid.object, 'cairn-mannequin', humanoid.bones), clips: createAnimationLibrary(), object: humanoid.object };
  }
  if (label === 'builtin:cc4') {
    const character = createCc4Character({ detail: 'low' });
    return { label, description: rigFromObject(character.object, 'cairn-cc4', character.bones), clips: [], object: character.object };
  }
  throw new RigLoadError(`unknown built-in rig (built-ins: ${BUILTIN_RIGS.join(', ')})`, label);
}

/**
 * Loads a rig from a path or a built-in name. Throws {@link RigLoadError} naming the file and the
 * reason when it cannot be read, parsed, or has no skeleton.
 */
export async function loadRigSource(label: string): Promise<RigSource> {
  if (label.startsWith('builtin:')) return builtinRig(label);
  const loaded = await loadModelFile(label);
  // A model exported as one named object (as Cairn's built-ins are) keeps that name; else the file's.
  const only = loaded.object.children.length === 1 ? loaded.object.children[0]!.name : '';
  const name = only || basename(label).replace(/\.[^.]+$/, '');
  return { label, description: rigFromObject(loaded.object, name, loaded.bones), clips: loaded.clips, object: loaded.object };
}

/** Reads and parses a model file; {@link RigLoadError} names the file and what is wrong with it. */
export async function loadModelFile(path: string): Promise<LoadedRig> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RigLoadError(code === 'ENOENT' ? 'no such file' : `cannot be read (${(error as Error).message})`, path);
  }
  return parseRig(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, path);
}

/** Exports a model with clips as GLB bytes (Node needs the FileReader polyfill; installed here). */
export async function exportGlb(object: Object3D, clips: readonly AnimationClip[]): Promise<ArrayBuffer> {
  installFileReaderPolyfill();
  object.updateMatrixWorld(true);
  return (await new GLTFExporter().parseAsync(object, { binary: true, animations: [...clips] })) as ArrayBuffer;
}

/** Writes a model with clips to a .glb file. */
export async function writeGlb(path: string, object: Object3D, clips: readonly AnimationClip[]): Promise<number> {
  const glb = await exportGlb(object, clips);
  await writeFile(path, Buffer.from(glb));
  return glb.byteLength;
}
