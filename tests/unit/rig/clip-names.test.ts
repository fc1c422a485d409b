/**
 * Which file clip plays which state, from clip names as real exporters and packs write them. Every
 * name below comes from a real file: the corpus in tests/fixtures/import (see its README), or public
 * projects that load these packs (named beside each group).
 */
import { describe, expect, it } from 'vitest';
import { clipBaseName, formatClipStates, isPlaceholderClipName, matchClipStates, type ClipState } from '../../../src/rig/clip-names.ts';

/** [clip names of one file, the state → clip map expected]. */
const FILES: Array<[string, readonly string[], Partial<Record<ClipState, string>>]> = [
  // A Mixamo rig re-exported from Blender (the rig: three clips, each `Armature|Armature|<name>_Armature`).
  [
    'Blender export of a Mixamo rig',
    ['Armature|Armature|idle_Armature', 'Armature|Armature|walk_Armature', 'Armature|Armature|run_Armature'],
    { idle: 'Armature|Armature|idle_Armature', walk: 'Armature|Armature|walk_Armature', run: 'Armature|Armature|run_Armature' },
  ],
  ['Blender, one action per clip', ['Armature|walk', 'Armature|idle'], { idle: 'Armature|idle', walk: 'Armature|walk' }],
  // Quaternius farm animals as a game loads them (cow.glb): a slow walk is no walk.
  [
    'Blender, nested armature',
    ['Armature|Armature|Idle', 'Armature|Armature|WalkSlow', 'Armature|Armature|Jump'],
    { idle: 'Armature|Armature|Idle', jump: 'Armature|Armature|Jump' },
  ],
  [
    'Blender, an armature repeated in the action',
    ['Armature|Armature|Armature|Walk|Armature|Walk'],
    { walk: 'Armature|Armature|Armature|Walk|Armature|Walk' },
  ],
  // Quaternius's Ultimate packs: `CharacterArmature|…`; spiders die, they do not idle.
  [
    'Quaternius CharacterArmature',
    ['CharacterArmature|Idle', 'CharacterArmature|Run', 'CharacterArmature|Walk', 'CharacterArmature|Wave'],
    { idle: 'CharacterArmature|Idle', walk: 'CharacterArmature|Walk', run: 'CharacterArmature|Run', wave: 'CharacterArmature|Wave' },
  ],
  [
    'Quaternius creature',
    ['SpiderArmature|SpiderArmature|Spider_Death', 'SpiderArmature|SpiderArmature|Spider_Walk'],
    { walk: 'SpiderArmature|SpiderArmature|Spider_Walk' },
  ],
  // The three.js robot (tests/fixtures/import/robot-expressive.glb).
  [
    'Quaternius robot',
    ['Dance', 'Death', 'Idle', 'Jump', 'No', 'Punch', 'Running', 'Sitting', 'Standing', 'ThumbsUp', 'Walking', 'WalkJump', 'Wave', 'Yes'],
    { idle: 'Idle', walk: 'Walking', run: 'Running', jump: 'Jump', dance: 'Dance', wave: 'Wave' },
  ],
  // Quaternius's Universal Animation Library (CC0): loops, directions, and look-alikes that are not the state;
  // the airborne loop is the jump (the state lasts as long as the player is in the air).
  [
    'Quaternius UAL',
    [
      'Idle_LookAround_Loop',
      'Idle_Loop',
      'Walk_Formal_Loop',
      'Walk_Loop',
      'Jog_Bwd_Loop',
      'Jog_Fwd_Loop',
      'Sprint_Loop',
      'Jump_Start',
      'Jump_Loop',
      'Swim_Idle_Loop',
      'Swim_Fwd_Loop',
      'Crouch_Idle_Loop',
    ],
    { idle: 'Idle_Loop', walk: 'Walk_Loop', run: 'Jog_Fwd_Loop', jump: 'Jump_Loop', swim: 'Swim_Idle_Loop', swim_fast: 'Swim_Fwd_Loop' },
  ],
  [
    'Quaternius Idle_Neutral',
    ['Idle_Neutral', 'Idle_Sword', 'Run', 'Run_Back', 'Walk'],
    { idle: 'Idle_Neutral', walk: 'Walk', run: 'Run' },
  ],
  // Quaternius's FBX characters in the corpus: a shared first word is the character.
  [
    'Quaternius zombie',
    ['Zombie|ZombieRun', 'Zombie|ZombieBite', 'Zombie|ZombieCrawl', 'Zombie|ZombieWalk', 'Zombie|ZombieIdle'],
    { idle: 'Zombie|ZombieIdle', walk: 'Zombie|ZombieWalk', run: 'Zombie|ZombieRun' },
  ],
  [
    'Quaternius Male_Casual',
    [
      'HumanArmature|Man_Walk',
      'HumanArmature|Man_Run',
      'HumanArmature|Man_Idle',
      'HumanArmature|Man_Jump',
      'HumanArmature|Man_RunningJump',
    ],
    { idle: 'HumanArmature|Man_Idle', walk: 'HumanArmature|Man_Walk', run: 'HumanArmature|Man_Run', jump: 'HumanArmature|Man_Jump' },
  ],
  // Unity's FBX takes from Meshy / Mixamo-through-Blender: `|baselayer`, a `man` in the walk.
  [
    'Unity baselayer takes',
    [
      'Armature|Armature|Idle_03|baselayer',
      'Armature|Armature|walking_man|baselayer',
      'Armature|Armature|running|baselayer',
      'Armature|Armature|Regular_Jump|baselayer',
    ],
    {
      idle: 'Armature|Armature|Idle_03|baselayer',
      walk: 'Armature|Armature|walking_man|baselayer',
      run: 'Armature|Armature|running|baselayer',
      jump: 'Armature|Armature|Regular_Jump|baselayer',
    },
  ],
  // Unreal: asset prefixes A_, Anim_, MM_ (the UE5 mannequin), directions, a backward walk that is no walk.
  [
    'Unreal A_',
    ['A_Idle', 'A_Walk_Bwd', 'A_Walk_Fwd', 'A_Run_Fwd', 'A_Jump'],
    { idle: 'A_Idle', walk: 'A_Walk_Fwd', run: 'A_Run_Fwd', jump: 'A_Jump' },
  ],
  ['Unreal Anim_', ['Anim_Idle', 'Anim_Jog_Fwd', 'Anim_Jump_Start'], { idle: 'Anim_Idle', run: 'Anim_Jog_Fwd', jump: 'Anim_Jump_Start' }],
  [
    'UE5 mannequin',
    ['MM_Idle', 'MM_Walk_Fwd', 'MM_Run_Fwd', 'MM_Jump', 'MM_Fall_Loop', 'MM_Land'],
    { idle: 'MM_Idle', walk: 'MM_Walk_Fwd', run: 'MM_Run_Fwd', jump: 'MM_Jump' },
  ],
  // KayKit (Kay Lousberg, CC0): variants A and B; the first one plays.
  [
    'KayKit variants',
    ['Idle', 'Walking_A', 'Walking_B', 'Running_A', 'Jump_Full_Short'],
    { idle: 'Idle', walk: 'Walking_A', run: 'Running_A' },
  ],
  // VRoid / VRM animation: `VRMA_` is a prefix (VRoid's own pack numbers its emotes, which are no state).
  ['VRM animation', ['VRMA_Idle', 'VRMA_Walk', 'VRMA_01', 'VRMA_02'], { idle: 'VRMA_Idle', walk: 'VRMA_Walk' }],
];

describe('reading clip names', () => {
  it.each(FILES)('%s', (_what, names, expected) => {
    expect(matchClipStates(names)).toEqual(expected);
  });

  it('knows an exporter placeholder from a name: Mixamo takes, Blender layers, VRM animation, takes', () => {
    for (const name of [
      'mixamo.com',
      'Armature|mixamo.com|Layer0',
      'Armature|Armature|mixamo.com|Layer0',
      'Take 001',
      'Scene',
      'animation',
    ])
      expect(isPlaceholderClipName(name), name).toBe(true);
    for (const name of ['Armature|Armature|walk_Armature', 'VRMA_01', 'Idle', 'Zombie|ZombieIdle'])
      expect(isPlaceholderClipName(name), name).toBe(false);
    expect(clipBaseName('Armature|Armature|walk_Armature')).toBe('walk');
    expect(clipBaseName('SpiderArmature|SpiderArmature|Spider_Death')).toBe('spider death');
  });

  it('gives each clip to one state at most, and takes a studio’s own names first', () => {
    expect(matchClipStates(['Standing'], ['idle', 'jump'])).toEqual({ idle: 'Standing' });
    expect(matchClipStates(['Loco_Walk_F', 'walk'], ['walk'], { walk: ['Loco_Walk_F'] })).toEqual({ walk: 'Loco_Walk_F' });
    expect(matchClipStates(['walk'], ['walk', 'run'], { run: ['walk'] })).toEqual({ walk: 'walk' });
  });

  it('says the map in words, with what is missing', () => {
    const states = ['idle', 'walk', 'swim'] as const;
    expect(formatClipStates(states, { idle: 'Idle', walk: 'walk_fwd' }, { walk: 'library' })).toBe(
      'idle ← Idle, walk ← walk_fwd (library); no clip for swim',
    );
  });
});
