import type { Services } from '../core/services.ts';
import type { BudgetCalibrator } from './budget-calibration.ts';

/**
 * Every service published on a stage, by key: `stage.services.provide(key, value)` publishes,
 * `stage.services.get(key)` finds (or `subscribe(key, fn)` when the provider may start later), with
 * no casts. The host declares only its own keys; each module declares its own from its own file by
 * declaration merging, next to the type the key holds, so the host names no module:
 * ```text
 * declare module '../world/services.ts' {
 *   interface WorldServices {
 *     /** Avatar sync (app/world-plugins/net.ts). *\/
 *     net: NetSession;
 *   }
 * }
 * ```
 * Each provided value is mirrored onto the page state (`cairn`) under the same key, for the console
 * and tests.
 */
export interface WorldServices {
  /** The crowd's GPU-budget calibration (idle baseline without the avatars' draws). */
  budgetCalibrator: BudgetCalibrator;
}

/** A stage's typed service registry. */
export type WorldServiceRegistry = Services<WorldServices>;
