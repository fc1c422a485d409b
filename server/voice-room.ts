import { TokenBucket, type TokenBucketLimits } from '../src/core/token-bucket.ts';
import { cellRoom, DIRECTORY_ROOM, type Cell } from '../src/net/protocol/world.ts';
import {
  PING_TEXT,
  PONG_TEXT,
  VOICE_CLOSE,
  isWorldVoiceRoom,
  parseClientMessage,
  utf8Length,
  type ClientMessage,
  type ErrorCode,
  type ServerMessage,
  type WirePosition,
} from '../src/voice/protocol/signaling.ts';
import type { Env } from './env.ts';
import { HibernatingRoom, type SocketAttachment } from './hibernating-room.ts';
import { verifyAvatarToken, voiceScope, type AvatarIssuer } from './identity/avatar-token.ts';
import { ClientLedger, identifyClient, type ClientRef, type SeatLimits } from './identity/client.ts';
import { KeyRing } from './identity/key-ring.ts';
import { send } from './send.ts';
import { voiceRoomCapacity } from './voice/capacity.ts';

export { VOICE_ROOM_CAPACITY, WORLD_VOICE_ROOM_CAPACITY, voiceRoomCapacity } from './voice/capacity.ts';

/** What a client's budget covers in a voice room: each signaling kind, and messages refused as malformed. */
export type VoiceBudget = 'offer' | 'answer' | 'ice' | 'bye' | 'avatar' | 'resume' | 'pos' | 'bad';

/**
 * One client's signaling budget per kind (per second sustained, burst). Honest clients stay far
 * below: a world client links to at most 8 peers (one offer or answer each, a few candidates),
 * re-announces its avatar on each avatar-sync reconnect, and sends positions at ≤ 10 Hz.
 */
export const VOICE_LIMITS: Record<VoiceBudget, TokenBucketLimits> = {
  offer: { ratePerSecond: 2, burst: 20 },
  answer: { ratePerSecond: 2, burst: 20 },
  ice: { ratePerSecond: 30, burst: 100 },
  bye: { ratePerSecond: 2, burst: 20 },
  avatar: { ratePerSecond: 0.5, burst: 4 },
  resume: { ratePerSecond: 0.2, burst: 3 },
  pos: { ratePerSecond: 15, burst: 15 },
  bad: { ratePerSecond: 5, burst: 20 },
};
/** Position updates a peer may send (kept for the welcome's `positionRate`). */
export const POSITION_LIMITS = VOICE_LIMITS.pos;
/**
 * What one peer may receive from one client (messages, and UTF-8 bytes): a flood aimed at one
 * target stops here, so 500 offers of 12 KB or 2,000 candidates deliver a few to a few hundred,
 * not all — and the target's budget for everyone else is untouched.
 */
export const PAIR_LIMITS = { messages: { ratePerSecond: 30, burst: 100 }, bytes: { ratePerSecond: 16_384, burst: 49_152 } } as const;
/** What one peer may receive from everyone together: the backstop against many clients aiming at one. */
export const TARGET_LIMITS = { messages: { ratePerSecond: 120, burst: 400 }, bytes: { ratePerSecond: 65_536, burst: 196_608 } } as const;
/** Seats: a client (one tab and its reconnect), session-less clients of one address, one address, per room kind. */
export const VOICE_SEATS: SeatLimits = { client: 2, anonymousAddress: 6, address: 8 };
export const WORLD_VOICE_SEATS: SeatLimits = { client: 2, anonymousAddress: 16, address: 64 };
/** A peer that keeps flooding hears about it at most this often (ms). */
const RATE_ERROR_INTERVAL_MS = 1000;
/** Close code for a socket replaced by its owner's reconnect. */
export const CLOSE_REPLACED = VOICE_CLOSE.replaced;
/** Close code for a join refused because the room is full. */
export const CLOSE_FULL = VOICE_CLOSE.full;
/** Close code for a join refused because its client already holds its most sockets here. */
export const CLOSE_TOO_MANY_SOCKETS = VOICE_CLOSE.tooManySockets;
/** Close code for a socket that stopped pinging (a crashed tab, a dead network). */
export const CLOSE_SILENT = VOICE_CLOSE.silent;
/** Keep-alive interval a client declares with `?ping=SECONDS` (clamped 1–60); default 5. */
const DEFAULT_PING_MS = 5_000;
/** A socket silent for this many ping intervals (plus slack) is dropped and its leave announced. */
const SILENT_PINGS = 3;
const SILENT_SLACK_MS = 2_000;

/** What a voice socket carries through hibernation (well under the 2,048-byte attachment cap). */
export interface VoicePeer extends SocketAttachment, ClientRef {
  /** Secret that lets this peer's next socket replace this one after a reconnect. */
  token: string;
  pos: WirePosition | null;
  /** The avatar id this peer announced (`avatar` message, with a valid avatar token), or null. */
  avatar: number | null;
  /** When this peer was last told it is rate-limited (ms). */
  rateErrorAt: number;
  /** The keep-alive interval the client declared (ms). */
  pingMs: number;
  /** Last message other than a ping (ms; updated at most every few seconds). */
  seenAt: number;
}

/**
 * One room of voice signaling: a JSON relay over hibernating WebSockets. It sends each new peer
 * the roster, announces joins and leaves, routes offers, answers and ICE candidates to one target
 * peer by its socket tag, and broadcasts positions. Every forwarded message is rebuilt from the
 * validated fields with the sender's id stamped on, so a client cannot speak for another. A bad
 * message earns an `error` to its sender only and nothing is forwarded. Audio never comes here.
 *
 * Budgets belong to clients (a session, or an address without one; server/identity/client.ts):
 * every signaling kind has one ({@link VOICE_LIMITS}), every target has one for what it receives
 * from everyone ({@link TARGET_LIMITS}), and a client holds at most a couple of seats. An avatar
 * claim needs the signed token its avatar room or world cell issued, so nobody can stand in for
 * the avatar next to you and receive the microphone offers meant for it.
 *
 * Keep-alive pings are answered by the runtime (`setWebSocketAutoResponse`) without waking the
 * object, and an alarm drops sockets whose pings stopped (see {@link alarm}).
 */
export class VoiceRoom extends HibernatingRoom<VoicePeer> {
  private readonly keys: KeyRing;
  private ledger: ClientLedger<VoiceBudget> | null = null;
  /** What each peer (by id) may still receive from everyone together, and from each client. */
  private readonly inbound = new Map<number, { total: Allowance; from: Map<string, Allowance> }>();
  /** Client identities worked out in admit(), for describePeer of the same request. */
  private readonly admitted = new WeakMap<Request, ClientRef>();
  /** Each socket's avatar claim in progress (claims of one socket are handled in order). */
  private readonly claiming = new WeakMap<WebSocket, Promise<void>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_TEXT, PONG_TEXT));
    this.keys = new KeyRing(ctx.storage, () => env.WORLD_DIRECTORY.get(env.WORLD_DIRECTORY.idFromName(DIRECTORY_ROOM)).worldKey());
  }

  protected override async admit(request: Request): Promise<{ code: number; reason: string } | null> {
    const room = request.headers.get('X-Cairn-Room') ?? '';
    const capacity = voiceRoomCapacity(room);
    if (this.openSockets().length >= capacity) {
      return { code: CLOSE_FULL, reason: `voice room is full (${capacity} peers)` };
    }
    const ref = await identifyClient(request, () => this.keys.key('session'), Date.now());
    const problem = this.budgets(room).seatProblem(ref);
    if (problem) return { code: CLOSE_TOO_MANY_SOCKETS, reason: problem };
    this.admitted.set(request, ref);
    return null;
  }

  protected override async describePeer(request: Request, base: SocketAttachment): Promise<VoicePeer> {
    const declared = Number(new URL(request.url).searchParams.get('ping'));
    const pingMs = Number.isFinite(declared) && declared > 0 ? Math.min(60, Math.max(1, declared)) * 1000 : DEFAULT_PING_MS;
    const now = Date.now();
    const ref = this.admitted.get(request) ?? { client: `sock:${base.id}`, ip: 'local' };
    return { ...base, ...ref, token: randomToken(), pos: null, avatar: null, rateErrorAt: 0, pingMs, seenAt: now };
  }

  protected override async onJoin(ws: WebSocket, peer: VoicePeer): Promise<void> {
    this.budgets(peer.room).seat(peer, Date.now());
    await this.armReaper(peer.joinedAt + silentLimit(peer));
    const others = this.peers().filter((p) => p.peer.id !== peer.id);
    sendMessage(ws, {
      type: 'welcome',
      id: peer.id,
      token: peer.token,
      room: peer.room,
      peers: others.map((p) => ({ id: p.peer.id, pos: p.peer.pos, avatar: p.peer.avatar ?? null })),
      positionRate: isWorldVoiceRoom(peer.room) ? 0 : POSITION_LIMITS.ratePerSecond,
    });
    for (const other of others) sendMessage(other.ws, { type: 'join', id: peer.id });
  }

  protected override async onMessage(ws: WebSocket, peer: VoicePeer, raw: string | ArrayBuffer): Promise<void> {
    const budgets = this.budgets(peer.room);
    const now = Date.now();
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) {
      // A flood of garbage earns a few errors, then silence.
      if (budgets.take(peer, 'bad', now)) sendMessage(ws, parsed.error);
      return;
    }
    const message: ClientMessage = parsed.message;
    if (message.type === 'ping') {
      // Only a ping with different spacing gets here; the exact text is auto-answered.
      send(ws, PONG_TEXT);
      return;
    }
    if (now - peer.seenAt > 2_000 && message.type !== 'pos') {
      peer.seenAt = now;
      this.updatePeer(ws, peer);
    }
    if (message.type === 'pos' && isWorldVoiceRoom(peer.room)) {
      // N peers × 10 Hz × N listeners is what a world room must not do; panners follow avatars.
      this.notify(
        ws,
        peer,
        now,
        'no-positions',
        'a world voice room relays no positions: voices are placed where their avatars stand (announce yours with an avatar message)',
        'pos',
      );
      return;
    }
    if (!budgets.take(peer, message.type, now)) {
      const limits = VOICE_LIMITS[message.type];
      this.notify(
        ws,
        peer,
        now,
        'rate-limited',
        `${message.type} messages are limited to ${limits.ratePerSecond} per second (bursts of ${limits.burst}) per client; extra ones are dropped`,
        message.type,
      );
      return;
    }
    switch (message.type) {
      case 'offer':
      case 'answer':
      case 'ice':
      case 'bye': {
        if (message.to === peer.id) return refuse(ws, 'no-such-peer', 'cannot send signaling to yourself', message.type);
        const target = this.socketOf(message.to);
        if (!target) return refuse(ws, 'no-such-peer', `peer ${message.to} is not in this room`, message.type);
        const relayed: ServerMessage =
          message.type === 'ice'
            ? { type: 'ice', from: peer.id, candidate: message.candidate }
            : message.type === 'bye'
              ? { type: 'bye', from: peer.id }
              : { type: message.type, from: peer.id, sdp: message.sdp };
        const text = JSON.stringify(relayed);
        if (!this.takeInbound(message.to, peer, utf8Length(text), now)) {
          this.notify(
            ws,
            peer,
            now,
            'target-busy',
            `peer ${message.to} is receiving more signaling than it may (from you: ${PAIR_LIMITS.messages.ratePerSecond} messages and ${PAIR_LIMITS.bytes.ratePerSecond} bytes a second); this ${message.type} was dropped`,
            message.type,
          );
          return;
        }
        send(target, text);
        return;
      }
      case 'avatar': {
        // A claim waits on other objects (the token's issuer): claims of one socket run one after
        // another, so the last one sent is the one that stands and none is announced twice.
        const previous = this.claiming.get(ws) ?? Promise.resolve();
        const done = previous.then(() => this.claimAvatar(ws, peer, message.id, message.token ?? '', now));
        this.claiming.set(
          ws,
          done.catch(() => undefined),
        );
        return done;
      }
      case 'pos': {
        peer.seenAt = now;
        peer.pos = { x: message.x, y: message.y, z: message.z, facing: message.facing };
        this.updatePeer(ws, peer);
        const text = JSON.stringify({ type: 'pos', from: peer.id, ...peer.pos } satisfies ServerMessage);
        for (const other of this.openSockets()) if (other !== ws) send(other, text);
        return;
      }
      case 'resume': {
        if (message.id === peer.id) return;
        const old = this.ctx.getWebSockets(`peer:${message.id}`)[0];
        const oldPeer = old ? this.peerOf(old) : null;
        if (!old || !oldPeer || this.hasDeparted(old)) return; // already gone and announced
        if (oldPeer.token !== message.token) return refuse(ws, 'bad-resume', `token does not match peer ${message.id}`, 'resume');
        // Closes the old socket and runs its leave (once) for everyone else.
        await this.dismiss(old, CLOSE_REPLACED, 'replaced by a reconnect');
        return;
      }
    }
  }

  /** `peer` claims avatar `id` (null: none) with `token`: checked, then announced to everyone else. */
  private async claimAvatar(ws: WebSocket, peer: VoicePeer, id: number | null, token: string, now: number): Promise<void> {
    if (id === (peer.avatar ?? null)) return;
    if (id !== null) {
      const problem = await this.avatarProofProblem(peer, id, token, now);
      if (problem)
        return refuse(ws, 'bad-avatar-token', `avatar ${id} not accepted: ${problem}; yours stays ${peer.avatar ?? 'none'}`, 'avatar');
      // The checks waited on other objects: this socket may have gone meanwhile.
      if (ws.readyState !== WebSocket.OPEN || this.hasDeparted(ws)) return;
      // One avatar, one voice: a second claim would get the links meant for its owner.
      const holder = this.peers().find((p) => p.ws !== ws && p.peer.avatar === id);
      if (holder)
        return refuse(
          ws,
          'avatar-taken',
          `avatar ${id} is already announced by peer ${holder.peer.id} in this room; yours stays ${peer.avatar ?? 'none'}`,
          'avatar',
        );
    }
    peer.avatar = id;
    this.updatePeer(ws, peer);
    const text = JSON.stringify({ type: 'avatar', from: peer.id, id } satisfies ServerMessage);
    for (const other of this.openSockets()) if (other !== ws) send(other, text);
  }

  /**
   * Why `token` does not prove avatar `id` to `peer`, or null when it does: the signature, id,
   * scope and age must check out, the token must come from the right kind of room (a world cell
   * for a world voice room, the relay room of this name otherwise), and that room must say the
   * socket the token was issued to is still open there and belongs to `peer`'s client — the same
   * session. So a copied token proves nothing to another session, to a socket without one, or
   * once its own socket has closed. One RPC to the issuing room per claim (claims are budgeted).
   */
  private async avatarProofProblem(peer: VoicePeer, id: number, token: string, now: number): Promise<string | null> {
    const world = isWorldVoiceRoom(peer.room);
    const verified = await verifyAvatarToken(await this.keys.key('avatar'), token, id, voiceScope(peer.room, world), now);
    if (!verified.ok) return verified.problem;
    const { cell, socket } = verified.claims;
    if (world && !cell) return 'avatar token was not issued by a world cell';
    if (!world && cell) return 'avatar token was issued by a world cell, not by this room';
    let holder: string | null;
    try {
      holder = await this.issuer(peer.room, cell).avatarHolder(id, socket);
    } catch (error) {
      return `the avatar token cannot be checked now (${(error as Error).message})`;
    }
    if (holder === null) return 'the connection this avatar token was issued to is closed (a reconnect of avatar sync brings a fresh one)';
    if (holder !== peer.client)
      return 'avatar token was issued to another client: it proves an avatar only to the session it was issued to (send the same ?session= on the avatar and the voice socket)';
    return null;
  }

  /** The room that issued an avatar token: the world cell it names, else the relay room of this voice room's name. */
  private issuer(room: string, cell: Cell | null): AvatarIssuer {
    const env = this.env;
    return cell ? env.WORLD_CELL.get(env.WORLD_CELL.idFromName(cellRoom(cell))) : env.RELAY_ROOM.get(env.RELAY_ROOM.idFromName(room));
  }

  /** An error to a flooding sender, at most once a second (nobody else hears of it). */
  private notify(ws: WebSocket, peer: VoicePeer, now: number, code: ErrorCode, message: string, ref: string): void {
    if (now - peer.rateErrorAt < RATE_ERROR_INTERVAL_MS) return;
    peer.rateErrorAt = now;
    this.updatePeer(ws, peer);
    sendMessage(ws, { type: 'error', code, message, ref });
  }

  /** Takes one message of `bytes` from what peer `id` may receive from `sender`'s client and in all; false when either is spent. */
  private takeInbound(id: number, sender: ClientRef, bytes: number, now: number): boolean {
    let inbound = this.inbound.get(id);
    if (!inbound) {
      inbound = { total: allowance(TARGET_LIMITS, now), from: new Map() };
      this.inbound.set(id, inbound);
    }
    let pair = inbound.from.get(sender.client);
    if (!pair) {
      pair = allowance(PAIR_LIMITS, now);
      inbound.from.set(sender.client, pair);
    }
    if (!affords(pair, bytes, now) || !affords(inbound.total, bytes, now)) return false;
    for (const budget of [pair, inbound.total]) {
      budget.messages.take(now);
      budget.bytes.take(now, bytes);
    }
    return true;
  }

  /**
   * The room's client budgets; after hibernation rebuilt with the open sockets' seats (buckets
   * start full: a room hibernates only when idle, so nobody was over budget).
   */
  private budgets(room: string): ClientLedger<VoiceBudget> {
    if (this.ledger) return this.ledger;
    const ledger = new ClientLedger<VoiceBudget>(VOICE_LIMITS, isWorldVoiceRoom(room) ? WORLD_VOICE_SEATS : VOICE_SEATS);
    const now = Date.now();
    for (const ws of this.openSockets()) {
      const peer = this.peerOf(ws);
      if (peer) ledger.seat(peer, now);
    }
    this.ledger = ledger;
    return ledger;
  }

  /**
   * The reaper: drops sockets that stopped pinging. A client that crashed or lost its network may
   * never close its TCP connection; its pings (answered by the runtime, which records when) stop.
   * Runs only while the room has sockets, at the earliest moment someone could be overdue.
   */
  override async alarm(): Promise<void> {
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const ws of this.openSockets()) {
      const peer = this.peerOf(ws);
      if (!peer) continue;
      const pinged = this.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
      const heard = Math.max(pinged, peer.seenAt, peer.joinedAt);
      const deadline = heard + silentLimit(peer);
      if (deadline <= now) await this.dismiss(ws, CLOSE_SILENT, `no keep-alive for ${Math.round((now - heard) / 1000)} s`);
      else next = Math.min(next, deadline);
    }
    if (Number.isFinite(next)) await this.ctx.storage.setAlarm(next + 250);
  }

  private async armReaper(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at + 250) await this.ctx.storage.setAlarm(at + 250);
  }

  protected override async onLeave(ws: WebSocket, peer: VoicePeer): Promise<void> {
    this.budgets(peer.room).unseat(peer, Date.now());
    this.inbound.delete(peer.id);
    const text = JSON.stringify({ type: 'leave', id: peer.id } satisfies ServerMessage);
    for (const other of this.openSockets()) if (other !== ws) send(other, text);
  }

  private socketOf(id: number): WebSocket | null {
    return this.ctx.getWebSockets(`peer:${id}`).find((ws) => ws.readyState === WebSocket.OPEN) ?? null;
  }

  private peers(): Array<{ ws: WebSocket; peer: VoicePeer }> {
    const list: Array<{ ws: WebSocket; peer: VoicePeer }> = [];
    for (const ws of this.openSockets()) {
      const peer = this.peerOf(ws);
      if (peer) list.push({ ws, peer });
    }
    return list;
  }
}

/** A message and byte budget. */
interface Allowance {
  messages: TokenBucket;
  bytes: TokenBucket;
}

function allowance(limits: { messages: TokenBucketLimits; bytes: TokenBucketLimits }, now: number): Allowance {
  return { messages: new TokenBucket(limits.messages, now), bytes: new TokenBucket(limits.bytes, now) };
}

function affords(budget: Allowance, bytes: number, now: number): boolean {
  return budget.messages.available(now) >= 1 && budget.bytes.available(now) >= bytes;
}

function silentLimit(peer: VoicePeer): number {
  return SILENT_PINGS * peer.pingMs + SILENT_SLACK_MS;
}

function refuse(ws: WebSocket, code: ErrorCode, message: string, ref: string): void {
  sendMessage(ws, { type: 'error', code, message, ref });
}

function sendMessage(ws: WebSocket, message: ServerMessage): void {
  send(ws, JSON.stringify(message));
}

function randomToken(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
