import type { WorldServices } from './services.ts';
import type { World } from './world.ts';

/** What undoes a plugin's install (listeners, frame callbacks, DOM, services, sockets). */
export type WorldPluginDisposer = () => void;

/** A service key of the world's registry. */
export type ServiceKey = keyof WorldServices & string;

/**
 * How a module wires itself into a world: the services it provides, needs and uses, and the install
 * step, which returns what undoes it. The host orders plugins from these declarations (providers
 * before the plugins that need or use them), so no plugin depends on file names sorting right.
 *
 * ```ts
 * import type { WorldPlugin } from 'cairn-world/world';
 *
 * const clock: WorldPlugin = {
 *   name: 'clock',
 *   install(world) {
 *     let seconds = 0;
 *     const stop = world.onFrame((dt) => (seconds += dt));
 *     return () => {
 *       stop();
 *       console.log(`the clock ran ${seconds.toFixed(1)} s`);
 *     };
 *   },
 * };
 * if (clock.name !== 'clock') throw new Error('a plugin needs a name');
 * ```
 */
export interface WorldPlugin {
  /** Its name, for notices and to break ordering ties (e.g. 'net'). */
  readonly name: string;
  /** Services it provides: plugins that need or use them install after it. Default none. */
  readonly provides?: readonly ServiceKey[];
  /** Services it cannot work without: it installs after their providers, and not at all (with a notice) when none is installed. Default none. */
  readonly needs?: readonly ServiceKey[];
  /** Services it uses when they are there: it installs after their providers, if any. Default none. */
  readonly uses?: readonly ServiceKey[];
  /** Wires the module in; returns what undoes it, which `world.dispose()` calls (in reverse install order). */
  install(world: World): WorldPluginDisposer | void | Promise<WorldPluginDisposer | void>;
}

/** The outcome of {@link installPlugins}, per plugin. */
export interface PluginReport {
  /** The plugin's name. */
  name: string;
  /** Whether it was installed, failed while installing, or skipped (a service it needs has no provider). */
  status: 'installed' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  reason?: string;
}

/**
 * Orders `plugins` so that every provider of a service comes before each plugin that needs or
 * uses it; otherwise by name, so the order is the same on every machine. Throws on a cycle of
 * needs, naming the plugins in it.
 */
export function orderPlugins(plugins: readonly WorldPlugin[]): WorldPlugin[] {
  const byName = [...plugins].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const providers = new Map<ServiceKey, WorldPlugin[]>();
  for (const plugin of byName) for (const key of plugin.provides ?? []) providers.set(key, [...(providers.get(key) ?? []), plugin]);
  const ordered: WorldPlugin[] = [];
  const state = new Map<WorldPlugin, 'visiting' | 'done'>();
  const visit = (plugin: WorldPlugin, path: WorldPlugin[]): void => {
    const seen = state.get(plugin);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...path.slice(path.indexOf(plugin)), plugin].map((p) => p.name).join(' → ');
      throw new Error(`world plugins need each other in a cycle: ${cycle}`);
    }
    state.set(plugin, 'visiting');
    for (const key of [...(plugin.needs ?? []), ...(plugin.uses ?? [])])
      for (const provider of providers.get(key) ?? []) if (provider !== plugin) visit(provider, [...path, plugin]);
    state.set(plugin, 'done');
    ordered.push(plugin);
  };
  for (const plugin of byName) visit(plugin, []);
  return ordered;
}

/**
 * Installs `plugins` into `world` in {@link orderPlugins} order. A plugin whose needed service no
 * installed plugin provides is skipped; one whose install throws is reported and the rest go on.
 * Each disposer is registered with `world.onDispose`. Resolves with a report per plugin.
 */
export async function installPlugins(world: World, plugins: readonly WorldPlugin[]): Promise<PluginReport[]> {
  const reports: PluginReport[] = [];
  const provided = new Set<ServiceKey>();
  for (const plugin of orderPlugins(plugins)) {
    const missing = (plugin.needs ?? []).filter((key) => !provided.has(key) && world.services.get(key) === undefined);
    if (missing.length) {
      reports.push({ name: plugin.name, status: 'skipped', reason: `needs ${missing.join(', ')}, which no installed plugin provides` });
      continue;
    }
    try {
      const dispose = await plugin.install(world);
      if (dispose) world.onDispose(dispose);
      for (const key of plugin.provides ?? []) provided.add(key);
      reports.push({ name: plugin.name, status: 'installed' });
    } catch (error) {
      reports.push({ name: plugin.name, status: 'failed', reason: (error as Error).message });
    }
  }
  return reports;
}
