import type { GroundSampler } from '../../../src/scatter/placement.ts';

/**
 * Analytic grounds for placement tests: every height, slope and normal is known exactly, so a
 * rejection count can be predicted instead of eyeballed.
 */
export function planeGround(options: { height?: number; slopeDeg?: number; half?: number; waterLevel?: number } = {}): GroundSampler {
  const grade = Math.tan(((options.slopeDeg ?? 0) * Math.PI) / 180);
  const base = options.height ?? 5;
  const half = options.half ?? 1000;
  const length = Math.hypot(grade, 1);
  return {
    waterLevel: options.waterLevel ?? 0,
    sampleHeight: (x) => base + grade * x,
    sampleSlope: () => options.slopeDeg ?? 0,
    sampleNormal: (_x, _z, out = { x: 0, y: 1, z: 0 }) => Object.assign(out, { x: -grade / length, y: 1 / length, z: 0 }),
    contains: (x, z) => Math.abs(x) <= half && Math.abs(z) <= half,
  };
}

/** Flat ground whose height is a step: `lowHeight` west of x = 0, `highHeight` east of it. */
export function stepGround(lowHeight: number, highHeight: number): GroundSampler {
  return {
    waterLevel: 0,
    sampleHeight: (x) => (x < 0 ? lowHeight : highHeight),
    sampleSlope: () => 0,
    sampleNormal: (_x, _z, out = { x: 0, y: 1, z: 0 }) => Object.assign(out, { x: 0, y: 1, z: 0 }),
    contains: () => true,
  };
}
