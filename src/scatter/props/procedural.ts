import { BufferGeometry, ConeGeometry, CylinderGeometry, Float32BufferAttribute, IcosahedronGeometry, SphereGeometry } from 'three';
import { Mulberry32, seedFromString } from '../../core/rng.ts';
import { bend, crownNormals, displaceRadially, finishFlat, finishSmooth, merge, place, positionNoise, type Rgb } from './geometry-tools.ts';
import type { PropMaterials } from './materials.ts';
import type { PropPiece } from './prop-types.ts';

/**
 * Cairn's procedural props: multi-part trees (trunk + canopy) of several kinds, rocks, scree,
 * pebbles, bushes, grass tufts, flowers, reeds and driftwood. Some are flat-shaded low-poly
 * (split vertices, face normals), some smooth (welded vertices), which is exactly the mix LOD
 * baking has to handle. Each prop is generated from its own seed, so it looks the same every run.
 * Sizes in metres; each prop stands on its origin with +Y up.
 */

export interface ProceduralPropDefinition {
  /** The prop's id (registered as `proc:<id>`). */
  id: string;
  /** The category presets pick it by. */
  category: string;
  /** 'flat' (split vertices) or 'smooth' (welded), for docs and the LOD report. */
  shading: 'flat' | 'smooth';
  /** Builds the prop's pieces from `rng` (seeded from the id, so it looks the same every run). */
  build(materials: PropMaterials, rng: Mulberry32): PropPiece[];
}

const BARK: Rgb = [0.36, 0.25, 0.16];
const BIRCH_BARK: Rgb = [0.86, 0.84, 0.78];
const SPRUCE: Rgb = [0.13, 0.3, 0.16];
const PINE: Rgb = [0.2, 0.36, 0.17];
const OAK: Rgb = [0.26, 0.44, 0.15];
const LIME: Rgb = [0.38, 0.55, 0.2];
const BIRCH_LEAF: Rgb = [0.5, 0.66, 0.26];
const STONE: Rgb = [0.48, 0.47, 0.45];
const DARK_STONE: Rgb = [0.33, 0.32, 0.31];
const SAND_STONE: Rgb = [0.62, 0.58, 0.5];
const GRASS: Rgb = [0.3, 0.52, 0.16];
const DRY_GRASS: Rgb = [0.62, 0.6, 0.3];
const REED: Rgb = [0.42, 0.52, 0.22];
const CATTAIL: Rgb = [0.36, 0.22, 0.12];
const DRIFTWOOD: Rgb = [0.66, 0.6, 0.52];

/** A tapered trunk along +Y, `height` tall, with a slight lean. */
function trunk(rng: Mulberry32, height: number, radius: number, radial: number): BufferGeometry {
  const g = new CylinderGeometry(radius * 0.6, radius, height, radial, 4, true);
  g.translate(0, height / 2, 0);
  const lean = rng.range(-0.06, 0.06);
  return bend(g, (y) => [lean * y * y * 0.3, lean * y * 0.2]);
}

/** Blades: thin tapered strips (3 segments each) fanning out from the origin. */
function blades(rng: Mulberry32, count: number, height: [number, number], width: number, spread: number): BufferGeometry {
  const positions: number[] = [];
  for (let b = 0; b < count; b++) {
    const angle = rng.range(0, Math.PI * 2);
    const h = rng.range(height[0], height[1]);
    const tilt = rng.range(0.1, spread);
    const ox = Math.cos(angle) * rng.range(0, 0.08);
    const oz = Math.sin(angle) * rng.range(0, 0.08);
    // Width direction is perpendicular to the lean direction.
    const wx = -Math.sin(angle) * width;
    const wz = Math.cos(angle) * width;
    const points: Array<[number, number, number, number]> = [];
    const segments = 3;
    for (let s = 0; s <= segments; s++) {
      const t = s / segments;
      const out = tilt * h * t * t;
      points.push([ox + Math.cos(angle) * out, h * t, oz + Math.sin(angle) * out, 1 - t * 0.95]);
    }
    for (let s = 0; s < segments; s++) {
      const [x0, y0, z0, w0] = points[s]!;
      const [x1, y1, z1, w1] = points[s + 1]!;
      const a = [x0 - wx * w0, y0, z0 - wz * w0];
      const c = [x0 + wx * w0, y0, z0 + wz * w0];
      const d = [x1 - wx * w1, y1, z1 - wz * w1];
      const e = [x1 + wx * w1, y1, z1 + wz * w1];
      positions.push(...a, ...c, ...d, ...d, ...c, ...e);
    }
  }
  const g = new BufferGeometry();
  g.setAttribute('position', new Float32BufferAttribute(positions, 3));
  return g;
}

function boulder(rng: Mulberry32, radius: number, detail: number, squash: number, roughness: number): BufferGeometry {
  const g = new IcosahedronGeometry(radius, detail);
  displaceRadially(g, positionNoise(rng, 1.6 / radius), radius * roughness);
  g.scale(rng.range(0.9, 1.25), squash, rng.range(0.85, 1.1));
  return g;
}

/** Cairn's procedural props: trees, rocks, scree, pebbles, bushes, grass, flowers, reeds and driftwood. */
export const PROCEDURAL_PROPS: readonly ProceduralPropDefinition[] = [
  {
    id: 'spruce',
    category: 'conifer',
    shading: 'flat',
    build(m, rng) {
      const height = rng.range(7, 9);
      const tiers = [0, 1, 2, 3].map((i) => {
        const r = 2.1 - i * 0.45;
        const cone = new ConeGeometry(r, 2.8 - i * 0.3, 9, 2);
        displaceRadially(cone, positionNoise(rng, 1.3), 0.18);
        return place(cone, { position: [0, 2.2 + i * 1.55, 0], rotation: [0, rng.range(0, 1), 0] });
      });
      return [
        { name: 'trunk', geometry: finishFlat(trunk(rng, height * 0.45, 0.28, 7), BARK, 0.12, rng), material: m.bark },
        { name: 'canopy', geometry: finishFlat(merge(tiers), SPRUCE, 0.14, rng), material: m.foliage },
      ];
    },
  },
  {
    id: 'pine',
    category: 'conifer',
    shading: 'smooth',
    build(m, rng) {
      const height = rng.range(8, 10);
      const crowns = [0, 1, 2].map((i) =>
        place(new SphereGeometry(1.6 - i * 0.35, 12, 8), {
          position: [rng.range(-0.3, 0.3), height * 0.62 + i * 1.3, rng.range(-0.3, 0.3)],
          scale: [1, 0.55, 1],
        }),
      );
      return [
        { name: 'trunk', geometry: finishSmooth(trunk(rng, height * 0.85, 0.26, 10), BARK, 0.1), material: m.bark },
        { name: 'canopy', geometry: crownNormals(finishSmooth(merge(crowns), PINE, 0.12), 1), material: m.foliage },
      ];
    },
  },
  {
    id: 'oak',
    category: 'broadleaf',
    shading: 'flat',
    build(m, rng) {
      const stem = trunk(rng, 3.2, 0.38, 8);
      const limbs = [0, 1, 2].map((i) => {
        const limb = new CylinderGeometry(0.1, 0.16, 2, 6, 2, true);
        limb.translate(0, 1, 0);
        return place(limb, { position: [0, 2.4, 0], rotation: [0.6, (i * Math.PI * 2) / 3 + rng.range(-0.3, 0.3), 0] });
      });
      const blobs = Array.from({ length: 5 }, (_, i) => {
        const a = (i / 5) * Math.PI * 2 + rng.range(-0.3, 0.3);
        const blob = new IcosahedronGeometry(rng.range(1.4, 1.9), 1);
        displaceRadially(blob, positionNoise(rng, 1.1), 0.25);
        return place(blob, { position: i === 4 ? [0, 5.3, 0] : [Math.cos(a) * 1.5, rng.range(3.9, 4.6), Math.sin(a) * 1.5] });
      });
      return [
        { name: 'trunk', geometry: finishFlat(merge([stem, ...limbs]), BARK, 0.12, rng), material: m.bark },
        { name: 'canopy', geometry: finishFlat(merge(blobs), OAK, 0.16, rng), material: m.foliage },
      ];
    },
  },
  {
    id: 'linden',
    category: 'broadleaf',
    shading: 'smooth',
    build(m, rng) {
      const blobs = Array.from({ length: 3 }, (_, i) =>
        place(new SphereGeometry(rng.range(1.6, 2.1), 14, 10), {
          position: [rng.range(-0.7, 0.7), 4.2 + i * 0.9, rng.range(-0.7, 0.7)],
          scale: [1, 0.85, 1],
        }),
      );
      return [
        { name: 'trunk', geometry: finishSmooth(trunk(rng, 4.6, 0.32, 10), BARK, 0.1), material: m.bark },
        { name: 'canopy', geometry: finishSmooth(merge(blobs), LIME, 0.12), material: m.foliage },
      ];
    },
  },
  {
    id: 'birch',
    category: 'birch',
    shading: 'smooth',
    build(m, rng) {
      const crown = place(new SphereGeometry(1.3, 14, 12), { position: [0, 6.2, 0], scale: [1, 1.7, 1] });
      displaceRadially(crown, positionNoise(rng, 1.4), 0.2, [0, 6.2, 0]);
      return [
        { name: 'trunk', geometry: finishSmooth(trunk(rng, 7.2, 0.17, 10), BIRCH_BARK, 0.08), material: m.bark },
        { name: 'canopy', geometry: finishSmooth(crown, BIRCH_LEAF, 0.14), material: m.foliage },
      ];
    },
  },
  {
    id: 'shrub',
    category: 'bush',
    shading: 'flat',
    build(m, rng) {
      const leaves = Array.from({ length: 4 }, () => {
        const blob = new IcosahedronGeometry(rng.range(0.45, 0.7), 1);
        displaceRadially(blob, positionNoise(rng, 3), 0.08);
        return place(blob, { position: [rng.range(-0.5, 0.5), rng.range(0.35, 0.7), rng.range(-0.5, 0.5)] });
      });
      const berries = Array.from({ length: 7 }, () =>
        place(new IcosahedronGeometry(0.07, 0), { position: [rng.range(-0.7, 0.7), rng.range(0.4, 1), rng.range(-0.7, 0.7)] }),
      );
      return [
        { name: 'leaves', geometry: finishFlat(merge(leaves), [0.2, 0.4, 0.14], 0.18, rng), material: m.foliage },
        { name: 'berries', geometry: finishFlat(merge(berries), [0.6, 0.1, 0.12], 0.1, rng), material: m.foliage, castShadow: false },
      ];
    },
  },
  {
    id: 'round-bush',
    category: 'bush',
    shading: 'smooth',
    build(m, rng) {
      const outer = Array.from({ length: 3 }, () =>
        place(new SphereGeometry(rng.range(0.5, 0.75), 12, 9), {
          position: [rng.range(-0.4, 0.4), rng.range(0.4, 0.6), rng.range(-0.4, 0.4)],
          scale: [1, 0.8, 1],
        }),
      );
      const stems = Array.from({ length: 3 }, (_, i) =>
        place(new CylinderGeometry(0.03, 0.05, 0.6, 6, 2, true), { position: [0, 0.3, 0], rotation: [0.4, (i * Math.PI * 2) / 3, 0] }),
      );
      return [
        { name: 'leaves', geometry: finishSmooth(merge(outer), [0.24, 0.45, 0.17], 0.12), material: m.foliage },
        { name: 'stems', geometry: finishSmooth(merge(stems), BARK, 0.1), material: m.bark, castShadow: false },
      ];
    },
  },
  {
    id: 'boulder',
    category: 'rock',
    shading: 'flat',
    build(m, rng) {
      const main = place(boulder(rng, 1.1, 2, 0.72, 0.22), { position: [0, 0.45, 0] });
      const side = place(boulder(rng, 0.45, 1, 0.7, 0.2), { position: [1.05, 0.15, 0.35] });
      return [
        { name: 'boulder', geometry: finishFlat(main, STONE, 0.1, rng), material: m.stone },
        { name: 'stone', geometry: finishFlat(side, DARK_STONE, 0.1, rng), material: m.stone },
      ];
    },
  },
  {
    id: 'mossy-rock',
    category: 'rock',
    shading: 'smooth',
    build(m, rng) {
      const body = place(new SphereGeometry(0.9, 16, 12), { position: [0, 0.35, 0], scale: [1.2, 0.7, 1] });
      displaceRadially(body, positionNoise(rng, 2), 0.18, [0, 0.35, 0]);
      const moss = place(new SphereGeometry(0.75, 14, 6, 0, Math.PI * 2, 0, Math.PI * 0.32), {
        position: [0, 0.5, 0],
        scale: [1.25, 0.7, 1.05],
      });
      return [
        { name: 'rock', geometry: finishSmooth(body, SAND_STONE, 0.08), material: m.stone },
        { name: 'moss', geometry: finishSmooth(moss, [0.25, 0.38, 0.14], 0.15), material: m.foliage, castShadow: false },
      ];
    },
  },
  {
    id: 'scree',
    category: 'scree',
    shading: 'flat',
    build(m, rng) {
      const stones = Array.from({ length: 5 }, () =>
        place(boulder(rng, rng.range(0.18, 0.32), 1, 0.55, 0.3), {
          position: [rng.range(-0.6, 0.6), 0.05, rng.range(-0.6, 0.6)],
          rotation: [0, rng.range(0, 3), 0],
        }),
      );
      const chips = Array.from({ length: 4 }, () =>
        place(boulder(rng, rng.range(0.1, 0.16), 1, 0.5, 0.3), { position: [rng.range(-0.8, 0.8), 0.02, rng.range(-0.8, 0.8)] }),
      );
      return [
        { name: 'stones', geometry: finishFlat(merge(stones), STONE, 0.14, rng), material: m.stone },
        { name: 'chips', geometry: finishFlat(merge(chips), DARK_STONE, 0.12, rng), material: m.stone, castShadow: false },
      ];
    },
  },
  {
    id: 'pebbles',
    category: 'pebble',
    shading: 'smooth',
    build(m, rng) {
      const light = Array.from({ length: 5 }, () =>
        place(new SphereGeometry(rng.range(0.07, 0.13), 10, 7), {
          position: [rng.range(-0.35, 0.35), 0.03, rng.range(-0.35, 0.35)],
          scale: [1.3, 0.55, 1],
        }),
      );
      const dark = Array.from({ length: 3 }, () =>
        place(new SphereGeometry(rng.range(0.06, 0.1), 10, 7), {
          position: [rng.range(-0.35, 0.35), 0.025, rng.range(-0.35, 0.35)],
          scale: [1.2, 0.5, 1],
        }),
      );
      return [
        { name: 'light', geometry: finishSmooth(merge(light), [0.72, 0.68, 0.6], 0.1), material: m.stone, castShadow: false },
        { name: 'dark', geometry: finishSmooth(merge(dark), [0.3, 0.3, 0.32], 0.1), material: m.stone, castShadow: false },
      ];
    },
  },
  {
    id: 'grass-tuft',
    category: 'grass',
    shading: 'flat',
    build(m, rng) {
      return [
        {
          name: 'blades',
          geometry: finishFlat(blades(rng, 14, [0.35, 0.6], 0.035, 0.5), GRASS, 0.15, rng),
          material: m.blade,
          castShadow: false,
        },
        {
          name: 'dry blades',
          geometry: finishFlat(blades(rng, 6, [0.3, 0.5], 0.03, 0.6), DRY_GRASS, 0.12, rng),
          material: m.blade,
          castShadow: false,
        },
      ];
    },
  },
  {
    id: 'wildflowers',
    category: 'flower',
    shading: 'flat',
    build(m, rng) {
      const heads = Array.from({ length: 5 }, (_, i) => {
        const a = (i / 5) * Math.PI * 2;
        return place(new IcosahedronGeometry(0.06, 0), {
          position: [Math.cos(a) * 0.15, rng.range(0.35, 0.5), Math.sin(a) * 0.15],
          scale: [1, 0.6, 1],
        });
      });
      const palette: Rgb[] = [
        [0.9, 0.85, 0.3],
        [0.75, 0.35, 0.75],
        [0.95, 0.95, 0.92],
      ];
      return [
        {
          name: 'stems',
          geometry: finishFlat(blades(rng, 8, [0.3, 0.45], 0.015, 0.4), GRASS, 0.1, rng),
          material: m.blade,
          castShadow: false,
        },
        {
          name: 'heads',
          geometry: finishFlat(merge(heads), palette[rng.int(palette.length)]!, 0.1, rng),
          material: m.foliage,
          castShadow: false,
        },
      ];
    },
  },
  {
    id: 'reeds',
    category: 'reed',
    shading: 'flat',
    build(m, rng) {
      const heads = Array.from({ length: 4 }, () =>
        place(new CylinderGeometry(0.035, 0.035, 0.22, 6, 2), {
          position: [rng.range(-0.12, 0.12), rng.range(1.1, 1.4), rng.range(-0.12, 0.12)],
        }),
      );
      return [
        {
          name: 'blades',
          geometry: finishFlat(blades(rng, 12, [1, 1.5], 0.025, 0.25), REED, 0.12, rng),
          material: m.blade,
          castShadow: false,
        },
        { name: 'cattails', geometry: finishFlat(merge(heads), CATTAIL, 0.1, rng), material: m.bark, castShadow: false },
      ];
    },
  },
  {
    id: 'driftwood',
    category: 'driftwood',
    shading: 'smooth',
    build(m, rng) {
      const log = new CylinderGeometry(0.16, 0.22, 3, 10, 6);
      const curve = rng.range(0.08, 0.16);
      bend(log, (y) => [curve * Math.sin(y * 1.1), 0]);
      place(log, { position: [0, 0.12, 0], rotation: [0, 0, Math.PI / 2] });
      const stub = place(new CylinderGeometry(0.05, 0.09, 0.7, 8, 2), { position: [0.5, 0.3, 0.1], rotation: [0.9, 0, 0.3] });
      return [
        { name: 'log', geometry: finishSmooth(log, DRIFTWOOD, 0.08), material: m.bark },
        { name: 'branch', geometry: finishSmooth(stub, DRIFTWOOD, 0.08), material: m.bark, castShadow: false },
      ];
    },
  },
];

/** Builds one procedural prop's pieces; the same id always gives the same geometry. */
export function buildProceduralProp(definition: ProceduralPropDefinition, materials: PropMaterials): PropPiece[] {
  return definition.build(materials, new Mulberry32(seedFromString(definition.id)));
}
