import { createWorld, parseAvatarHeight, showFatal, showNotice, type World } from '../src/world/index.ts';

/**
 * The world page. Modules wire themselves in through app/world-plugins/*.ts: each exports
 * `install(world)` and is picked up here without editing this file.
 */
interface WorldPlugin {
  install(world: World): void | Promise<void>;
}

const plugins = import.meta.glob<WorldPlugin>('./world-plugins/*.ts', { eager: true });

async function main(): Promise<void> {
  let world: World;
  const params = new URLSearchParams(location.search);
  const avatarHeight = parseAvatarHeight(params.get('avatarHeight'));
  try {
    world = await createWorld({
      avatar: params.get('avatar') ?? undefined,
      avatarOptions: { height: avatarHeight.ok ? avatarHeight.height : 'auto' },
    });
  } catch (error) {
    showFatal('Cairn cannot start', (error as Error).message);
    return;
  }
  if (!avatarHeight.ok) showNotice({ level: 'warn', title: 'Avatar height ignored', detail: avatarHeight.problem });
  for (const [path, plugin] of Object.entries(plugins)) {
    try {
      await plugin.install(world);
    } catch (error) {
      console.error(`world plugin ${path} failed to install`, error);
      showNotice({ level: 'error', title: `${path} failed`, detail: (error as Error).message });
    }
  }
}

void main();
