/**
 * How tall a loaded character stands as the player. The import layer reads a file's unit from its
 * size alone (over 400 units is millimetres, over 12 centimetres), and real files defeat that rule
 * of thumb: Quaternius's Blender characters are 485–824 units tall, a 0.49 m man and a 0.82 m
 * zombie as millimetres, 4.9 m and 8.2 m as centimetres; no unit makes them a person. So a height
 * that rests on such a guess is checked against a person's; a height the file gives in metres is the
 * artist's (a 0.67 m chibi stays small) unless no character could be that size. No loaders here:
 * the world imports this at start.
 */
import type { ImportReport } from '../rig/import/import-model.ts';

/** How a loaded character's height is chosen. */
export interface AvatarHeightOptions {
  /**
   * `'auto'` (default): keep the file's height unless it is implausible (see {@link humanHeights}
   * and {@link characterHeights}), then scale uniformly to {@link defaultHeight}. A number: scale to
   * exactly that many metres. `'file'`: keep the file's height whatever it is.
   */
  height?: 'auto' | 'file' | number;
  /**
   * Heights (metres) a character whose unit the import guessed from its size (centimetres,
   * millimetres: the file's numbers were not metres) keeps under `'auto'`. Default [1.2, 2.4].
   */
  humanHeights?: readonly [number, number];
  /**
   * Heights (metres) any character keeps under `'auto'`, its unit read as metres or given by the
   * caller: stylised small ones (a chibi) and tall ones (an ogre). Default [0.3, 4].
   */
  characterHeights?: readonly [number, number];
  /** Metres `'auto'` scales an implausible character to. Default 1.75. */
  defaultHeight?: number;
}

/** Defaults of {@link AvatarHeightOptions}: `auto`, humans kept at 1.2–2.4 m, characters at 0.3–4 m, else scaled to 1.75 m. */
export const AVATAR_HEIGHT_DEFAULTS: Required<AvatarHeightOptions> = {
  height: 'auto',
  humanHeights: [1.2, 2.4],
  characterHeights: [0.3, 4],
  defaultHeight: 1.75,
};

/** The scale chosen for a character and, when it is not 1, the sentence that says why. */
export interface AvatarScale {
  /** Uniform scale of the character's wrapper (1: the file's height). */
  scale: number;
  /** For the notice; null when the file's height is kept. */
  note: string | null;
}

const UNIT_WORDS: Partial<Record<ImportReport['units'], string>> = {
  cm: 'centimetres',
  mm: 'millimetres',
  in: 'inches',
  cmu: 'CMU mocap units',
};

/**
 * The scale for a character `fileHeight` metres tall (the import's bind-pose height) whose unit the
 * import read as `units`, under resolved options.
 */
export function avatarScale(fileHeight: number, units: ImportReport['units'], options: Required<AvatarHeightOptions>): AvatarScale {
  const reads = `reads ${fileHeight.toFixed(2)} m tall`;
  if (!(fileHeight > 0) || options.height === 'file') return { scale: 1, note: null };
  if (typeof options.height === 'number') {
    if (!(options.height > 0)) throw new RangeError(`avatar height must be a positive number of metres, not ${options.height}`);
    const scale = options.height / fileHeight;
    return { scale, note: `${reads}; scaled ×${scale.toFixed(2)} to ${options.height.toFixed(2)} m as asked (height: ${options.height})` };
  }
  const unitWords = UNIT_WORDS[units];
  // A unit read from the size is a guess: the height must be a person's to be believed.
  const [low, high] = unitWords ? options.humanHeights : options.characterHeights;
  if (fileHeight >= low && fileHeight <= high) return { scale: 1, note: null };
  const scale = options.defaultHeight / fileHeight;
  const why = unitWords
    ? `authored in ${unitWords} by the file's size, outside a person's ${low}–${high} m`
    : `outside any character's ${low}–${high} m`;
  return {
    scale,
    note: `${reads} (${why}); scaled ×${scale.toFixed(2)} to ${options.defaultHeight.toFixed(2)} m (height: 'file' keeps the file's height)`,
  };
}

/** What {@link parseAvatarHeight} read: a height option, or the problem with the text. */
export type ParsedAvatarHeight =
  | {
      /** The text was readable. */
      ok: true;
      /** The height option it reads as. */
      height: AvatarHeightOptions['height'];
    }
  | {
      /** The text was not. */
      ok: false;
      /** Why, in words. */
      problem: string;
    };

/**
 * Reads the world page's `?avatarHeight=`: `auto`, `file` or a height in metres (`1.8`). Absent
 * reads as `auto`; anything else is a problem the page shows instead of guessing.
 */
export function parseAvatarHeight(text: string | null): ParsedAvatarHeight {
  if (text === null || text === '' || text === 'auto') return { ok: true, height: 'auto' };
  if (text === 'file') return { ok: true, height: 'file' };
  const metres = Number(text);
  if (Number.isFinite(metres) && metres > 0 && metres <= 100) return { ok: true, height: metres };
  return { ok: false, problem: `avatarHeight=${text}: expected auto, file or a height in metres (e.g. 1.8)` };
}
