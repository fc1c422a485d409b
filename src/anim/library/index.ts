import { AnimationClip } from 'three';
import { BOW_CLIPS, SWORD_CLIPS } from './combat.ts';
import { EMOTE_CLIPS } from './emotes.ts';
import { bakeLibraryClip, type BakeLibraryOptions, type LibraryClipDef } from './library-clip.ts';
import { LOCOMOTION_CLIPS } from './locomotion.ts';
import { CLIMB_CLIPS, DODGE_CLIPS, HIT_CLIPS, JUMP_CLIPS, SWIM_CLIPS } from './movement.ts';

export * from './library-clip.ts';

/**
 * Cairn's built-in animation library, authored on the mannequin: locomotion in every direction,
 * jumps, swimming, climbing, dodges, hit reactions, a sword set, a bow set and emotes. Clips that
 * travel carry it as root motion on the root bone, as exported libraries do.
 */
export const ANIMATION_LIBRARY: readonly LibraryClipDef[] = [
  ...LOCOMOTION_CLIPS,
  ...JUMP_CLIPS,
  ...SWIM_CLIPS,
  ...CLIMB_CLIPS,
  ...DODGE_CLIPS,
  ...HIT_CLIPS,
  ...SWORD_CLIPS,
  ...BOW_CLIPS,
  ...EMOTE_CLIPS,
];

/**
 * Generic state → library clip, for `AnimationStateMachine`/`MixerAnimationDriver` aliases. The
 * FSM speaks `idle`, `walk`, `run`, … and any rig that carries the library (the mannequin, or a
 * character it was retargeted onto) plays the matching clip.
 */
export const LIBRARY_ALIASES: Readonly<Record<string, string>> = {
  idle: 'idle',
  walk: 'walk_fwd',
  run: 'run_fwd',
  sprint: 'sprint',
  crouch: 'crouch_idle',
  jump: 'jump',
  fall: 'fall_loop',
  land: 'land',
  swim: 'swim_tread',
  swim_fast: 'swim_freestyle',
  climb: 'climb_ladder',
  dodge: 'dodge_back',
  hit: 'hit_front',
  attack: 'sword_slash_1',
};

const cache = new Map<string, AnimationClip[]>();
const single = new Map<string, AnimationClip>();

/** One baked library clip by name (cached), for code that needs a few clips, not all 55. */
export function libraryClip(name: string, options: Pick<BakeLibraryOptions, 'fps'> = {}): AnimationClip {
  const fps = options.fps ?? 30;
  const key = `${fps}:${name}`;
  let clip = single.get(key);
  if (!clip) {
    const def = ANIMATION_LIBRARY.find((d) => d.name === name);
    if (!def) throw new Error(`the animation library has no clip "${name}"; it has: ${ANIMATION_LIBRARY.map((d) => d.name).join(', ')}`);
    clip = bakeLibraryClip(def, { fps });
    single.set(key, clip);
  }
  return clip;
}

/**
 * Bakes the library (cached per option set: the clips depend only on the rig definition).
 * `rootMotion: false` bakes every clip in place, for characters a controller moves.
 */
export function createAnimationLibrary(options: Omit<BakeLibraryOptions, 'def'> = {}): AnimationClip[] {
  const fps = options.fps ?? 30;
  const key = `${fps}:${options.rootMotion !== false}`;
  let clips = cache.get(key);
  if (!clips) {
    // The in-place set is the root-motion set without its root tracks: no second bake.
    clips =
      options.rootMotion === false
        ? createAnimationLibrary({ fps }).map(withoutRootMotion)
        : ANIMATION_LIBRARY.map((def) => libraryClip(def.name, { fps }));
    cache.set(key, clips);
  }
  return clips;
}

/** A copy of a library clip with its root bone's tracks left out (motion in place). */
export function withoutRootMotion(clip: AnimationClip): AnimationClip {
  const copy = new AnimationClip(
    clip.name,
    clip.duration,
    clip.tracks.filter((t) => !t.name.startsWith(`${ROOT_BONE}.`)),
  );
  copy.userData = { ...(clip.userData as Record<string, unknown>), rootMotion: false };
  return copy;
}

const ROOT_BONE = 'root';
