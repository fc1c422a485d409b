import { describe, expect, it } from 'vitest';
import { FootstepTracker, type MovementSound, type MoverState } from '../../../src/audio/footstep-tracker.ts';
import { surfaceAt, surfaceForBiome, type SurfaceGround } from '../../../src/audio/surfaces.ts';
import { createPlayerState, stepPlayer, type Ground, type PlayerInput } from '../../../src/world/player/player-controller.ts';
import { generateTerrain, LANDMARKS } from '../../../src/world/terrain/generate.ts';

const still: MoverState = { x: 0, y: 0, z: 0, vy: 0, speed: 0, grounded: true, state: 'idle' };

/** Moves along +X at `speed` for `seconds` in 60 Hz frames; returns every sound. */
function walk(tracker: FootstepTracker, speed: number, seconds: number, state: MoverState['state'], start = 0): MovementSound[] {
  const sounds: MovementSound[] = [];
  let x = start;
  for (let t = 0; t < seconds; t += 1 / 60) {
    x += speed / 60;
    sounds.push(...tracker.update({ ...still, x, speed, state }, 'grass'));
  }
  return sounds;
}

describe('surfaces', () => {
  it('maps every biome to a footstep surface', () => {
    expect(surfaceForBiome('meadow')).toBe('grass');
    expect(surfaceForBiome('forest-floor')).toBe('leaves');
    expect(surfaceForBiome('rock')).toBe('stone');
    expect(surfaceForBiome('seabed')).toBe('water');
  });

  it('reads the ground of the real terrain: grass at the spawn, stone on the cliff, sand on the beach, water in the lake', () => {
    const terrain = generateTerrain({ seed: 1 });
    expect(surfaceAt(terrain, LANDMARKS.spawn.x, LANDMARKS.spawn.z)).toBe('grass');
    expect(surfaceAt(terrain, LANDMARKS.cliff.x, LANDMARKS.cliff.z)).toBe('stone');
    expect(surfaceAt(terrain, LANDMARKS.beach.x, LANDMARKS.beach.z)).toBe('sand');
    expect(surfaceAt(terrain, LANDMARKS.lake.x, LANDMARKS.lake.z)).toBe('water');
  });

  it('is water wherever the ground is under the surface, whatever its slope', () => {
    const ground: SurfaceGround = { sampleHeight: () => -0.1, sampleSlope: () => 60, waterLevel: 0 };
    expect(surfaceAt(ground, 0, 0)).toBe('water');
  });
});

describe('FootstepTracker', () => {
  it('steps once per stride: 0.75 m walking, 1.3 m running', () => {
    const walking = walk(new FootstepTracker(), 1.6, 6, 'walk');
    // 9.6 m: the first step after 0.3 m, then every 0.75 m.
    expect(walking).toHaveLength(13);
    expect(walking.every((s) => s.recipe === 'footstep' && s.surface === 'grass' && s.intensity === 1)).toBe(true);
    const running = walk(new FootstepTracker(), 4.8, 6, 'run');
    expect(running.length).toBeGreaterThanOrEqual(21);
    expect(running.length).toBeLessThanOrEqual(23);
    expect(running.every((s) => s.recipe === 'footstep' && s.intensity === 1.3)).toBe(true);
  });

  it('is silent standing still and strokes (water) when swimming', () => {
    const tracker = new FootstepTracker();
    for (let i = 0; i < 120; i++) expect(tracker.update(still, 'grass')).toEqual([]);
    const strokes = walk(new FootstepTracker(), 1.6, 3, 'swim');
    expect(strokes.length).toBeGreaterThanOrEqual(4);
    expect(strokes.every((s) => s.recipe === 'footstep' && s.surface === 'water')).toBe(true);
  });

  it('does not step for a teleport', () => {
    const tracker = new FootstepTracker();
    tracker.update({ ...still, state: 'walk', speed: 1.6 }, 'grass');
    expect(tracker.update({ ...still, x: 100, state: 'walk', speed: 1.6 }, 'sand')).toEqual([]);
  });

  it('pushes off on a jump and lands with the fall speed, on the real player controller', () => {
    const ground: Ground = { sampleHeight: () => 2, waterLevel: 0, worldSize: 512 };
    const tracker = new FootstepTracker();
    let state = createPlayerState(0, 0, ground);
    const input: PlayerInput = { forward: 0, right: 0, run: false, jump: true };
    const sounds: MovementSound[] = [];
    for (let frame = 0; frame < 90; frame++) {
      state = stepPlayer(state, frame === 1 ? input : { ...input, jump: false }, 0, ground, 1 / 60);
      sounds.push(...tracker.update(state, 'stone'));
    }
    expect(sounds.map((s) => s.recipe)).toEqual(['jump', 'land']);
    const land = sounds[1] as Extract<MovementSound, { recipe: 'land' }>;
    expect(land.surface).toBe('stone');
    // Jumping at 6.2 m/s under 20 m/s² comes down at about the same speed.
    expect(land.impact).toBeGreaterThan(5.5);
    expect(land.impact).toBeLessThan(7);
  });
});
