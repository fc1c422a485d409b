import { describe, expect, it } from 'vitest';
import { SlotTable, type SlotRef } from '../../../src/crowd/slot-table.ts';
import { Mulberry32 } from '../../../src/core/rng.ts';

interface Avatar {
  name: string;
  ref?: SlotRef<Avatar>;
}

/** Writes an avatar's signature (its id, repeated) into its slot of every channel. */
function stamp(table: SlotTable<Avatar>, ref: SlotRef<Avatar>, id: number): void {
  for (const [name, stride] of Object.entries(table.strides)) {
    table.channels[name]!.fill(id + stride / 1000, ref.slot * stride, ref.slot * stride + stride);
  }
}

function expectIntact(table: SlotTable<Avatar>, live: Map<number, SlotRef<Avatar>>): void {
  expect(table.count).toBe(live.size);
  for (const [id, ref] of live) {
    expect(ref.slot).toBeGreaterThanOrEqual(0);
    expect(ref.slot).toBeLessThan(table.count);
    expect(table.refAt(ref.slot)).toBe(ref);
    for (const [name, stride] of Object.entries(table.strides)) {
      const data = table.channels[name]!.subarray(ref.slot * stride, ref.slot * stride + stride);
      expect([...new Set(data)]).toEqual([Math.fround(id + stride / 1000)]);
    }
  }
}

describe('SlotTable', () => {
  it('keeps the occupied range dense: swap-remove moves the last member into the hole', () => {
    const table = new SlotTable<Avatar>({ channels: { bones: 6 }, capacity: 4 });
    const refs = ['a', 'b', 'c', 'd'].map((name) => table.add({ name }));
    refs.forEach((ref, i) => stamp(table, ref, i));
    const moved = table.remove(refs[1]!);
    expect(moved).toBe(refs[3]);
    expect(refs[3]!.slot).toBe(1);
    expect(refs[1]!.slot).toBe(-1);
    expect(table.count).toBe(3);
    // The moved avatar keeps its identity (same ref, same owner) and its data.
    expect(table.refAt(1).owner.name).toBe('d');
    expect([...table.channels.bones!.subarray(6, 12)]).toEqual(new Array(6).fill(Math.fround(3.006)));
    // Removing the last member moves nobody; removing twice is a no-op.
    expect(table.remove(refs[2]!)).toBeNull();
    expect(table.remove(refs[2]!)).toBeNull();
    expect(table.count).toBe(2);
  });

  it('grows by reallocation, copying every member, and reports it', () => {
    const grown: number[] = [];
    const table = new SlotTable<Avatar>({ channels: { bones: 12, pose: 4 }, capacity: 2 });
    table.on('grow', ({ capacity }) => grown.push(capacity));
    const live = new Map<number, SlotRef<Avatar>>();
    const before = table.channels.bones;
    for (let id = 0; id < 9; id++) {
      const ref = table.add({ name: `a${id}` });
      stamp(table, ref, id);
      live.set(id, ref);
    }
    expect(grown).toEqual([4, 8, 16]);
    expect(table.capacity).toBe(16);
    expect(table.channels.bones).not.toBe(before);
    expect(table.channels.bones!.length).toBe(16 * 12);
    expectIntact(table, live);
  });

  it('rounds capacity to a step (texture layers) and stops at its maximum with a clear error', () => {
    const table = new SlotTable<Avatar>({ channels: { bones: 3 }, capacity: 5, capacityStep: 8, maxCapacity: 16 });
    expect(table.capacity).toBe(8);
    for (let i = 0; i < 16; i++) table.add({ name: String(i) });
    expect(table.capacity).toBe(16);
    expect(() => table.add({ name: 'one too many' })).toThrow(/maximum capacity of 16/);
    expect(table.count).toBe(16);
  });

  it('keeps every member’s data through a long random mix of adds, removes and growth', () => {
    const rng = new Mulberry32(99);
    const table = new SlotTable<Avatar>({ channels: { bones: 24, pose: 4 }, capacity: 1 });
    const live = new Map<number, SlotRef<Avatar>>();
    let next = 0;
    for (let step = 0; step < 3000; step++) {
      if (live.size === 0 || rng.next() < 0.55) {
        const id = next++;
        const ref = table.add({ name: `a${id}` });
        stamp(table, ref, id);
        live.set(id, ref);
      } else {
        const ids = [...live.keys()];
        const id = ids[rng.int(ids.length)]!;
        table.remove(live.get(id)!);
        live.delete(id);
      }
      if (step % 250 === 0) expectIntact(table, live);
    }
    expectIntact(table, live);
    expect(table.grows).toBeGreaterThan(3);
  });

  it('rejects refs from another table and bad channel strides', () => {
    const a = new SlotTable<Avatar>({ channels: { x: 1 } });
    const b = new SlotTable<Avatar>({ channels: { x: 1 } });
    a.add({ name: 'a0' });
    const foreign = b.add({ name: 'b0' });
    b.add({ name: 'b1' });
    foreign.slot = 0;
    expect(() => a.remove(foreign)).toThrow(/another table/);
    expect(() => new SlotTable({ channels: { x: 0 } })).toThrow(/positive integer stride/);
  });
});
