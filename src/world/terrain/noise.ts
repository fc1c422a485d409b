import { Mulberry32 } from '../../core/rng.ts';

/** Seeded 2D value noise with smooth interpolation, in [-1, 1]; plus fractal sums of it. */
export class ValueNoise2D {
  private readonly table: Float32Array;
  private readonly permutation: Uint16Array;

  constructor(seed: number) {
    const rng = new Mulberry32(seed);
    this.table = new Float32Array(256);
    this.permutation = new Uint16Array(512);
    const order = Array.from({ length: 256 }, (_, i) => i);
    for (let i = 255; i > 0; i--) {
      const j = rng.int(i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (let i = 0; i < 256; i++) this.table[i] = rng.next() * 2 - 1;
    for (let i = 0; i < 512; i++) this.permutation[i] = order[i & 255]!;
  }

  /** Smoothly interpolated noise at (x, z), in [-1, 1]; one lattice cell per unit. */
  sample(x: number, z: number): number {
    const x0 = Math.floor(x);
    const z0 = Math.floor(z);
    const fx = x - x0;
    const fz = z - z0;
    const sx = fx * fx * (3 - 2 * fx);
    const sz = fz * fz * (3 - 2 * fz);
    const v00 = this.lattice(x0, z0);
    const v10 = this.lattice(x0 + 1, z0);
    const v01 = this.lattice(x0, z0 + 1);
    const v11 = this.lattice(x0 + 1, z0 + 1);
    return (v00 + (v10 - v00) * sx) * (1 - sz) + (v01 + (v11 - v01) * sx) * sz;
  }

  /** Fractal Brownian motion: `octaves` layers, each at twice the frequency and half the amplitude. */
  fbm(x: number, z: number, octaves: number): number {
    let sum = 0;
    let amplitude = 0.5;
    let frequency = 1;
    for (let i = 0; i < octaves; i++) {
      sum += amplitude * this.sample(x * frequency, z * frequency);
      frequency *= 2;
      amplitude *= 0.5;
    }
    return sum;
  }

  /** Ridged fractal noise in [0, 1]: sharp crests, for mountain ranges. */
  ridged(x: number, z: number, octaves: number): number {
    let sum = 0;
    let amplitude = 0.5;
    let frequency = 1;
    let norm = 0;
    for (let i = 0; i < octaves; i++) {
      const n = 1 - Math.abs(this.sample(x * frequency, z * frequency));
      sum += amplitude * n * n;
      norm += amplitude;
      frequency *= 2;
      amplitude *= 0.5;
    }
    return sum / norm;
  }

  private lattice(ix: number, iz: number): number {
    const p = this.permutation;
    return this.table[p[(p[ix & 255]! + iz) & 511]! & 255]!;
  }
}
