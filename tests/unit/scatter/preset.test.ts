import { describe, expect, it } from 'vitest';
import { categoriesOf, familyOf, loadPresets, parsePreset, PresetError, validatePreset } from '../../../src/scatter/preset.ts';
import { BUILTIN_PRESET_DATA } from '../../../src/scatter/presets/index.ts';

const good = {
  id: 'test-preset',
  name: 'Test',
  densityPerM2: 0.1,
  scaleJitter: [0.8, 1.2],
  yawJitter: 3.14159,
  picks: [{ category: 'rock', weight: 1, slopeMin: 0, slopeMax: 40, altMin: 0, altMax: 50, minSpacing: 2, alignToSlope: true }],
};

describe('preset validation', () => {
  it('accepts the five built-in presets, each drawing only on categories (no prop ids)', () => {
    const { presets, errors } = loadPresets(BUILTIN_PRESET_DATA);
    expect(errors).toEqual([]);
    expect(presets.map((p) => p.id)).toEqual(['mixed-forest', 'cliff-scree', 'beach', 'meadow', 'lake-shore']);
    for (const preset of presets) {
      expect(preset.picks.length).toBeGreaterThanOrEqual(3);
      for (const pick of preset.picks) expect(pick.category).not.toContain(':');
    }
    // Trees keep off cliffs; pebbles end at the waterline.
    const forest = presets.find((p) => p.id === 'mixed-forest')!;
    expect(Math.max(...forest.picks.filter((p) => familyOf(p) === 'tree').map((p) => p.slopeMax))).toBeLessThanOrEqual(30);
    const beach = presets.find((p) => p.id === 'beach')!;
    expect(beach.picks.find((p) => p.category === 'pebble')!.altMin).toBe(0);
  });

  it('returns a clean copy of a valid preset', () => {
    const preset = parsePreset(good);
    expect(preset).toEqual(good);
    expect(preset).not.toBe(good);
    expect(categoriesOf(preset)).toEqual(['rock']);
    expect(familyOf(preset.picks[0]!)).toBe('rock');
  });

  it('names every bad field by path, with what it got', () => {
    const bad = {
      ...good,
      name: 'Broken',
      densityPerM2: -1,
      scaleJitter: [1.5, 0.5],
      picks: [
        { ...good.picks[0], slopeMax: 'steep', weight: 0 },
        { ...good.picks[0], altMin: 10, altMax: 2, alignToSlope: 'yes' },
        'not a pick',
      ],
    };
    const result = validatePreset(bad);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBeInstanceOf(PresetError);
    expect(result.error.presetName).toBe('Broken');
    const paths = result.error.errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'densityPerM2',
        'scaleJitter',
        'picks[0].slopeMax',
        'picks[0].weight',
        'picks[1].altMin',
        'picks[1].alignToSlope',
        'picks[2]',
      ]),
    );
    expect(result.error.errors.find((e) => e.path === 'picks[0].slopeMax')!.message).toContain('"steep"');
    expect(result.error.message).toMatch(/^preset "Broken" is invalid: /);
  });

  it('flags unknown fields and suggests the field a typo meant', () => {
    const typo = { ...good, picks: [{ ...good.picks[0], slopemax: 20 }] };
    const result = validatePreset(typo);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.errors).toContainEqual({ path: 'picks[0].slopemax', message: 'unknown field (did you mean "slopeMax"?)' });
  });

  it('reports every unknown field and every missing one, and adds no absent optional fields', () => {
    const { densityPerM2: _density, ...withoutDensity } = good;
    const result = validatePreset({ ...withoutDensity, Picks: 1, colour: 'red', picks: [{ ...good.picks[0], slope_min: 1, extra: true }] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.errors).toEqual(
      expect.arrayContaining([
        { path: 'densityPerM2', message: 'expected a number, got nothing' },
        { path: 'Picks', message: 'unknown field (did you mean "picks"?)' },
        { path: 'colour', message: 'unknown field (known: id, name, description, densityPerM2, scaleJitter, yawJitter, picks)' },
        { path: 'picks[0].slope_min', message: 'unknown field (did you mean "slopeMin"?)' },
        { path: 'picks[0].extra', message: expect.stringMatching(/^unknown field \(known: category, /) },
      ]),
    );
    expect(result.error.errors).toHaveLength(5);
    const preset = parsePreset(good);
    expect(Object.keys(preset)).toEqual(['id', 'name', 'densityPerM2', 'scaleJitter', 'yawJitter', 'picks']);
    expect('family' in preset.picks[0]!).toBe(false);
  });

  it('rejects slopes outside 0–90° and empty pick lists', () => {
    expect(validatePreset({ ...good, picks: [{ ...good.picks[0], slopeMax: 95 }] }).ok).toBe(false);
    expect(validatePreset({ ...good, picks: [] }).ok).toBe(false);
    expect(validatePreset(null).ok).toBe(false);
    expect(validatePreset([1, 2]).ok).toBe(false);
    expect(() => parsePreset({ ...good, id: 'Has Spaces' })).toThrow(/id: expected a lowercase id/);
  });

  it('skips an invalid preset in a batch and keeps the good ones, reporting the bad one by name', () => {
    const { presets, errors } = loadPresets([
      { source: 'a.json', data: good },
      { source: 'b.json', data: { ...good, id: 'other', name: 'Other', yawJitter: 'lots' } },
      { source: 'c.json', data: { ...good, name: 'Dup' } },
      { source: 'd.json', data: 'not json object' },
    ]);
    expect(presets.map((p) => p.id)).toEqual(['test-preset']);
    expect(errors.map((e) => e.presetName)).toEqual(['Other', 'Dup', 'd.json']);
    expect(errors[0]!.errors[0]!.path).toBe('yawJitter');
    expect(errors[1]!.errors[0]!.message).toMatch(/duplicate id/);
  });
});
