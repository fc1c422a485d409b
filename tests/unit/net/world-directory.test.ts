import { describe, expect, it } from 'vitest';
import {
  ArrivalQueue,
  CROWDED,
  FORGET_AFTER_MS,
  MIN_RENEW_MS,
  WorldDirectory,
  type DirectoryStorage,
} from '../../../server/world/directory.ts';

/**
 * The slice of Durable Object storage the directory uses, over a Map, in key order (the real
 * storage lists keys in UTF-8 byte order; these keys are ASCII). The directory's policy — which
 * identities it forgets, and when — is what these tests pin; the server tests run it on workerd.
 */
class MapStorage implements DirectoryStorage {
  readonly data = new Map<string, unknown>();

  async get<T>(key: string): Promise<T | undefined> {
    return structuredClone(this.data.get(key)) as T | undefined;
  }

  async put<T>(key: string, value: T): Promise<void>;
  async put<T>(entries: Record<string, T>): Promise<void>;
  async put(keyOrEntries: string | Record<string, unknown>, value?: unknown): Promise<void> {
    if (typeof keyOrEntries === 'string') this.data.set(keyOrEntries, structuredClone(value));
    else for (const [k, v] of Object.entries(keyOrEntries)) this.data.set(k, structuredClone(v));
  }

  async delete(key: string): Promise<boolean>;
  async delete(keys: string[]): Promise<number>;
  async delete(keys: string | string[]): Promise<boolean | number> {
    if (typeof keys === 'string') return this.data.delete(keys);
    return keys.filter((k) => this.data.delete(k)).length;
  }

  async list<T>(options: { prefix?: string; startAfter?: string; limit?: number }): Promise<Map<string, T>> {
    const keys = [...this.data.keys()]
      .filter((k) => k.startsWith(options.prefix ?? '') && (options.startAfter === undefined || k > options.startAfter))
      .sort();
    return new Map(keys.slice(0, options.limit ?? keys.length).map((k) => [k, structuredClone(this.data.get(k)) as T]));
  }

  whoCount(): number {
    return [...this.data.keys()].filter((k) => k.startsWith('who:')).length;
  }
}

function directoryAt(storage: MapStorage): { directory: WorldDirectory; clock: { now: number } } {
  const clock = { now: 1_800_000_000_000 };
  const directory = new WorldDirectory(storage, () => clock.now);
  return { directory, clock };
}

async function enter(directory: WorldDirectory): Promise<{ id: number; token: string }> {
  const entry = await directory.enter({ x: 10, z: 10 });
  if (!entry.ok) throw new Error(entry.problem);
  return entry.value;
}

describe('world directory: forgetting identities', () => {
  it('forgets identities whose tokens have all expired, and keeps those that renewed', async () => {
    const storage = new MapStorage();
    const { directory, clock } = directoryAt(storage);
    const start = clock.now;
    const first = [];
    for (let i = 0; i < 40; i++) first.push(await enter(directory));
    // Half of them renew at 100 s (clients renew every 40 s); the other half left.
    clock.now = start + 100_000;
    const renewed = new Map<number, string>();
    for (const player of first.slice(0, 20)) {
      const renewal = await directory.hop(player.token, { x: 0, z: 0 });
      expect(renewal.ok).toBe(true);
      if (renewal.ok) renewed.set(player.id, renewal.value.token);
    }
    // Past the leavers' forget time, newcomers' entries sweep the records.
    clock.now = start + FORGET_AFTER_MS + 20_000;
    for (let i = 0; i < 10; i++) await enter(directory);
    for (const player of first.slice(20)) expect(storage.data.has(`who:${player.id}`), `who:${player.id}`).toBe(false);
    for (const player of first.slice(0, 20)) expect(storage.data.has(`who:${player.id}`), `who:${player.id}`).toBe(true);
    expect(storage.whoCount()).toBe(30);
    // A player who renewed still renews: its record is where the hop looks.
    const [id, token] = [...renewed][0]!;
    const again = await directory.hop(token, { x: 0, z: 0 });
    expect(again.ok, `renewal of ${id}`).toBe(true);
  });

  it('forgets records written before they carried an issue time', async () => {
    const storage = new MapStorage();
    const { directory } = directoryAt(storage);
    await storage.put('who:999', { cell: { x: 0, z: 0 }, at: 0 });
    await enter(directory);
    expect(storage.data.has('who:999')).toBe(false);
  });

  it('keeps storage near the live population: one entry a second for 1,000 s, nobody staying', async () => {
    const storage = new MapStorage();
    const { directory, clock } = directoryAt(storage);
    let largest = 0;
    for (let s = 0; s < 1000; s++) {
      clock.now += 1000;
      await enter(directory);
      largest = Math.max(largest, storage.whoCount());
    }
    // Live at any moment: the last FORGET_AFTER_MS / 1 s entries (180). Without forgetting: 1,000.
    const live = FORGET_AFTER_MS / 1000;
    expect(largest).toBeGreaterThanOrEqual(live);
    expect(largest).toBeLessThan(live * 1.15);
  });
});

describe('world directory: the map', () => {
  it('admits entries and hops only on the map (±256 m by default)', async () => {
    const { directory } = directoryAt(new MapStorage());
    expect(directory.halfExtent).toBe(256);
    expect(await directory.enter({ x: 255, z: -256 })).toMatchObject({ ok: true, value: { cell: { x: 3, z: -4 } } });
    for (const [x, z] of [
      [257, 0],
      [0, -300],
      [4000, 4000],
    ] as const) {
      expect(await directory.enter({ x, z }), `${x}, ${z}`).toMatchObject({
        ok: false,
        status: 400,
        problem: expect.stringMatching(/outside the world/),
      });
    }
    const edge = await directory.enter({ x: 250, z: 0 });
    if (!edge.ok) throw new Error(edge.problem);
    expect(await directory.hop(edge.value.token, { x: 4, z: 0 })).toMatchObject({ ok: false, status: 400 });
    expect(await directory.hop(edge.value.token, { x: 3, z: 1 })).toMatchObject({ ok: true });
    const wide = new WorldDirectory(new MapStorage(), () => 0, 1e6);
    expect(wide.halfExtent).toBe(65 * 64);
  });
});

describe('world directory: renewals and spawns', () => {
  it('refuses a renewal within 10 s of the identity’s last token; a hop is no renewal, and a refused one writes nothing', async () => {
    const storage = new MapStorage();
    const { directory, clock } = directoryAt(storage);
    const player = await enter(directory);
    const before = structuredClone(storage.data.get(`who:${player.id}`));
    const soon = await directory.hop(player.token, { x: 0, z: 0 });
    expect(soon).toMatchObject({ ok: false, status: 429, problem: expect.stringMatching(/renew at most once per 10 s/) });
    expect(storage.data.get(`who:${player.id}`)).toEqual(before);
    // A hop to the next cell right away is allowed (entering is not a hop), and restarts the renewal clock.
    const hop = await directory.hop(player.token, { x: 1, z: 0 });
    if (!hop.ok) throw new Error(hop.problem);
    clock.now += MIN_RENEW_MS - 1;
    expect(await directory.hop(hop.value.token, { x: 1, z: 0 })).toMatchObject({ ok: false, status: 429 });
    clock.now += 1;
    const renewed = await directory.hop(hop.value.token, { x: 1, z: 0 });
    expect(renewed.ok).toBe(true);
    // A flood over two minutes gets one renewal each 10 s, not thousands.
    let token = renewed.ok ? renewed.value.token : '';
    let accepted = 0;
    for (let ms = 0; ms < 120_000; ms += 37) {
      clock.now += 37;
      const next = await directory.hop(token, { x: 1, z: 0 });
      if (next.ok) {
        accepted++;
        token = next.value.token;
      }
    }
    // 120 s / 10 s, less the steps' overshoot of each 10 s.
    expect(accepted).toBeGreaterThanOrEqual(11);
    expect(accepted).toBeLessThanOrEqual(12);
  });

  it('always suggests a spawn: the busiest open cell, else the nearest open cell on the map next to the crowd, else the origin', async () => {
    const storage = new MapStorage();
    const { directory } = directoryAt(storage);
    expect((await directory.snapshot()).spawn).toEqual({ x: 32, z: 32, cell: { x: 0, z: 0 } });
    await directory.report({ x: 1, z: 1 }, 12);
    await directory.report({ x: -2, z: 0 }, 30);
    expect((await directory.snapshot()).spawn?.cell).toEqual({ x: -2, z: 0 });
    // Every populated cell crowded: the first open cell in the ring around the busiest.
    await directory.report({ x: 1, z: 1 }, CROWDED);
    await directory.report({ x: -2, z: 0 }, CROWDED + 5);
    const crowded = await directory.snapshot();
    expect(crowded.spawn?.cell).toEqual({ x: -3, z: -1 });
    expect(crowded.spawn).toMatchObject({ x: -2.5 * 64, z: -0.5 * 64 });
    // At the map's corner (±256 m: cells −4…3), the ring skips cells off the map.
    const corner = new MapStorage();
    const atCorner = directoryAt(corner).directory;
    await atCorner.report({ x: -4, z: -4 }, CROWDED + 1);
    await atCorner.report({ x: -3, z: -4 }, CROWDED + 1);
    const cell = (await atCorner.snapshot()).spawn!.cell;
    expect(cell).toEqual({ x: -4, z: -3 });
    // And entering without a position lands there.
    const entry = await atCorner.enter(null);
    expect(entry).toMatchObject({ ok: true, value: { cell: { x: -4, z: -3 } } });
  });
});

describe('world directory: arrivals past the world’s rate', () => {
  it('queues them in order as tokens come, and refuses only those that waited too long', async () => {
    const clock = { now: 0 };
    const timers: Array<{ at: number; run: () => void }> = [];
    const queue = new ArrivalQueue(
      { ratePerSecond: 20, burst: 3 },
      5000,
      () => clock.now,
      (run, ms) => timers.push({ at: clock.now + ms, run }),
    );
    const advance = async (ms: number): Promise<void> => {
      const end = clock.now + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (!next || next.at > end) break;
        timers.shift();
        clock.now = next.at;
        next.run();
        await Promise.resolve();
      }
      clock.now = end;
    };
    const order: string[] = [];
    const arrive = (name: string): Promise<boolean> => queue.turn().then((admitted) => (order.push(`${name}:${admitted}`), admitted));
    // The burst goes at once; the next two wait one token (50 ms) each, in arrival order.
    const first = await Promise.all([arrive('a'), arrive('b'), arrive('c')]);
    expect(first).toEqual([true, true, true]);
    const late = [arrive('d'), arrive('e')];
    expect(queue.length).toBe(2);
    await advance(50);
    expect(order).toEqual(['a:true', 'b:true', 'c:true', 'd:true']);
    await advance(50);
    expect(await Promise.all(late)).toEqual([true, true]);
    // 200 at once against 20 a second: 100 get in within the 5 s wait, the rest are refused then.
    const crowd = Array.from({ length: 200 }, (_, i) => queue.turn().then((admitted) => ({ i, admitted })));
    await advance(6000);
    const outcomes = await Promise.all(crowd);
    const admitted = outcomes.filter((o) => o.admitted).map((o) => o.i);
    expect(admitted.length).toBeGreaterThanOrEqual(99);
    expect(admitted.length).toBeLessThanOrEqual(101);
    // First come, first served.
    expect(admitted).toEqual(admitted.map((_, k) => k));
    expect(queue.length).toBe(0);
  });
});
