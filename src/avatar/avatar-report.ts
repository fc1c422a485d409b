/**
 * What the player's character is and why a file was refused: the figures `cairn.stats.avatar`
 * publishes, the notice that says them, and the refusal error. No loaders here: the world imports
 * this at start, and the avatar's loader (avatar-model.ts) only when a model is asked for.
 */
import type { ImportFailure } from '../rig/import/errors.ts';
import type { CairnNotice } from '../world/cairn-global.ts';
import { PLAYER_CLIP_STATES, type ClipSource, type PlayerClipState } from './avatar-clips.ts';

/** Why a character was refused: the import layer's causes (a skeleton with nothing to draw is `no-mesh`). */
export type AvatarFailure = ImportFailure;

/** A character file that cannot be the player; the message names the file and the cause. */
export class AvatarLoadError extends Error {
  /** The error's name, for telling it apart from other errors. */
  override name = 'AvatarLoadError';
  /** The cause, for code. */
  readonly reason: AvatarFailure;

  constructor(
    message: string,
    /** The cause, for code. */
    reason: AvatarFailure,
  ) {
    super(message);
    this.reason = reason;
  }
}

/** The file name a person knows a URL or path by. */
export function avatarFileName(source: string): string {
  const path = source.split(/[?#]/)[0]!;
  try {
    return decodeURIComponent(path.split(/[\\/]/).pop() || source);
  } catch {
    return path.split(/[\\/]/).pop() || source;
  }
}

/** The player's character as `cairn.stats.avatar` publishes it. */
export interface AvatarStats {
  /** The model asked for last (URL or file name), or 'built-in' for the procedural humanoid. */
  source: string;
  /** Of the model asked for last: still loading, drawn, or refused (the character drawn before stays). */
  status: 'loading' | 'ready' | 'failed';
  /** Why the last model was refused, in words (null unless failed). */
  error: string | null;
  /** The cause for code (null unless failed). */
  reason: AvatarFailure | null;
  /** The character drawn now (its file name, or 'humanoid'). */
  name: string;
  /** Its bind-pose height as drawn, metres (`fileHeight` × `scale`). */
  height: number;
  /** Its bind-pose height as the import reads the file, metres. */
  fileHeight: number;
  /** The uniform scale the height policy gave it (1: the file's height kept). */
  scale: number;
  /** State → the clip it plays. */
  clips: Partial<Record<PlayerClipState, string>>;
  /** State → where that clip comes from. */
  clipSources: Partial<Record<PlayerClipState, ClipSource>>;
  /** Clips of its own: in its file, or the built-in humanoid's six. */
  fileClips: number;
  /** Their names as the file has them ({@link clips} says which state plays which). */
  fileClipNames: string[];
  /** Library clips retargeted onto it. */
  retargeted: string[];
  /** What the import or the player could not carry (a missing texture, clip tracks nothing plays), one sentence each. */
  losses: string[];
  /** Vertices of every mesh in its file. */
  sourceVertices: number;
  /** Vertices drawn. */
  drawnVertices: number;
  /** Metres the model is raised to stand on its feet. */
  groundOffset: number;
}

/** Words for a state's clip and where it comes from ("run ← sprint (file)"). */
function clipLine(stats: AvatarStats): string {
  return PLAYER_CLIP_STATES.filter((state) => stats.clips[state] !== undefined)
    .map((state) => `${state} ← ${stats.clips[state]} (${stats.clipSources[state]})`)
    .join(', ');
}

/**
 * The notice for a settled load: what was loaded (name, height, clips and where each comes from,
 * how much of the file is drawn) or why it was refused. Null while loading.
 */
export function avatarNotice(stats: AvatarStats, notes: readonly string[] = []): CairnNotice | null {
  if (stats.status === 'loading') return null;
  if (stats.status === 'failed')
    return {
      level: 'error',
      title: `Avatar not loaded: ${avatarFileName(stats.source)}`,
      detail: `${stats.error ?? 'unknown error'}\nThe player stays ${stats.name === 'humanoid' ? 'the built-in humanoid' : stats.name}.`,
    };
  const partial = stats.drawnVertices < stats.sourceVertices;
  // The file's clips no state plays: said, so a pack whose names are not read is not silently replaced by the library.
  const used = new Set(Object.values(stats.clips));
  const unused = stats.fileClipNames.filter((name) => !used.has(name));
  const noneUsed = stats.fileClips > 0 && unused.length === stats.fileClipNames.length;
  const borrowed = Object.values(stats.clipSources).includes('fallback');
  const none = Object.keys(stats.clips).length === 0;
  const lines = [
    `${stats.height.toFixed(2)} m tall${stats.scale === 1 ? '' : ` (the file's ${stats.fileHeight.toFixed(2)} m ×${stats.scale.toFixed(2)})`}; draws ${stats.drawnVertices.toLocaleString('en-US')} of ${stats.sourceVertices.toLocaleString('en-US')} vertices${partial ? ' (part of the file is not drawn)' : ''}`,
    `${stats.fileClips} clip(s) in the file; ${stats.retargeted.length ? `${stats.retargeted.length} library clip(s) retargeted onto it (${stats.retargeted.join(', ')})` : 'no library clips needed'}`,
    none ? 'no clips: it stands in its bind pose' : `clips: ${clipLine(stats)}`,
    ...(noneUsed
      ? [
          `none of the file's clips is named like a player state (${unused.slice(0, 6).join(', ')}${unused.length > 6 ? ', …' : ''}): give clipNames to use them`,
        ]
      : unused.length
        ? [`file clips no state plays: ${unused.slice(0, 8).join(', ')}${unused.length > 8 ? ', …' : ''}`]
        : []),
    ...stats.losses,
    ...notes.filter((note) => !stats.losses.includes(note)),
  ];
  const level = partial || borrowed || none || noneUsed || stats.losses.length > 0 ? 'warn' : 'info';
  return { level, title: `Avatar: ${stats.name}`, detail: lines.join('\n') };
}
