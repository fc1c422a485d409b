import * as v from 'valibot';

/**
 * Scatter presets are plain data (JSON): what to place, where it belongs, how dense. The engine
 * reads only the fields below and never names a prop: picks name a *category*, and the prop
 * catalog decides which props fill it. A preset written by hand, by a tool or by a language model
 * is a JSON swap; {@link validatePreset} reports every bad field by its path.
 *
 * Units: metres; slopes in DEGREES (0 = flat, 90 = vertical) as everywhere in Cairn; altitudes
 * are metres above the water level; yaw in radians.
 */

/** Upper bound on density: beyond this a single dab would sample millions of candidates. */
export const MAX_DENSITY_PER_M2 = 50;

/** A finite number in [min, max] (or (min, max] with `exclusiveMin`), messages in the preset's words. */
function rangedNumber(min: number, max: number, options: { exclusiveMin?: boolean; unit?: string } = {}) {
  const unit = options.unit ?? '';
  const low = (issue: v.BaseIssue<unknown>): string =>
    `must be ${options.exclusiveMin ? 'greater than' : 'at least'} ${min}${unit}, got ${String(issue.input)}${unit}`;
  return v.pipe(
    v.custom<number>(
      (value) => typeof value === 'number' && Number.isFinite(value),
      (issue) => `expected a number, got ${describe(issue.input)}`,
    ),
    options.exclusiveMin ? v.gtValue(min, low) : v.minValue(min, low),
    v.maxValue(max, (issue) => `must be at most ${+max.toFixed(4)}${unit}, got ${String(issue.input)}${unit}`),
  );
}

/** A string with something besides whitespace in it. */
const nonEmptyString = v.pipe(
  v.string((issue) => `expected a non-empty string, got ${describe(issue.input)}`),
  v.check(
    (text) => text.trim() !== '',
    (issue) => `expected a non-empty string, got ${describe(issue.input)}`,
  ),
);

/**
 * A plain object (not an array) with exactly `entries`. Absent fields enter as `undefined`, so each
 * field's own schema reports them ("expected a number, got nothing"); every unknown field is
 * reported too, with a suggestion when one looks like a typo of a known field (`slopemax`). A loose
 * object keeps the unknown fields for that check (a strict one reports only the first); valid
 * input has none, so the output is exactly the entries.
 */
function record<const E extends v.ObjectEntries>(entries: E) {
  const known = Object.keys(entries);
  const absent = Object.fromEntries(known.map((key) => [key, undefined]));
  return v.pipe(
    v.custom<Record<string, unknown>>(isRecord, (issue) => `expected an object, got ${describe(issue.input)}`),
    v.transform((input) => ({ ...absent, ...input })),
    v.looseObject(entries),
    v.rawCheck(({ dataset, addIssue }) => {
      const value: unknown = dataset.value;
      if (!isRecord(value)) return;
      for (const key of Object.keys(value)) {
        if (known.includes(key)) continue;
        addIssue({ message: unknownField(key, known), path: [{ type: 'object', origin: 'key', input: value, key, value: value[key] }] });
      }
    }),
    v.transform((output): v.InferOutput<v.ObjectSchema<E, undefined>> => output),
  );
}

/** One kind of thing a preset places, and the ground it belongs on. */
const PickSchema = v.pipe(
  record({
    /** Catalog category to draw a prop from (e.g. "conifer", "rock"). */
    category: nonEmptyString,
    /** Relative chance among the picks whose conditions pass at a candidate point (> 0). */
    weight: rangedNumber(0, 1e6, { exclusiveMin: true }),
    /** Ground slope range in degrees, inclusive. */
    slopeMin: rangedNumber(0, 90, { unit: '°' }),
    /** Upper end of the slope range (degrees, ≥ slopeMin). */
    slopeMax: rangedNumber(0, 90, { unit: '°' }),
    /** Altitude range in metres above the water level, inclusive. Below 0 is under water. */
    altMin: rangedNumber(-1e4, 1e4, { unit: ' m' }),
    /** Upper end of the altitude range (metres above the water level, ≥ altMin). */
    altMax: rangedNumber(-1e4, 1e4, { unit: ' m' }),
    /** No two instances of the same family closer than this (metres, ≥ 0). */
    minSpacing: rangedNumber(0, 1000, { unit: ' m' }),
    /** Turn the prop's up vector to the surface normal (rocks lean into slopes; trees grow up). */
    alignToSlope: v.boolean((issue) => `expected true or false, got ${describe(issue.input)}`),
    /** Spacing family; defaults to the category, so trees space against trees, rocks against rocks. */
    family: v.optional(nonEmptyString),
  }),
  v.forward(
    v.partialCheck(
      [['slopeMin'], ['slopeMax']],
      (pick) => pick.slopeMin <= pick.slopeMax,
      (issue) => `${issue.input.slopeMin}° is greater than slopeMax ${issue.input.slopeMax}°`,
    ),
    ['slopeMin'],
  ),
  v.forward(
    v.partialCheck(
      [['altMin'], ['altMax']],
      (pick) => pick.altMin <= pick.altMax,
      (issue) => `${issue.input.altMin} m is greater than altMax ${issue.input.altMax} m`,
    ),
    ['altMin'],
  ),
  v.transform((pick) => {
    if (pick.family === undefined) delete pick.family;
    return pick;
  }),
);

/** The preset schema: what {@link validatePreset} checks and what {@link ScatterPreset} is. */
export const PresetSchema = v.pipe(
  record({
    /** Stable identifier used in recordings (e.g. "mixed-forest"). */
    id: v.pipe(
      v.string((issue) => `expected a lowercase id like "mixed-forest", got ${describe(issue.input)}`),
      v.regex(/^[a-z0-9][a-z0-9-]*$/, (issue) => `expected a lowercase id like "mixed-forest", got ${describe(issue.input)}`),
    ),
    /** What the picker shows. */
    name: nonEmptyString,
    /** A line for the picker's tooltip. Optional. */
    description: v.optional(v.string((issue) => `expected a string, got ${describe(issue.input)}`)),
    /** Candidates sampled per square metre of brush disk per dab. */
    densityPerM2: rangedNumber(0, MAX_DENSITY_PER_M2, { exclusiveMin: true }),
    /** Uniform scale range [min, max] applied to every instance (min ≤ max, both > 0). */
    scaleJitter: v.pipe(
      v.custom<[unknown, unknown]>(
        (value) => Array.isArray(value) && value.length === 2,
        (issue) => `expected [min, max], got ${describe(issue.input)}`,
      ),
      v.tuple([rangedNumber(0, 100, { exclusiveMin: true }), rangedNumber(0, 100, { exclusiveMin: true })]),
      v.check(
        ([min, max]) => min <= max,
        (issue) => `min ${issue.input[0]} is greater than max ${issue.input[1]}`,
      ),
    ),
    /** Random yaw in [-yawJitter, +yawJitter] radians (π = any heading). */
    yawJitter: rangedNumber(0, Math.PI + 1e-9),
    /** The kinds of thing the preset places (at least one). */
    picks: v.pipe(
      v.array(PickSchema, (issue) => `expected a non-empty array of picks, got ${describe(issue.input)}`),
      v.minLength(1, (issue) => `expected a non-empty array of picks, got ${describe(issue.input)}`),
    ),
  }),
  v.transform((preset) => {
    if (preset.description === undefined) delete preset.description;
    return preset;
  }),
);

/** One kind of thing a preset places, and the ground it belongs on (see the schema's fields). */
export type ScatterPick = v.InferOutput<typeof PickSchema>;

/** A scatter preset as {@link PresetSchema} accepts it. */
export type ScatterPreset = v.InferOutput<typeof PresetSchema>;

/** One problem with one field of a preset. `path` is like `picks[2].slopeMax`. */
export interface PresetFieldError {
  /** Where in the preset, like `picks[2].slopeMax` (`(root)` for the preset as a whole). */
  path: string;
  /** What is wrong, and what is expected. */
  message: string;
}

/** Thrown (or returned) when a preset is unusable; names the preset and lists every bad field. */
export class PresetError extends Error {
  /** The preset's name (or id, or source when it has neither). */
  readonly presetName: string;
  /** Every bad field, in the order the schema found them. */
  readonly errors: PresetFieldError[];

  constructor(presetName: string, errors: PresetFieldError[]) {
    super(`preset "${presetName}" is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    this.presetName = presetName;
    this.errors = errors;
    this.name = 'PresetError';
  }
}

/** What {@link validatePreset} found: the preset, or every problem with it. */
export type PresetValidation =
  | {
      /** The preset is valid. */
      ok: true;
      /** The preset, as the schema output it (no unknown keys). */
      preset: ScatterPreset;
    }
  | {
      /** The preset is unusable. */
      ok: false;
      /** Names the preset and lists every bad field. */
      error: PresetError;
    };

/** A preset's raw JSON and where it came from. */
export interface PresetSource {
  /** Where the JSON came from (a file name), for messages about it. */
  source: string;
  /** The parsed JSON, not yet validated. */
  data: unknown;
}

/**
 * Checks a parsed JSON value against the preset schema. Every problem is reported with its path
 * (unknown keys too, with a suggestion when it looks like a typo such as `slopemax`), so one pass
 * shows everything to fix. `source` names the preset in messages when it has no usable name.
 */
export function validatePreset(input: unknown, source = 'preset'): PresetValidation {
  const result = v.safeParse(PresetSchema, input);
  if (result.success) return { ok: true, preset: result.output };
  const label = !isRecord(input)
    ? source
    : typeof input.name === 'string' && input.name
      ? input.name
      : typeof input.id === 'string' && input.id
        ? input.id
        : source;
  return {
    ok: false,
    error: new PresetError(
      label,
      result.issues.map((issue) => ({ path: issuePath(issue), message: issue.message })),
    ),
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
export function loadPresets(inputs: ReadonlyArray<PresetSource>): {
  /** The valid presets, in input order (the first of each id). */
  presets: ScatterPreset[];
  /** The invalid presets and duplicate ids, one error each. */
  errors: PresetError[];
} {
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

/** `picks[2].slopeMax` from a valibot issue's path; `(root)` for the value itself. */
function issuePath(issue: v.BaseIssue<unknown>): string {
  let path = '';
  for (const item of issue.path ?? []) {
    const key = item.key;
    path += typeof key === 'number' ? `[${key}]` : path === '' ? String(key) : `.${String(key)}`;
  }
  return path || '(root)';
}

/** The message for a field the schema does not know, naming the field a typo probably meant. */
function unknownField(key: string, known: readonly string[]): string {
  const near = known.find((k) => k.toLowerCase() === key.toLowerCase().replace(/[_\s-]/g, ''));
  return near ? `unknown field (did you mean "${near}"?)` : `unknown field (known: ${known.join(', ')})`;
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
