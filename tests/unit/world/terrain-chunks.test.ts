import { Frustum, Matrix4, PerspectiveCamera, Sphere, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { generateTerrain } from '../../../src/world/terrain/generate.ts';
import { createTerrainMesh, Terrain } from '../../../src/world/terrain/terrain-mesh.ts';

const heightmap = generateTerrain({ seed: 1, resolution: 65 });

/** Every triangle of a geometry as three "x,y,z" vertex keys, sorted, so two meshes' triangles compare as sets. */
function triangles(mesh: {
  geometry: { index: { array: ArrayLike<number> } | null; getAttribute(name: string): { array: ArrayLike<number> } };
}): string[] {
  const index = mesh.geometry.index!.array;
  const p = mesh.geometry.getAttribute('position').array;
  const key = (i: number) => `${p[i * 3]},${p[i * 3 + 1]},${p[i * 3 + 2]}`;
  const out: string[] = [];
  for (let t = 0; t < index.length; t += 3) out.push([key(index[t]!), key(index[t + 1]!), key(index[t + 2]!)].join('|'));
  return out;
}

describe('the chunked terrain', () => {
  it('covers the heightmap with exactly the one mesh’s triangles, in chunks of one material', () => {
    const terrain = new Terrain(heightmap, { chunkCells: 16 });
    // 64 cells a side: 4 × 4 chunks of 16.
    expect(terrain.chunks).toHaveLength(16);
    expect(terrain.object.name).toBe('terrain');
    expect(terrain.object.children).toEqual(terrain.chunks);
    expect(new Set(terrain.chunks.map((c) => c.material))).toEqual(new Set([terrain.material]));
    const whole = createTerrainMesh(heightmap);
    const chunked = terrain.chunks.flatMap(triangles).sort();
    expect(chunked).toEqual(triangles(whole).sort());
    terrain.dispose();
  });

  it('keeps a last, smaller chunk where the cells do not divide evenly, and refuses a chunk size that is no size', () => {
    const terrain = new Terrain(heightmap, { chunkCells: 24 });
    // 64 = 24 + 24 + 16: 3 × 3 chunks.
    expect(terrain.chunks.map((c) => c.name)).toContain('terrain:2:2');
    expect(terrain.chunks).toHaveLength(9);
    expect(terrain.chunks.at(-1)!.geometry.getAttribute('position').count).toBe(17 * 17);
    expect(terrain.chunks.reduce((sum, c) => sum + c.geometry.index!.count / 3, 0)).toBe(64 * 64 * 2);
    terrain.dispose();
    expect(() => new Terrain(heightmap, { chunkCells: 0 })).toThrow(/chunkCells must be a whole number ≥ 1/);
    expect(() => new Terrain(heightmap, { chunkCells: 2.5 })).toThrow(/chunkCells/);
  });

  it('gives neighbouring chunks the same border vertices (position, normal, colour): no seams', () => {
    const terrain = new Terrain(heightmap, { chunkCells: 16 });
    const vertexAt = (name: string, ix: number, iz: number) => {
      const g = terrain.chunks.find((c) => c.name === name)!.geometry;
      const i = iz * 17 + ix;
      return ['position', 'normal', 'color'].map((a) => [...g.getAttribute(a).array.slice(i * 3, i * 3 + 3)]);
    };
    for (let k = 0; k <= 16; k++) {
      // The right edge of chunk 0:0 is the left edge of 1:0; its bottom edge the top of 0:1.
      expect(vertexAt('terrain:0:0', 16, k)).toEqual(vertexAt('terrain:1:0', 0, k));
      expect(vertexAt('terrain:0:0', k, 16)).toEqual(vertexAt('terrain:0:1', k, 0));
    }
    terrain.dispose();
  });

  it('leaves a camera at the spawn about a third of the ground to draw: the chunks outside its view are culled', () => {
    const world = generateTerrain({ seed: 1 });
    const terrain = new Terrain(world);
    const camera = new PerspectiveCamera(55, 400 / 260, 0.1, 2000);
    camera.position.set(0, world.sampleHeight(0, 6) + 3.5, 6);
    camera.lookAt(new Vector3(0, world.sampleHeight(0, 0) + 1, 0));
    camera.updateMatrixWorld();
    const frustum = new Frustum().setFromProjectionMatrix(
      new Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse),
    );
    const seen = terrain.chunks.filter((c) => frustum.intersectsSphere(new Sphere().copy(c.geometry.boundingSphere!)));
    const share = seen.length / terrain.chunks.length;
    expect(share).toBeGreaterThan(0.1);
    expect(share).toBeLessThan(0.6);
    terrain.dispose();
  });

  it('frees every chunk’s geometry and the material on dispose', () => {
    const terrain = new Terrain(heightmap, { chunkCells: 32 });
    const freed: string[] = [];
    for (const chunk of terrain.chunks) chunk.geometry.addEventListener('dispose', () => freed.push(chunk.name));
    terrain.material.addEventListener('dispose', () => freed.push('material'));
    terrain.dispose();
    expect(freed).toEqual([...terrain.chunks.map((c) => c.name), 'material']);
  });
});
