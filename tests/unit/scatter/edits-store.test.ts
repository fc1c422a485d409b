import { describe, expect, it } from 'vitest';
import { EditsStore, TOMBSTONE_MS, type EditsStorage } from '../../../server/world/edits-store.ts';
import { CELL_CAPACITY, decodeSnapshot, strokeCost, type SharedEvent } from '../../../src/scatter/shared-edits.ts';

/** Durable Object storage's interface over a Map (structured clones, as the real one stores). */
class MapStorage implements EditsStorage {
  readonly items = new Map<string, unknown>();
  async get<T>(key: string): Promise<T | undefined> {
    return structuredClone(this.items.get(key)) as T | undefined;
  }
  async put<T>(entries: Record<string, T>): Promise<void> {
    if (Object.keys(entries).length > 128) throw new Error('more than 128 keys in one put');
    for (const [key, value] of Object.entries(entries)) this.items.set(key, structuredClone(value));
  }
  async delete(keys: string[]): Promise<number> {
    if (keys.length > 128) throw new Error('more than 128 keys in one delete');
    let n = 0;
    for (const key of keys) if (this.items.delete(key)) n++;
    return n;
  }
  async list<T>(options: { prefix: string }): Promise<Map<string, T>> {
    const keys = [...this.items.keys()].filter((k) => k.startsWith(options.prefix)).sort();
    return new Map(keys.map((k) => [k, structuredClone(this.items.get(k)) as T]));
  }
}

/** A stroke of `dabs` dabs of radius `r` (cost 512 + dabs × (16 + πr²)). */
const events = (dabs: number, r = 4): SharedEvent[] => [
  { kind: 'preset', presetId: 'meadow' },
  ...Array.from({ length: dabs }, (_, i) => ({ kind: 'paint' as const, x: 10 + i, z: 10, radius: r })),
];
const COST = strokeCost(events(40));

describe('edits store: a fair share of a cell', () => {
  it('lets one holder fill a cell alone, then makes room for another from the holder with the most, oldest first', async () => {
    const store = new EditsStore(new MapStorage());
    let t = 1000;
    let n = 0;
    // The griefer: one address (one holder) over several sessions (authors), until the cell is full and more.
    const full = Math.floor(CELL_CAPACITY / COST);
    for (let i = 0; i < full + 10; i++)
      await store.add({ id: `grief-${n++}`, author: `session-${i % 8}`, events: events(40) }, 'a:griefer', t++);
    expect(store.usage()).toBeLessThanOrEqual(CELL_CAPACITY);
    expect(store.list()).toHaveLength(full);
    expect(store.list()[0]!.id).toBe('grief-10'); // its own oldest made room for its newest
    // An honest visitor paints: it is stored, and the griefer's oldest went.
    const honest = await store.add({ id: 'honest-0', author: 'honest', events: events(40) }, 'a:honest', t++);
    expect(honest).toMatchObject({ ok: true, evicted: [{ id: 'grief-10' }] });
    // Both keep painting, the griefer twice as often: the honest visitor's strokes stay while it holds less.
    for (let round = 1; round <= 30; round++) {
      await store.add({ id: `grief-${n++}`, author: 'session-0', events: events(40) }, 'a:griefer', t++);
      await store.add({ id: `grief-${n++}`, author: 'session-1', events: events(40) }, 'a:griefer', t++);
      if (round % 2 === 0) await store.add({ id: `honest-${round}`, author: 'honest', events: events(40) }, 'a:honest', t++);
    }
    const honestIds = store
      .list()
      .filter((s) => s.holder === 'a:honest')
      .map((s) => s.id);
    expect(honestIds).toEqual(['honest-0', ...Array.from({ length: 15 }, (_, i) => `honest-${2 * (i + 1)}`)]);
    // Past half the cell the honest visitor becomes the one who holds the most: its oldest goes, the griefer keeps half.
    for (let i = 0; i < full; i++) await store.add({ id: `honest-more-${i}`, author: 'honest', events: events(40) }, 'a:honest', t++);
    expect(store.usage('a:griefer')).toBeGreaterThanOrEqual(CELL_CAPACITY / 2 - 2 * COST);
    expect(store.usage('a:honest')).toBeLessThanOrEqual(CELL_CAPACITY / 2 + 2 * COST);
    expect(store.get('honest-0')).toBeUndefined();
  });

  it('never evicts the new stroke itself, and counts it for its holder when choosing', async () => {
    const store = new EditsStore(new MapStorage(), 4 * COST);
    await store.add({ id: 'b-1', author: 'b', events: events(40) }, 'b', 1);
    await store.add({ id: 'a-1', author: 'a', events: events(40) }, 'a', 2);
    await store.add({ id: 'b-2', author: 'b', events: events(40) }, 'b', 3);
    await store.add({ id: 'a-2', author: 'a', events: events(40) }, 'a', 4);
    // Full. a and b hold two each; a's new one makes a hold the most, so a's oldest goes.
    expect(await store.add({ id: 'a-3', author: 'a', events: events(40) }, 'a', 5)).toMatchObject({ ok: true, evicted: [{ id: 'a-1' }] });
    // c holds nothing: the tie between a and b goes to the older stroke (b-1).
    expect(await store.add({ id: 'c-1', author: 'c', events: events(40) }, 'c', 6)).toMatchObject({ ok: true, evicted: [{ id: 'b-1' }] });
    expect(store.list().map((s) => s.id)).toEqual(['b-2', 'a-2', 'a-3', 'c-1']);
  });

  it('numbers strokes in order, remembers removals, and reads back the same after a restart', async () => {
    const storage = new MapStorage();
    const store = new EditsStore(storage);
    await store.add({ id: 'first', author: 'a', events: events(3) }, 's:a', 5000);
    await store.add({ id: 'second', author: 'b', events: events(3) }, 's:b', 4000); // a clock that went back
    const copy = await store.add({ id: 'copy', author: 'c', events: events(3) }, 's:c', 6000, 123); // a copy keeps its home's time
    expect(store.list().map((s) => [s.id, s.seq, s.at])).toEqual([
      ['first', 1, 5000],
      ['second', 2, 5001],
      ['copy', 3, 123],
    ]);
    expect(copy).toMatchObject({ ok: true });
    expect(await store.add({ id: 'first', author: 'a', events: events(3) }, 's:a', 7000)).toMatchObject({
      ok: false,
      existing: { seq: 1 },
    });
    expect((await store.remove('second', 7000))?.id).toBe('second');
    expect(await store.add({ id: 'second', author: 'b', events: events(3) }, 's:b', 7001)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/undone or evicted/),
    });
    // A removal that arrives before its copy: the copy is refused.
    expect(await store.remove('not-yet', 7002)).toBeNull();
    expect((await store.add({ id: 'not-yet', author: 'a', events: events(3) }, 's:a', 7003)).ok).toBe(false);
    // After a restart (a new object over the same storage): the same strokes, order, usage and memory of removals.
    const again = new EditsStore(storage);
    await again.load();
    expect(again.list()).toEqual(store.list());
    expect(again.usage()).toBeCloseTo(store.usage(), 6);
    expect((await again.add({ id: 'second', author: 'b', events: events(3) }, 's:b', 7004)).ok).toBe(false);
    expect((await again.add({ id: 'fourth', author: 'b', events: events(3) }, 's:b', 7005)) as { stroke: { seq: number } }).toMatchObject({
      stroke: { seq: 4 },
    });
    // Removals are forgotten after a while, so the tombstones stay bounded.
    expect((await again.add({ id: 'second', author: 'b', events: events(3) }, 's:b', 7005 + TOMBSTONE_MS)).ok).toBe(true);
  });

  it('encodes each snapshot once per change, for every join in between', async () => {
    const store = new EditsStore(new MapStorage());
    await store.add({ id: 'one-stroke', author: 'a', events: events(5) }, 's:a', 1);
    const binary = store.snapshotBinary();
    expect(store.snapshotBinary()).toBe(binary);
    expect(decodeSnapshot(binary).map((s) => s.id)).toEqual(['one-stroke']);
    const json = JSON.parse(store.snapshotJson({ x: 1, z: 2 }, 'me')) as {
      type: string;
      cell: object;
      author: string;
      strokes: Array<{ id: string; holder?: string }>;
    };
    expect(json).toMatchObject({ type: 'snapshot', cell: { x: 1, z: 2 }, author: 'me', strokes: [{ id: 'one-stroke' }] });
    expect(json.strokes[0]!.holder).toBeUndefined(); // who holds it stays on the server
    await store.add({ id: 'two-stroke', author: 'a', events: events(5) }, 's:a', 2);
    expect(store.snapshotBinary()).not.toBe(binary);
    expect(decodeSnapshot(store.snapshotBinary())).toHaveLength(2);
  });

  it('takes over strokes stored before the fair share, in their order', async () => {
    const storage = new MapStorage();
    await storage.put({
      'stroke:0000000001': { id: 'old-one', author: 'a', seq: 1, events: events(2) },
      'stroke:0000000002': { id: 'old-two', author: 'b', seq: 2, events: events(2) },
      'id:old-one': 1,
      'id:old-two': 2,
      'author:a': 1,
      'author:b': 1,
      count: 2,
      seq: 2,
    });
    const store = new EditsStore(storage);
    await store.load();
    expect(store.list().map((s) => [s.id, s.seq, s.holder])).toEqual([
      ['old-one', 1, 's:a'],
      ['old-two', 2, 's:b'],
    ]);
    expect([...storage.items.keys()].filter((k) => /^(stroke|id|author):|^count$|^seq$/.test(k))).toEqual([]);
  });
});
