import { DurableObject } from 'cloudflare:workers';
import { TokenBucket } from '../../src/core/token-bucket.ts';
import { cellRoom, type Cell, type WorldDirectory as DirectoryView, type WorldEntry, type WorldHop } from '../../src/net/protocol/world.ts';
import { CloseCode } from '../../src/net/protocol/control.ts';
import type { Env } from '../env.ts';
import { refuseSocket } from '../hibernating-room.ts';
import { isLocalIp } from '../identity/client.ts';
import { deriveKey } from '../identity/keys.ts';
import { signSession } from '../identity/session-token.ts';
import { ArrivalQueue, WorldDirectory, type DirectoryResult } from './directory.ts';

/** `enter`s one address may make: a burst of 10, then one every 6 s (each makes a stored identity). */
export const ENTER_PER_IP = { ratePerSecond: 1 / 6, burst: 10 } as const;
/** `enter`s the whole world takes (every address together), so a botnet's records stay bounded. */
export const ENTER_GLOBAL = { ratePerSecond: 20, burst: 200 } as const;
/** Sessions one address may mint: a burst of 20, then one every 6 s. */
export const SESSIONS_PER_IP = { ratePerSecond: 1 / 6, burst: 20 } as const;
/**
 * Hops and renewals one address may ask for, all its identities together (each is a write here):
 * a burst of 40, then 3 a second — twenty players behind one address crossing borders every few
 * seconds and renewing every 40 s stay well under it.
 */
export const HOPS_PER_IP = { ratePerSecond: 3, burst: 40 } as const;
/**
 * How long an `enter` waits for the whole world's throttle ({@link ENTER_GLOBAL}) before it is
 * refused with 503 (ms): a moment of many arrivals is queued (20 a second), not refused.
 */
export const ENTER_QUEUE_MS = 5000;
/** Per-address buckets kept before idle ones are forgotten. */
const MAX_TRACKED_IPS = 4096;

/** A session issued by `POST /api/session`. */
export interface IssuedSession {
  token: string;
  expiresAt: number;
}

/**
 * The world directory (`world:directory`), reached by the Worker and the cells through RPC only
 * (no sockets): world identities and cell tokens ({@link WorldDirectory}), population reports,
 * the signing keys' master, session tokens — and the throttles on what writes here: `enter`,
 * sessions, and hops with renewals per address, `enter` for the whole world (arrivals past its
 * rate wait their turn for up to {@link ENTER_QUEUE_MS}). A hop tells the old cell at once, so a
 * superseded token stops publishing there.
 */
export class WorldDirectoryRoom extends DurableObject<Env> {
  private readonly logic: WorldDirectory;
  private readonly enters = new Map<string, TokenBucket>();
  private readonly sessions = new Map<string, TokenBucket>();
  private readonly hops = new Map<string, TokenBucket>();
  /** The whole world's `enter` throttle: arrivals past it wait their turn. */
  private readonly arrivals = new ArrivalQueue(ENTER_GLOBAL, ENTER_QUEUE_MS);
  private sessionKey: Promise<CryptoKey> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const extent = Number(env.WORLD_HALF_EXTENT_M);
    this.logic = new WorldDirectory(ctx.storage, Date.now, Number.isFinite(extent) && extent > 0 ? extent : undefined);
  }

  /** Sockets only: the directory takes none, and says so with a close reason. */
  override async fetch(): Promise<Response> {
    return refuseSocket(this.ctx, { code: CloseCode.policy, reason: 'the world directory takes no sockets; use /api/world' });
  }

  /** The signing keys' master (base64), for cells and rooms (created on first use). */
  async worldKey(): Promise<string> {
    return this.logic.rawKey();
  }

  async worldEnter(position: { x: number; z: number } | null, ip: string): Promise<DirectoryResult<WorldEntry>> {
    const now = Date.now();
    if (!isLocalIp(ip) && !perIp(this.enters, ip, ENTER_PER_IP, now))
      return {
        ok: false,
        status: 429,
        problem: `too many enters from this address (a burst of ${ENTER_PER_IP.burst}, then one every ${1 / ENTER_PER_IP.ratePerSecond} s)`,
      };
    if (!(await this.arrivals.turn()))
      return { ok: false, status: 503, problem: 'the world is taking too many new players a second; try again shortly' };
    return this.logic.enter(position);
  }

  async worldHop(token: string, to: Cell, ip = 'local'): Promise<DirectoryResult<WorldHop>> {
    if (!isLocalIp(ip) && !perIp(this.hops, ip, HOPS_PER_IP, Date.now()))
      return {
        ok: false,
        status: 429,
        problem: `too many hops and renewals from this address (a burst of ${HOPS_PER_IP.burst}, then ${HOPS_PER_IP.ratePerSecond} a second)`,
      };
    const result = await this.logic.hop(token, to);
    if (result.ok && result.moved) {
      const { id, from } = result.moved;
      const cell = this.env.WORLD_CELL.get(this.env.WORLD_CELL.idFromName(cellRoom(from)));
      // Not awaited by the client: the old cell demotes the socket within one RPC.
      this.ctx.waitUntil(cell.superseded(id).catch(() => undefined));
    }
    return result.ok ? { ok: true, value: result.value } : result;
  }

  async worldReport(cell: Cell, players: number): Promise<void> {
    await this.logic.report(cell, players);
  }

  async worldSnapshot(): Promise<DirectoryView> {
    return this.logic.snapshot();
  }

  /** A new session token for a client at `ip`, or null when that address minted too many lately. */
  async issueSession(ip: string): Promise<IssuedSession | null> {
    const now = Date.now();
    if (!isLocalIp(ip) && !perIp(this.sessions, ip, SESSIONS_PER_IP, now)) return null;
    this.sessionKey ??= this.logic.rawKey().then((b64) =>
      deriveKey(
        Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)),
        'session',
      ),
    );
    const { token, claims } = await signSession(await this.sessionKey, now);
    return { token, expiresAt: claims.expiresAt };
  }
}

function perIp(table: Map<string, TokenBucket>, ip: string, limits: { ratePerSecond: number; burst: number }, now: number): boolean {
  let bucket = table.get(ip);
  if (!bucket) {
    if (table.size >= MAX_TRACKED_IPS) for (const [key, old] of table) if (old.available(now) >= limits.burst) table.delete(key);
    bucket = new TokenBucket(limits, now);
    table.set(ip, bucket);
  }
  return bucket.take(now);
}
