/**
 * Scatter presets are plain data (JSON): what to place, where it belongs, how dense. The engine
 * reads only the fields below and never names a prop: picks name a *category*, and the prop
 * catalog decides which props fill it. A preset written by hand, by a tool or by a language model
 * is a JSON swap; {@link validatePreset} reports every bad field by its path.
 *
 * Units: metres; slopes in DEGREES (0 = flat, 90 = vertical) as everywhere in Cairn; altitudes
 * are metres above the water level; yaw in radians.
 */

/** One kind of thing a preset places, and the ground it belongs on. */
export interface ScatterPick {
  /** Catalog category to draw a prop from (e.g. "conifer", "rock"). */
  category: string;
  /** Relative chance among the picks whose conditions pass at a candidate point (> 0). */
  weight: number;
  /** Ground slope range in degrees, inclusive. */
  slopeMin: number;
  slopeMax: number;
  /** Altitude range in metres above the water level, inclusive. Below 0 is under water. */
  altMin: number;
  altMax: number;
  /** No two instances of the same family closer than this (metres, ≥ 0). */
  minSpacing: number;
  /** Turn the prop's up vector to the surface normal (rocks lean into slopes; trees grow up). */
  alignToSlope: boolean;
  /** Spacing family; defaults to the category, so trees space against trees, rocks against rocks. */
  family?: string;
}

export interface ScatterPreset {
  /** Stable identifier used in recordings (e.g. "mixed-forest"). */
  id: string;
  /** What the picker shows. */
  name: string;
  description?: string;
  /** Candidates sampled per square metre of brush disk per dab. */
  densityPerM2: number;
  /** Uniform scale range [min, max] applied to every instance (min ≤ max, both > 0). */
  scaleJitter: [number, number];
  /** Random yaw in [-yawJitter, +yawJitter] radians (π = any heading). */
  yawJitter: number;
  picks: ScatterPick[];
}

/** One problem with one field of a preset. `path` is like `picks[2].slopeMax`. */
export interface PresetFieldError {
  path: string;
  message: string;
}

/** Thrown (or returned) when a preset is unusable; names the preset and lists every bad field. */
export class PresetError extends Error {
  constructor(
    readonly presetName: string,
    readonly errors: PresetFieldError[],
  ) {
    super(`preset "${presetName}" is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    this.name = 'PresetError';
  }
}

export type PresetValidation = { ok: true; preset: ScatterPreset } | { ok: false; error: PresetError };

const PRESET_KEYS = ['id', 'name', 'description', 'densityPerM2', 'scaleJitter', 'yawJitter', 'picks'] as const;
const PICK_KEYS = ['category', 'weight', 'slopeMin', 'slopeMax', 'altMin', 'altMax', 'minSpacing', 'alignToSlope', 'family'] as const;

/** Upper bound on density: beyond this a single dab would sample millions of candidates. */
export const MAX_DENSITY_PER_M2 = 50;

/**
 * Checks a parsed JSON value against the preset schema. Every problem is reported with its path
 * (unknown keys too, with a suggestion when it looks like a typo such as `slopemax`), so one pass
 * shows everything to fix. `source` names the preset in messages when it has no usable name.
 */
export function validatePreset(input: unknown, source = 'preset'): PresetValidation {
  const errors: PresetFieldError[] = [];
  const fail = (path: string, message: string): void => void errors.push({ path, message });
  if (!isRecord(input)) {
    return { ok: false, error: new PresetError(source, [{ path: '(root)', message: `expected an object, got ${describe(input)}` }]) };
  }
  const label = typeof input.name === 'string' && input.name ? input.name : typeof input.id === 'string' && input.id ? input.id : source;
  unknownKeys(input, PRESET_KEYS, '', fail);

  const id = input.id;
  if (typeof id !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(id)) fail('id', `expected a lowercase id like "mixed-forest", got ${describe(id)}`);
  if (typeof input.name !== 'string' || input.name.trim() === '') fail('name', `expected a non-empty string, got ${describe(input.name)}`);
  if (input.description !== undefined && typeof input.description !== 'string') fail('description', `expected a string, got ${describe(input.description)}`);
  number(input.densityPerM2, 'densityPerM2', fail, { min: 0, exclusiveMin: true, max: MAX_DENSITY_PER_M2 });
  number(input.yawJitter, 'yawJitter', fail, { min: 0, max: Math.PI + 1e-9 });

  const scale = input.scaleJitter;
  if (!Array.isArray(scale) || scale.length !== 2) {
    fail('scaleJitter', `expected [min, max], got ${describe(scale)}`);
  } else {
    const a = number(scale[0], 'scaleJitter[0]', fail, { min: 0, exclusiveMin: true, max: 100 });
    const b = number(scale[1], 'scaleJitter[1]', fail, { min: 0, exclusiveMin: true, max: 100 });
    if (a !== undefined && b !== undefined && a > b) fail('scaleJitter', `min ${a} is greater than max ${b}`);
  }

  const picks = input.picks;
  if (!Array.isArray(picks) || picks.length === 0) {
    fail('picks', `expected a non-empty array of picks, got ${describe(picks)}`);
  } else {
    picks.forEach((pick, i) => validatePick(pick, `picks[${i}]`, fail));
  }

  if (errors.length > 0) return { ok: false, error: new PresetError(label, errors) };
  const preset = input as unknown as ScatterPreset;
  return {
    ok: true,
    preset: {
      id: preset.id,
      name: preset.name,
      ...(preset.description !== undefined ? { description: preset.description } : {}),
      densityPerM2: preset.densityPerM2,
      scaleJitter: [preset.scaleJitter[0], preset.scaleJitter[1]],
      yawJitter: preset.yawJitter,
      picks: preset.picks.map((p) => ({
        category: p.category,
        weight: p.weight,
        slopeMin: p.slopeMin,
        slopeMax: p.slopeMax,
        altMin: p.altMin,
        altMax: p.altMax,
        minSpacing: p.minSpacing,
        alignToSlope: p.alignToSlope,
        ...(p.family !== undefined ? { family: p.family } : {}),
      })),
    },
  };
}

/** Like {@link validatePreset} but throws the {@link PresetError}. */
export function parsePreset(input: unknown, source?: string): ScatterPreset {
  const result = validatePreset(input, source);
  if (!result.ok) throw result.error;
  return result.preset;
}

/**
 * Validates a batch (e.g. the built-in five plus any loaded from files): valid presets are
 * returned, invalid ones are reported and skipped, so one bad file never hides the good ones.
 * Duplicate ids are reported too (the first wins).
 */
export function loadPresets(inputs: ReadonlyArray<{ source: string; data: unknown }>): { presets: ScatterPreset[]; errors: PresetError[] } {
  const presets: ScatterPreset[] = [];
  const errors: PresetError[] = [];
  const seen = new Set<string>();
  for (const { source, data } of inputs) {
    const result = validatePreset(data, source);
    if (!result.ok) {
      errors.push(result.error);
    } else if (seen.has(result.preset.id)) {
      errors.push(new PresetError(result.preset.name, [{ path: 'id', message: `duplicate id "${result.preset.id}" (already loaded)` }]));
    } else {
      seen.add(result.preset.id);
      presets.push(result.preset);
    }
  }
  return { presets, errors };
}

/** The spacing family of a pick (its category unless it names one). */
export function familyOf(pick: ScatterPick): string {
  return pick.family ?? pick.category;
}

/** Every category a preset draws from, in first-use order (what to preload when it is chosen). */
export function categoriesOf(preset: ScatterPreset): string[] {
  return [...new Set(preset.picks.map((p) => p.category))];
}

function validatePick(pick: unknown, path: string, fail: (path: string, message: string) => void): void {
  if (!isRecord(pick)) {
    fail(path, `expected an object, got ${describe(pick)}`);
    return;
  }
  unknownKeys(pick, PICK_KEYS, `${path}.`, fail);
  if (typeof pick.category !== 'string' || pick.category.trim() === '') fail(`${path}.category`, `expected a non-empty string, got ${describe(pick.category)}`);
  if (pick.family !== undefined && (typeof pick.family !== 'string' || pick.family.trim() === '')) fail(`${path}.family`, `expected a non-empty string, got ${describe(pick.family)}`);
  number(pick.weight, `${path}.weight`, fail, { min: 0, exclusiveMin: true, max: 1e6 });
  const s0 = number(pick.slopeMin, `${path}.slopeMin`, fail, { min: 0, max: 90, unit: '°' });
  const s1 = number(pick.slopeMax, `${path}.slopeMax`, fail, { min: 0, max: 90, unit: '°' });
  if (s0 !== undefined && s1 !== undefined && s0 > s1) fail(`${path}.slopeMin`, `${s0}° is greater than slopeMax ${s1}°`);
  const a0 = number(pick.altMin, `${path}.altMin`, fail, { min: -1e4, max: 1e4, unit: ' m' });
  const a1 = number(pick.altMax, `${path}.altMax`, fail, { min: -1e4, max: 1e4, unit: ' m' });
  if (a0 !== undefined && a1 !== undefined && a0 > a1) fail(`${path}.altMin`, `${a0} m is greater than altMax ${a1} m`);
  number(pick.minSpacing, `${path}.minSpacing`, fail, { min: 0, max: 1000, unit: ' m' });
  if (typeof pick.alignToSlope !== 'boolean') fail(`${path}.alignToSlope`, `expected true or false, got ${describe(pick.alignToSlope)}`);
}

function number(
  value: unknown,
  path: string,
  fail: (path: string, message: string) => void,
  range: { min: number; max: number; exclusiveMin?: boolean; unit?: string },
): number | undefined {
  const unit = range.unit ?? '';
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    fail(path, `expected a number, got ${describe(value)}`);
    return undefined;
  }
  if (range.exclusiveMin ? value <= range.min : value < range.min) {
    fail(path, `must be ${range.exclusiveMin ? 'greater than' : 'at least'} ${range.min}${unit}, got ${value}${unit}`);
    return undefined;
  }
  if (value > range.max) {
    fail(path, `must be at most ${+range.max.toFixed(4)}${unit}, got ${value}${unit}`);
    return undefined;
  }
  return value;
}

function unknownKeys(record: Record<string, unknown>, known: readonly string[], prefix: string, fail: (path: string, message: string) => void): void {
  for (const key of Object.keys(record)) {
    if (known.includes(key)) continue;
    const near = known.find((k) => k.toLowerCase() === key.toLowerCase().replace(/[_\s-]/g, ''));
    fail(`${prefix}${key}`, near ? `unknown field (did you mean "${near}"?)` : `unknown field (known: ${known.join(', ')})`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}
