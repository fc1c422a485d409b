import { Vector3 } from 'three';
import { Mulberry32 } from '../../src/core/rng.ts';
import type { Heightmap } from '../../src/world/terrain/heightmap.ts';

/**
 * Pointer rays as the brush sees them: from a camera 30–200 m from the ground point it looks at,
 * 15°–80° above the horizon, through a pixel near the screen centre. Seeded.
 */
export function cursorRays(heightmap: Heightmap, count: number, seed = 1): Array<{ origin: Vector3; direction: Vector3 }> {
  const rng = new Mulberry32(seed);
  const rays: Array<{ origin: Vector3; direction: Vector3 }> = [];
  while (rays.length < count) {
    const target = new Vector3(rng.range(-230, 230), 0, rng.range(-230, 230));
    target.y = heightmap.sampleHeight(target.x, target.z);
    const distance = rng.range(30, 200);
    const pitch = rng.range(0.26, 1.4);
    const yaw = rng.range(0, Math.PI * 2);
    const origin = target
      .clone()
      .add(new Vector3(Math.cos(pitch) * Math.sin(yaw), Math.sin(pitch), Math.cos(pitch) * Math.cos(yaw)).multiplyScalar(distance));
    if (origin.y < heightmap.sampleHeight(origin.x, origin.z) + 1) continue;
    const aim = target.clone().add(new Vector3(rng.range(-8, 8), 0, rng.range(-8, 8)));
    rays.push({ origin, direction: aim.sub(origin).normalize() });
  }
  return rays;
}

/** Dab centres along a serpentine path over mixed ground around the spawn (hills, lake shore). */
export function strokePath(count: number, spacing = 5): Array<{ x: number; z: number }> {
  const out: Array<{ x: number; z: number }> = [];
  const perRow = 24;
  for (let i = 0; i < count; i++) {
    const row = Math.floor(i / perRow);
    const col = i % perRow;
    const x = -90 + (row % 2 === 0 ? col : perRow - 1 - col) * spacing;
    out.push({ x, z: -40 + row * spacing * 1.6 });
  }
  return out;
}
