import { describe, expect, it } from 'vitest';
import { keepClear } from '../../../src/ambient/keep-clear.ts';

describe('keepClear', () => {
  it('moves people inside the disk to its edge, on the ground, and leaves the rest', () => {
    const people = [
      { x: 0.5, y: 0, z: 0 },
      { x: 0, y: 0, z: 0 },
      { x: 3, y: 0, z: 4 },
    ];
    const moved = keepClear(people, 0, 0, 1.6, (x, z) => x + z);
    expect(moved).toBe(2);
    expect(people[0]).toEqual({ x: 1.6, y: 1.6, z: 0 });
    expect(people[1]).toEqual({ x: 1.6, y: 1.6, z: 0 });
    expect(people[2]).toEqual({ x: 3, y: 0, z: 4 });
    expect(keepClear(people, 0, 0, 1.6, () => 0)).toBe(0);
  });
});
