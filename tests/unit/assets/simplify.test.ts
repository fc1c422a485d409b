import { MeshoptSimplifier } from 'meshoptimizer/simplifier';
import {
  BoxGeometry,
  BufferGeometry,
  Float32BufferAttribute,
  Group,
  Mesh,
  MeshStandardMaterial,
  SphereGeometry,
  TorusKnotGeometry,
} from 'three';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ModelSimplifier } from '../../../src/assets/model-simplifier.ts';
import { simplifyIndexBySlices } from '../../../src/assets/simplify-index.ts';

beforeAll(() => MeshoptSimplifier.ready);

/** A sphere (slot 0), a torus knot (slot 1) and a box (slot 2) in one geometry, one group each. */
function threeSlotGeometry(): BufferGeometry {
  return mergeGeometries(
    [
      new SphereGeometry(1, 48, 24),
      new TorusKnotGeometry(0.6, 0.2, 128, 16).translate(3, 0, 0),
      new BoxGeometry(1, 1, 1, 8, 8, 8).translate(-3, 0, 0),
    ],
    true,
  )!;
}

/** Vertex ids each material slot's triangles use. */
function verticesBySlot(geometry: BufferGeometry): Map<number, Set<number>> {
  const index = geometry.getIndex()!.array;
  const out = new Map<number, Set<number>>();
  for (const g of geometry.groups) {
    const set = out.get(g.materialIndex!) ?? new Set<number>();
    for (let i = g.start; i < g.start + g.count; i++) set.add(index[i]!);
    out.set(g.materialIndex!, set);
  }
  return out;
}

function trianglesBySlot(geometry: BufferGeometry): number[] {
  return geometry.groups.map((g) => g.count / 3);
}

describe('group-wise simplification', () => {
  it('keeps every material slot, with only its own vertices, and reduces each one', () => {
    const geometry = threeSlotGeometry();
    const before = verticesBySlot(geometry);
    const beforeTriangles = trianglesBySlot(geometry);
    const mesh = new Mesh(geometry, [new MeshStandardMaterial(), new MeshStandardMaterial(), new MeshStandardMaterial()]);
    const simplifier = new ModelSimplifier(mesh, MeshoptSimplifier.simplify);
    const report = simplifier.setRatio(0.25);

    expect(geometry.groups.map((g) => g.materialIndex)).toEqual([0, 1, 2]);
    const after = verticesBySlot(geometry);
    for (const slot of [0, 1, 2]) {
      for (const v of after.get(slot)!) expect(before.get(slot)!.has(v)).toBe(true);
    }
    const afterTriangles = trianglesBySlot(geometry);
    afterTriangles.forEach((t, i) => {
      expect(t).toBeGreaterThan(0);
      expect(t).toBeLessThan(beforeTriangles[i]! * 0.5);
    });
    // Groups are packed back to back from the start of the index.
    expect(geometry.groups[0]!.start).toBe(0);
    expect(geometry.groups[1]!.start).toBe(geometry.groups[0]!.count);
    expect(report.trianglesBefore).toBe(beforeTriangles.reduce((a, b) => a + b));
    expect(report.trianglesAfter).toBe(afterTriangles.reduce((a, b) => a + b));
    expect(report.trianglesAfter).toBeLessThan(report.trianglesBefore * 0.35);
  });

  it('always rebuilds from the original: 0.1 then 0.6 equals 0.6 straight away', () => {
    const a = threeSlotGeometry();
    const b = threeSlotGeometry();
    const sa = new ModelSimplifier(new Mesh(a), MeshoptSimplifier.simplify);
    const sb = new ModelSimplifier(new Mesh(b), MeshoptSimplifier.simplify);
    sa.setRatio(0.1);
    sa.setRatio(0.6);
    sb.setRatio(0.6);
    expect(a.groups).toEqual(b.groups);
    const used = a.groups.reduce((n, g) => Math.max(n, g.start + g.count), 0);
    expect(Array.from(a.getIndex()!.array.slice(0, used))).toEqual(Array.from(b.getIndex()!.array.slice(0, used)));
    expect(sa.triangles).toBeGreaterThan(sa.originalTriangles * 0.5);
  });

  it('ratio 1 restores the original index, groups and draw range exactly', () => {
    const geometry = threeSlotGeometry();
    const index = Array.from(geometry.getIndex()!.array);
    const groups = structuredClone(geometry.groups);
    const simplifier = new ModelSimplifier(new Mesh(geometry), MeshoptSimplifier.simplify);
    simplifier.setRatio(0.2);
    expect(simplifier.triangles).toBeLessThan(simplifier.originalTriangles);
    simplifier.setRatio(1);
    expect(Array.from(geometry.getIndex()!.array)).toEqual(index);
    expect(geometry.groups).toEqual(groups);
    expect(simplifier.triangles).toBe(simplifier.originalTriangles);
  });

  it('rewrites the same index buffer (same attribute and length) and keeps a clone of the original', () => {
    const geometry = threeSlotGeometry();
    const attribute = geometry.getIndex()!;
    const length = attribute.array.length;
    const simplifier = new ModelSimplifier(new Mesh(geometry), MeshoptSimplifier.simplify);
    const version = attribute.version;
    simplifier.setRatio(0.3);
    expect(geometry.getIndex()).toBe(attribute);
    expect(attribute.array.length).toBe(length);
    expect(attribute.version).toBeGreaterThan(version); // needsUpdate: the renderer re-uploads it
    const original = simplifier.meshes[0]!.original;
    expect(original).not.toBe(geometry);
    expect(original.getAttribute('position')).toBe(geometry.getAttribute('position')); // vertices shared, never changed
    expect(original.getIndex()!.count).toBe(length);
    expect(original.groups.map((g) => g.count / 3)).toEqual(simplifier.meshes[0]!.slices.map((s) => s.count / 3));
  });

  it('simplifies a geometry without groups through its draw range, and gives an unindexed one an index', () => {
    const plain = new SphereGeometry(1, 64, 32);
    const s1 = new ModelSimplifier(new Mesh(plain), MeshoptSimplifier.simplify);
    s1.setRatio(0.5);
    expect(plain.groups).toEqual([]);
    expect(plain.drawRange.count).toBe(s1.triangles * 3);
    expect(s1.triangles).toBeLessThanOrEqual(Math.ceil(s1.originalTriangles * 0.5));

    const soup = new SphereGeometry(1, 32, 16).toNonIndexed();
    soup.deleteAttribute('normal');
    soup.deleteAttribute('uv');
    const s2 = new ModelSimplifier(new Mesh(soup), MeshoptSimplifier.simplify);
    expect(soup.getIndex()).not.toBeNull();
    expect(soup.getIndex()!.count).toBe(soup.getAttribute('position').count);
    expect(s2.originalTriangles).toBe(soup.getAttribute('position').count / 3);
  });

  it('simplifies shared geometry once and walks a whole model', () => {
    const shared = new SphereGeometry(1, 32, 16);
    const root = new Group();
    root.add(new Mesh(shared), new Mesh(shared), new Mesh(new BoxGeometry(1, 1, 1, 4, 4, 4)));
    const simplifier = new ModelSimplifier(root, MeshoptSimplifier.simplify);
    expect(simplifier.meshes).toHaveLength(2);
  });

  it('rejects ratios outside (0, 1]', () => {
    const simplifier = new ModelSimplifier(new Mesh(new SphereGeometry()), MeshoptSimplifier.simplify);
    for (const bad of [0, -0.5, 1.5, Number.NaN]) expect(() => simplifier.setRatio(bad)).toThrow(RangeError);
    expect(() => simplifyIndexBySlices(new Uint32Array(3), new Float32Array(9), [], 2, MeshoptSimplifier.simplify)).toThrow(/\(0, 1\]/);
  });

  it('leaves slices that are too small alone and clamps slices that overrun the index', () => {
    const positions = new Float32BufferAttribute([0, 0, 0, 1, 0, 0, 0, 1, 0], 3).array as Float32Array;
    const result = simplifyIndexBySlices(
      new Uint32Array([0, 1, 2]),
      positions,
      [{ start: 0, count: 99, materialIndex: 4 }],
      0.5,
      MeshoptSimplifier.simplify,
    );
    expect(result.slices).toEqual([{ start: 0, count: 3, materialIndex: 4 }]);
  });
});
