import { BufferAttribute, Matrix4, type BufferGeometry, type Material, type Mesh, type Object3D } from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import type { PropPiece } from './props/prop-types.ts';

/**
 * Any model as a prop: flattens an Object3D (a loaded glTF scene, a group built in code) into
 * pieces — one per mesh, or per material group of a multi-material mesh — with each mesh's
 * transform relative to the root baked into its geometry, so the prop stands on the root's origin.
 */
export function piecesFromObject(root: Object3D, label = root.name || 'object'): PropPiece[] {
  root.updateMatrixWorld(true);
  const toRoot = new Matrix4().copy(root.matrixWorld).invert();
  const pieces: PropPiece[] = [];
  root.traverse((node) => {
    const mesh = node as Mesh;
    if (!mesh.isMesh || !mesh.geometry?.getAttribute('position')) return;
    const geometry = mesh.geometry.clone();
    geometry.applyMatrix4(new Matrix4().multiplyMatrices(toRoot, mesh.matrixWorld));
    const name = mesh.name || `mesh ${pieces.length}`;
    if (Array.isArray(mesh.material)) {
      const groups = geometry.groups.length > 0 ? geometry.groups : [{ start: 0, count: Infinity, materialIndex: 0 }];
      for (const group of groups) {
        const material = mesh.material[group.materialIndex ?? 0];
        if (!material) continue;
        pieces.push({
          name: `${name}/${material.name || `material ${group.materialIndex}`}`,
          geometry: groupGeometry(geometry, group.start, group.count),
          material,
        });
      }
    } else {
      geometry.clearGroups();
      pieces.push({ name, geometry, material: mesh.material as Material });
    }
  });
  if (pieces.length === 0) throw new Error(`${label} has no meshes`);
  return pieces;
}

/** A geometry sharing `source`'s attributes whose index covers [start, start + count). */
function groupGeometry(source: BufferGeometry, start: number, count: number): BufferGeometry {
  const geometry = source.clone();
  geometry.clearGroups();
  const total = source.index ? source.index.count : source.getAttribute('position').count;
  const end = Math.min(total, start + count);
  const indices = new Uint32Array(end - start);
  for (let i = start; i < end; i++) indices[i - start] = source.index ? source.index.getX(i) : i;
  geometry.setIndex(new BufferAttribute(indices, 1));
  return geometry;
}

/** Parses glTF/GLB bytes into prop pieces. `basePath` resolves external buffers and images. */
export async function parseGltfProp(data: ArrayBuffer | string, label: string, basePath = ''): Promise<PropPiece[]> {
  const gltf = await new GLTFLoader().parseAsync(data, basePath);
  return piecesFromObject(gltf.scene, label);
}

/** Fetches and parses a glTF/GLB prop. Errors name the URL and say what failed. */
export async function loadGltfProp(url: string): Promise<PropPiece[]> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`${url} could not be fetched (${(error as Error).message})`, { cause: error });
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${response.statusText}`.trim());
  const bytes = await response.arrayBuffer();
  try {
    return await parseGltfProp(bytes, url, url.slice(0, url.lastIndexOf('/') + 1));
  } catch (error) {
    throw new Error(`${url} is not a usable glTF/GLB (${(error as Error).message})`, { cause: error });
  }
}
