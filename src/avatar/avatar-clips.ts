/**
 * Which clip plays each of the player's animation states on a loaded character: the file's own
 * clips where their names say what they are, Cairn's library (retargeted onto the rig) for the
 * states the file lacks, and a nearby state's clip where neither exists. Pure: names in, names out.
 */

import { CLIP_STATE_NAMES, clipCoreWords, matchClipStates } from '../rig/clip-names.ts';

/** The animation states the world's player asks for (`swim_fast` is the crawl above 0.6 m/s). */
export const PLAYER_CLIP_STATES = ['idle', 'walk', 'run', 'jump', 'swim', 'swim_fast'] as const;
/** One of {@link PLAYER_CLIP_STATES}. */
export type PlayerClipState = (typeof PLAYER_CLIP_STATES)[number];

/** The library clip retargeted for each state when the file has none for it (in place: the controller moves the player). */
export const PLAYER_LIBRARY_CLIPS: Readonly<Record<PlayerClipState, string>> = {
  idle: 'idle',
  walk: 'walk_fwd',
  run: 'run_fwd',
  jump: 'jump',
  swim: 'swim_tread',
  swim_fast: 'swim_freestyle',
};

/**
 * Phrases a file clip's name is matched by, per state, best first: the import layer's table
 * (src/rig/clip-names.ts), which reads the naming habits of Mixamo, Blender exports, Unreal,
 * Quaternius and VRoid. Each library clip name reads as a phrase of its own state only.
 */
export const STATE_CLIP_NAMES: Readonly<Record<PlayerClipState, readonly string[]>> = Object.fromEntries(
  PLAYER_CLIP_STATES.map((state) => [state, CLIP_STATE_NAMES[state]]),
) as Record<PlayerClipState, readonly string[]>;

/**
 * A clip name as the matcher reads it: exporter decoration, affixes and filler words gone, the rest
 * joined by `_` (`Armature|Armature|walk_Armature` and `Walk_Loop` both read `walk`).
 */
export function normaliseClipName(name: string): string {
  return clipCoreWords(name).join('_');
}

/**
 * The file's clip for each player state it has one for (`matchClipStates` in src/rig/clip-names.ts: Mixamo's, Blender's,
 * Unreal's, Quaternius's and VRoid's naming read; a first word every clip shares is a pack's
 * character name). Extra names (`extraNames`) go before the built-in ones. A file clip is used for
 * one state at most.
 */
export function matchFileClips(
  clipNames: readonly string[],
  extraNames: Partial<Record<PlayerClipState, readonly string[]>> = {},
): Partial<Record<PlayerClipState, string>> {
  return matchClipStates(clipNames, PLAYER_CLIP_STATES, extraNames);
}

/**
 * Where a state goes when the file has no clip for it and the library could not supply one: the
 * nearest state that has a clip (a crawl falls back to treading water, then to standing).
 */
const FALLBACK: Readonly<Record<PlayerClipState, readonly PlayerClipState[]>> = {
  idle: ['walk', 'run', 'swim', 'jump', 'swim_fast'],
  walk: ['run', 'idle', 'swim_fast', 'swim', 'jump'],
  run: ['walk', 'idle', 'swim_fast', 'swim', 'jump'],
  jump: ['idle', 'walk', 'run', 'swim', 'swim_fast'],
  swim: ['swim_fast', 'idle', 'walk', 'run', 'jump'],
  swim_fast: ['swim', 'walk', 'idle', 'run', 'jump'],
};

/** What to do for a character: which states the file covers and which library clips to retarget. */
export interface AvatarClipPlan {
  /** The file's clip per state it covers. */
  file: Partial<Record<PlayerClipState, string>>;
  /** States the file does not cover, each to be filled from the library. */
  missing: PlayerClipState[];
  /** Library clip names to retarget onto the rig (none when the file covers every state). */
  libraryClips: string[];
}

/** Plans a character's clips from the names of the clips in its file. */
export function planAvatarClips(
  fileClipNames: readonly string[],
  extraNames: Partial<Record<PlayerClipState, readonly string[]>> = {},
): AvatarClipPlan {
  const file = matchFileClips(fileClipNames, extraNames);
  const missing = PLAYER_CLIP_STATES.filter((state) => file[state] === undefined);
  return { file, missing, libraryClips: missing.map((state) => PLAYER_LIBRARY_CLIPS[state]) };
}

/**
 * Where the clip a state plays comes from: the character's own (its file's, or the built-in
 * humanoid's), Cairn's library retargeted onto it, or another state's clip borrowed.
 */
export type ClipSource = 'file' | 'library' | 'fallback';

/** The clip each state plays, where it comes from, and the states nothing could be found for. */
export interface AvatarClipAssignment {
  /** State → clip name (the state machine's aliases); states with no clip at all are absent. */
  clips: Partial<Record<PlayerClipState, string>>;
  /** State → where its clip comes from. */
  sources: Partial<Record<PlayerClipState, ClipSource>>;
  /** States that play another state's clip (no clip of their own in the file or the library). */
  borrowed: PlayerClipState[];
}

/**
 * Assigns a clip to every state: the file's where the plan found one, else the retargeted library
 * clip (when `libraryClipNames` holds it), else the clip of the nearest state that has one. A
 * character with no clip at all gets an empty assignment (it stands in its bind pose).
 */
export function assignAvatarClips(plan: AvatarClipPlan, libraryClipNames: readonly string[]): AvatarClipAssignment {
  const retargeted = new Set(libraryClipNames);
  const clips: Partial<Record<PlayerClipState, string>> = {};
  const sources: Partial<Record<PlayerClipState, ClipSource>> = {};
  for (const state of PLAYER_CLIP_STATES) {
    const own = plan.file[state];
    if (own !== undefined) {
      clips[state] = own;
      sources[state] = 'file';
    } else if (retargeted.has(PLAYER_LIBRARY_CLIPS[state])) {
      clips[state] = PLAYER_LIBRARY_CLIPS[state];
      sources[state] = 'library';
    }
  }
  const borrowed: PlayerClipState[] = [];
  for (const state of PLAYER_CLIP_STATES) {
    if (clips[state] !== undefined) continue;
    const donor = FALLBACK[state].find((other) => clips[other] !== undefined && sources[other] !== 'fallback');
    if (donor === undefined) continue;
    clips[state] = clips[donor];
    sources[state] = 'fallback';
    borrowed.push(state);
  }
  return { clips, sources, borrowed };
}
