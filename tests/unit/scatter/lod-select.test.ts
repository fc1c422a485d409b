import { describe, expect, it } from 'vitest';
import { chooseLod, LodSelector } from '../../../src/scatter/lod-select.ts';

describe('LOD choice', () => {
  it('uses the bands 0–30 m, 30–90 m and beyond for a fresh instance', () => {
    expect([0, 29.9, 30, 89.9, 90, 500].map((d) => chooseLod(d, -1))).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it('holds the current level within ±4 m of an edge (hysteresis)', () => {
    // Going out: level 0 stays until 34 m.
    expect(chooseLod(33.9, 0)).toBe(0);
    expect(chooseLod(34, 0)).toBe(1);
    // Coming back: level 1 stays until under 26 m.
    expect(chooseLod(26, 1)).toBe(1);
    expect(chooseLod(25.9, 1)).toBe(0);
    expect(chooseLod(86, 2)).toBe(2);
    expect(chooseLod(85.9, 2)).toBe(1);
    expect(chooseLod(93.9, 1)).toBe(1);
    expect(chooseLod(94, 1)).toBe(2);
    // Jumps straight across bands when the camera teleports.
    expect(chooseLod(500, 0)).toBe(2);
    expect(chooseLod(1, 2)).toBe(0);
  });

  it('does not flicker when the distance oscillates around an edge', () => {
    let level = chooseLod(29, -1);
    const seen = new Set<number>();
    for (let i = 0; i < 100; i++) {
      level = chooseLod(30 + 3.5 * Math.sin(i), level);
      seen.add(level);
    }
    expect([...seen]).toEqual([0]);
  });
});

describe('LodSelector', () => {
  function setup() {
    const changes: Array<[number, number, number]> = [];
    const selector = new LodSelector({ initialCapacity: 16 });
    selector.on('change', ({ handle, from, to }) => changes.push([handle, from, to]));
    return { selector, changes };
  }

  it('re-evaluates at most 4 times a second and only when the camera moved', () => {
    const { selector } = setup();
    selector.add(1, 0, 0, 0);
    expect(selector.update(0, 0, 0, 0)).toBe(true);
    expect(selector.update(10, 0, 0, 0.1)).toBe(false); // too soon
    expect(selector.update(10, 0, 0, 0.26)).toBe(true);
    expect(selector.update(10.2, 0, 0, 1)).toBe(false); // moved 0.2 m < 0.5 m
    expect(selector.update(10.2, 0, 0, 2, true)).toBe(true); // forced
    expect(selector.evaluations).toBe(3);
    expect(selector.skipped).toBe(2);
  });

  it('reports level changes with from/to, and starts new instances at the level for the last camera', () => {
    const { selector, changes } = setup();
    for (let i = 0; i < 10; i++) selector.add(i, i * 20, 0, 0); // 0, 20, …, 180 m
    selector.update(0, 0, 0, 0);
    expect(changes).toEqual(
      expect.arrayContaining([
        [2, 0, 1],
        [5, 0, 2],
      ]),
    );
    expect([...Array(10).keys()].map((h) => selector.levelOf(h))).toEqual([0, 0, 1, 1, 1, 2, 2, 2, 2, 2]);
    expect(selector.add(99, 200, 0, 0)).toBe(2);
    changes.length = 0;
    selector.update(180, 0, 0, 1);
    expect(selector.levelOf(9)).toBe(0);
    expect(selector.levelOf(0)).toBe(2);
    expect(selector.lastChanges).toBe(changes.length);
  });

  it('removes by swap-remove and keeps tracking the rest (growing past its capacity)', () => {
    const { selector } = setup();
    for (let i = 0; i < 100; i++) selector.add(i, i, 0, 0);
    for (let i = 0; i < 100; i += 2) selector.remove(i);
    expect(selector.size).toBe(50);
    expect(selector.levelOf(2)).toBe(-1);
    selector.update(1000, 0, 0, 0);
    for (let i = 1; i < 100; i += 2) expect(selector.levelOf(i)).toBe(2);
    expect(() => selector.add(1, 0, 0, 0)).toThrow(/already tracked/);
  });
});
