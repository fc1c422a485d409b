import { createWorld, installPlugins, showNotice, type World, type WorldPlugin } from '../src/world/index.ts';
import { pageFatal, pageStageOptions } from './cairn.ts';

/**
 * The world page. Modules wire themselves in through app/world-plugins/*.ts: each exports a
 * `plugin` (what it provides, needs and uses, and its install step) and is picked up here without
 * editing this file; the host orders them by those declarations. Leaving the page disposes the
 * world, and with it every plugin (sockets closed cleanly, so the others hear of it at once).
 */
const plugins = Object.values(import.meta.glob<{ plugin: WorldPlugin }>('./world-plugins/*.ts', { eager: true })).map((m) => m.plugin);

async function main(): Promise<void> {
  let world: World;
  try {
    world = await createWorld(pageStageOptions());
  } catch (error) {
    pageFatal('Cairn cannot start', (error as Error).message);
    return;
  }
  addEventListener('pagehide', () => world.dispose(), { once: true });
  for (const report of await installPlugins(world, plugins)) {
    if (report.status === 'installed') continue;
    console.error(`world plugin ${report.name} ${report.status}: ${report.reason}`);
    showNotice({
      level: 'error',
      title: `The ${report.name} module ${report.status === 'failed' ? 'failed to start' : 'is not installed'}`,
      detail: report.reason,
    });
  }
}

void main();
