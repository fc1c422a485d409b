/**
 * Options merged over their defaults once, in the constructor: an option left out (or passed as
 * `undefined`) takes the default, so no `??` is needed where an option is used. Each class keeps
 * its defaults in one object next to its options interface, which is also where they are documented.
 *
 * ```ts
 * import { withDefaults } from 'cairn-world/core';
 *
 * interface GridOptions {
 *   /** Cell size in metres. Default 4. *\/
 *   cell?: number;
 *   label?: string;
 * }
 * const GRID_DEFAULTS: Required<GridOptions> = { cell: 4, label: 'grid' };
 * const options = withDefaults(GRID_DEFAULTS, { label: undefined, cell: 8 });
 * if (options.cell !== 8 || options.label !== 'grid') throw new Error('defaults not applied');
 * ```
 */
export function withDefaults<T extends object>(defaults: T, options: Partial<T> = {}): T {
  const resolved = { ...defaults };
  for (const key of Object.keys(options) as Array<keyof T>) {
    const value = options[key];
    if (value !== undefined) resolved[key] = value;
  }
  return resolved;
}
