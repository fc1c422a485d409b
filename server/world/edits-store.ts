import {
  CELL_CAPACITY,
  encodeSnapshot,
  strokeCost,
  type EditCell,
  type SharedEvent,
  type SharedStroke,
} from '../../src/scatter/shared-edits.ts';

/**
 * One edits cell's stored strokes and the rule that keeps the cell fair (pure: the storage comes
 * in, so Node tests run it on a Map). Everything is kept in memory as well (a full cell is about
 * 100 KB), written through to durable storage, and loaded once when the object wakes.
 *
 * **Fair share.** A cell holds at most {@link CELL_CAPACITY} of cost (painted area plus a base per
 * stroke and per dab, see shared-edits.ts). A stroke that does not fit is never refused for
 * room: the cell evicts the oldest stroke of whoever holds the most cost here, until it fits.
 * *Whoever* is the holder: the connecting address for a visitor on the internet (so one person's
 * many sessions, or one griefer's, count as one), the session on loopback (where addresses say
 * nothing). So a holder alone may fill the cell; as others paint, each keeps at least the
 * cell's capacity divided by the number of holders, and nobody can lock anyone out. Nothing
 * expires: a stroke stays until its author undoes it or someone needs its room.
 *
 * **Order.** Each stored stroke gets the cell's next `seq`; clients apply a cell's strokes in
 * that order. `at` is the home cell's clock, strictly increasing within a cell.
 *
 * **Snapshots** (JSON and binary) are encoded once per change and reused by every join.
 */

/** The slice of Durable Object storage the store uses. */
export interface EditsStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(entries: Record<string, T>): Promise<void>;
  delete(keys: string[]): Promise<number>;
  list<T>(options: { prefix: string }): Promise<Map<string, T>>;
}

/** A stroke as stored: what every visitor gets, plus its holder and cost (never sent). */
export interface StoredStroke extends SharedStroke {
  /** Who it counts against in the fair share: `a:<hashed address>` or `s:<session id>`. */
  holder: string;
  cost: number;
}

export type AddResult =
  { ok: true; stroke: StoredStroke; evicted: StoredStroke[] } | { ok: false; problem: string; existing?: StoredStroke };

/** Undone or evicted ids are remembered this long (ms), so a copy that arrives late is not stored again. */
export const TOMBSTONE_MS = 10 * 60_000;
/** Tombstones kept at most (oldest forgotten first). */
const MAX_TOMBSTONES = 1024;

interface Meta {
  seq: number;
  lastAt: number;
}

export class EditsStore {
  private readonly storage: EditsStorage;
  private readonly capacity: number;
  private loading: Promise<void> | null = null;
  /** By id, in seq order (a Map keeps insertion order and strokes only ever join at the end). */
  private readonly strokes = new Map<string, StoredStroke>();
  private readonly holders = new Map<string, number>();
  private readonly gone = new Map<string, number>();
  private meta: Meta = { seq: 0, lastAt: 0 };
  private used = 0;
  private jsonCache: string | null = null;
  private binaryCache: Uint8Array<ArrayBuffer> | null = null;

  constructor(storage: EditsStorage, capacity = CELL_CAPACITY) {
    this.storage = storage;
    this.capacity = capacity;
  }

  /** Reads the cell from storage (once; later calls share the first). */
  load(): Promise<void> {
    return (this.loading ??= this.read());
  }

  /** Stored strokes, in seq order. */
  list(): StoredStroke[] {
    return [...this.strokes.values()];
  }

  get(id: string): StoredStroke | undefined {
    return this.strokes.get(id);
  }

  /** Cost held, in all and by one holder. */
  usage(holder?: string): number {
    return holder === undefined ? this.used : (this.holders.get(holder) ?? 0);
  }

  /**
   * Stores a stroke (validated by the caller) under the next seq, evicting by the fair share
   * until it fits. `at` is given for a copy from its home (the home's clock), else taken from
   * `now`. Refuses only an id already here or recently removed.
   */
  async add(stroke: { id: string; author: string; events: SharedEvent[] }, holder: string, now: number, at?: number): Promise<AddResult> {
    await this.load();
    const existing = this.strokes.get(stroke.id);
    if (existing) return { ok: false, problem: `stroke ${stroke.id} already exists`, existing };
    this.pruneTombstones(now);
    if (this.gone.has(stroke.id)) return { ok: false, problem: `stroke ${stroke.id} was undone or evicted here` };
    const cost = strokeCost(stroke.events);
    const evicted: StoredStroke[] = [];
    while (this.used + cost > this.capacity && this.strokes.size > 0) {
      const victim = this.victim(holder, cost);
      if (!victim) break;
      this.forget(victim, now);
      evicted.push(victim);
    }
    const seq = this.meta.seq + 1;
    const time = at ?? Math.max(now, this.meta.lastAt + 1);
    const stored: StoredStroke = { id: stroke.id, author: stroke.author, seq, at: time, events: stroke.events, holder, cost };
    this.meta = { seq, lastAt: Math.max(this.meta.lastAt, time) };
    this.strokes.set(stored.id, stored);
    this.holders.set(holder, (this.holders.get(holder) ?? 0) + cost);
    this.used += cost;
    this.changed();
    const writes: Record<string, unknown> = { meta: this.meta, [strokeKey(seq)]: stored };
    for (const victim of evicted) writes[tombKey(victim.id)] = now;
    await putAll(this.storage, writes);
    await deleteAll(
      this.storage,
      evicted.map((v) => strokeKey(v.seq)),
    );
    return { ok: true, stroke: stored, evicted };
  }

  /** Removes a stroke (an undo, or an eviction elsewhere in its footprint); it is remembered as gone. */
  async remove(id: string, now: number): Promise<StoredStroke | null> {
    await this.load();
    const stroke = this.strokes.get(id);
    this.pruneTombstones(now);
    if (!stroke) {
      // A removal that overtook its copy: the copy is refused when it comes.
      this.gone.set(id, now);
      await this.storage.put({ [tombKey(id)]: now });
      return null;
    }
    this.forget(stroke, now);
    await this.storage.put({ [tombKey(id)]: now });
    await this.storage.delete([strokeKey(stroke.seq)]);
    return stroke;
  }

  /** The JSON snapshot message for a socket whose author id is `author` (the strokes part cached). */
  snapshotJson(cell: EditCell, author: string | null): string {
    this.jsonCache ??= JSON.stringify(this.list().map(wire));
    return `{"type":"snapshot","cell":${JSON.stringify(cell)},"author":${JSON.stringify(author)},"strokes":${this.jsonCache}}`;
  }

  /** The binary snapshot (cached until the next change). */
  snapshotBinary(): Uint8Array<ArrayBuffer> {
    return (this.binaryCache ??= encodeSnapshot(this.list().map(wire)));
  }

  /** Bytes a join of this format costs now. */
  snapshotBytes(format: 'json' | 'binary'): number {
    return format === 'binary' ? this.snapshotBinary().byteLength : this.snapshotJson({ x: 0, z: 0 }, null).length;
  }

  /**
   * The stroke to evict so that `holder`'s new stroke of `cost` fits: the oldest of whoever
   * holds the most (counting the new stroke for its holder); ties go to the holder with the
   * older stroke. Null when nothing can go.
   */
  private victim(holder: string, cost: number): StoredStroke | null {
    let most: string | null = null;
    let mostCost = -1;
    let oldest = Infinity;
    const oldestOf = new Map<string, StoredStroke>();
    for (const stroke of this.strokes.values()) if (!oldestOf.has(stroke.holder)) oldestOf.set(stroke.holder, stroke);
    for (const [who, held] of this.holders) {
      const first = oldestOf.get(who);
      if (!first) continue;
      const total = held + (who === holder ? cost : 0);
      if (total > mostCost || (total === mostCost && first.seq < oldest)) {
        most = who;
        mostCost = total;
        oldest = first.seq;
      }
    }
    return most === null ? null : oldestOf.get(most)!;
  }

  private forget(stroke: StoredStroke, now: number): void {
    this.strokes.delete(stroke.id);
    const left = (this.holders.get(stroke.holder) ?? 0) - stroke.cost;
    if (left > 1e-6) this.holders.set(stroke.holder, left);
    else this.holders.delete(stroke.holder);
    this.used = Math.max(0, this.used - stroke.cost);
    this.gone.set(stroke.id, now);
    this.changed();
  }

  private pruneTombstones(now: number): void {
    for (const [id, at] of this.gone) {
      if (now - at < TOMBSTONE_MS && this.gone.size <= MAX_TOMBSTONES) break;
      this.gone.delete(id);
      void this.storage.delete([tombKey(id)]);
    }
  }

  private changed(): void {
    this.jsonCache = null;
    this.binaryCache = null;
  }

  private async read(): Promise<void> {
    const [meta, stored, tombs] = await Promise.all([
      this.storage.get<Meta>('meta'),
      this.storage.list<StoredStroke>({ prefix: 's:' }),
      this.storage.list<number>({ prefix: 'g:' }),
    ]);
    this.meta = meta ?? { seq: 0, lastAt: 0 };
    for (const stroke of stored.values()) {
      this.strokes.set(stroke.id, stroke);
      this.holders.set(stroke.holder, (this.holders.get(stroke.holder) ?? 0) + stroke.cost);
      this.used += stroke.cost;
    }
    for (const [key, at] of [...tombs].sort((a, b) => a[1] - b[1])) this.gone.set(key.slice(2), at);
    // A cell without `meta` is new, or was written before the fair share: look for old strokes once.
    if (!meta) await this.migrate();
  }

  /** Strokes stored before the fair share (`stroke:<seq>`, no holder or time) join in their order, under their author. */
  private async migrate(): Promise<void> {
    const legacy = await this.storage.list<{ id: string; author: string; seq: number; events: SharedEvent[] }>({ prefix: 'stroke:' });
    if (legacy.size === 0) return;
    const writes: Record<string, unknown> = {};
    for (const old of legacy.values()) {
      if (this.strokes.has(old.id)) continue;
      const seq = ++this.meta.seq;
      const stroke: StoredStroke = { ...old, seq, at: ++this.meta.lastAt, holder: `s:${old.author}`, cost: strokeCost(old.events) };
      this.strokes.set(stroke.id, stroke);
      this.holders.set(stroke.holder, (this.holders.get(stroke.holder) ?? 0) + stroke.cost);
      this.used += stroke.cost;
      writes[strokeKey(seq)] = stroke;
    }
    writes.meta = this.meta;
    await putAll(this.storage, writes);
    const oldKeys = [...(await this.storage.list({ prefix: 'id:' })).keys(), ...(await this.storage.list({ prefix: 'author:' })).keys()];
    await deleteAll(this.storage, [...legacy.keys(), ...oldKeys, 'count', 'seq']);
  }
}

/** Durable Object storage takes at most 128 keys per put or delete. */
const BATCH = 128;

async function putAll(storage: EditsStorage, entries: Record<string, unknown>): Promise<void> {
  const keys = Object.keys(entries);
  for (let i = 0; i < keys.length; i += BATCH)
    await storage.put(Object.fromEntries(keys.slice(i, i + BATCH).map((key) => [key, entries[key]])));
}

async function deleteAll(storage: EditsStorage, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += BATCH) await storage.delete(keys.slice(i, i + BATCH));
}

/** What travels: the stored stroke without its holder and cost. */
export function wire(stroke: StoredStroke): SharedStroke {
  return { id: stroke.id, author: stroke.author, seq: stroke.seq, at: stroke.at, events: stroke.events };
}

function strokeKey(seq: number): string {
  return `s:${String(seq).padStart(10, '0')}`;
}

function tombKey(id: string): string {
  return `g:${id}`;
}
