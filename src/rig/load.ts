import { AnimationClip, Bone, Object3D, SkinnedMesh, LoadingManager } from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { FBXLoader } from 'three/addons/loaders/FBXLoader.js';

/** A character loaded from a file: its scene, skinned pieces, bones and animation clips. */
export interface LoadedRig {
  object: Object3D;
  skinnedMeshes: SkinnedMesh[];
  bones: Bone[];
  clips: AnimationClip[];
  /** 'gltf' or 'fbx'. */
  format: RigFormat;
}

export type RigFormat = 'gltf' | 'fbx';

/** Raised for files that load but are not usable characters, or do not load at all. */
export class RigLoadError extends Error {
  constructor(
    message: string,
    readonly source: string,
  ) {
    super(`${source}: ${message}`);
    this.name = 'RigLoadError';
  }
}

/** Picks the loader from a file name or URL; throws for anything else. */
export function rigFormatOf(name: string): RigFormat {
  const clean = name.split(/[?#]/)[0]!.toLowerCase();
  if (clean.endsWith('.glb') || clean.endsWith('.gltf')) return 'gltf';
  if (clean.endsWith('.fbx')) return 'fbx';
  throw new RigLoadError('unsupported file type; expected .glb, .gltf or .fbx', name);
}

/**
 * Parses a character from bytes (a dropped File, a fetched buffer, or a file read in Node).
 * glTF/GLB goes through GLTFLoader, FBX through FBXLoader. Throws {@link RigLoadError} when the
 * bytes are not a model or the model has no skinned mesh.
 */
export async function parseRig(data: ArrayBuffer, name: string, options: { manager?: LoadingManager; basePath?: string } = {}): Promise<LoadedRig> {
  const format = rigFormatOf(name);
  let object: Object3D;
  let clips: AnimationClip[];
  try {
    if (format === 'gltf') {
      const gltf = await new GLTFLoader(options.manager).parseAsync(data, options.basePath ?? '');
      object = gltf.scene;
      clips = gltf.animations;
    } else {
      object = new FBXLoader(options.manager).parse(data, options.basePath ?? '');
      clips = (object as Object3D & { animations: AnimationClip[] }).animations ?? [];
    }
  } catch (error) {
    throw new RigLoadError(`could not be parsed as ${format.toUpperCase()} (${(error as Error).message})`, name);
  }
  return describeRig(object, clips, format, name);
}

/** Fetches and parses a character from a URL. */
export async function loadRig(url: string, options: { manager?: LoadingManager } = {}): Promise<LoadedRig> {
  rigFormatOf(url);
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new RigLoadError(`could not be fetched (${(error as Error).message})`, url);
  }
  if (!response.ok) throw new RigLoadError(`HTTP ${response.status} ${response.statusText}`, url);
  const basePath = url.slice(0, url.lastIndexOf('/') + 1);
  return parseRig(await response.arrayBuffer(), url, { ...options, basePath });
}

function describeRig(object: Object3D, clips: AnimationClip[], format: RigFormat, source: string): LoadedRig {
  const skinnedMeshes: SkinnedMesh[] = [];
  object.traverse((node) => {
    if ((node as SkinnedMesh).isSkinnedMesh) skinnedMeshes.push(node as SkinnedMesh);
  });
  if (skinnedMeshes.length === 0) throw new RigLoadError('has no skinned mesh (a character needs a skeleton)', source);
  const bones = [...new Set(skinnedMeshes.flatMap((mesh) => mesh.skeleton.bones))];
  return { object, skinnedMeshes, bones, clips, format };
}
