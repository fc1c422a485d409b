import { Vector3 } from 'three';
import type { XZ } from '../core/math.ts';
import { createEnvironment, type Environment } from './environment.ts';
import { KeyboardInput } from './player/keyboard.ts';
import { PlaceholderCharacter, type PlayerCharacter } from './player/player-character.ts';
import { createPlayerState, stepPlayer, type PlayerState } from './player/player-controller.ts';
import { CameraRig } from './camera-rig.ts';
import { createStage, type Stage, type StageOptions } from './stage.ts';
import { generateTerrain, LANDMARKS } from './terrain/generate.ts';
import type { Heightmap } from './terrain/heightmap.ts';
import { SlowFrameWatch } from './terrain/slow-frames.ts';
import { TERRAIN_ANISOTROPY, terrainAnisotropyFor, type TerrainMaterial } from './terrain/terrain-material.ts';
import { Terrain } from './terrain/terrain-mesh.ts';

/** Options of {@link createWorld}: the stage's, and the world's own. */
export interface WorldOptions extends StageOptions {
  /** Terrain noise seed. Default 1. */
  seed?: number;
  /** Where the player starts (x, z). Default: the spawn landmark. */
  spawn?: XZ;
  /**
   * The player's character. Default a {@link PlaceholderCharacter} (a capsule); Cairn's world page
   * sets the avatar module's humanoid or the visitor's own file.
   */
  character?: PlayerCharacter;
}

/** The local player: controller state, its character, and the keyboard that drives it. */
export interface Player {
  /** The controller state: position, velocity, facing, what the player is doing. */
  state: PlayerState;
  /** The character drawn for the player (change it with {@link setCharacter}). */
  readonly character: PlayerCharacter;
  /**
   * Draws `character` for the player from the next frame; the one drawn before is removed from the
   * scene and disposed.
   */
  setCharacter(character: PlayerCharacter): void;
  /** The keyboard that drives the player. */
  input: KeyboardInput;
  /** When false the keyboard is ignored (menus, tools that capture keys). */
  enabled: boolean;
}

/** Cairn's open world: a stage with terrain, sky, water, sun and a walking third-person player. */
export interface World extends Stage {
  /** Terrain heights and normals, for anything that stands on the ground. */
  heightmap: Heightmap;
  /** The visible ground: chunks the camera culls, one material (and the detail texture it owns). */
  terrain: Terrain;
  /** Sky, sun, fill light, fog and water. */
  environment: Environment;
  /** The local player. */
  player: Player;
  /** The third-person camera that follows the player. */
  cameraRig: CameraRig;
}

/**
 * Builds the world shell and starts its frame loop. Modules extend it through `onFrame`,
 * `hud.addSection` and `scene`; pages publish it as `window.cairn.world`.
 */
export async function createWorld(options: WorldOptions = {}): Promise<World> {
  const stage = await createStage(options);
  const heightmap = generateTerrain({ seed: options.seed ?? 1 });
  const terrain = new Terrain(heightmap, { anisotropy: terrainAnisotropyFor(stage.status) });
  stage.scene.add(terrain.object);
  stage.cairn.stats.terrain = {
    anisotropy: terrain.material.detail.anisotropy,
    why: stage.status.software ? `software rasteriser (${stage.status.adapter})` : 'GPU',
  };
  if (!stage.status.software) watchForSoftware(stage, terrain.material);
  const environment = createEnvironment(stage.scene, heightmap.waterLevel, heightmap.worldSize);

  const spawn = options.spawn ?? LANDMARKS.spawn;
  let character: PlayerCharacter = options.character ?? new PlaceholderCharacter();
  stage.scene.add(character.object);
  const player: Player = {
    state: createPlayerState(spawn.x, spawn.z, heightmap),
    get character() {
      return character;
    },
    setCharacter(next) {
      if (next === character) return;
      character.dispose();
      character = next;
      stage.scene.add(next.object);
      next.update(player.state, 0);
    },
    input: new KeyboardInput(),
    enabled: true,
  };
  const cameraRig = new CameraRig(stage.camera, stage.canvas);
  const focus = new Vector3();
  const idle = { forward: 0, right: 0, run: false, jump: false };

  stage.onFrame((dt) => {
    const input = player.enabled ? player.input.read() : idle;
    player.state = stepPlayer(player.state, input, cameraRig.yaw, heightmap, dt);
    character.update(player.state, dt);
    focus.set(player.state.x, player.state.y, player.state.z);
    cameraRig.update(focus, (x, z) => heightmap.sampleHeight(x, z));
    environment.follow(focus);
    const s = player.state;
    stage.cairn.stats.player = {
      x: s.x,
      y: s.y,
      z: s.z,
      facing: s.facing,
      speed: s.speed,
      state: s.state,
      clip: character.clipName,
    };
  });
  stage.hud?.addSection('player', {
    title: 'Player',
    rows: () => {
      const s = player.state;
      return [
        { label: 'position', value: `${s.x.toFixed(1)}, ${s.y.toFixed(1)}, ${s.z.toFixed(1)}` },
        { label: 'state', value: character.clipName ? `${s.state} (${character.clipName})` : s.state },
        { label: 'speed', value: `${s.speed.toFixed(2)} m/s` },
        ...(character.hudRows?.() ?? []),
      ];
    },
  });

  const world: World = Object.assign(stage, { heightmap, terrain, environment, player, cameraRig });
  stage.onDispose(() => {
    player.input.dispose();
    character.dispose();
    cameraRig.dispose();
    environment.dispose();
    terrain.dispose();
  });
  Object.assign(stage.cairn, { world, player, heightmap });
  stage.start();
  return world;
}

/**
 * Drops the ground's anisotropic filtering once frames show a software rasteriser the adapter's
 * name hid (WebKit says "Apple GPU" for llvmpipe too): there it costs a frame seconds.
 */
function watchForSoftware(stage: Stage, material: TerrainMaterial): void {
  const watch = new SlowFrameWatch();
  let last = Number.NaN;
  const stop = stage.afterRender(() => {
    const now = performance.now();
    const tripped = !Number.isNaN(last) && watch.observe(now - last);
    last = now;
    if (tripped) {
      material.setDetailAnisotropy(TERRAIN_ANISOTROPY.software);
      stage.cairn.stats.terrain = {
        anisotropy: TERRAIN_ANISOTROPY.software,
        why: `frames took ${Math.round(watch.trippedAtMs!)} ms: drawn in software`,
      };
    }
    if (!watch.watching) stop();
  });
}
