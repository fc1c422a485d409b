import {
  CELL_SIZE,
  cellAt,
  cellDistance,
  sameCell,
  type Cell,
  type CellPopulation,
  type WorldDirectory as DirectoryView,
  type WorldEntry,
  type WorldHop,
} from '../../src/net/protocol/world.ts';
import { TokenBucket, type TokenBucketLimits } from '../../src/core/token-bucket.ts';
import { importTokenKey, randomTokenKey, signToken, TOKEN_TTL_MS, verifyToken } from './token.ts';

/** Shortest time between two hops of one identity (ms); hysteresis keeps honest clients far above it. */
export const MIN_HOP_MS = 1000;
/**
 * Shortest time between a token and its renewal (a hop to the same cell) for one identity (ms):
 * each renewal is a write to the one directory object, and honest clients renew every 40 s of a
 * token's 120 s (src/net/world/world-transport.ts), so a renewal sooner than this is refused.
 */
export const MIN_RENEW_MS = 10_000;
/** Cells report population at most this often (ms). */
export const REPORT_INTERVAL_MS = 2000;
/** A cell's report older than this is ignored (ms): cells re-report every minute while busy. */
export const REPORT_STALE_MS = 5 * 60_000;
/** A cell this full is not suggested as a spawn (players). */
export const CROWDED = 40;
/** Cells stay within ±this many cells of the origin (±4 km at 64 m): what any extent may ask for. */
export const CELL_LIMIT = 64;
/**
 * Half the world map's edge (m): the 512 m map spans ±256 m, so a player enters and hops only
 * there. A deployment with a bigger map (or a test server that spreads its tests over far cells)
 * sets `WORLD_HALF_EXTENT_M`; it is clamped to {@link CELL_LIMIT} cells.
 */
export const WORLD_HALF_EXTENT_M = 256;
/**
 * An identity's record is forgotten this long after its last token was issued (ms): its tokens
 * have all expired by then ({@link TOKEN_TTL_MS}, plus a minute for the tokens' whole-second
 * issue times), so no hop or renewal can use it again; the player enters anew.
 */
export const FORGET_AFTER_MS = TOKEN_TTL_MS + 60_000;
/** Records each `enter` checks for forgetting: each new identity pays for clearing old ones. */
export const SWEEP_BATCH = 16;

/**
 * The slice of Durable Object storage the directory uses (`DurableObjectStorage` has it), named
 * here so the directory's logic compiles and runs without the Workers types.
 */
export interface DirectoryStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  put<T>(entries: Record<string, T>): Promise<void>;
  delete(key: string): Promise<boolean>;
  delete(keys: string[]): Promise<number>;
  list<T>(options: { prefix?: string; startAfter?: string; limit?: number }): Promise<Map<string, T>>;
}

export type DirectoryResult<T> = { ok: true; value: T } | { ok: false; status: number; problem: string };

interface Whereabouts {
  cell: Cell;
  /** ms since epoch of the last hop (0: none yet), for the hop rate limit. */
  at: number;
  /** ms since epoch of the last token issued (enter, hop or renewal). Absent in records written before it existed. */
  issued?: number;
}

/**
 * The world directory: issues identities and cell tokens, authorises hops between adjacent cells,
 * and keeps each cell's last reported population so clients can show where people are and pick
 * a spawn point. One small Durable Object (KV-free); its work per player is one storage write per
 * cell crossing and per renewal, and each cell reports at most every {@link REPORT_INTERVAL_MS}.
 * It forgets identities whose tokens have all expired ({@link FORGET_AFTER_MS}), a few per
 * `enter`, so its storage follows the players who are here, not everyone who ever came.
 *
 * Hops are checked against the identity's *current* record, so an old token cannot be forked into
 * several cells: a client publishes in one cell at a time and moves one cell per hop.
 */
export class WorldDirectory {
  private key: Promise<CryptoKey> | null = null;
  /** Where the sweep of `who:` records continues (key order); undefined: from the start. */
  private sweepAfter: string | undefined;

  /** Half the map's edge (m), clamped so cells stay within ±{@link CELL_LIMIT} (and one more on the negative side). */
  readonly halfExtent: number;

  private readonly storage: DirectoryStorage;
  private readonly now: () => number;

  constructor(storage: DirectoryStorage, now: () => number = Date.now, halfExtentM = WORLD_HALF_EXTENT_M) {
    this.storage = storage;
    this.now = now;
    this.halfExtent = Math.min(Math.max(CELL_SIZE, halfExtentM), (CELL_LIMIT + 1) * CELL_SIZE);
  }

  /** True when some of `cell`'s square lies on the map. */
  private onMap(cell: Cell): boolean {
    const h = this.halfExtent;
    return cell.x * CELL_SIZE < h && (cell.x + 1) * CELL_SIZE > -h && cell.z * CELL_SIZE < h && (cell.z + 1) * CELL_SIZE > -h;
  }

  /** The token key's raw bytes (base64), for cells (created on first use). */
  async rawKey(): Promise<string> {
    let raw = await this.storage.get<Uint8Array>('world:key');
    if (!raw) {
      raw = randomTokenKey();
      await this.storage.put('world:key', raw);
    }
    return btoa(String.fromCharCode(...raw));
  }

  private signingKey(): Promise<CryptoKey> {
    this.key ??= this.rawKey().then((b64) => importTokenKey(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))));
    return this.key;
  }

  /** A new identity publishing in the cell at (x, z) — or at the suggested spawn when no position is given. */
  async enter(position: { x: number; z: number } | null): Promise<DirectoryResult<WorldEntry>> {
    let cell: Cell;
    if (position) {
      if (!Number.isFinite(position.x) || !Number.isFinite(position.z))
        return { ok: false, status: 400, problem: 'x and z must be finite numbers (metres)' };
      if (Math.abs(position.x) > this.halfExtent || Math.abs(position.z) > this.halfExtent)
        return { ok: false, status: 400, problem: `position is outside the world (the map spans ±${this.halfExtent} m)` };
      cell = cellAt(position.x, position.z);
    } else {
      cell = (await this.snapshot()).spawn?.cell ?? { x: 0, z: 0 };
    }
    if (!this.onMap(cell))
      return { ok: false, status: 400, problem: `position is outside the world (the map spans ±${this.halfExtent} m)` };
    const id = ((await this.storage.get<number>('world:lastId')) ?? 0) + 1;
    const now = this.now();
    // Entering is not a hop: the first hop may follow at once.
    await this.storage.put({ 'world:lastId': id, [`who:${id}`]: { cell, at: 0, issued: now } satisfies Whereabouts });
    await this.sweep(now);
    const token = await signToken(await this.signingKey(), id, cell, now);
    return {
      ok: true,
      value: { id, token, cell, expiresAt: Math.floor(now / 1000) * 1000 + TOKEN_TTL_MS, cellSize: CELL_SIZE, serverTime: this.now() },
    };
  }

  /**
   * A token for `to` — the current cell (renewal) or an adjacent one (a hop) — given the current
   * token. A hop also says who moved from where (`moved`), so the old cell can be told.
   */
  async hop(token: string, to: Cell): Promise<DirectoryResult<WorldHop> & { moved?: { id: number; from: Cell } }> {
    if (!Number.isInteger(to.x) || !Number.isInteger(to.z) || !this.onMap(to))
      return { ok: false, status: 400, problem: `cell must be whole numbers on the map (±${this.halfExtent} m)` };
    const now = this.now();
    const checked = await verifyToken(await this.signingKey(), token, now);
    if (!checked.ok) return { ok: false, status: checked.expired ? 401 : 403, problem: checked.reason };
    const { id, cell } = checked.claims;
    const record = await this.storage.get<Whereabouts>(`who:${id}`);
    if (!record || !sameCell(record.cell, cell))
      return { ok: false, status: 409, problem: 'this token is not the identity’s current cell (a newer token exists)' };
    if (cellDistance(cell, to) > 1)
      return { ok: false, status: 400, problem: `cell ${to.x}:${to.z} is not next to ${cell.x}:${cell.z}; enter again to teleport` };
    const moving = !sameCell(cell, to);
    if (moving && now - record.at < MIN_HOP_MS)
      return { ok: false, status: 429, problem: `hopped ${now - record.at} ms ago; at most one hop per ${MIN_HOP_MS} ms` };
    const sinceIssued = now - (record.issued ?? 0);
    if (!moving && sinceIssued < MIN_RENEW_MS)
      return {
        ok: false,
        status: 429,
        problem: `this identity got a token ${sinceIssued} ms ago; renew at most once per ${MIN_RENEW_MS / 1000} s (tokens last ${TOKEN_TTL_MS / 1000} s)`,
      };
    await this.storage.put(`who:${id}`, { cell: to, at: moving ? now : record.at, issued: now } satisfies Whereabouts);
    const fresh = await signToken(await this.signingKey(), id, to, now);
    const value: WorldHop = { token: fresh, cell: to, expiresAt: Math.floor(now / 1000) * 1000 + TOKEN_TTL_MS, serverTime: this.now() };
    return moving ? { ok: true, value, moved: { id, from: cell } } : { ok: true, value };
  }

  /**
   * Forgets up to {@link SWEEP_BATCH} identities past {@link FORGET_AFTER_MS}, continuing in key
   * order from the last call and starting over at the end. One pass over n records takes n / 16
   * entries, so forgotten-but-kept records stay a small fraction of the live ones.
   */
  private async sweep(now: number): Promise<void> {
    const batch = await this.storage.list<Whereabouts>({
      prefix: 'who:',
      limit: SWEEP_BATCH,
      ...(this.sweepAfter ? { startAfter: this.sweepAfter } : {}),
    });
    const forget: string[] = [];
    let last: string | undefined;
    for (const [key, record] of batch) {
      last = key;
      if (now - (record.issued ?? 0) > FORGET_AFTER_MS) forget.push(key);
    }
    this.sweepAfter = batch.size < SWEEP_BATCH ? undefined : last;
    if (forget.length) await this.storage.delete(forget);
  }

  /** A cell's population report (from the cell itself). */
  async report(cell: Cell, players: number): Promise<void> {
    const key = `pop:${cell.x}:${cell.z}`;
    if (players <= 0) await this.storage.delete(key);
    else await this.storage.put(key, { x: cell.x, z: cell.z, players, at: this.now() } satisfies CellPopulation);
  }

  /** Busy cells, total players and a spawn suggestion (always one: see {@link spawnCell}). */
  async snapshot(): Promise<DirectoryView> {
    const now = this.now();
    const cells = [...(await this.storage.list<CellPopulation>({ prefix: 'pop:' })).values()]
      .filter((c) => now - c.at < REPORT_STALE_MS && c.players > 0)
      .sort((a, b) => b.players - a.players || a.x - b.x || a.z - b.z);
    const players = cells.reduce((sum, c) => sum + c.players, 0);
    const pick = this.spawnCell(cells);
    const spawn = { x: (pick.x + 0.5) * CELL_SIZE, z: (pick.z + 0.5) * CELL_SIZE, cell: pick };
    return { cellSize: CELL_SIZE, cells, players, spawn };
  }

  /**
   * Where a newcomer should start, given the populated cells busiest first: the busiest cell that
   * is not crowded ({@link CROWDED}), so people meet; when every populated cell is crowded, the
   * nearest cell on the map around the busiest one that is not, so they still arrive next to the
   * crowd; in an empty world the cell at the origin.
   */
  private spawnCell(cells: readonly CellPopulation[]): Cell {
    const open = cells.find((c) => c.players < CROWDED);
    if (open) return { x: open.x, z: open.z };
    const busiest = cells[0];
    if (!busiest) return { x: 0, z: 0 };
    const crowded = new Set(cells.map((c) => `${c.x}:${c.z}`));
    const reach = 2 * (CELL_LIMIT + 1);
    for (let r = 1; r <= reach; r++) {
      // The ring at Chebyshev distance r, in a fixed order (so every caller gets the same answer).
      for (let dz = -r; dz <= r; dz++) {
        for (let dx = -r; dx <= r; dx++) {
          if (Math.max(Math.abs(dx), Math.abs(dz)) !== r) continue;
          const cell = { x: busiest.x + dx, z: busiest.z + dz };
          if (this.onMap(cell) && !crowded.has(`${cell.x}:${cell.z}`)) return cell;
        }
      }
    }
    return { x: busiest.x, z: busiest.z };
  }
}

/**
 * A throttle that queues instead of refusing: {@link turn} resolves true at once while its bucket
 * has a token and nobody waits, else when a token comes, in arrival order — or false once the
 * caller waited `maxWaitMs`. The world directory puts every `enter` through one (the whole
 * world's 20 a second), so a moment of many arrivals is served in turn, not answered 503.
 * Time and timers come in as arguments.
 */
export class ArrivalQueue {
  private readonly bucket: TokenBucket;
  private readonly waiting: Array<{ resolve: (admitted: boolean) => void; deadline: number }> = [];
  private timer: unknown = null;

  readonly limits: TokenBucketLimits;
  readonly maxWaitMs: number;
  private readonly now: () => number;
  private readonly schedule: (run: () => void, ms: number) => unknown;

  constructor(
    limits: TokenBucketLimits,
    maxWaitMs: number,
    now: () => number = Date.now,
    schedule: (run: () => void, ms: number) => unknown = (run, ms) => setTimeout(run, ms),
  ) {
    this.limits = limits;
    this.maxWaitMs = maxWaitMs;
    this.now = now;
    this.schedule = schedule;
    this.bucket = new TokenBucket(limits, now());
  }

  /** Callers waiting now. */
  get length(): number {
    return this.waiting.length;
  }

  /** True once it is the caller's turn; false after waiting {@link maxWaitMs}. */
  turn(): Promise<boolean> {
    const now = this.now();
    if (this.waiting.length === 0 && this.bucket.take(now)) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.waiting.push({ resolve, deadline: now + this.maxWaitMs });
      this.pump();
    });
  }

  private pump(): void {
    if (this.timer !== null) return;
    this.timer = this.schedule(
      () => {
        this.timer = null;
        const now = this.now();
        while (this.waiting.length > 0) {
          const first = this.waiting[0]!;
          if (now > first.deadline) {
            this.waiting.shift();
            first.resolve(false);
          } else if (this.bucket.take(now)) {
            this.waiting.shift();
            first.resolve(true);
          } else break;
        }
        if (this.waiting.length > 0) this.pump();
      },
      Math.ceil(1000 / this.limits.ratePerSecond),
    );
  }
}
