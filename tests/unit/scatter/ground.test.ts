import { Group, Mesh, MeshBasicMaterial, PlaneGeometry } from 'three';
import { describe, expect, it } from 'vitest';
import { groundFromHeight, groundFromMesh } from '../../../src/scatter/ground.ts';
import { ScatterLayer } from '../../../src/scatter/scatter-layer.ts';

/** A flat-shaded ramp: the plane laid on XZ, raised by `rise` per metre along +X, then lifted by `base`. */
function ramp(size: number, rise: number, base: number, centreX = 0): Mesh {
  const geometry = new PlaneGeometry(size, size, 8, 8).rotateX(-Math.PI / 2);
  const position = geometry.attributes.position!;
  for (let i = 0; i < position.count; i++) position.setY(i, base + rise * position.getX(i));
  geometry.translate(centreX, 0, 0);
  return new Mesh(geometry, new MeshBasicMaterial());
}

describe('groundFromHeight', () => {
  it('gives the slope, normal and bounds of the height function', () => {
    const ground = groundFromHeight((x) => x, { bounds: { minX: -5, minZ: -5, maxX: 5, maxZ: 5 }, waterLevel: -2 });
    expect(ground.sampleSlope(1, 1)).toBeCloseTo(45, 6);
    const normal = ground.sampleNormal(0, 0);
    expect(normal.x).toBeCloseTo(-Math.SQRT1_2, 6);
    expect(normal.y).toBeCloseTo(Math.SQRT1_2, 6);
    expect(ground.contains(4.9, -4.9)).toBe(true);
    expect(ground.contains(5.1, 0)).toBe(false);
    expect(ground.waterLevel).toBe(-2);
    expect(groundFromHeight(() => 0).contains(1e6, -1e6)).toBe(true);
  });
});

describe('groundFromMesh', () => {
  it('samples a mesh once and reads its heights and slope back', () => {
    const ground = groundFromMesh(ramp(20, 0.1, 3));
    for (const [x, z] of [
      [0, 0],
      [-7.3, 4.1],
      [9.5, -9.5],
    ] as const) {
      expect(ground.sampleHeight(x, z)).toBeCloseTo(3 + 0.1 * x, 3);
      expect(ground.sampleSlope(x, z)).toBeCloseTo((Math.atan(0.1) * 180) / Math.PI, 2);
    }
    expect(ground.contains(0, 0)).toBe(true);
    expect(ground.contains(11, 0)).toBe(false);
  });

  it('has no ground where its rays miss: a gap between two islands places nothing', () => {
    const islands = new Group().add(ramp(10, 0, 1, -10), ramp(10, 0, 1, 10));
    const ground = groundFromMesh(islands, { resolution: 81 });
    expect(ground.contains(-10, 0)).toBe(true);
    expect(ground.contains(10, 2)).toBe(true);
    expect(ground.contains(0, 0)).toBe(false);
  });

  it('takes a brush stroke on a mesh ground, every prop standing on the mesh', async () => {
    const ground = groundFromMesh(ramp(40, 0.05, 2));
    const layer = new ScatterLayer({ ground, seed: 5 });
    await layer.choosePreset('mixed-forest');
    layer.paint(0, 0, 15);
    const placed = layer.snapshot();
    expect(placed.length).toBeGreaterThan(5);
    for (const p of placed) expect(Math.abs(p.y - (2 + 0.05 * p.x))).toBeLessThan(0.6);
    layer.dispose();
  });
});
