import { describe, expect, it } from 'vitest';
import { Heightmap } from '../../../src/world/terrain/heightmap.ts';
import { generateTerrain, LANDMARKS } from '../../../src/world/terrain/generate.ts';
import { classifyBiome } from '../../../src/world/terrain/biome.ts';

function plane(a: number, b: number, c: number): Heightmap {
  const n = 5;
  const h = new Float32Array(n * n);
  const map = new Heightmap(n, 8, h);
  for (let iz = 0; iz < n; iz++) for (let ix = 0; ix < n; ix++) h[iz * n + ix] = a * map.coordOf(ix) + b * map.coordOf(iz) + c;
  return map;
}

describe('Heightmap sampling', () => {
  it('returns grid heights exactly and interpolates bilinearly between them', () => {
    const h = new Float32Array([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const map = new Heightmap(3, 2, h); // samples at -1, 0, 1
    expect(map.sampleHeight(-1, -1)).toBe(0);
    expect(map.sampleHeight(1, 1)).toBe(8);
    expect(map.sampleHeight(-0.5, -1)).toBeCloseTo(0.5);
    expect(map.sampleHeight(-0.5, -0.5)).toBeCloseTo((0 + 1 + 3 + 4) / 4);
  });

  it('continues the edge height outside the grid', () => {
    const map = plane(1, 0, 0);
    expect(map.sampleHeight(100, 0)).toBeCloseTo(4);
    expect(map.sampleHeight(-100, 0)).toBeCloseTo(-4);
  });

  it('gives the slope and normal of a tilted plane', () => {
    const map = plane(1, 0, 2); // 45° rising towards +X
    expect(map.sampleSlope(0, 0)).toBeCloseTo(45, 4);
    const n = map.sampleNormal(0, 0);
    expect(n.x).toBeCloseTo(-Math.SQRT1_2, 5);
    expect(n.y).toBeCloseTo(Math.SQRT1_2, 5);
    expect(n.z).toBeCloseTo(0, 5);
    expect(plane(0, 0, 3).sampleSlope(1, 1)).toBe(0);
  });

  it('rejects mismatched data', () => {
    expect(() => new Heightmap(3, 2, new Float32Array(8))).toThrow(/expected 9 heights/);
  });
});

describe('Cairn default terrain', () => {
  const map = generateTerrain();

  it('is 257 × 257 over 512 m and deterministic', () => {
    expect(map.resolution).toBe(257);
    expect(map.worldSize).toBe(512);
    expect(generateTerrain().heights).toEqual(map.heights);
    expect(generateTerrain({ seed: 2 }).heights).not.toEqual(map.heights);
  });

  it('has mountains to the north, well above the spawn', () => {
    const spawn = map.sampleHeight(LANDMARKS.spawn.x, LANDMARKS.spawn.z);
    let peak = -Infinity;
    for (let x = -200; x <= 200; x += 4) for (let z = -250; z <= -150; z += 4) peak = Math.max(peak, map.sampleHeight(x, z));
    expect(spawn).toBeGreaterThan(map.waterLevel + 2);
    expect(peak).toBeGreaterThan(spawn + 50);
  });

  it('has a cliff band to the east steeper than 55° along its length', () => {
    for (let z = -80; z <= 80; z += 20) {
      let steepest = 0;
      for (let x = 110; x <= 175; x += 0.5) steepest = Math.max(steepest, map.sampleSlope(x, z));
      expect(steepest, `at z = ${z}`).toBeGreaterThan(55);
    }
  });

  it('has a beach and then sea to the south, and a lake basin to the south-west', () => {
    const beachBiome = classifyBiome({
      altitude: map.sampleHeight(LANDMARKS.beach.x, LANDMARKS.beach.z),
      slope: map.sampleSlope(LANDMARKS.beach.x, LANDMARKS.beach.z),
    });
    expect(beachBiome).toBe('sand');
    expect(map.isUnderwater(0, 240)).toBe(true);
    expect(map.isUnderwater(LANDMARKS.lake.x, LANDMARKS.lake.z)).toBe(true);
    // The lake is a basin: dry land around it on the north side.
    expect(map.isUnderwater(LANDMARKS.lake.x, LANDMARKS.lake.z - 80)).toBe(false);
  });
});

describe('classifyBiome', () => {
  it('puts water, cliffs and altitude bands in order', () => {
    expect(classifyBiome({ altitude: -2, slope: 5 })).toBe('seabed');
    expect(classifyBiome({ altitude: 0.5, slope: 5 })).toBe('sand');
    expect(classifyBiome({ altitude: 10, slope: 60 })).toBe('rock');
    expect(classifyBiome({ altitude: 70, slope: 10 })).toBe('snow');
    expect(classifyBiome({ altitude: 8, slope: 5 })).toBe('grass');
  });
});
