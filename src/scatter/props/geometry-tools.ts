import { BufferAttribute, BufferGeometry, Euler, Float32BufferAttribute, Matrix4, Quaternion, Vector3 } from 'three';
import { mergeGeometries, mergeVertices } from 'three/addons/utils/BufferGeometryUtils.js';
import type { Mulberry32 } from '../../core/rng.ts';

/**
 * Small geometry helpers for the procedural props: place a primitive, displace it with a smooth
 * position-based noise, and finish it either *flat* (split vertices, one normal per face, the
 * low-poly look) or *smooth* (welded vertices, averaged normals). Both get vertex colours and an
 * index buffer, which LOD baking needs.
 */

export interface Placement3 {
  position?: [number, number, number];
  rotation?: [number, number, number];
  scale?: [number, number, number] | number;
}

/** Applies a translation / rotation (XYZ Euler, radians) / scale to a geometry in place. */
export function place(geometry: BufferGeometry, p: Placement3): BufferGeometry {
  const s = p.scale ?? 1;
  const scale = typeof s === 'number' ? new Vector3(s, s, s) : new Vector3(...s);
  const matrix = new Matrix4().compose(
    new Vector3(...(p.position ?? [0, 0, 0])),
    new Quaternion().setFromEuler(new Euler(...(p.rotation ?? [0, 0, 0]))),
    scale,
  );
  geometry.applyMatrix4(matrix);
  return geometry;
}

/**
 * A smooth noise of position built from a few seeded plane waves: the same point always gets the
 * same value, so duplicated vertices of a split mesh move together and the surface stays closed.
 */
export function positionNoise(rng: Mulberry32, frequency: number, waves = 5): (x: number, y: number, z: number) => number {
  const terms = Array.from({ length: waves }, (_, i) => {
    const theta = rng.range(0, Math.PI * 2);
    const phi = Math.acos(rng.range(-1, 1));
    const f = frequency * (1 + i * 0.7);
    return {
      x: Math.sin(phi) * Math.cos(theta) * f,
      y: Math.cos(phi) * f,
      z: Math.sin(phi) * Math.sin(theta) * f,
      phase: rng.range(0, Math.PI * 2),
      amplitude: 1 / (1 + i * 0.8),
    };
  });
  const norm = terms.reduce((sum, t) => sum + t.amplitude, 0);
  return (x, y, z) => {
    let sum = 0;
    for (const t of terms) sum += t.amplitude * Math.sin(t.x * x + t.y * y + t.z * z + t.phase);
    return sum / norm;
  };
}

/** Moves every vertex radially from `center` by `amount × noise(position)`. */
export function displaceRadially(
  geometry: BufferGeometry,
  noise: (x: number, y: number, z: number) => number,
  amount: number,
  center: [number, number, number] = [0, 0, 0],
): BufferGeometry {
  const position = geometry.getAttribute('position') as BufferAttribute;
  const v = new Vector3();
  const c = new Vector3(...center);
  for (let i = 0; i < position.count; i++) {
    v.fromBufferAttribute(position, i);
    const n = noise(v.x, v.y, v.z);
    const dir = v.clone().sub(c);
    const length = dir.length() || 1;
    v.addScaledVector(dir, (amount * n) / length);
    position.setXYZ(i, v.x, v.y, v.z);
  }
  return geometry;
}

/** Moves every vertex by `offset(y)` horizontally (a bend, a lean), in place. */
export function bend(geometry: BufferGeometry, offset: (y: number) => [number, number]): BufferGeometry {
  const position = geometry.getAttribute('position') as BufferAttribute;
  for (let i = 0; i < position.count; i++) {
    const [dx, dz] = offset(position.getY(i));
    position.setX(i, position.getX(i) + dx);
    position.setZ(i, position.getZ(i) + dz);
  }
  return geometry;
}

/** Merges geometries that carry only `position` (others are dropped first so they merge). */
export function merge(geometries: BufferGeometry[]): BufferGeometry {
  const stripped = geometries.map((g) => {
    const out = g.index ? g.toNonIndexed() : g.clone();
    for (const name of Object.keys(out.attributes)) if (name !== 'position') out.deleteAttribute(name);
    return out;
  });
  const merged = mergeGeometries(stripped, false);
  if (!merged) throw new Error('merge: geometries could not be merged');
  return merged;
}

export type Rgb = [number, number, number];

/**
 * The low-poly finish: split vertices (three per triangle), a face normal on each, one colour per
 * face jittered around `color` by ±`jitter`, and a trivial index buffer.
 */
export function finishFlat(geometry: BufferGeometry, color: Rgb, jitter: number, rng: Mulberry32): BufferGeometry {
  const g = geometry.index ? geometry.toNonIndexed() : geometry.clone();
  for (const name of Object.keys(g.attributes)) if (name !== 'position') g.deleteAttribute(name);
  g.computeVertexNormals();
  const count = g.getAttribute('position').count;
  const colors = new Float32Array(count * 3);
  for (let face = 0; face < count / 3; face++) {
    const k = 1 + rng.range(-jitter, jitter);
    for (let corner = 0; corner < 3; corner++) colors.set([color[0] * k, color[1] * k, color[2] * k], (face * 3 + corner) * 3);
  }
  g.setAttribute('color', new Float32BufferAttribute(colors, 3));
  g.setIndex(
    new BufferAttribute(
      Uint32Array.from({ length: count }, (_, i) => i),
      1,
    ),
  );
  g.computeBoundingBox();
  g.computeBoundingSphere();
  return g;
}

/**
 * The smooth finish: vertices welded by position, normals averaged across faces, a colour per
 * vertex jittered by a position hash (so it is deterministic).
 */
export function finishSmooth(geometry: BufferGeometry, color: Rgb, jitter: number): BufferGeometry {
  const source = geometry.index ? geometry.toNonIndexed() : geometry.clone();
  for (const name of Object.keys(source.attributes)) if (name !== 'position') source.deleteAttribute(name);
  const g = mergeVertices(source, 1e-4);
  g.computeVertexNormals();
  const position = g.getAttribute('position');
  const colors = new Float32Array(position.count * 3);
  for (let i = 0; i < position.count; i++) {
    const h = Math.sin(position.getX(i) * 12.9898 + position.getY(i) * 78.233 + position.getZ(i) * 37.719) * 43758.5453;
    const k = 1 + jitter * (2 * (h - Math.floor(h)) - 1);
    colors.set([color[0] * k, color[1] * k, color[2] * k], i * 3);
  }
  g.setAttribute('color', new Float32BufferAttribute(colors, 3));
  if (g.index && !(g.index.array instanceof Uint32Array)) g.setIndex(new BufferAttribute(Uint32Array.from(g.index.array), 1));
  g.computeBoundingBox();
  g.computeBoundingSphere();
  return g;
}

/** Triangles in a geometry (indexed or not). */
export function triangleCount(geometry: BufferGeometry): number {
  return (geometry.index ? geometry.index.count : geometry.getAttribute('position').count) / 3;
}

/**
 * Gives a tree crown the normals of one volume: each vertex's normal is blended (by `blend`, 0..1)
 * towards the normal of the ellipsoid that bounds the crown (its bounding box's inscribed
 * ellipsoid, at the vertex's direction from the centre). A crown built from several blobs then
 * shades as one soft mass lit from the sun's side, as foliage reads, instead of each blob's
 * underside facing the ground.
 */
export function crownNormals(geometry: BufferGeometry, blend: number): BufferGeometry {
  geometry.computeBoundingBox();
  const box = geometry.boundingBox!;
  const center = box.getCenter(new Vector3());
  const half = box
    .getSize(new Vector3())
    .multiplyScalar(0.5)
    .max(new Vector3(1e-3, 1e-3, 1e-3));
  const position = geometry.getAttribute('position');
  const normal = geometry.getAttribute('normal') as BufferAttribute;
  const n = new Vector3();
  const e = new Vector3();
  for (let i = 0; i < position.count; i++) {
    // Gradient of the ellipsoid through the vertex: (p − c) / half².
    e.set(
      (position.getX(i) - center.x) / (half.x * half.x),
      (position.getY(i) - center.y) / (half.y * half.y),
      (position.getZ(i) - center.z) / (half.z * half.z),
    ).normalize();
    n.fromBufferAttribute(normal, i).lerp(e, blend).normalize();
    normal.setXYZ(i, n.x, n.y, n.z);
  }
  normal.needsUpdate = true;
  return geometry;
}
