import { DataTexture, LinearFilter, LinearMipmapLinearFilter, RepeatWrapping, RGBAFormat, UnsignedByteType } from 'three';
import { abs, dot, float, mix, normalWorld, positionWorld, pow, smoothstep, texture, vec2, vec3, vertexColor } from 'three/tsl';
import { MeshStandardNodeMaterial, type TextureNode } from 'three/webgpu';
import { Mulberry32 } from '../../core/rng.ts';

/**
 * The terrain's material: the biome colours (vertex colours) broken up by a detail texture at
 * two scales, and rock wherever the ground is steep. Both are projected triplanar — from the
 * side as well as from above — so a cliff shows rock and strata instead of a texture smeared
 * down it, and no slope shows streaks. The detail texture is generated (tileable value noise,
 * seeded), so the world needs no image file; mipmaps fade it to its mean far away.
 */

/** Ground steeper than this (degrees) starts to show rock; fully rock from {@link ROCK_FULL}. */
export const ROCK_START = 33;
/** Ground steeper than this (degrees) is all rock. */
export const ROCK_FULL = 48;

/** Metres per repeat of the fine and broad detail. */
const FINE_TILE = 3.2;
const BROAD_TILE = 37;

/**
 * Anisotropic filtering of the detail texture where a GPU draws: grazing views of the ground stay
 * sharp. A software rasteriser gets 1: llvmpipe filters anisotropically in full, and at 4 a world
 * frame in WebKitGTK took 6.4 s against 65 ms at 1 (320×180, the terrain filling the view).
 */
export const TERRAIN_ANISOTROPY = {
  /** Where a GPU draws. */
  gpu: 4,
  /** On a software rasteriser. */
  software: 1,
} as const;

/** The detail texture's anisotropy for a renderer: {@link TERRAIN_ANISOTROPY}`.software` on a software rasteriser. */
export function terrainAnisotropyFor(renderer: { software: boolean }): number {
  return renderer.software ? TERRAIN_ANISOTROPY.software : TERRAIN_ANISOTROPY.gpu;
}

/**
 * A tileable noise texture, `size`² RGBA: R fine grain, G medium blotches, B strata-like bands
 * (stretched along one axis), A unused. Deterministic for a seed. `anisotropy`: the texture's
 * anisotropic filtering (default {@link TERRAIN_ANISOTROPY}`.gpu`).
 */
export function createDetailTexture(size = 128, seed = 17, anisotropy: number = TERRAIN_ANISOTROPY.gpu): DataTexture {
  const data = new Uint8Array(size * size * 4);
  const channels = [tileableNoise(size, 4, seed), tileableNoise(size, 12, seed + 1), tileableNoise(size, 6, seed + 2, 5)];
  for (let i = 0; i < size * size; i++) {
    for (let c = 0; c < 3; c++) data[i * 4 + c] = Math.round(channels[c]![i]! * 255);
    data[i * 4 + 3] = 255;
  }
  const tex = new DataTexture(data, size, size, RGBAFormat, UnsignedByteType);
  tex.wrapS = tex.wrapT = RepeatWrapping;
  tex.magFilter = LinearFilter;
  tex.minFilter = LinearMipmapLinearFilter;
  tex.generateMipmaps = true;
  tex.anisotropy = anisotropy;
  tex.name = 'terrain-detail';
  tex.needsUpdate = true;
  return tex;
}

/** Fractal value noise that wraps at the edges; `cells` lattice cells across; `stretch` squashes y. */
function tileableNoise(size: number, cells: number, seed: number, stretch = 1): Float32Array {
  const out = new Float32Array(size * size);
  let amplitude = 1;
  let total = 0;
  for (let octave = 0, n = cells; octave < 4; octave++, n *= 2) {
    const rng = new Mulberry32(seed * 131 + octave);
    const ny = Math.max(1, Math.round(n * stretch));
    const lattice = new Float32Array(n * ny).map(() => rng.next());
    for (let y = 0; y < size; y++) {
      const fy = (y / size) * ny;
      const y0 = Math.floor(fy);
      const ty = smooth(fy - y0);
      for (let x = 0; x < size; x++) {
        const fx = (x / size) * n;
        const x0 = Math.floor(fx);
        const tx = smooth(fx - x0);
        const at = (i: number, j: number): number => lattice[(j % ny) * n + (i % n)]!;
        const top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * tx;
        const bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * tx;
        out[y * size + x]! += (top + (bottom - top) * ty) * amplitude;
      }
    }
    total += amplitude;
    amplitude *= 0.5;
  }
  for (let i = 0; i < out.length; i++) out[i] = out[i]! / total;
  return out;
}

function smooth(t: number): number {
  return t * t * (3 - 2 * t);
}

/** The terrain's material, with the detail texture it owns (freed with it). */
export class TerrainMaterial extends MeshStandardNodeMaterial {
  private current: DataTexture;
  /** Every sampler of the detail texture in the material's nodes, retargeted by {@link setDetailAnisotropy}. */
  private readonly samplers: TextureNode[] = [];

  constructor(detail: DataTexture) {
    super({ roughness: 0.95, metalness: 0 });
    this.current = detail;
  }

  /** The tileable detail texture the material samples (see {@link createDetailTexture}). */
  get detail(): DataTexture {
    return this.current;
  }

  /** A sampler of the detail texture at `uv`, for the material's nodes. */
  sampleDetail(uv: Parameters<typeof texture>[1]): TextureNode {
    const node = texture(this.current, uv);
    this.samplers.push(node);
    return node;
  }

  /**
   * Changes the detail texture's anisotropic filtering while the material is in use. Three's
   * WebGL2 backend sets anisotropy only when it creates a texture (and only above 1), so this
   * swaps in a copy of the texture with the new value (the same pixels) and frees the old one.
   */
  setDetailAnisotropy(anisotropy: number): void {
    if (anisotropy === this.current.anisotropy) return;
    const old = this.current;
    const next = old.clone();
    next.anisotropy = anisotropy;
    next.needsUpdate = true;
    this.current = next;
    for (const node of this.samplers) node.value = next;
    old.dispose();
  }

  /** Frees the material's GPU resources and its detail texture. */
  override dispose(): void {
    this.current.dispose();
    super.dispose();
  }
}

/** The terrain material over a mesh with vertex colours (the biome colours). */
export function createTerrainMaterial(detail: DataTexture = createDetailTexture()): TerrainMaterial {
  const material = new TerrainMaterial(detail);
  material.name = 'terrain';
  const n = normalWorld;
  // Triplanar weights, sharpened so each face takes one projection except near 45°.
  const w0 = pow(abs(n), vec3(4));
  const w = w0.div(dot(w0, vec3(1)));
  const p = positionWorld;
  const sample = (uv: Parameters<typeof texture>[1]) => material.sampleDetail(uv);
  const tri = (scale: number) =>
    sample(p.zy.mul(scale))
      .mul(w.x)
      .add(sample(p.xz.mul(scale)).mul(w.y))
      .add(sample(p.xy.mul(scale)).mul(w.z));
  const fine = tri(1 / FINE_TILE);
  const broad = tri(1 / BROAD_TILE);
  // Strata: bands along the height, wavering sideways, seen on the side projections.
  const strata = sample(vec2(p.x.add(p.z).mul(0.013), p.y.mul(0.09))).b;
  const cosStart = Math.cos((ROCK_START * Math.PI) / 180);
  const cosFull = Math.cos((ROCK_FULL * Math.PI) / 180);
  // Fine grain nudges the edge so rock and grass interlock instead of meeting on a contour.
  const rockAmount = smoothstep(float(cosStart), float(cosFull), n.y.add(fine.r.sub(0.5).mul(0.12)));
  const ground = vertexColor().rgb.mul(fine.g.mul(0.34).add(0.83)).mul(broad.r.mul(0.3).add(0.85));
  const rock = vec3(0.37, 0.35, 0.32).mul(strata.mul(0.7).add(0.62)).mul(fine.r.mul(0.45).add(0.78));
  material.colorNode = mix(ground, rock, rockAmount);
  material.roughnessNode = mix(float(0.96), float(0.82), rockAmount);
  return material;
}
