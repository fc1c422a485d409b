import { parseAvatarHeight } from '../../src/avatar/avatar-height.ts';
import { avatarNotice } from '../../src/avatar/avatar-report.ts';
import { PlayerAvatar } from '../../src/avatar/player-avatar.ts';
import { showNotice, type World, type WorldPlugin } from '../../src/world/index.ts';

/**
 * The player's character: Cairn's humanoid, or the visitor's own file with `?avatar=URL` (glTF, GLB,
 * FBX: its clips where their names match, the library retargeted onto it for the rest), sized to a
 * person when its file's size is implausible (`&avatarHeight=auto|file|1.8`). The humanoid walks
 * while the file loads, and stays (a notice says why) when the file is refused. Publishes the
 * `avatar` service and `cairn.stats.avatar`.
 */
export const plugin: WorldPlugin = { name: 'avatar', provides: ['avatar'], install };

function install(world: World): () => void {
  const params = new URLSearchParams(location.search);
  const height = parseAvatarHeight(params.get('avatarHeight'));
  if (!height.ok) showNotice({ level: 'warn', title: 'Avatar height ignored', detail: height.problem });
  const avatar = new PlayerAvatar({ height: height.ok ? height.height : 'auto' });
  world.cairn.stats.avatar = avatar.stats;
  const offStatus = avatar.on('status', ({ stats, notes }) => {
    world.cairn.stats.avatar = stats;
    const notice = avatarNotice(stats, notes);
    if (notice) showNotice(notice);
  });
  world.player.setCharacter(avatar);
  const withdraw = world.services.provide('avatar', avatar);
  const url = params.get('avatar');
  if (url) void avatar.load(url);
  return () => {
    offStatus();
    withdraw();
  };
}
