import { describe, expect, it } from 'vitest';
import { limitInfluences } from '../../../src/crowd/influences.ts';

describe('limitInfluences', () => {
  it('keeps the strongest four of eight, renormalised', () => {
    const result = limitInfluences(
      [
        { indices: [0, 1, 2, 3], weights: [0.05, 0.3, 0.1, 0.02], itemSize: 4 },
        { indices: [4, 5, 6, 7], weights: [0.25, 0.01, 0.2, 0.07], itemSize: 4 },
      ],
      1,
    );
    expect([...result.indices]).toEqual([1, 4, 6, 2]);
    const kept = 0.3 + 0.25 + 0.2 + 0.1;
    [0.3, 0.25, 0.2, 0.1].forEach((w, k) => expect(result.weights[k]).toBeCloseTo(w / kept, 6));
    expect(result.clamped).toBe(1);
  });

  it('merges repeated bones before ranking and remaps into crowd bone order', () => {
    const result = limitInfluences(
      [
        { indices: [2, 2, 0, 1], weights: [0.3, 0.3, 0.2, 0.2], itemSize: 4 },
        { indices: [3, 0, 0, 0], weights: [0.1, 0, 0, 0], itemSize: 4 },
      ],
      1,
      [10, 11, 12, 13],
    );
    // bone 2 → 0.6, then 0 and 1 at 0.2, 3 at 0.1: four distinct bones, nothing clamped.
    expect([...result.indices]).toEqual([12, 10, 11, 13]);
    expect(result.weights[0]).toBeCloseTo(0.6 / 1.1);
    expect(result.clamped).toBe(0);
  });

  it('binds unweighted vertices rigidly to the fallback bone and rejects unknown bones', () => {
    const result = limitInfluences([{ indices: [0, 0, 0, 0], weights: [0, 0, 0, 0], itemSize: 4 }], 1, undefined, 5);
    expect([...result.indices]).toEqual([5, 0, 0, 0]);
    expect([...result.weights]).toEqual([1, 0, 0, 0]);
    expect(result.unweighted).toBe(1);
    expect(() => limitInfluences([{ indices: [7, 0, 0, 0], weights: [1, 0, 0, 0], itemSize: 4 }], 1, [0, 1])).toThrow(/bone 7/);
  });
});
