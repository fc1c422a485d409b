/**
 * How the world benchmark's walkers move inside their region (pure: no sockets, no clock of its
 * own), so the density a run claims can be checked without running one
 * (tests/unit/net/bench-mobility.test.ts).
 */
import type { Mulberry32 } from '../../../src/core/rng.ts';

/**
 * - `'heading'` (default): straight lines on a random heading, bouncing off the region's edges
 *   like a billiard ball, turning to a new random heading every 4–16 s. A uniform crowd stays
 *   uniform (reflection and turning both keep the uniform density), so every cell holds the
 *   density the run claims for as long as it runs.
 * - `'waypoint'`: to a random point, then the next (the classic random-waypoint model). Paths
 *   cross the middle more often than the edges, so the crowd gathers in the centre over time.
 */
export type Mobility = 'heading' | 'waypoint';

export interface Region {
  x0: number;
  z0: number;
  size: number;
}

/** One walker's motion: position, heading and (for waypoints) target. */
export interface Mover {
  x: number;
  z: number;
  /** Unit heading (x, z): where it walks now. */
  hx: number;
  hz: number;
  /** Waypoint mobility: where it is walking to. */
  tx: number;
  tz: number;
  /** Heading mobility: ms (on the caller's clock) of its next turn. */
  turnAt: number;
  /** m/s. */
  speed: number;
}

/** Points and walls keep this far (m) inside the region. */
const INSET = 1;
/** Heading mobility turns after a random 4–16 s. */
const TURN_MS = [4000, 16_000] as const;

/** A random point inside the region (1 m inset). */
function randomPoint(rng: Mulberry32, region: Region): { x: number; z: number } {
  return { x: region.x0 + rng.range(INSET, region.size - INSET), z: region.z0 + rng.range(INSET, region.size - INSET) };
}

/** A walker at a uniform random point, walking at 1.6–4.8 m/s; it picks its heading on its first step. */
export function createMover(rng: Mulberry32, region: Region): Mover {
  const at = randomPoint(rng, region);
  const target = randomPoint(rng, region);
  return { x: at.x, z: at.z, hx: 0, hz: 1, tx: target.x, tz: target.z, turnAt: Number.NEGATIVE_INFINITY, speed: rng.range(1.6, 4.8) };
}

/** Moves `m` by `dt` seconds at time `now` (ms). */
export function stepMover(m: Mover, mobility: Mobility, rng: Mulberry32, region: Region, dt: number, now: number): void {
  if (mobility === 'heading') {
    if (now >= m.turnAt) {
      const angle = rng.range(0, Math.PI * 2);
      m.hx = Math.sin(angle);
      m.hz = Math.cos(angle);
      m.turnAt = now + rng.range(TURN_MS[0], TURN_MS[1]);
    }
    const step = m.speed * dt;
    m.x += m.hx * step;
    m.z += m.hz * step;
    // Reflect off the walls (a step is centimetres; a region is tens of metres across). Scalars,
    // not point objects: this runs for every walker every 5 ms beside the clients it drives.
    const x0 = region.x0 + INSET;
    const x1 = region.x0 + region.size - INSET;
    const z0 = region.z0 + INSET;
    const z1 = region.z0 + region.size - INSET;
    if (m.x < x0 || m.x > x1) {
      m.x = 2 * (m.x < x0 ? x0 : x1) - m.x;
      m.hx = -m.hx;
    }
    if (m.z < z0 || m.z > z1) {
      m.z = 2 * (m.z < z0 ? z0 : z1) - m.z;
      m.hz = -m.hz;
    }
    return;
  }
  const dx = m.tx - m.x;
  const dz = m.tz - m.z;
  const d = Math.hypot(dx, dz);
  if (d < 1) {
    const next = randomPoint(rng, region);
    m.tx = next.x;
    m.tz = next.z;
    return;
  }
  const step = Math.min(d, m.speed * dt);
  m.x += (dx / d) * step;
  m.z += (dz / d) * step;
  m.hx = dx / d;
  m.hz = dz / d;
}
