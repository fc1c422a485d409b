import { describe, expect, it } from 'vitest';
import { Mulberry32 } from '../../../src/core/rng.ts';
import { createMover, stepMover, type Mobility, type Mover } from '../../../bench/net/lib/mobility.ts';

// The world benchmark claims "144 walkers over 3×3 cells of 64 m = 16 per cell, the density of a
// 1,000-player world". That holds only if the walkers' motion keeps a uniform crowd uniform.
const region = { x0: -96, z0: -96, size: 192 };

function centreCount(movers: Mover[]): number {
  return movers.filter((m) => Math.abs(m.x) < 32 && Math.abs(m.z) < 32).length;
}

/** Mean walkers in the centre cell after `seconds`, over `seeds` crowds of 144. */
function meanCentre(mobility: Mobility, seconds: number, seeds = 24): number {
  let sum = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const rng = new Mulberry32(seed);
    const movers = Array.from({ length: 144 }, () => createMover(rng, region));
    const dt = 0.05;
    for (let t = 0; t < seconds; t += dt) for (const m of movers) stepMover(m, mobility, rng, region, dt, t * 1000);
    sum += centreCount(movers);
  }
  return sum / seeds;
}

describe('bench walkers: mobility', () => {
  it('heading mobility keeps the centre cell at the mean density (16 of 144 over 3×3)', () => {
    expect(meanCentre('heading', 0)).toBeGreaterThan(14.5);
    const later = meanCentre('heading', 20);
    expect(later).toBeGreaterThan(14.5);
    expect(later).toBeLessThan(17.5);
  });

  it('random waypoints gather the crowd in the centre (why heading is the default)', () => {
    // Measured: ~30 in the centre cell 11 s in, ~41 at 20 s, against 16 at the start.
    expect(meanCentre('waypoint', 20)).toBeGreaterThan(24);
  });

  it('stays inside the region and walks at its own speed', () => {
    const rng = new Mulberry32(3);
    const movers = Array.from({ length: 50 }, () => createMover(rng, region));
    let outside = 0;
    let tooLong = 0;
    let notUnit = 0;
    for (let t = 0; t < 120; t += 0.1) {
      for (const m of movers) {
        const x = m.x;
        const z = m.z;
        stepMover(m, 'heading', rng, region, 0.1, t * 1000);
        if (m.x < region.x0 + 1 || m.x > region.x0 + region.size - 1 || m.z < region.z0 + 1 || m.z > region.z0 + region.size - 1) outside++;
        // A bounce folds the step back; it never makes it longer.
        if (Math.hypot(m.x - x, m.z - z) > m.speed * 0.1 + 1e-9) tooLong++;
        if (Math.abs(Math.hypot(m.hx, m.hz) - 1) > 1e-9) notUnit++;
      }
    }
    // 120 s at ≥ 1.6 m/s is ≥ 192 m, more than the box: without the walls some would be outside.
    expect({ outside, tooLong, notUnit }).toEqual({ outside: 0, tooLong: 0, notUnit: 0 });
  });

  it('is deterministic from the seed', () => {
    const run = (): number[] => {
      const rng = new Mulberry32(11);
      const movers = Array.from({ length: 10 }, () => createMover(rng, region));
      for (let t = 0; t < 30; t += 0.05) for (const m of movers) stepMover(m, 'heading', rng, region, 0.05, t * 1000);
      return movers.flatMap((m) => [m.x, m.z]);
    };
    expect(run()).toEqual(run());
  });
});
