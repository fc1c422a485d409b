import { Vector3, type Mesh } from 'three';
import { createEnvironment, type Environment } from './environment.ts';
import { KeyboardInput } from './player/keyboard.ts';
import { avatarNotice } from './player/avatar-report.ts';
import { PlayerAvatar, type PlayerAvatarOptions } from './player/player-avatar.ts';
import type { HudRow } from './hud.ts';
import { showNotice } from './notices.ts';
import { createPlayerState, stepPlayer, type PlayerState } from './player/player-controller.ts';
import { CameraRig } from './camera-rig.ts';
import { createStage, type Stage, type StageOptions } from './stage.ts';
import { generateTerrain, LANDMARKS } from './terrain/generate.ts';
import type { Heightmap } from './terrain/heightmap.ts';
import { createTerrainMesh } from './terrain/terrain-mesh.ts';

export interface WorldOptions extends StageOptions {
  /** Terrain noise seed. Default 1. */
  seed?: number;
  /** Where the player starts (x, z). Default: the spawn landmark. */
  spawn?: { x: number; z: number };
  /**
   * The player's character: a model URL (.glb, .gltf, .fbx) loaded after start through the import
   * layer, with Cairn's clip library retargeted onto it for the states its file has no clip for.
   * The built-in humanoid plays meanwhile, and stays if the file is refused (a notice says why).
   * The world page reads it from `?avatar=`. Default none: the built-in humanoid.
   */
  avatar?: string;
  /** How the player's character is built and sized (its height policy, clip names). Default: the defaults of {@link PlayerAvatarOptions}. */
  avatarOptions?: PlayerAvatarOptions;
}

/** The local player: controller state, its character, and the keyboard that drives it. */
export interface Player {
  state: PlayerState;
  avatar: PlayerAvatar;
  input: KeyboardInput;
  /** When false the keyboard is ignored (menus, tools that capture keys). */
  enabled: boolean;
}

/** Cairn's open world: a stage with terrain, sky, water, sun and a walking third-person player. */
export interface World extends Stage {
  heightmap: Heightmap;
  terrain: Mesh;
  environment: Environment;
  player: Player;
  cameraRig: CameraRig;
}

/**
 * Builds the world shell and starts its frame loop. Modules extend it through `onFrame`,
 * `hud.addSection` and `scene`; pages publish it as `window.cairn.world`.
 */
export async function createWorld(options: WorldOptions = {}): Promise<World> {
  const stage = await createStage(options);
  const heightmap = generateTerrain({ seed: options.seed ?? 1 });
  const terrain = createTerrainMesh(heightmap);
  stage.scene.add(terrain);
  const environment = createEnvironment(stage.scene, heightmap.waterLevel, heightmap.worldSize);

  const spawn = options.spawn ?? LANDMARKS.spawn;
  const avatar = new PlayerAvatar(options.avatarOptions);
  stage.scene.add(avatar.object);
  avatar.on('status', ({ stats, notes }) => {
    const notice = avatarNotice(stats, notes);
    if (notice) showNotice(notice);
  });
  const player: Player = { state: createPlayerState(spawn.x, spawn.z, heightmap), avatar, input: new KeyboardInput(), enabled: true };
  const cameraRig = new CameraRig(stage.camera, stage.canvas);
  const focus = new Vector3();
  const idle = { forward: 0, right: 0, run: false, jump: false };

  stage.onFrame((dt) => {
    const input = player.enabled ? player.input.read() : idle;
    player.state = stepPlayer(player.state, input, cameraRig.yaw, heightmap, dt);
    avatar.update(player.state, dt);
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
      clip: avatar.clipName,
      avatar: avatar.stats,
    };
  });
  stage.hud?.addSection('player', {
    title: 'Player',
    rows: () => {
      const s = player.state;
      return [
        { label: 'position', value: `${s.x.toFixed(1)}, ${s.y.toFixed(1)}, ${s.z.toFixed(1)}` },
        { label: 'state', value: `${s.state} (${avatar.clipName})` },
        { label: 'speed', value: `${s.speed.toFixed(2)} m/s` },
        avatarRow(avatar),
      ];
    },
  });

  const world: World = Object.assign(stage, { heightmap, terrain, environment, player, cameraRig });
  const baseDispose = stage.dispose;
  world.dispose = () => {
    baseDispose();
    player.input.dispose();
    avatar.dispose();
    cameraRig.dispose();
    environment.dispose();
    terrain.geometry.dispose();
  };
  Object.assign(stage.cairn, { world, player, heightmap });
  stage.start();
  if (options.avatar) void avatar.load(options.avatar);
  return world;
}

/** The HUD's avatar row: what is drawn, or what is loading or was refused. */
function avatarRow(avatar: PlayerAvatar): HudRow {
  const a = avatar.stats;
  if (a.status === 'loading') return { label: 'avatar', value: `loading ${a.source}…` };
  if (a.status === 'failed') return { label: 'avatar', value: `${a.name} (${a.reason ?? 'failed'})`, tone: 'warn' };
  return {
    label: 'avatar',
    value: `${a.name}, ${a.height.toFixed(2)} m${a.retargeted.length ? `, ${a.retargeted.length} clips retargeted` : ''}`,
  };
}
