/**
 * The five built-in presets, as the plain JSON files beside this one. They are data, not code:
 * `loadPresets` validates them like any preset from elsewhere.
 */
import type { PresetSource } from '../preset.ts';
import beach from './beach.json' with { type: 'json' };
import cliffScree from './cliff-scree.json' with { type: 'json' };
import lakeShore from './lake-shore.json' with { type: 'json' };
import meadow from './meadow.json' with { type: 'json' };
import mixedForest from './mixed-forest.json' with { type: 'json' };

/** Raw JSON of the built-in presets with the file each came from (for error messages). */
export const BUILTIN_PRESET_DATA: ReadonlyArray<PresetSource> = [
  { source: 'mixed-forest.json', data: mixedForest },
  { source: 'cliff-scree.json', data: cliffScree },
  { source: 'beach.json', data: beach },
  { source: 'meadow.json', data: meadow },
  { source: 'lake-shore.json', data: lakeShore },
];
