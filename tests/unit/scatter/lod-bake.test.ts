import { BufferAttribute, BufferGeometry, IcosahedronGeometry, InterleavedBuffer, InterleavedBufferAttribute } from 'three';
import { beforeAll, describe, expect, it } from 'vitest';
import { bakeLodLevelsSync, LodBakeError, simplifierReady } from '../../../src/scatter/lod-bake.ts';
import { bakePiece, prepareGeometry } from '../../../src/scatter/prop-lod.ts';
import { finishFlat } from '../../../src/scatter/props/geometry-tools.ts';
import { createPropMaterials } from '../../../src/scatter/props/materials.ts';
import { buildProceduralProp, PROCEDURAL_PROPS } from '../../../src/scatter/props/procedural.ts';
import { Mulberry32 } from '../../../src/core/rng.ts';

beforeAll(() => simplifierReady());

/** A flat-shaded low-poly icosphere: split vertices (3 per face), face normals. */
function splitIcosphere() {
  return finishFlat(new IcosahedronGeometry(1, 3), [0.5, 0.5, 0.5], 0, new Mulberry32(1));
}

// Generous timeout: these run real meshoptimizer/three work on a shared two-core machine.
describe('LOD baking with meshoptimizer', { timeout: 30_000 }, () => {
  it('the measured fact: on split-vertex meshes, plain simplify and LockBorder remove nothing; Permissive does', () => {
    const { positions, indices } = prepareGeometry(splitIcosphere());
    expect(indices.length / 3).toBe(320);
    expect(positions.length / 3).toBe(960); // split: three vertices per face
    const none = bakeLodLevelsSync({ positions, indices }, { flags: [], strict: false });
    const lockBorder = bakeLodLevelsSync({ positions, indices }, { flags: ['LockBorder'], strict: false });
    const permissive = bakeLodLevelsSync({ positions, indices }, { flags: ['Permissive'] });
    expect(none.triangles).toEqual([320, 320, 320]);
    expect(lockBorder.triangles).toEqual([320, 320, 320]);
    expect(permissive.triangles[1]).toBeLessThanOrEqual(160);
    expect(permissive.triangles[2]).toBeLessThanOrEqual(Math.ceil(320 * 0.15));
  });

  it('fails loudly, naming the part and level, when a level does not shrink', () => {
    const { positions, indices } = prepareGeometry(splitIcosphere());
    expect(() => bakeLodLevelsSync({ positions, indices, label: 'ico/shell' }, { flags: ['LockBorder'] })).toThrow(LodBakeError);
    expect(() => bakeLodLevelsSync({ positions, indices, label: 'ico/shell' }, { flags: ['LockBorder'] })).toThrow(
      /^ico\/shell: LOD 1 did not shrink: 320 triangles, LOD 0 has 320/,
    );
    const one = { positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), indices: new Uint32Array([0, 1, 2]), label: 'leaf' };
    expect(() => bakeLodLevelsSync(one)).toThrow(/leaf: LOD 1 did not shrink/);
    expect(() => bakeLodLevelsSync({ positions: new Float32Array(9), indices: new Uint32Array([0, 1, 7]), label: 'bad' })).toThrow(
      /index 7 at 2 is past the last vertex/,
    );
  });

  it('reduces every procedural prop, flat and smooth, at every level (full → ≤50 % → ≤15 %+)', () => {
    const materials = createPropMaterials();
    const shadings = new Set<string>();
    for (const definition of PROCEDURAL_PROPS) {
      const pieces = buildProceduralProp(definition, materials);
      expect(pieces.length).toBeGreaterThanOrEqual(2); // multi-part
      shadings.add(definition.shading);
      for (const piece of pieces) {
        const part = bakePiece(piece, `${definition.id}/${piece.name}`);
        const [full, half, low] = part.triangles as [number, number, number];
        expect(half, `${definition.id}/${piece.name}`).toBeLessThanOrEqual(Math.ceil(full * 0.5));
        expect(low, `${definition.id}/${piece.name}`).toBeLessThan(half);
        expect(low, `${definition.id}/${piece.name}`).toBeLessThanOrEqual(Math.ceil(full * 0.2));
      }
    }
    expect(shadings).toEqual(new Set(['flat', 'smooth']));
    materials.dispose();
  });

  it('levels share one set of vertex attributes (artist normals untouched) and differ only in the index', () => {
    const materials = createPropMaterials();
    const spruce = buildProceduralProp(
      PROCEDURAL_PROPS.find((p) => p.id === 'spruce')!,
      materials,
    )[1]!;
    const normalsBefore = Float32Array.from(spruce.geometry.getAttribute('normal').array);
    const part = bakePiece(spruce, 'spruce/canopy');
    expect(part.levels).toHaveLength(3);
    for (const level of part.levels) {
      for (const name of ['position', 'normal', 'color']) expect(level.getAttribute(name)).toBe(spruce.geometry.getAttribute(name));
      expect(level.index!.count / 3).toBe(part.triangles[part.levels.indexOf(level)]);
    }
    expect(new Set(part.levels.map((l) => l.index))).toHaveProperty('size', 3);
    expect(Float32Array.from(part.levels[2]!.getAttribute('normal').array)).toEqual(normalsBefore);
    // Memoised per geometry: a second bake returns the same level geometries.
    expect(bakePiece(spruce, 'spruce/canopy').levels[1]).toBe(part.levels[1]);
    materials.dispose();
  });

  it('prepares non-indexed and interleaved geometry', () => {
    const geometry = new IcosahedronGeometry(1, 1); // non-indexed
    const { indices, positions } = prepareGeometry(geometry);
    expect(indices.length).toBe(geometry.getAttribute('position').count);
    expect(positions).toBe(geometry.getAttribute('position').array);
    geometry.setIndex(new BufferAttribute(new Uint16Array(indices), 1));
    // Memoised: same object for the same geometry.
    expect(prepareGeometry(geometry).indices).toBe(indices);

    // Interleaved (stride 4) positions are de-interleaved for the simplifier.
    const source = new IcosahedronGeometry(1, 1);
    const flat = source.getAttribute('position').array as Float32Array;
    const count = flat.length / 3;
    const interleaved = new Float32Array(count * 4);
    for (let i = 0; i < count; i++) interleaved.set([flat[i * 3]!, flat[i * 3 + 1]!, flat[i * 3 + 2]!, 9], i * 4);
    const other = new BufferGeometry();
    other.setAttribute('position', new InterleavedBufferAttribute(new InterleavedBuffer(interleaved, 4), 3, 0));
    expect(prepareGeometry(other).positions).toEqual(flat);
  });
});
