import { clamp, type XYZ } from '../../core/math.ts';

/**
 * A square grid of heights on the XZ plane, centred on the origin, with bilinear sampling.
 * Pure data and maths (no three.js), so the scatter brush, the player and Node tests share it.
 *
 * Axes: +X is east, −Z is north, +Y is up; metres.
 */
export class Heightmap {
  /** Samples per side (e.g. 257). */
  readonly resolution: number;
  /** Edge length of the square in metres. */
  readonly worldSize: number;
  /** Distance between neighbouring samples in metres. */
  readonly spacing: number;
  /** Heights, row-major: index = iz * resolution + ix, ix along +X from -worldSize/2. */
  readonly heights: Float32Array;
  /** Height of the water surface; anything below is under water. */
  readonly waterLevel: number;

  constructor(resolution: number, worldSize: number, heights: Float32Array, waterLevel = 0) {
    if (resolution < 2) throw new RangeError(`Heightmap: resolution must be ≥ 2 (got ${resolution})`);
    if (heights.length !== resolution * resolution) {
      throw new RangeError(`Heightmap: expected ${resolution * resolution} heights, got ${heights.length}`);
    }
    this.resolution = resolution;
    this.worldSize = worldSize;
    this.spacing = worldSize / (resolution - 1);
    this.heights = heights;
    this.waterLevel = waterLevel;
  }

  /** Smallest world coordinate on either axis (the grid spans [min, -min]). */
  get min(): number {
    return -this.worldSize / 2;
  }

  /** Height at grid sample (ix, iz), clamped to the grid. */
  heightAt(ix: number, iz: number): number {
    const n = this.resolution - 1;
    const x = ix < 0 ? 0 : ix > n ? n : ix;
    const z = iz < 0 ? 0 : iz > n ? n : iz;
    return this.heights[z * this.resolution + x]!;
  }

  /** World X or Z of grid index i. */
  coordOf(i: number): number {
    return this.min + i * this.spacing;
  }

  /** Bilinearly interpolated height at world (x, z); outside the grid the edge height continues. */
  sampleHeight(x: number, z: number): number {
    const n = this.resolution - 1;
    const gx = clamp((x - this.min) / this.spacing, 0, n);
    const gz = clamp((z - this.min) / this.spacing, 0, n);
    const ix = Math.min(Math.floor(gx), n - 1);
    const iz = Math.min(Math.floor(gz), n - 1);
    const fx = gx - ix;
    const fz = gz - iz;
    const row = iz * this.resolution + ix;
    const h = this.heights;
    const h00 = h[row]!;
    const h10 = h[row + 1]!;
    const h01 = h[row + this.resolution]!;
    const h11 = h[row + this.resolution + 1]!;
    return (h00 * (1 - fx) + h10 * fx) * (1 - fz) + (h01 * (1 - fx) + h11 * fx) * fz;
  }

  /**
   * Unit surface normal at (x, z) from central differences one grid spacing apart, written into
   * `out` (allocation-free in loops).
   */
  sampleNormal(x: number, z: number, out: XYZ = { x: 0, y: 1, z: 0 }): XYZ {
    const d = this.spacing;
    const dhdx = (this.sampleHeight(x + d, z) - this.sampleHeight(x - d, z)) / (2 * d);
    const dhdz = (this.sampleHeight(x, z + d) - this.sampleHeight(x, z - d)) / (2 * d);
    const length = Math.sqrt(dhdx * dhdx + 1 + dhdz * dhdz);
    out.x = -dhdx / length;
    out.y = 1 / length;
    out.z = -dhdz / length;
    return out;
  }

  /** Slope at (x, z) in degrees: 0 is flat, 90 would be vertical. */
  sampleSlope(x: number, z: number): number {
    const d = this.spacing;
    const dhdx = (this.sampleHeight(x + d, z) - this.sampleHeight(x - d, z)) / (2 * d);
    const dhdz = (this.sampleHeight(x, z + d) - this.sampleHeight(x, z - d)) / (2 * d);
    return (Math.atan(Math.sqrt(dhdx * dhdx + dhdz * dhdz)) * 180) / Math.PI;
  }

  /** True when (x, z) lies inside the grid. */
  contains(x: number, z: number): boolean {
    const half = this.worldSize / 2;
    return x >= -half && x <= half && z >= -half && z <= half;
  }

  /** True when the ground at (x, z) is below the water surface. */
  isUnderwater(x: number, z: number): boolean {
    return this.sampleHeight(x, z) < this.waterLevel;
  }
}
