/** Which clip plays each player state on a loaded character: file clips by name, the library for the rest. */
import { describe, expect, it } from 'vitest';
import { ANIMATION_LIBRARY } from '../../../src/anim/library/index.ts';
import {
  assignAvatarClips,
  matchFileClips,
  normaliseClipName,
  planAvatarClips,
  PLAYER_CLIP_STATES,
  PLAYER_LIBRARY_CLIPS,
  STATE_CLIP_NAMES,
} from '../../../src/avatar/avatar-clips.ts';

/** The 32 clip names of Kenney's Mini Characters (tests/fixtures/import/kenney-character-male-a.glb). */
const KENNEY = [
  'static',
  'idle',
  'walk',
  'sprint',
  'jump',
  'fall',
  'crouch',
  'sit',
  'drive',
  'die',
  'pick-up',
  'emote-yes',
  'emote-no',
  'holding-right',
  'holding-left',
  'holding-both',
  'holding-right-shoot',
  'holding-left-shoot',
  'holding-both-shoot',
  'attack-melee-right',
  'attack-melee-left',
  'attack-kick-right',
  'attack-kick-left',
  'interact-right',
  'interact-left',
  'wheelchair-sit',
  'wheelchair-look-left',
  'wheelchair-look-right',
  'wheelchair-move-forward',
  'wheelchair-move-back',
  'wheelchair-move-left',
  'wheelchair-move-right',
];

describe('avatar clip names', () => {
  it('normalises exporter decorations away', () => {
    expect(normaliseClipName('Armature|Walk_Loop')).toBe('walk');
    expect(normaliseClipName('  Run-Forward ')).toBe('run_fwd');
    expect(normaliseClipName('CharacterArmature|Idle')).toBe('idle');
    expect(normaliseClipName('Zombie|ZombieIdle')).toBe('zombie_idle');
    expect(normaliseClipName('WalkForward')).toBe('walk_fwd');
    expect(normaliseClipName('Armature|Armature|walk_Armature')).toBe('walk');
  });

  it('reads clips under a first word every clip shares (a pack’s character name), and no ground crawl as a swim', () => {
    // Quaternius's zombie and Male_Casual (tests/fixtures/import/).
    const zombie = ['Zombie|ZombieRun', 'Zombie|ZombieBite', 'Zombie|ZombieCrawl', 'Zombie|ZombieWalk', 'Zombie|ZombieIdle'];
    expect(matchFileClips(zombie)).toEqual({ idle: 'Zombie|ZombieIdle', walk: 'Zombie|ZombieWalk', run: 'Zombie|ZombieRun' });
    const man = ['Man_Walk', 'Man_Run', 'Man_Death', 'Man_Idle', 'Man_Sitting', 'Man_Jump', 'Man_RunningJump'].map(
      (n) => `HumanArmature|${n}`,
    );
    expect(matchFileClips(man)).toEqual({
      idle: 'HumanArmature|Man_Idle',
      walk: 'HumanArmature|Man_Walk',
      run: 'HumanArmature|Man_Run',
      jump: 'HumanArmature|Man_Jump',
    });
    // A first word only some clips share is part of the name: "Hero_Idle" beside "Walk" is no idle.
    expect(matchFileClips(['Hero_Idle', 'Walk'])).toEqual({ walk: 'Walk' });
    // A word alone is no prefix: "Jump" and "Jump_Loop" both keep their names.
    expect(matchFileClips(['Jump', 'Jump_Loop'])).toEqual({ jump: 'Jump' });
  });

  it('retargets only library clips that exist, each listed under its own state alone', () => {
    const library = new Set(ANIMATION_LIBRARY.map((d) => d.name));
    for (const state of PLAYER_CLIP_STATES) {
      const name = PLAYER_LIBRARY_CLIPS[state];
      expect(library.has(name), name).toBe(true);
      // The library clip's name, alone in a file, is read as its own state and no other.
      expect(matchFileClips([name]), name).toEqual({ [state]: name });
      expect(STATE_CLIP_NAMES[state].length).toBeGreaterThan(0);
    }
  });

  it('finds a real character pack’s clips by name and leaves the unrelated ones alone', () => {
    expect(matchFileClips(KENNEY)).toEqual({ idle: 'idle', walk: 'walk', run: 'sprint', jump: 'jump' });
    // Blender's Armature|… names, Mixamo-like capitals; the best name wins over a later synonym.
    expect(matchFileClips(['Armature|Running', 'Armature|Run', 'Armature|Idle', 'Armature|Swimming', 'Armature|Treading_Water'])).toEqual({
      idle: 'Armature|Idle',
      run: 'Armature|Run',
      swim: 'Armature|Treading_Water',
      swim_fast: 'Armature|Swimming',
    });
    // A file clip serves one state only.
    expect(matchFileClips(['walk'], { run: ['walk'] })).toEqual({ walk: 'walk' });
    // Names a studio uses, given as an option, come first.
    expect(matchFileClips(['Loco_Walk_F', 'walk'], { walk: ['Loco_Walk_F'] })).toEqual({ walk: 'Loco_Walk_F' });
  });
});

describe('file clips or the library', () => {
  it('retargets the whole set for a rig with no clips', () => {
    const plan = planAvatarClips([]);
    expect(plan.file).toEqual({});
    expect(plan.libraryClips).toEqual(['idle', 'walk_fwd', 'run_fwd', 'jump', 'swim_tread', 'swim_freestyle']);
    const assigned = assignAvatarClips(plan, plan.libraryClips);
    expect(assigned.clips).toEqual({ ...PLAYER_LIBRARY_CLIPS });
    expect(new Set(Object.values(assigned.sources))).toEqual(new Set(['library']));
    expect(assigned.borrowed).toEqual([]);
  });

  it('uses the file’s clips where they cover a state and asks the library for the rest only', () => {
    const plan = planAvatarClips(KENNEY);
    expect(plan.missing).toEqual(['swim', 'swim_fast']);
    expect(plan.libraryClips).toEqual(['swim_tread', 'swim_freestyle']);
    const assigned = assignAvatarClips(plan, ['swim_tread', 'swim_freestyle']);
    expect(assigned.clips).toEqual({
      idle: 'idle',
      walk: 'walk',
      run: 'sprint',
      jump: 'jump',
      swim: 'swim_tread',
      swim_fast: 'swim_freestyle',
    });
    expect(assigned.sources).toMatchObject({ idle: 'file', run: 'file', swim: 'library', swim_fast: 'library' });
    // A file that covers every state needs no library at all.
    expect(planAvatarClips([...KENNEY, 'swim_idle', 'swim_fwd']).libraryClips).toEqual([]);
  });

  it('borrows the nearest state’s clip where neither the file nor the library has one', () => {
    // The library could not be mapped onto the rig (no hips, say): nothing retargeted.
    const assigned = assignAvatarClips(planAvatarClips(KENNEY), []);
    expect(assigned.clips).toMatchObject({ swim: 'idle', swim_fast: 'walk' });
    expect(assigned.borrowed).toEqual(['swim', 'swim_fast']);
    expect(assigned.sources.swim).toBe('fallback');
    // Only a walk in the file: every other state walks.
    const walkOnly = assignAvatarClips(planAvatarClips(['Walk']), []);
    expect(new Set(Object.values(walkOnly.clips))).toEqual(new Set(['Walk']));
    expect(walkOnly.borrowed).toEqual(['idle', 'run', 'jump', 'swim', 'swim_fast']);
    // Nothing anywhere: no state has a clip (the character stands in its bind pose).
    expect(assignAvatarClips(planAvatarClips([]), []).clips).toEqual({});
  });
});
