import { LoadingManager, type Object3D } from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import type { ProgressListener } from '../core/progress.ts';
import { assertValidAssetId } from './asset-id.ts';
import { pickGltfDownload, type GltfDownload } from './catalog-parse.ts';
import { collectResources, disposeObject3D } from './dispose-object.ts';
import { AssetError } from './errors.ts';
import { createIncludeUrlModifier, type IncludeUrlModifier } from './include-map.ts';
import type { PolyHavenApi } from './polyhaven-api.ts';

/** Options of {@link loadPolyHavenModel}. */
export interface LoadModelOptions {
  /** Texture resolution to ask for ('1k', '2k', '4k'…). Default '1k'; falls back to the nearest offered. */
  resolution?: string;
  /** Aborting discards the result (and frees it) and rejects with a `superseded` AssetError. */
  signal?: AbortSignal;
  /** Hears the files: `done` finished of `total` known so far (the loading manager's count), `label` the file just finished. */
  onProgress?: ProgressListener;
  /** Adjusts the loading manager before loading (e.g. an image handler for Node tools). */
  configureManager?: (manager: LoadingManager) => void;
}

/** A model loaded from the API, ready to add to a scene. */
export interface LoadedModel {
  /** The asset id. */
  id: string;
  /** The resolution actually loaded (the requested one, or the nearest offered). */
  resolution: string;
  /** The model's scene graph. */
  object: Object3D;
  /** Where its glTF came from, and the files it needed. */
  download: GltfDownload;
  /** What the include map did: each request the loader made and where it went. */
  mapped: IncludeUrlModifier['mapped'];
  /** Files the glTF refers to that failed to load (the model loads without them). */
  failedFiles: string[];
  /** Triangles drawn by its meshes. */
  triangles: number;
  /** Meshes in it. */
  meshes: number;
  /** Distinct materials. */
  materials: number;
  /** Distinct textures. */
  textures: number;
}

/** Triangles drawn by the meshes under `root` (respecting groups and draw ranges is left to the renderer; this counts index/vertex triples). */
export function countTriangles(root: Object3D): number {
  let triangles = 0;
  root.traverse((object) => {
    const mesh = object as Object3D & { isMesh?: boolean; geometry?: import('three').BufferGeometry };
    if (!mesh.isMesh || !mesh.geometry) return;
    const g = mesh.geometry;
    const count = g.index ? g.index.count : (g.getAttribute('position')?.count ?? 0);
    triangles += Math.floor(Math.min(count, g.drawRange.count) / 3);
  });
  return triangles;
}

function superseded(id: string): AssetError {
  return new AssetError('superseded', `loading "${id}" was replaced by a newer request`);
}

/** Turns whatever GLTFLoader threw into an AssetError that says what happened. */
function loaderError(error: unknown, url: string, modifier: IncludeUrlModifier): AssetError {
  if (error instanceof AssetError) return error;
  const e = error as Error & { response?: Response };
  const status = e.response?.status;
  const hint = modifier.unmapped.length
    ? `; the glTF refers to ${modifier.unmapped.map((p) => `"${p}"`).join(', ')}, which its include map does not list`
    : '';
  if (status === 404)
    return new AssetError('not-found', `the model file was not found (HTTP 404)${hint}`, e.response?.url ?? url, 404, { cause: error });
  if (status !== undefined)
    return new AssetError('http', `the model download answered HTTP ${status}${hint}`, e.response?.url ?? url, status, { cause: error });
  if (e instanceof TypeError && /fetch|network/i.test(e.message))
    return new AssetError('network', `cannot download the model (${e.message})`, url, undefined, { cause: error });
  return new AssetError('corrupt', `the model file is broken: ${e?.message ?? String(error)}${hint}`, url, undefined, { cause: error });
}

/**
 * Loads one model: asks `/files/{id}` where its glTF lives, then loads the glTF through a
 * LoadingManager whose URL modifier follows the include map (see include-map.ts), so buffers and
 * textures come from their real CDN URLs without touching the JSON. Throws an {@link AssetError}:
 * `invalid-id` (before any request), `not-found`, `http`, `network`, `no-gltf` or `corrupt`.
 */
export async function loadPolyHavenModel(api: PolyHavenApi, id: string, options: LoadModelOptions = {}): Promise<LoadedModel> {
  assertValidAssetId(id);
  const { signal } = options;
  if (signal?.aborted) throw superseded(id);
  let files: unknown;
  try {
    files = await api.fetchFiles(id, { signal });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw superseded(id);
    if (error instanceof AssetError && error.kind === 'not-found')
      throw new AssetError('not-found', `Poly Haven has no asset "${id}" (HTTP 404)`, error.url, 404);
    throw error;
  }
  if (signal?.aborted) throw superseded(id);
  const download = pickGltfDownload(files, options.resolution ?? '1k', `"${id}"`);
  const modifier = createIncludeUrlModifier(download.url, download.include);
  const failedFiles: string[] = [];
  const manager = new LoadingManager();
  manager.setURLModifier(modifier);
  manager.onError = (url) => failedFiles.push(url);
  // The manager reports the failed file's end after the loader has already rejected: progress
  // must stop once the load has settled, or a late "2/2 files" would follow the error.
  let settled = false;
  if (options.onProgress) manager.onProgress = (url, done, total) => void (!settled && options.onProgress!({ done, total, label: url }));
  options.configureManager?.(manager);

  let root: Object3D;
  try {
    const gltf = await new GLTFLoader(manager).loadAsync(download.url);
    root = gltf.scene;
  } catch (error) {
    throw loaderError(error, download.url, modifier);
  } finally {
    settled = true;
  }
  if (signal?.aborted) {
    disposeObject3D(root);
    throw superseded(id);
  }
  root.name = id;
  const resources = collectResources(root);
  let meshes = 0;
  root.traverse((o) => void ((o as { isMesh?: boolean }).isMesh && meshes++));
  if (meshes === 0) {
    disposeObject3D(root);
    throw new AssetError('corrupt', `the glTF of "${id}" has no meshes`, download.url);
  }
  return {
    id,
    resolution: download.resolution,
    object: root,
    download,
    mapped: modifier.mapped,
    failedFiles: failedFiles.filter((url) => url !== download.url),
    triangles: countTriangles(root),
    meshes,
    materials: resources.materials.size,
    textures: resources.textures.size,
  };
}
