import { describe, expect, it } from 'vitest';
import { Mulberry32 } from '../../../src/core/rng.ts';
import { SpatialHash2D } from '../../../src/core/spatial-hash.ts';

describe('SpatialHash2D', () => {
  it('answers radius queries exactly like brute force', () => {
    const rng = new Mulberry32(11);
    const hash = new SpatialHash2D(4);
    const points = new Map<number, { x: number; z: number }>();
    for (let id = 0; id < 2000; id++) {
      const p = { x: rng.range(-100, 100), z: rng.range(-100, 100) };
      points.set(id, p);
      hash.insert(id, p.x, p.z);
    }
    for (let q = 0; q < 200; q++) {
      const x = rng.range(-110, 110);
      const z = rng.range(-110, 110);
      const r = rng.range(0, 15);
      const expected = [...points]
        .filter(([, p]) => (p.x - x) ** 2 + (p.z - z) ** 2 <= r * r)
        .map(([id]) => id)
        .sort((a, b) => a - b);
      expect(hash.queryRadius(x, z, r).sort((a, b) => a - b)).toEqual(expected);
      expect(hash.anyWithin(x, z, r)).toBe(expected.length > 0);
    }
  });

  it('moves and removes items across cells', () => {
    const hash = new SpatialHash2D(2);
    hash.insert(1, 0.5, 0.5);
    hash.insert(2, 0.6, 0.5);
    hash.move(1, 50, 50);
    expect(hash.queryRadius(0, 0, 1)).toEqual([2]);
    expect(hash.queryRadius(50, 50, 0.1)).toEqual([1]);
    expect(hash.remove(2)).toBe(true);
    expect(hash.remove(2)).toBe(false);
    expect(hash.queryRadius(0, 0, 10)).toEqual([]);
    expect(hash.size).toBe(1);
    expect(hash.get(1)).toEqual({ x: 50, z: 50 });
  });

  it('handles negative coordinates and cell borders', () => {
    const hash = new SpatialHash2D(1);
    hash.insert(1, -0.0001, -0.0001);
    hash.insert(2, 0, 0);
    expect(hash.queryRadius(0, 0, 0.001).sort()).toEqual([1, 2]);
  });

  it('rejects a non-positive cell size', () => {
    expect(() => new SpatialHash2D(0)).toThrow(/cellSize/);
  });
});
