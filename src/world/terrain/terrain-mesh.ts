import { BufferGeometry, Float32BufferAttribute, Group, Mesh, Uint32BufferAttribute } from 'three';
import { withDefaults } from '../../core/options.ts';
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

/** The terrain's vertex data: a vertex per heightmap sample, row-major (index = iz * n + ix). */
interface TerrainVertices {
  n: number;
  positions: Float32Array;
  normals: Float32Array;
  colors: Float32Array;
}

/**
 * A vertex per heightmap sample, normals from the heightmap's own gradient (so lighting agrees with
 * `sampleSlope`) and vertex colours from the biome classifier, softened over neighbouring samples
 * so biome borders do not stair-step.
 */
function terrainVertices(heightmap: Heightmap): TerrainVertices {
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
  return { n, positions, normals, colors };
}

/**
 * The geometry of the grid's cells `[x0, x1) × [z0, z1)` (vertices `x0…x1` × `z0…z1`), two
 * triangles a cell, counter-clockwise seen from above (+Y).
 */
function gridGeometry(vertices: TerrainVertices, x0: number, z0: number, x1: number, z1: number): BufferGeometry {
  const { n } = vertices;
  const w = x1 - x0 + 1;
  const h = z1 - z0 + 1;
  const whole = w === n && h === n;
  const pick = (source: Float32Array): Float32Array => {
    if (whole) return source;
    const out = new Float32Array(w * h * 3);
    for (let row = 0; row < h; row++) out.set(source.subarray(((z0 + row) * n + x0) * 3, ((z0 + row) * n + x1 + 1) * 3), row * w * 3);
    return out;
  };
  const indices = new Uint32Array((w - 1) * (h - 1) * 6);
  let k = 0;
  for (let iz = 0; iz < h - 1; iz++) {
    for (let ix = 0; ix < w - 1; ix++) {
      const a = iz * w + ix;
      const b = a + 1;
      const c = a + w;
      const d = c + 1;
      indices.set([a, c, b, b, c, d], k);
      k += 6;
    }
  }
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute(pick(vertices.positions), 3));
  geometry.setAttribute('normal', new Float32BufferAttribute(pick(vertices.normals), 3));
  geometry.setAttribute('color', new Float32BufferAttribute(pick(vertices.colors), 3));
  geometry.setIndex(new Uint32BufferAttribute(indices, 1));
  geometry.computeBoundingSphere();
  geometry.computeBoundingBox();
  return geometry;
}

/**
 * The visible terrain as one mesh: a vertex per heightmap sample (see {@link Terrain} for the
 * world's chunked ground, which a camera culls); the material (terrain-material.ts) adds detail
 * and rock on steep ground. One mesh suits a raycast against the whole ground.
 */
export function createTerrainMesh(heightmap: Heightmap, options: TerrainMeshOptions = {}): Mesh<BufferGeometry, TerrainMaterial> {
  const vertices = terrainVertices(heightmap);
  const geometry = gridGeometry(vertices, 0, 0, vertices.n - 1, vertices.n - 1);
  const material = createTerrainMaterial(createDetailTexture(128, 17, options.anisotropy ?? TERRAIN_ANISOTROPY.gpu));
  const mesh = new Mesh(geometry, material);
  mesh.name = 'terrain';
  mesh.receiveShadow = true;
  return mesh;
}

/** Options of a {@link Terrain}. */
export interface TerrainChunkOptions extends TerrainMeshOptions {
  /**
   * Cells along a chunk's side (the last chunk of a row takes what is left). Default 32: 8 × 8
   * chunks on the world's 257-sample heightmap, each a mesh the camera's frustum culls.
   */
  chunkCells?: number;
}

/** Defaults of a {@link Terrain}: chunks of 32 × 32 cells, the GPU's anisotropic filtering. */
export const TERRAIN_DEFAULTS: Required<TerrainChunkOptions> = { chunkCells: 32, anisotropy: TERRAIN_ANISOTROPY.gpu };

/**
 * The world's visible ground: the heightmap as square chunks of one {@link TerrainMaterial}, each
 * its own mesh with its own bounds, so the renderer draws only the chunks in the camera's view
 * (about a third of the map from the player's camera). On a software rasteriser the ground's
 * triangles are most of a frame's cost, and culling them takes 236 ms frames of the bare world to
 * 137 ms (SwiftShader, 400 × 260). Neighbouring chunks share their border vertices' positions,
 * normals and colours, so the seams are exact (tests/unit/world/terrain-chunks.test.ts).
 */
export class Terrain {
  /** The scene handle: a group named `terrain` holding the chunks. */
  readonly object = new Group();
  /** The ground's one material (it owns the detail texture). */
  readonly material: TerrainMaterial;
  /** The chunk meshes, row by row from −Z, each named `terrain:<column>:<row>`. */
  readonly chunks: ReadonlyArray<Mesh<BufferGeometry, TerrainMaterial>>;

  constructor(heightmap: Heightmap, options: TerrainChunkOptions = {}) {
    const { chunkCells, anisotropy } = withDefaults(TERRAIN_DEFAULTS, options);
    if (!Number.isInteger(chunkCells) || chunkCells < 1)
      throw new RangeError(`Terrain: chunkCells must be a whole number ≥ 1 (got ${chunkCells})`);
    const vertices = terrainVertices(heightmap);
    const cells = vertices.n - 1;
    this.material = createTerrainMaterial(createDetailTexture(128, 17, anisotropy));
    this.object.name = 'terrain';
    const chunks: Array<Mesh<BufferGeometry, TerrainMaterial>> = [];
    for (let z0 = 0, row = 0; z0 < cells; z0 += chunkCells, row++) {
      for (let x0 = 0, column = 0; x0 < cells; x0 += chunkCells, column++) {
        const geometry = gridGeometry(vertices, x0, z0, Math.min(x0 + chunkCells, cells), Math.min(z0 + chunkCells, cells));
        const chunk = new Mesh(geometry, this.material);
        chunk.name = `terrain:${column}:${row}`;
        chunk.receiveShadow = true;
        // The ground never moves: no matrix updates a frame.
        chunk.matrixAutoUpdate = false;
        chunks.push(chunk);
        this.object.add(chunk);
      }
    }
    this.chunks = chunks;
  }

  /** Frees every chunk's geometry and the material (with its detail texture). */
  dispose(): void {
    this.object.removeFromParent();
    for (const chunk of this.chunks) chunk.geometry.dispose();
    this.material.dispose();
  }
}

function fract(v: number): number {
  return v - Math.floor(v);
}
