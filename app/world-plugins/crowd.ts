/**
 * The crowd in the open world. `?crowd=N` adds N synthetic peers walking, idling and dancing
 * around the player (default none, so the world stays cheap). Remote players (the net module)
 * go through the `crowdRemotes` service, `update(avatarId, { x, y, z, facing, clip })`: that
 * registry is provided from the start, the crowd renderer is built once the world has drawn its
 * first frames, and updates arriving before then are dropped (counted in its `dropped`), never
 * dereferenced — the next update creates the avatar.
 */
import { pageBonePath } from '../cairn.ts';
import { MAX_SYNTHETIC_PEERS, RemoteAvatars, StageCrowd } from '../../src/crowd/index.ts';
import { showNotice, type World, type WorldPlugin } from '../../src/world/index.ts';

export const plugin: WorldPlugin = { name: 'crowd', provides: ['crowdRemotes', 'stageCrowd'], install };

function install(world: World): () => void {
  let stageCrowd: StageCrowd | null = null;
  let disposed = false;
  // Keyed by the net module's avatar ids.
  const remotes = new RemoteAvatars<number>();
  const withdrawRemotes = world.services.provide('crowdRemotes', remotes);
  const requested = Number(new URLSearchParams(location.search).get('crowd') ?? 0);
  const count = Number.isFinite(requested) ? Math.min(MAX_SYNTHETIC_PEERS, Math.max(0, Math.round(requested))) : 0;
  const spawn = world.player.state;
  const build = (): void => {
    if (disposed) return;
    try {
      stageCrowd = new StageCrowd(world, {
        heightmap: world.heightmap,
        peers: { seed: 11, centerX: spawn.x, centerZ: spawn.z, radius: 45 },
        count,
        remotes,
        hudWhenActive: true,
        path: pageBonePath(),
      });
      world.services.provide('stageCrowd', stageCrowd);
    } catch (error) {
      showNotice({ level: 'error', title: 'The crowd could not start', detail: (error as Error).message });
    }
  };
  // Built after the world's first frames so it never delays them; at once when asked for peers.
  if (count > 0) build();
  else void world.frames(2).then(build);
  return () => {
    disposed = true;
    withdrawRemotes();
    stageCrowd?.dispose();
  };
}
