import { describe, expect, it } from 'vitest';
import { SWIM_RIG_OFFSETS } from '../../../src/anim/library/movement.ts';
import { PlayerAvatar } from '../../../src/avatar/player-avatar.ts';
import type { PlayerState } from '../../../src/world/player/player-controller.ts';

function state(overrides: Partial<PlayerState>): PlayerState {
  return { x: 0, y: 5, z: 0, facing: 0, vx: 0, vy: 0, vz: 0, speed: 0, grounded: true, state: 'idle', ...overrides };
}

function run(avatar: PlayerAvatar, s: PlayerState, seconds: number): void {
  for (let t = 0; t < seconds; t += 1 / 30) avatar.update(s, 1 / 30);
}

describe('PlayerAvatar', () => {
  it('treads water when swimming slowly, crawls when swimming fast, and sits in the water by the clip offset', () => {
    const avatar = new PlayerAvatar({ detail: 'low' });
    run(avatar, state({ state: 'idle' }), 0.2);
    expect(avatar.clipName).toBe('idle');
    expect(avatar.object.position.y).toBeCloseTo(5, 6);

    run(avatar, state({ state: 'swim', speed: 0.1 }), 2);
    expect(avatar.clipName).toBe('swim_tread');
    expect(avatar.object.position.y).toBeCloseTo(5 + SWIM_RIG_OFFSETS.tread, 2);

    run(avatar, state({ state: 'swim', speed: 1.2 }), 2);
    expect(avatar.clipName).toBe('swim_freestyle');
    expect(avatar.object.position.y).toBeCloseTo(5 + SWIM_RIG_OFFSETS.freestyle, 2);

    // Out of the water the offset blends back to none.
    run(avatar, state({ state: 'walk', speed: 1.5 }), 2);
    expect(avatar.clipName).toBe('walk');
    expect(avatar.object.position.y).toBeCloseTo(5, 2);
    avatar.dispose();
  });

  it('plays the swim clips in place (no root motion fights the controller)', () => {
    const avatar = new PlayerAvatar({ detail: 'low' });
    run(avatar, state({ state: 'swim', speed: 1.2 }), 1);
    const root = avatar.object.getObjectByName('root');
    expect(root).toBeDefined();
    const before = root!.position.clone();
    run(avatar, state({ state: 'swim', speed: 1.2 }), 1);
    expect(root!.position.distanceTo(before)).toBeLessThan(1e-6);
    avatar.dispose();
  });
});
