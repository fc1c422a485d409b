import { TokenBucket, type TokenBucketLimits } from '../../src/core/token-bucket.ts';
import { verifySession } from './session-token.ts';

/**
 * Client identity and budgets. A *client* is who a budget belongs to:
 * - a session (`?session=` token from `POST /api/session`): one person's tab or program — the
 *   fine-grained identity, one client's budget however many sockets it opens;
 * - without a session, the connecting IP (`ip:…`): everyone behind one NAT address who has no
 *   session shares it, so that budget is {@link ANONYMOUS_SHARE} clients' worth;
 * - and every IP as a whole, sessions included, is held to {@link IP_SHARE} clients' worth, so
 *   minting sessions does not multiply a budget without bound.
 *
 * The IP is the `CF-Connecting-IP` header Cloudflare sets (a client cannot forge it behind
 * Cloudflare). A local server (`npm start`, and every test server) sets it in its front
 * (scripts/front.ts) to the connection's real peer address, replacing any a client sent — plain
 * `wrangler dev` would believe a client's. A loopback peer (this machine's own tabs and tests),
 * or no header at all, is local development: there every socket without a session is its own
 * client and no per-address budget applies. Any other peer — a visitor on the local network of
 * `npm start -- --ip 0.0.0.0` — gets the budgets of production. Tests run workerd with
 * `TRUST_TEST_IP_HEADER=1` and play many addresses with the `X-Test-Client-IP` header; nothing
 * else reads that header.
 */

/** The header the Worker passes the client's IP to an object in (the Worker strips any a client sends). */
export const CLIENT_IP_HEADER = 'X-Cairn-Client-IP';
/** Test-only IP header, honoured only when the Worker runs with `TRUST_TEST_IP_HEADER=1`. */
export const TEST_IP_HEADER = 'X-Test-Client-IP';
/** Clients' worth of budget that the session-less sockets of one IP share (a NAT holds several people). */
export const ANONYMOUS_SHARE = 8;
/** Clients' worth of budget one IP gets in all, sessions included (a big NAT, a school, an office). */
export const IP_SHARE = 32;

/** Who a socket belongs to (kept in its attachment, so budgets are rebuilt after hibernation). */
export interface ClientRef {
  /** `s:<session id>`, `ip:<address>`, or `sock:<random>` (local development, no session). */
  client: string;
  /** The connecting IP, or `local`. */
  ip: string;
}

/** The client's IP as the Worker sees it (`trustTestHeader`: the Worker's `TRUST_TEST_IP_HEADER` is `1`). */
export function requestIp(request: Request, trustTestHeader: boolean): string {
  if (trustTestHeader) {
    const test = request.headers.get(TEST_IP_HEADER);
    if (test) return test.slice(0, 64);
  }
  return request.headers.get('CF-Connecting-IP')?.slice(0, 64) ?? 'local';
}

/** Loopback or unknown: local development, where addresses say nothing about who is who. */
export function isLocalIp(ip: string): boolean {
  return ip === 'local' || ip.startsWith('127.') || ip === '::1' || ip.startsWith('::ffff:127.');
}

/** Works out the client of a join request inside an object (the Worker set {@link CLIENT_IP_HEADER}). */
export async function identifyClient(request: Request, sessionKey: () => Promise<CryptoKey>, now: number): Promise<ClientRef> {
  const ip = request.headers.get(CLIENT_IP_HEADER) ?? 'local';
  const token = new URL(request.url).searchParams.get('session');
  if (token) {
    const claims = await verifySession(await sessionKey(), token, now);
    if (claims) return { client: `s:${claims.id}`, ip };
  }
  if (isLocalIp(ip)) return { client: `sock:${crypto.randomUUID()}`, ip };
  return { client: `ip:${ip}`, ip };
}

/** How many clients' worth a client key's budget is. */
function shareOf(client: string): number {
  return client.startsWith('ip:') ? ANONYMOUS_SHARE : 1;
}

/** Seat caps in one object. */
export interface SeatLimits {
  /** Sockets one client (a session) may hold. */
  client: number;
  /** Sockets the session-less clients of one address may hold together. */
  anonymousAddress: number;
  /** Sockets one address may hold in all, sessions included. */
  address: number;
}

interface Account<K extends string> {
  seats: number;
  buckets: Partial<Record<K, TokenBucket>>;
  touched: number;
}

/** Entries past this many are pruned of idle, seatless accounts. */
const PRUNE_AT = 2048;

/**
 * An object's budgets, per client and per IP, for each kind of message `K` and for seats. Lives in
 * the object's memory: seats are recounted from the sockets' attachments after hibernation
 * ({@link seat} for each), and buckets start full then — an object hibernates only after it has
 * been idle, so nobody was over budget. Pure: time comes in as an argument.
 */
export class ClientLedger<K extends string> {
  private readonly clients = new Map<string, Account<K>>();
  private readonly ips = new Map<string, Account<K>>();

  private readonly limits: Record<K, TokenBucketLimits>;
  readonly seats: SeatLimits;

  constructor(
    /** One client's limits per kind (×{@link ANONYMOUS_SHARE} for an address without session, ×{@link IP_SHARE} per address). */
    limits: Record<K, TokenBucketLimits>,
    /** Most sockets one client, one session-less address, and one address in all may hold in this object. */
    seats: SeatLimits,
  ) {
    this.limits = limits;
    this.seats = seats;
  }

  /** Takes `cost` from the client's and its IP's `kind` budgets; false (nothing taken) when either is spent. */
  take(ref: ClientRef, kind: K, now: number, cost = 1): boolean {
    const client = this.account(this.clients, ref.client, now);
    const bucket = (client.buckets[kind] ??= this.bucket(kind, shareOf(ref.client), now));
    if (isLocalIp(ref.ip)) return bucket.take(now, cost);
    const ip = this.account(this.ips, ref.ip, now);
    const ipBucket = (ip.buckets[kind] ??= this.bucket(kind, IP_SHARE, now));
    if (bucket.available(now) < cost || ipBucket.available(now) < cost) return false;
    bucket.take(now, cost);
    ipBucket.take(now, cost);
    return true;
  }

  /** Why `ref` may not take another seat, or null when it may. */
  seatProblem(ref: ClientRef): string | null {
    const held = this.clients.get(ref.client)?.seats ?? 0;
    const cap = ref.client.startsWith('ip:') ? this.seats.anonymousAddress : this.seats.client;
    if (held >= cap) return `this client already holds ${held} sockets here (at most ${cap})`;
    if (!isLocalIp(ref.ip)) {
      const ipHeld = this.ips.get(ref.ip)?.seats ?? 0;
      const ipCap = this.seats.address;
      if (ipHeld >= ipCap) return `this address already holds ${ipHeld} sockets here (at most ${ipCap})`;
    }
    return null;
  }

  seat(ref: ClientRef, now: number): void {
    this.account(this.clients, ref.client, now).seats++;
    if (!isLocalIp(ref.ip)) this.account(this.ips, ref.ip, now).seats++;
  }

  unseat(ref: ClientRef, now: number): void {
    const client = this.account(this.clients, ref.client, now);
    client.seats = Math.max(0, client.seats - 1);
    if (!isLocalIp(ref.ip)) {
      const ip = this.account(this.ips, ref.ip, now);
      ip.seats = Math.max(0, ip.seats - 1);
    }
  }

  /** Forgets every seat (before recounting them from the sockets). */
  clearSeats(): void {
    for (const account of this.clients.values()) account.seats = 0;
    for (const account of this.ips.values()) account.seats = 0;
  }

  private bucket(kind: K, share: number, now: number): TokenBucket {
    const limits = this.limits[kind];
    return new TokenBucket({ ratePerSecond: limits.ratePerSecond * share, burst: limits.burst * share }, now);
  }

  private account(table: Map<string, Account<K>>, key: string, now: number): Account<K> {
    let account = table.get(key);
    if (!account) {
      if (table.size >= PRUNE_AT) prune(table, now);
      account = { seats: 0, buckets: {}, touched: now };
      table.set(key, account);
    }
    account.touched = now;
    return account;
  }
}

/** Drops seatless accounts idle for a minute (their buckets have refilled by then anyway). */
function prune<K extends string>(table: Map<string, Account<K>>, now: number): void {
  for (const [key, account] of table) if (account.seats === 0 && now - account.touched > 60_000) table.delete(key);
}
