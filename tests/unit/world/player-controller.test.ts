import { describe, expect, it } from 'vitest';
import { createPlayerState, stepPlayer, type Ground, type PlayerInput } from '../../../src/world/player/player-controller.ts';

const flat = (height = 5, waterLevel = 0): Ground => ({ sampleHeight: () => height, waterLevel, worldSize: 512 });
const none: PlayerInput = { forward: 0, right: 0, run: false, jump: false };

function simulate(ground: Ground, input: PlayerInput, yaw: number, seconds: number, start = createPlayerState(0, 0, ground)) {
  let state = start;
  for (let t = 0; t < seconds; t += 1 / 60) state = stepPlayer(state, input, yaw, ground, 1 / 60);
  return state;
}

describe('stepPlayer', () => {
  it('walks where the camera looks and faces that way (facing = atan2(wx, wz))', () => {
    const yaw = Math.PI / 2; // camera looks down +X
    const s = simulate(flat(), { ...none, forward: 1 }, yaw, 2);
    expect(s.x).toBeGreaterThan(2.5);
    expect(Math.abs(s.z)).toBeLessThan(0.01);
    expect(s.facing).toBeCloseTo(Math.PI / 2, 2);
    expect(s.state).toBe('walk');
  });

  it('strafes right relative to the camera', () => {
    const s = simulate(flat(), { ...none, right: 1 }, 0, 1);
    expect(s.x).toBeLessThan(-1); // camera looks +Z, so right is −X
  });

  it('runs faster than it walks', () => {
    const walk = simulate(flat(), { ...none, forward: 1 }, 0, 2);
    const run = simulate(flat(), { ...none, forward: 1, run: true }, 0, 2);
    expect(run.z).toBeGreaterThan(walk.z * 2);
    expect(run.state).toBe('run');
  });

  it('jumps and lands back on the ground', () => {
    const ground = flat(3);
    let s = stepPlayer(createPlayerState(0, 0, ground), { ...none, jump: true }, 0, ground, 1 / 60);
    expect(s.grounded).toBe(false);
    let peak = s.y;
    for (let i = 0; i < 120; i++) {
      s = stepPlayer(s, none, 0, ground, 1 / 60);
      peak = Math.max(peak, s.y);
    }
    expect(peak).toBeGreaterThan(3.8);
    expect(s.grounded).toBe(true);
    expect(s.y).toBe(3);
    expect(s.state).toBe('idle');
  });

  it('follows the terrain height and floats in deep water', () => {
    const slope: Ground = { sampleHeight: (x) => x * 0.2, waterLevel: -100, worldSize: 512 };
    const s = simulate(slope, { ...none, forward: 1 }, Math.PI / 2, 2);
    expect(s.y).toBeCloseTo(s.x * 0.2, 5);
    const deep = simulate(flat(-5, 0), none, 0, 0.5);
    expect(deep.y).toBeCloseTo(-1.25);
    expect(deep.state).toBe('swim');
  });

  it('stays inside the map', () => {
    const s = simulate(flat(), { ...none, forward: 1, run: true }, 0, 80);
    expect(s.z).toBeLessThanOrEqual(255);
  });
});
