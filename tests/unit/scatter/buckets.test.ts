import { describe, expect, it } from 'vitest';
import { Mulberry32 } from '../../../src/core/rng.ts';
import { BucketSet } from '../../../src/scatter/instance-buckets.ts';

/** A matrix whose every float encodes the instance (so a duplicate or a loss is visible). */
function matrixFor(instance: number): Float32Array {
  const m = new Float32Array(16);
  for (let k = 0; k < 16; k++) m[k] = instance * 16 + k;
  return m;
}

function contents(set: BucketSet): Map<number, number> {
  // instance id (decoded from the matrix) → bucket
  const out = new Map<number, number>();
  const problems: string[] = [];
  for (const bucket of set.buckets) {
    for (let slot = 0; slot < bucket.count; slot++) {
      const instance = bucket.matrices[slot * 16]! / 16;
      for (let k = 0; k < 16; k++)
        if (bucket.matrices[slot * 16 + k] !== instance * 16 + k) problems.push(`bucket ${bucket.id} slot ${slot}: torn matrix`);
      if (out.has(instance)) problems.push(`instance ${instance} duplicated (buckets ${out.get(instance)} and ${bucket.id})`);
      out.set(instance, bucket.id);
    }
  }
  expect(problems).toEqual([]);
  return out;
}

// Generous timeout: these run real meshoptimizer/three work on a shared two-core machine.
describe('instance buckets', { timeout: 30_000 }, () => {
  it('grows by doubling, keeping every live matrix, and reports each growth', () => {
    const grown: Array<[number, number]> = [];
    const set = new BucketSet({ initialCapacity: 4 });
    set.on('grow', ({ bucket, oldCapacity }) => grown.push([oldCapacity, bucket.capacity]));
    const bucket = set.createBucket();
    const entries = Array.from({ length: 37 }, (_, i) => set.add(bucket, matrixFor(i)));
    expect(grown).toEqual([
      [4, 8],
      [8, 16],
      [16, 32],
      [32, 64],
    ]);
    expect(set.buckets[bucket]!.count).toBe(37);
    expect(set.buckets[bucket]!.matrices.length).toBe(64 * 16);
    const out = new Float32Array(16);
    entries.forEach((entry, i) => {
      set.readMatrix(entry, out);
      expect([...out]).toEqual([...matrixFor(i)]);
    });
    set.validate();
  });

  it('removes by swap-remove: the last instance fills the hole and its back-reference follows', () => {
    const set = new BucketSet();
    const bucket = set.createBucket();
    const entries = Array.from({ length: 10 }, (_, i) => set.add(bucket, matrixFor(i)));
    set.remove(entries[2]!);
    const b = set.buckets[bucket]!;
    expect(b.count).toBe(9);
    expect(b.matrices[2 * 16]).toBe(9 * 16); // instance 9 moved into slot 2
    expect(set.slotOf(entries[9]!)).toBe(2);
    expect(b.owners[2]).toBe(entries[9]);
    expect(set.isLive(entries[2]!)).toBe(false);
    expect(() => set.remove(entries[2]!)).toThrow(/not live/);
    set.validate();
  });

  it('survives thousands of random moves, adds and removes with the set of instances unchanged', () => {
    const rng = new Mulberry32(2024);
    const set = new BucketSet({ initialCapacity: 2 });
    const bucketIds = Array.from({ length: 6 }, () => set.createBucket());
    const live = new Map<number, number>(); // instance → entry
    const ids: number[] = []; // the live instances, for picking one at random
    let nextInstance = 0;
    const addOne = (): void => {
      const instance = nextInstance++;
      live.set(instance, set.add(bucketIds[rng.int(bucketIds.length)]!, matrixFor(instance)));
      ids.push(instance);
    };
    for (let i = 0; i < 3000; i++) addOne();
    const expected = (): Map<number, number> => new Map([...live].map(([instance, entry]) => [instance, set.bucketOf(entry)]));
    let moves = 0;
    for (let step = 0; step < 20_000; step++) {
      const roll = rng.next();
      const index = rng.int(ids.length);
      const instance = ids[index]!;
      const entry = live.get(instance)!;
      if (roll < 0.8) {
        set.move(entry, bucketIds[rng.int(bucketIds.length)]!);
        moves++;
      } else if (roll < 0.9) {
        set.remove(entry);
        live.delete(instance);
        ids[index] = ids[ids.length - 1]!;
        ids.pop();
      } else {
        addOne();
      }
    }
    expect(moves).toBeGreaterThan(15_000);
    set.validate();
    // Every instance is in exactly the bucket its entry says, with its own matrix: none lost, none duplicated.
    const found = contents(set);
    const want = expected();
    const wrong = [...want].filter(([instance, bucket]) => found.get(instance) !== bucket);
    expect(wrong).toEqual([]);
    expect(found.size).toBe(want.size);
    expect(set.size).toBe(live.size);
  });

  it('moves between buckets without allocating once capacity is there', () => {
    const set = new BucketSet({ initialCapacity: 64 });
    const a = set.createBucket();
    const b = set.createBucket();
    const entries = Array.from({ length: 64 }, (_, i) => set.add(a, matrixFor(i)));
    const allocations = set.allocations;
    for (const entry of entries) set.move(entry, b);
    for (const entry of entries) set.move(entry, a);
    expect(set.allocations).toBe(allocations);
    expect(set.buckets[a]!.count).toBe(64);
    expect(contents(set).size).toBe(64);
  });

  it('tracks the dirty slot range for partial uploads', () => {
    const set = new BucketSet({ initialCapacity: 32 });
    const bucket = set.createBucket();
    const entries = Array.from({ length: 20 }, (_, i) => set.add(bucket, matrixFor(i)));
    set.clearDirty(bucket);
    set.remove(entries[5]!);
    const b = set.buckets[bucket]!;
    expect([b.dirtyFrom, b.dirtyTo]).toEqual([5, 6]);
    set.setMatrix(entries[12]!, matrixFor(99));
    expect([b.dirtyFrom, b.dirtyTo]).toEqual([5, 13]);
  });
});
