/**
 * Which procedurally controlled avatars animate live (a ClipSampler writing their bones, per-frame
 * bone upload) and which stay on GPU animation, and how often a live avatar's pose is sampled.
 * Avatars without procedural control never come here: they are always GPU-animated. Decisions use hysteresis (separate enter and
 * exit distances plus a minimum dwell time) so an avatar at the boundary does not flip every
 * frame. Pure logic: no three.js, no DOM.
 */

import { withDefaults } from '../core/options.ts';
/** Options of the live/GPU LOD ({@link DEFAULT_LOD} has each default and why). */
export interface LodOptions {
  /** A visible controlled avatar closer than this (metres) becomes live. Default 20. */
  liveEnter?: number;
  /** A live avatar farther than this goes back to GPU animation. Must exceed `liveEnter`. Default 25. */
  liveExit?: number;
  /** Most avatars live at once (the live bone buffer's budget). Default 48. */
  maxLive?: number;
  /** Seconds an avatar stays in a mode before it may switch back. Default 0.6. */
  minDwell?: number;
  /** Live avatars this close are sampled every frame. Default 22. */
  fullRateDistance?: number;
  /** Each further band this wide (metres) adds one frame to the update interval. Default 4. */
  rateBand?: number;
  /** Longest interval (frames) for a visible live avatar. Default 4. */
  maxVisibleInterval?: number;
  /** Interval (frames) for a live avatar outside the view frustum. Default 12. */
  culledInterval?: number;
}

/** {@link LodOptions} with every default filled in. */
export type ResolvedLodOptions = Required<LodOptions>;

/**
 * Live is for avatars whose pose the CPU must touch (look-at, IK, a held item): within 20 m a
 * look-at reads; beyond it the GPU's clip is indistinguishable and costs nothing. A live pose
 * shows its last sample, so one sampled every 2nd frame steps at 30 Hz where the GPU path
 * interpolates every frame: up to 22 m (past `liveEnter`) a live pose is sampled every frame;
 * only on the way out, and off-screen (every 12th frame), does the rate fall.
 */
export const DEFAULT_LOD: ResolvedLodOptions = {
  liveEnter: 20,
  liveExit: 25,
  maxLive: 48,
  minDwell: 0.6,
  fullRateDistance: 22,
  rateBand: 4,
  maxVisibleInterval: 4,
  culledInterval: 12,
};

/** Fills defaults and checks the distances make sense. */
export function resolveLod(options: LodOptions = {}): ResolvedLodOptions {
  const lod = withDefaults(DEFAULT_LOD, options);
  if (!(lod.liveExit > lod.liveEnter))
    throw new RangeError(`LOD: liveExit (${lod.liveExit}) must be greater than liveEnter (${lod.liveEnter}) for hysteresis`);
  if (!(lod.maxLive >= 0) || !Number.isInteger(lod.maxLive))
    throw new RangeError(`LOD: maxLive must be a non-negative integer, got ${lod.maxLive}`);
  if (!(lod.minDwell >= 0)) throw new RangeError(`LOD: minDwell must be >= 0, got ${lod.minDwell}`);
  return lod;
}

/** What one avatar looks like to the planner. */
export interface LodCandidate {
  /** Distance from the camera (m). */
  distance: number;
  /** Inside the view frustum. */
  visible: boolean;
  /** Live now. */
  live: boolean;
  /** Seconds since its last switch. */
  dwell: number;
}

/**
 * Whether an avatar wants to be live, ignoring the budget: a visible avatar inside `liveEnter`
 * does; a live one stays until it is beyond `liveExit` (off-screen live avatars keep their slot
 * while still near, so turning around does not pop). Within `minDwell` of a switch nothing changes.
 */
export function wantsLive(c: LodCandidate, lod: ResolvedLodOptions): boolean {
  if (c.dwell < lod.minDwell) return c.live;
  if (c.live) return c.distance <= lod.liveExit;
  return c.visible && c.distance < lod.liveEnter;
}

/**
 * Decides the live set for this frame. Writes 1 (live) or 0 (baked) into `out` for the first
 * `count` candidates (default all; the caller may keep a longer, reused array).
 * When more avatars want to be live than `maxLive` allows, the nearest win; avatars already live
 * count as 20 % nearer, so two avatars at nearly the same distance do not trade places every frame.
 * Returns how many are live.
 */
export function planLive(
  candidates: ReadonlyArray<LodCandidate>,
  lod: ResolvedLodOptions,
  out: Uint8Array,
  count = candidates.length,
): number {
  let wanting = 0;
  for (let i = 0; i < count; i++) {
    const want = wantsLive(candidates[i]!, lod) ? 1 : 0;
    out[i] = want;
    wanting += want;
  }
  if (wanting <= lod.maxLive) return wanting;
  const order: number[] = [];
  for (let i = 0; i < count; i++) if (out[i]) order.push(i);
  const key = (i: number): number => candidates[i]!.distance * (candidates[i]!.live ? 0.8 : 1);
  order.sort((a, b) => key(a) - key(b));
  for (let k = lod.maxLive; k < order.length; k++) out[order[k]!] = 0;
  return lod.maxLive;
}

/**
 * How many frames apart a live avatar's pose is sampled: every frame up close, one more frame per
 * `rateBand` metres beyond `fullRateDistance` up to `maxVisibleInterval`, and `culledInterval`
 * when it is outside the view frustum.
 */
export function liveUpdateInterval(distance: number, visible: boolean, lod: ResolvedLodOptions): number {
  if (!visible) return lod.culledInterval;
  if (distance <= lod.fullRateDistance) return 1;
  const band = 1 + Math.ceil((distance - lod.fullRateDistance) / lod.rateBand);
  return Math.min(lod.maxVisibleInterval, band);
}

/**
 * Whether an avatar with this interval updates on `frame`. Avatars are staggered by `id` so a
 * crowd at interval 3 spreads its sampling evenly across three frames instead of bunching it.
 */
export function updateDue(frame: number, id: number, interval: number): boolean {
  return interval <= 1 || (frame + id) % interval === 0;
}
