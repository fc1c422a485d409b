import { describe, expect, it } from 'vitest';
import { loadPresets } from '../../../src/scatter/preset.ts';
import { BUILTIN_PRESET_DATA } from '../../../src/scatter/presets/index.ts';
import {
  placeRegion,
  REGION_ID_BASE,
  REGION_ID_SPAN,
  regionBounds,
  regionIndex,
  regionSeed,
  regionsWithin,
  resolveRegionPlan,
} from '../../../src/scatter/regions.ts';
import { ambientPresetChooser } from '../../../src/ambient/ambient-presets.ts';
import { generateTerrain } from '../../../src/world/terrain/generate.ts';

const ground = generateTerrain({ seed: 1 });
const presets = new Map(loadPresets(BUILTIN_PRESET_DATA).presets.map((p) => [p.id, p]));
const props: Record<string, string[]> = {};
for (const preset of presets.values()) for (const pick of preset.picks) props[pick.category] = [`${pick.category}-a`, `${pick.category}-b`];
const propsIn = (category: string): readonly string[] => props[category] ?? [];

describe('scatter regions', () => {
  const plan = resolveRegionPlan({ seed: 1, worldSize: 512, clearings: [{ x: 0, z: 0, radius: 6 }] });

  it('cuts the map into regions and finds them nearest first', () => {
    expect(regionBounds(plan, { rx: 0, rz: 0 })).toEqual({ minX: -256, minZ: -256, maxX: -192, maxZ: -192 });
    const near = regionsWithin(plan, 0, 0, 10);
    expect(near.map((k) => regionIndex(plan, k)).sort((a, b) => a - b)).toEqual([27, 28, 35, 36]);
    expect(regionsWithin(plan, 0, 0, 1000)).toHaveLength(64);
    const ordered = regionsWithin(plan, 100, 30, 200).map((k) => k.distance);
    expect(ordered).toEqual([...ordered].sort((a, b) => a - b));
  });

  it('places a region the same way every time, whatever was placed before', () => {
    const chooser = ambientPresetChooser(1);
    const a = placeRegion(ground, presets, propsIn, plan, chooser, { rx: 3, rz: 4 });
    placeRegion(ground, presets, propsIn, plan, chooser, { rx: 4, rz: 4 });
    const b = placeRegion(ground, presets, propsIn, plan, ambientPresetChooser(1), { rx: 3, rz: 4 });
    expect(a.length).toBeGreaterThan(50);
    expect(b).toEqual(a);
    const other = placeRegion(ground, presets, propsIn, resolveRegionPlan({ ...plan, seed: 2 }), ambientPresetChooser(2), { rx: 3, rz: 4 });
    expect(other).not.toEqual(a);
    expect(regionSeed(1, { rx: 3, rz: 4 })).not.toBe(regionSeed(1, { rx: 4, rz: 3 }));
  });

  it('keeps ids in the region id range, instances inside the region and out of clearings', () => {
    const key = { rx: 4, rz: 4 }; // the spawn's region (0..64, 0..64)
    const placements = placeRegion(ground, presets, propsIn, plan, ambientPresetChooser(1), key);
    const base = REGION_ID_BASE + regionIndex(plan, key) * REGION_ID_SPAN;
    const bounds = regionBounds(plan, key);
    expect(new Set(placements.map((p) => p.id)).size).toBe(placements.length);
    for (const p of placements) {
      expect(p.id).toBeGreaterThan(base);
      expect(p.id).toBeLessThan(base + REGION_ID_SPAN);
      expect(p.x).toBeGreaterThanOrEqual(bounds.minX + plan.edgeMargin);
      expect(p.x).toBeLessThan(bounds.maxX - plan.edgeMargin);
      expect(Math.hypot(p.x, p.z)).toBeGreaterThanOrEqual(6);
    }
    // The spawn is a meadow: grass and flowers, no conifers within the clearing.
    expect(placements.filter((p) => Math.hypot(p.x, p.z) < 20).every((p) => p.category !== 'conifer')).toBe(true);
  });

  it('grows each landmark its own preset', () => {
    const chooser = ambientPresetChooser(1);
    expect(chooser(0, 10, ground)).toBe('meadow');
    expect(chooser(-150, 20, ground)).toBe('lake-shore');
    expect(chooser(0, 175, ground)).toBe('beach');
    expect(chooser(140, 0, ground)).toBe('cliff-scree');
    expect(chooser(0, -200, ground)).toBe('mixed-forest');
  });
});
