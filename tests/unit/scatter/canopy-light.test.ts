/**
 * Trees lit as trees: how much of the world's light a tree crown's visible surface catches, seen
 * from where a visitor stands. The pine's crown is three flattened spheres; with their own surface
 * normals almost everything seen from the ground faces the ground, so it caught half the light of
 * the other crowns and rendered almost black. Its normals are now those of the crown as one volume.
 */
import { Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { Mulberry32, seedFromString } from '../../../src/core/rng.ts';
import { createPropMaterials } from '../../../src/scatter/props/materials.ts';
import { PROCEDURAL_PROPS } from '../../../src/scatter/props/procedural.ts';
import { WORLD_LIGHTS } from '../../../src/world/environment.ts';

const luminance = (rgb: readonly number[]): number => 0.2126 * rgb[0]! + 0.7152 * rgb[1]! + 0.0722 * rgb[2]!;
const { hemisphere, sun } = WORLD_LIGHTS;
const toSun = new Vector3(...sun.direction).normalize();

/** Luminance of the light reaching a surface with normal `n`: hemisphere fill plus the sun (no shadows). */
function irradiance(n: Vector3): number {
  const sky = luminance(hemisphere.sky);
  const ground = luminance(hemisphere.ground);
  return (
    hemisphere.intensity * (ground + (sky - ground) * (0.5 * n.y + 0.5)) + sun.intensity * luminance(sun.color) * Math.max(0, n.dot(toSun))
  );
}

/**
 * The light a crown's surface catches as seen from eight cameras around it (`distance` metres away,
 * `height` metres up): each front-facing triangle weighted by its projected area, shaded with its
 * vertices' normals.
 */
function crownLight(id: string, distance: number, height: number): number {
  const definition = PROCEDURAL_PROPS.find((p) => p.id === id)!;
  const pieces = definition.build(createPropMaterials(), new Mulberry32(seedFromString(id)));
  const canopy = pieces.find((p) => p.name === 'canopy')!.geometry;
  const position = canopy.getAttribute('position');
  const normal = canopy.getAttribute('normal');
  const index = canopy.getIndex()!;
  const [a, b, c, face, centre, view, n] = Array.from({ length: 7 }, () => new Vector3());
  let sum = 0;
  let weight = 0;
  for (let k = 0; k < 8; k++) {
    const angle = (k / 8) * Math.PI * 2;
    const camera = new Vector3(Math.sin(angle) * distance, height, Math.cos(angle) * distance);
    for (let t = 0; t < index.count; t += 3) {
      const [ia, ib, ic] = [index.getX(t), index.getX(t + 1), index.getX(t + 2)];
      a!.fromBufferAttribute(position, ia);
      b!.fromBufferAttribute(position, ib);
      c!.fromBufferAttribute(position, ic);
      face!.crossVectors(b!.clone().sub(a!), c!.clone().sub(a!));
      const area = face!.length() / 2;
      face!.normalize();
      centre!.copy(a!).add(b!).add(c!).divideScalar(3);
      view!.copy(camera).sub(centre!);
      const d = view!.length();
      const facing = face!.dot(view!.normalize());
      if (facing <= 0) continue;
      const w = (area * facing) / (d * d);
      n!
        .fromBufferAttribute(normal, ia)
        .add(new Vector3().fromBufferAttribute(normal, ib))
        .add(new Vector3().fromBufferAttribute(normal, ic))
        .normalize();
      sum += irradiance(n!) * w;
      weight += w;
    }
  }
  return sum / weight;
}

describe('tree crowns in the world light', () => {
  it('light the pine like the other trees, from under it and from across a clearing', () => {
    for (const [distance, height] of [
      [5, 1],
      [16, 1.7],
    ] as const) {
      const others = ['spruce', 'linden', 'oak', 'birch'].map((id) => crownLight(id, distance, height)).sort((x, y) => x - y);
      const median = (others[1]! + others[2]!) / 2;
      const pine = crownLight('pine', distance, height);
      // Before: 0.46 against a median of 0.71 (5 m) and 0.88 against 1.11 (16 m).
      expect(pine / median, `pine ${pine.toFixed(2)} against the others' median ${median.toFixed(2)} at ${distance} m`).toBeGreaterThan(
        0.9,
      );
    }
  });
});
