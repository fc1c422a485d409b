import { Matrix4, Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { Mulberry32 } from '../../../src/core/rng.ts';
import { generateTerrain } from '../../../src/world/terrain/generate.ts';
import { DRAWS_PER_CANDIDATE, PlacementEngine, REJECTION_CAUSES, type Placement } from '../../../src/scatter/placement.ts';
import { loadPresets, parsePreset, type ScatterPreset } from '../../../src/scatter/preset.ts';
import { BUILTIN_PRESET_DATA } from '../../../src/scatter/presets/index.ts';
import { writePlacementMatrix } from '../../../src/scatter/transform.ts';
import { planeGround, stepGround } from './ground-fixtures.ts';

const props = (category: string): readonly string[] => ({ tree: ['t1', 't2'], rock: ['r1'], grass: ['g1', 'g2', 'g3'] })[category] ?? [];

function preset(picks: Array<Partial<ScatterPreset['picks'][number]>>, extra: Partial<ScatterPreset> = {}): ScatterPreset {
  return parsePreset({
    id: 'p',
    name: 'P',
    densityPerM2: 0.5,
    scaleJitter: [1, 1],
    yawJitter: 0,
    picks: picks.map((p) => ({
      category: 'tree',
      weight: 1,
      slopeMin: 0,
      slopeMax: 90,
      altMin: -1000,
      altMax: 1000,
      minSpacing: 0,
      alignToSlope: false,
      ...p,
    })),
    ...extra,
  });
}

function totalRejected(engine: PlacementEngine): number {
  return REJECTION_CAUSES.reduce((sum, cause) => sum + engine.rejections[cause], 0);
}

// Generous timeout: these run real meshoptimizer/three work on a shared two-core machine.
describe('placement engine', { timeout: 30_000 }, () => {
  it('samples densityPerM2 × area candidates per dab, and every candidate is placed or rejected once', () => {
    const engine = new PlacementEngine({ seed: 3, ground: planeGround(), propsIn: props });
    const p = preset([{}], { densityPerM2: 0.25 });
    const radius = 10;
    const dabs = 200;
    for (let i = 0; i < dabs; i++) engine.dab({ x: i * 50, z: 0, radius }, p);
    const expected = 0.25 * Math.PI * radius * radius * dabs;
    expect(Math.abs(engine.candidates - expected)).toBeLessThan(dabs); // the fractional candidate is a coin flip per dab
    expect(engine.placed + totalRejected(engine)).toBe(engine.candidates);
  });

  it('places inside the brush disk, uniformly by area', () => {
    const engine = new PlacementEngine({ seed: 5, ground: planeGround(), propsIn: props });
    const placed = engine.dab({ x: 10, z: -20, radius: 30 }, preset([{}], { densityPerM2: 2 }));
    expect(placed.length).toBeGreaterThan(5000);
    let inner = 0;
    for (const p of placed) {
      const d = Math.hypot(p.x - 10, p.z + 20);
      expect(d).toBeLessThanOrEqual(30 + 1e-9);
      if (d < 30 / Math.SQRT2) inner++;
    }
    // Half the area lies within r/√2: uniform by area means about half the points.
    expect(inner / placed.length).toBeGreaterThan(0.46);
    expect(inner / placed.length).toBeLessThan(0.54);
  });

  it('counts slope rejections when the ground is steeper than every pick allows', () => {
    const engine = new PlacementEngine({ seed: 1, ground: planeGround({ slopeDeg: 45 }), propsIn: props });
    engine.dab({ x: 0, z: 0, radius: 10 }, preset([{ slopeMax: 30 }, { category: 'rock', slopeMin: 50 }]));
    expect(engine.placed).toBe(0);
    expect(engine.rejections.slope).toBe(engine.candidates);
    expect(engine.candidates).toBeGreaterThan(100);
  });

  it('counts altitude rejections above the range, water rejections under the water', () => {
    const high = new PlacementEngine({ seed: 1, ground: planeGround({ height: 80 }), propsIn: props });
    high.dab({ x: 0, z: 0, radius: 10 }, preset([{ altMin: 0, altMax: 50 }]));
    expect(high.rejections.altitude).toBe(high.candidates);

    // Half the disk under water (x < 0), half on land 5 m up.
    const shore = new PlacementEngine({ seed: 1, ground: stepGround(-2, 5), propsIn: props });
    const placed = shore.dab({ x: 0, z: 0, radius: 10 }, preset([{ altMin: 0, altMax: 50 }]));
    expect(placed.every((p) => p.x >= 0 && p.y >= 0)).toBe(true);
    expect(shore.rejections.water).toBeGreaterThan(0.4 * shore.candidates);
    expect(shore.rejections.water + shore.placed).toBe(shore.candidates);
  });

  it('places under water only when a pick asks for it (altMin < 0)', () => {
    const engine = new PlacementEngine({ seed: 1, ground: planeGround({ height: -1 }), propsIn: props });
    const placed = engine.dab({ x: 0, z: 0, radius: 5 }, preset([{ category: 'grass', altMin: -2, altMax: 0 }]));
    expect(placed.length).toBe(engine.candidates);
    expect(engine.rejections.water).toBe(0);
  });

  it('counts outside rejections off the map', () => {
    const engine = new PlacementEngine({ seed: 1, ground: planeGround({ half: 100 }), propsIn: props });
    engine.dab({ x: 100, z: 0, radius: 20 }, preset([{}]));
    expect(engine.rejections.outside).toBeGreaterThan(0.3 * engine.candidates);
    expect(engine.rejections.outside + engine.placed).toBe(engine.candidates);
  });

  it('keeps the same family apart by minSpacing (checked against brute force) and counts spacing rejections', () => {
    const engine = new PlacementEngine({ seed: 9, ground: planeGround(), propsIn: props });
    const p = preset(
      [
        { minSpacing: 3, family: 'tree' },
        { category: 'grass', minSpacing: 0.5 },
      ],
      { densityPerM2: 1 },
    );
    const placed: Placement[] = [];
    for (let i = 0; i < 30; i++) engine.dab({ x: (i % 5) * 6, z: Math.floor(i / 5) * 6, radius: 8 }, p, placed);
    expect(engine.rejections.spacing).toBeGreaterThan(0);
    const trees = placed.filter((q) => q.family === 'tree');
    const grass = placed.filter((q) => q.family === 'grass');
    expect(trees.length).toBeGreaterThan(20);
    expect(grass.length).toBeGreaterThan(trees.length);
    for (const [list, spacing] of [
      [trees, 3],
      [grass, 0.5],
    ] as const) {
      let closest = Infinity;
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) closest = Math.min(closest, Math.hypot(list[i]!.x - list[j]!.x, list[i]!.z - list[j]!.z));
      }
      expect(closest).toBeGreaterThanOrEqual(spacing);
      expect(closest).toBeLessThan(spacing * 1.5); // packed, not just sparse
    }
    // Different families may sit close together: grass grows under trees.
    const nearTree = grass.some((g) => trees.some((t) => Math.hypot(g.x - t.x, g.z - t.z) < 1));
    expect(nearTree).toBe(true);
  });

  it('picks by weight among the picks whose conditions pass', () => {
    const engine = new PlacementEngine({ seed: 2, ground: planeGround(), propsIn: props });
    const placed = engine.dab(
      { x: 0, z: 0, radius: 40 },
      preset([{ weight: 3 }, { category: 'rock', weight: 1 }, { category: 'grass', weight: 50, slopeMin: 10 }], { densityPerM2: 2 }),
    );
    const trees = placed.filter((p) => p.category === 'tree').length;
    const rocks = placed.filter((p) => p.category === 'rock').length;
    expect(placed.some((p) => p.category === 'grass')).toBe(false); // its slope condition never passes
    expect(trees / rocks).toBeGreaterThan(2.7);
    expect(trees / rocks).toBeLessThan(3.3);
    // Props within a category are drawn from the catalog's list.
    expect(new Set(placed.filter((p) => p.category === 'tree').map((p) => p.propId))).toEqual(new Set(['t1', 't2']));
  });

  it('reports categories with no props and rejects those candidates as noProp', () => {
    const engine = new PlacementEngine({ seed: 2, ground: planeGround(), propsIn: props });
    engine.dab({ x: 0, z: 0, radius: 5 }, preset([{ category: 'mushroom' }]));
    expect(engine.rejections.noProp).toBe(engine.candidates);
    expect([...engine.missingCategories]).toEqual(['mushroom']);
  });

  it('draws the same amount of randomness per candidate whatever happens to it', () => {
    // Two engines that differ only in the ground (one rejects everything): after the same dab
    // their RNGs are at the same position, so the next choices cannot depend on earlier outcomes.
    const p = preset([{ slopeMax: 10 }]);
    const flat = new PlacementEngine({ seed: 77, ground: planeGround(), propsIn: props });
    const steep = new PlacementEngine({ seed: 77, ground: planeGround({ slopeDeg: 60 }), propsIn: props });
    flat.dab({ x: 0, z: 0, radius: 6 }, p);
    steep.dab({ x: 0, z: 0, radius: 6 }, p);
    expect(flat.placed).toBeGreaterThan(0);
    expect(steep.placed).toBe(0);
    expect(flat.rng.getState()).toBe(steep.rng.getState());
    const reference = new Mulberry32(77);
    for (let i = 0; i < 1 + flat.candidates * DRAWS_PER_CANDIDATE; i++) reference.next();
    expect(flat.rng.getState()).toBe(reference.getState());
  });

  it('aligns to the slope only when the pick says so', () => {
    const ground = planeGround({ slopeDeg: 20 });
    const engine = new PlacementEngine({ seed: 4, ground, propsIn: props });
    const placed = engine.dab({ x: 0, z: 0, radius: 10 }, preset([{ alignToSlope: true, category: 'rock' }, { alignToSlope: false }]));
    const rock = placed.find((p) => p.category === 'rock')!;
    const tree = placed.find((p) => p.category === 'tree')!;
    expect(rock.up.y).toBeCloseTo(Math.cos((20 * Math.PI) / 180), 6);
    expect(rock.up.x).toBeLessThan(0); // the ground rises to +x, so the normal leans to −x
    expect(tree.up).toEqual({ x: 0, y: 1, z: 0 });
  });

  it('frees spacing reservations on removal and finds instances for the eraser', () => {
    const engine = new PlacementEngine({ seed: 4, ground: planeGround(), propsIn: props });
    const p = preset([{ minSpacing: 100 }]);
    const [first] = engine.dab({ x: 0, z: 0, radius: 5 }, p);
    expect(engine.instances.size).toBe(1);
    expect(engine.dab({ x: 0, z: 0, radius: 5 }, p)).toEqual([]);
    expect(engine.idsWithin(0, 0, 10)).toEqual([first!.id]);
    expect(engine.remove(first!.id)?.id).toBe(first!.id);
    expect(engine.idsWithin(0, 0, 10)).toEqual([]);
    expect(engine.dab({ x: 0, z: 0, radius: 5 }, p).length).toBe(1);
  });

  it('on the real terrain, Mixed Forest keeps trees off the cliff and out of the lake', () => {
    const terrain = generateTerrain();
    const presets = new Map(loadPresets(BUILTIN_PRESET_DATA).presets.map((p) => [p.id, p]));
    const engine = new PlacementEngine({ seed: 11, ground: terrain, propsIn: (c) => [`${c}-prop`] });
    const forest = presets.get('mixed-forest')!;
    const placed: Placement[] = [];
    // Along the cliff band and across the lake shore.
    for (let z = -60; z <= 60; z += 8) engine.dab({ x: 140, z, radius: 12 }, forest, placed);
    for (let x = -200; x <= -100; x += 8) engine.dab({ x, z: 60, radius: 12 }, forest, placed);
    expect(engine.rejections.slope).toBeGreaterThan(0);
    expect(engine.rejections.water).toBeGreaterThan(0);
    const trees = placed.filter((p) => p.family === 'tree');
    expect(trees.length).toBeGreaterThan(10);
    for (const tree of trees) {
      expect(terrain.sampleSlope(tree.x, tree.z)).toBeLessThanOrEqual(30);
      expect(terrain.sampleHeight(tree.x, tree.z)).toBeGreaterThanOrEqual(1.5);
    }
    // Rocks do go on the steep ground, leaning into it.
    const steepRocks = placed.filter((p) => p.category === 'rock' && p.slope > 30);
    expect(steepRocks.length).toBeGreaterThan(0);
    expect(steepRocks.every((r) => r.up.y < Math.cos((25 * Math.PI) / 180))).toBe(true);
  });
});

describe('placement matrix', () => {
  it('matches three.js compose(position, tilt × yaw, scale)', () => {
    const rng = new Mulberry32(8);
    const out = new Float32Array(16);
    for (let i = 0; i < 50; i++) {
      const up = new Vector3(rng.range(-1, 1), rng.range(0.2, 1), rng.range(-1, 1)).normalize();
      const p = {
        x: rng.range(-100, 100),
        y: rng.range(-5, 50),
        z: rng.range(-100, 100),
        scale: rng.range(0.5, 2),
        yaw: rng.range(-Math.PI, Math.PI),
        up: { x: up.x, y: up.y, z: up.z },
      };
      writePlacementMatrix(p, out);
      const q = new Quaternion()
        .setFromUnitVectors(new Vector3(0, 1, 0), up)
        .multiply(new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), p.yaw));
      const expected = new Matrix4().compose(new Vector3(p.x, p.y, p.z), q, new Vector3(p.scale, p.scale, p.scale));
      for (let k = 0; k < 16; k++) expect(out[k]).toBeCloseTo(expected.elements[k]!, 4);
      // The prop's up axis ends up along the normal.
      const axis = new Vector3(out[4], out[5], out[6]).normalize();
      expect(axis.dot(up)).toBeCloseTo(1, 5);
    }
  });
});
