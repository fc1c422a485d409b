import type { AnimationClip } from 'three';
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
export const ANIMATION_LIBRARY: readonly LibraryClipDef[] = [...LOCOMOTION_CLIPS, ...JUMP_CLIPS, ...SWIM_CLIPS, ...CLIMB_CLIPS, ...DODGE_CLIPS, ...HIT_CLIPS, ...SWORD_CLIPS, ...BOW_CLIPS, ...EMOTE_CLIPS];

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

/**
 * Bakes the library (cached per option set: the clips depend only on the rig definition).
 * `rootMotion: false` bakes every clip in place, for characters a controller moves.
 */
export function createAnimationLibrary(options: Omit<BakeLibraryOptions, 'def'> = {}): AnimationClip[] {
  const key = `${options.fps ?? 30}:${options.rootMotion !== false}`;
  let clips = cache.get(key);
  if (!clips) {
    clips = ANIMATION_LIBRARY.map((def) => bakeLibraryClip(def, options));
    cache.set(key, clips);
  }
  return clips;
}
