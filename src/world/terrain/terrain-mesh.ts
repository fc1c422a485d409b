import { BufferGeometry, Float32BufferAttribute, Mesh, Uint32BufferAttribute } from 'three';
import { BIOME_COLORS, classifyBiome, type Biome } from './biome.ts';
import type { Heightmap } from './heightmap.ts';
import { createDetailTexture, createTerrainMaterial, TERRAIN_ANISOTROPY, type TerrainMaterial } from './terrain-material.ts';

/** Options of {@link createTerrainMesh}. */
export interface TerrainMeshOptions {
  /**
   * Anisotropic filtering of the ground's detail texture. Default {@link TERRAIN_ANISOTROPY}`.gpu`;
   * the world passes `.software` on a software rasteriser.
   */
  anisotropy?: number;
}

/**
 * The visible terrain: one mesh with a vertex per heightmap sample, normals from the heightmap's
 * own gradient (so lighting agrees with `sampleSlope`) and vertex colours from the biome
 * classifier, softened over neighbouring samples so biome borders do not stair-step; the
 * material (terrain-material.ts) adds detail and rock on steep ground.
 */
export function createTerrainMesh(heightmap: Heightmap, options: TerrainMeshOptions = {}): Mesh<BufferGeometry, TerrainMaterial> {
  const n = heightmap.resolution;
  const positions = new Float32Array(n * n * 3);
  const normals = new Float32Array(n * n * 3);
  const colors = new Float32Array(n * n * 3);
  const biomes: Biome[] = new Array(n * n);
  const normal = { x: 0, y: 1, z: 0 };
  for (let iz = 0; iz < n; iz++) {
    for (let ix = 0; ix < n; ix++) {
      const i = iz * n + ix;
      const x = heightmap.coordOf(ix);
      const z = heightmap.coordOf(iz);
      const y = heightmap.heightAt(ix, iz);
      positions.set([x, y, z], i * 3);
      heightmap.sampleNormal(x, z, normal);
      normals.set([normal.x, normal.y, normal.z], i * 3);
      biomes[i] = classifyBiome({ altitude: y - heightmap.waterLevel, slope: heightmap.sampleSlope(x, z) });
    }
  }
  for (let iz = 0; iz < n; iz++) {
    for (let ix = 0; ix < n; ix++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let count = 0;
      for (let dz = -1; dz <= 1; dz++) {
        for (let dx = -1; dx <= 1; dx++) {
          const jx = ix + dx;
          const jz = iz + dz;
          if (jx < 0 || jz < 0 || jx >= n || jz >= n) continue;
          const c = BIOME_COLORS[biomes[jz * n + jx]!];
          r += c[0];
          g += c[1];
          b += c[2];
          count++;
        }
      }
      // A little deterministic grain so large flat areas are not one flat colour.
      const grain = 0.94 + 0.12 * fract(Math.sin(ix * 12.9898 + iz * 78.233) * 43758.5453);
      colors.set([(r / count) * grain, (g / count) * grain, (b / count) * grain], (iz * n + ix) * 3);
    }
  }
  const indices = new Uint32Array((n - 1) * (n - 1) * 6);
  let k = 0;
  for (let iz = 0; iz < n - 1; iz++) {
    for (let ix = 0; ix < n - 1; ix++) {
      const a = iz * n + ix;
      const b = a + 1;
      const c = a + n;
      const d = c + 1;
      // Counter-clockwise seen from above (+Y): a → c → b, b → c → d.
      indices.set([a, c, b, b, c, d], k);
      k += 6;
    }
  }
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute(positions, 3));
  geometry.setAttribute('normal', new Float32BufferAttribute(normals, 3));
  geometry.setAttribute('color', new Float32BufferAttribute(colors, 3));
  geometry.setIndex(new Uint32BufferAttribute(indices, 1));
  geometry.computeBoundingSphere();
  geometry.computeBoundingBox();
  const material = createTerrainMaterial(createDetailTexture(128, 17, options.anisotropy ?? TERRAIN_ANISOTROPY.gpu));
  const mesh = new Mesh(geometry, material);
  mesh.name = 'terrain';
  mesh.receiveShadow = true;
  return mesh;
}

function fract(v: number): number {
  return v - Math.floor(v);
}
