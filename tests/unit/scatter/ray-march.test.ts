import { Mesh, Raycaster, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { Mulberry32 } from '../../../src/core/rng.ts';
import { generateTerrain } from '../../../src/world/terrain/generate.ts';
import { createTerrainMesh } from '../../../src/world/terrain/terrain-mesh.ts';
import { maxGrade, rayMarchHeightfield } from '../../../src/scatter/ray-march.ts';

const terrain = generateTerrain();

/** Brute force: 5 cm steps along the ray until the first sign change, over the same surface. */
function bruteForce(origin: Vector3, direction: Vector3, maxDistance = 2000): number | null {
  const d = direction.clone().normalize();
  if (origin.y < terrain.sampleHeight(origin.x, origin.z)) return null; // starts under ground
  for (let t = 0; t <= maxDistance; t += 0.05) {
    if (origin.y + d.y * t - terrain.sampleHeight(origin.x + d.x * t, origin.z + d.z * t) <= 0) return t;
  }
  return null;
}

function randomRay(rng: Mulberry32): { origin: Vector3; direction: Vector3 } {
  const target = new Vector3(rng.range(-240, 240), 0, rng.range(-240, 240));
  target.y = terrain.sampleHeight(target.x, target.z);
  const distance = rng.range(20, 260);
  const pitch = rng.range(0.15, 1.4);
  const yaw = rng.range(0, Math.PI * 2);
  const origin = target
    .clone()
    .add(new Vector3(Math.cos(pitch) * Math.sin(yaw), Math.sin(pitch), Math.cos(pitch) * Math.cos(yaw)).multiplyScalar(distance));
  // Aim near, not exactly at, the target: rays graze ridges and hit cliffs from all sides.
  const aim = target.clone().add(new Vector3(rng.range(-5, 5), rng.range(-2, 2), rng.range(-5, 5)));
  return { origin, direction: aim.sub(origin).normalize() };
}

// Generous timeout: these run real meshoptimizer/three work on a shared two-core machine.
describe('ray march over the heightmap', { timeout: 30_000 }, () => {
  it('measures the steepest grade of the bilinear surface (the cliff is ~70°)', () => {
    const grade = maxGrade(terrain);
    expect(grade).toBeGreaterThan(Math.tan((60 * Math.PI) / 180));
    expect(grade).toBeLessThan(10);
    // Every sampled slope is within the bound.
    const rng = new Mulberry32(1);
    for (let i = 0; i < 2000; i++) {
      const slope = terrain.sampleSlope(rng.range(-250, 250), rng.range(-250, 250));
      expect(Math.tan((slope * Math.PI) / 180)).toBeLessThanOrEqual(grade * 1.001);
    }
  });

  it('finds the same first hit as a brute-force 5 cm march, within 5 cm, on 300 random rays', () => {
    const rng = new Mulberry32(99);
    let hits = 0;
    let totalSamples = 0;
    for (let i = 0; i < 300; i++) {
      const { origin, direction } = randomRay(rng);
      const marched = rayMarchHeightfield(terrain, origin, direction);
      const brute = bruteForce(origin, direction);
      if (brute === null) {
        expect(marched).toBeNull();
        continue;
      }
      expect(marched).not.toBeNull();
      expect(Math.abs(marched!.distance - brute)).toBeLessThan(0.05 + 1e-6);
      // The hit is on the surface.
      expect(Math.abs(marched!.y - terrain.sampleHeight(marched!.x, marched!.z))).toBeLessThan(1e-9);
      hits++;
      totalSamples += marched!.samples;
    }
    expect(hits).toBeGreaterThan(280);
    // Adaptive steps: far fewer height lookups than the 5 cm march's thousands.
    expect(totalSamples / hits).toBeLessThan(120);
  });

  // A three.js raycast over 131,072 triangles costs tens of ms each: few rays, generous timeout.
  it('agrees with three.js raycasting the terrain mesh (bilinear vs two triangles per cell)', { timeout: 60_000 }, () => {
    const mesh: Mesh = createTerrainMesh(terrain);
    mesh.updateMatrixWorld(true);
    const raycaster = new Raycaster();
    const rng = new Mulberry32(7);
    let compared = 0;
    let agreed = 0;
    for (let i = 0; i < 30; i++) {
      const { origin, direction } = randomRay(rng);
      raycaster.set(origin, direction);
      const hit = raycaster.intersectObject(mesh, false)[0];
      const marched = rayMarchHeightfield(terrain, origin, direction);
      if (!hit || !marched) continue;
      compared++;
      if (Math.hypot(hit.point.x - marched.x, hit.point.y - marched.y, hit.point.z - marched.z) < 1.5) agreed++;
      else {
        // A grazing ray may clip a ridge on one surface and pass over it on the other; the
        // mesh's hit must still lie on the bilinear ground within the 0.6 m the surfaces differ.
        expect(Math.abs(hit.point.y - terrain.sampleHeight(hit.point.x, hit.point.z))).toBeLessThan(0.6);
      }
    }
    expect(compared).toBeGreaterThan(25);
    expect(agreed / compared).toBeGreaterThan(0.95);
    mesh.geometry.dispose();
  });

  it('returns null for rays at the sky, straight up, or starting under ground', () => {
    expect(rayMarchHeightfield(terrain, { x: 0, y: 50, z: 0 }, { x: 0, y: 1, z: 0 })).toBeNull();
    expect(rayMarchHeightfield(terrain, { x: 0, y: 50, z: 0 }, { x: 1, y: 0.5, z: 0 })).toBeNull();
    expect(rayMarchHeightfield(terrain, { x: 0, y: -50, z: 0 }, { x: 0, y: -1, z: 0 })).toBeNull();
    expect(rayMarchHeightfield(terrain, { x: 0, y: 50, z: 0 }, { x: 0, y: 0, z: 0 })).toBeNull();
  });

  it('hits straight down at the sampled height', () => {
    const hit = rayMarchHeightfield(terrain, { x: 12.3, y: 300, z: -45.6 }, { x: 0, y: -1, z: 0 })!;
    expect(hit.x).toBeCloseTo(12.3, 9);
    expect(hit.z).toBeCloseTo(-45.6, 9);
    expect(hit.y).toBeCloseTo(terrain.sampleHeight(12.3, -45.6), 9);
  });
});
