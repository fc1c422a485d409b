import { HibernatingRoom, type SocketAttachment } from './hibernating-room.ts';
import type { Env } from './env.ts';
import { voiceRoomCapacity } from './voice/capacity.ts';
import { fullBucket, takeToken, type BucketLimits, type BucketState } from './voice/token-bucket.ts';
import {
  PING_TEXT,
  PONG_TEXT,
  VOICE_CLOSE,
  isWorldVoiceRoom,
  parseClientMessage,
  type ClientMessage,
  type ErrorCode,
  type ServerMessage,
  type WirePosition,
} from '../src/voice/protocol/signaling.ts';

export { VOICE_ROOM_CAPACITY, WORLD_VOICE_ROOM_CAPACITY, voiceRoomCapacity } from './voice/capacity.ts';
/** Position updates a peer may send: 15 per second sustained, bursts of 15 (clients send ≤ 10 Hz). */
export const POSITION_LIMITS: BucketLimits = { ratePerSecond: 15, burst: 15 };
/** A peer that keeps flooding hears about it at most this often (ms). */
const RATE_ERROR_INTERVAL_MS = 1000;
/** Close code for a socket replaced by its owner's reconnect. */
export const CLOSE_REPLACED = VOICE_CLOSE.replaced;
/** Close code for a join refused because the room is full. */
export const CLOSE_FULL = VOICE_CLOSE.full;
/** Close code for a socket that stopped pinging (a crashed tab, a dead network). */
export const CLOSE_SILENT = VOICE_CLOSE.silent;
/** Keep-alive interval a client declares with `?ping=SECONDS` (clamped 1–60); default 5. */
const DEFAULT_PING_MS = 5_000;
/** A socket silent for this many ping intervals (plus slack) is dropped and its leave announced. */
const SILENT_PINGS = 3;
const SILENT_SLACK_MS = 2_000;

/** What a voice socket carries through hibernation (well under the 2,048-byte attachment cap). */
export interface VoicePeer extends SocketAttachment {
  /** Secret that lets this peer's next socket replace this one after a reconnect. */
  token: string;
  pos: WirePosition | null;
  /** The avatar id this peer announced (`avatar` message), or null. */
  avatar: number | null;
  bucket: BucketState;
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
 * Keep-alive pings are answered by the runtime (`setWebSocketAutoResponse`) without waking the
 * object, and an alarm drops sockets whose pings stopped (see {@link alarm}).
 */
export class VoiceRoom extends HibernatingRoom<VoicePeer> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_TEXT, PONG_TEXT));
  }

  protected override async admit(request: Request): Promise<{ code: number; reason: string } | null> {
    const capacity = voiceRoomCapacity(request.headers.get('X-Cairn-Room') ?? '');
    if (this.openSockets().length >= capacity) {
      return { code: CLOSE_FULL, reason: `voice room is full (${capacity} peers)` };
    }
    return null;
  }

  protected override async describePeer(request: Request, base: SocketAttachment): Promise<VoicePeer> {
    const declared = Number(new URL(request.url).searchParams.get('ping'));
    const pingMs = Number.isFinite(declared) && declared > 0 ? Math.min(60, Math.max(1, declared)) * 1000 : DEFAULT_PING_MS;
    const now = Date.now();
    return { ...base, token: randomToken(), pos: null, avatar: null, bucket: fullBucket(POSITION_LIMITS, now), rateErrorAt: 0, pingMs, seenAt: now };
  }

  protected override async onJoin(ws: WebSocket, peer: VoicePeer): Promise<void> {
    await this.armReaper(peer.joinedAt + silentLimit(peer));
    const others = this.peers().filter((p) => p.peer.id !== peer.id);
    send(ws, {
      type: 'welcome',
      id: peer.id,
      token: peer.token,
      room: peer.room,
      peers: others.map((p) => ({ id: p.peer.id, pos: p.peer.pos, avatar: p.peer.avatar ?? null })),
      positionRate: isWorldVoiceRoom(peer.room) ? 0 : POSITION_LIMITS.ratePerSecond,
    });
    for (const other of others) send(other.ws, { type: 'join', id: peer.id });
  }

  protected override async onMessage(ws: WebSocket, peer: VoicePeer, raw: string | ArrayBuffer): Promise<void> {
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) {
      send(ws, parsed.error);
      return;
    }
    const message: ClientMessage = parsed.message;
    const now = Date.now();
    if (now - peer.seenAt > 2_000 && message.type !== 'pos') {
      peer.seenAt = now;
      this.updatePeer(ws, peer);
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
        send(target, relayed);
        return;
      }
      case 'avatar': {
        if (message.id === (peer.avatar ?? null)) return;
        if (message.id !== null) {
          // One avatar, one voice: a second claim would get the links meant for its owner.
          const holder = this.peers().find((p) => p.ws !== ws && p.peer.avatar === message.id);
          if (holder) return refuse(ws, 'avatar-taken', `avatar ${message.id} is already announced by peer ${holder.peer.id} in this room; yours stays ${peer.avatar ?? 'none'}`, 'avatar');
        }
        peer.avatar = message.id;
        this.updatePeer(ws, peer);
        const text = JSON.stringify({ type: 'avatar', from: peer.id, id: message.id } satisfies ServerMessage);
        for (const other of this.openSockets()) if (other !== ws) sendText(other, text);
        return;
      }
      case 'pos': {
        peer.seenAt = now;
        if (isWorldVoiceRoom(peer.room)) {
          // N peers × 10 Hz × N listeners is what a world room must not do; panners follow avatars.
          if (now - peer.rateErrorAt >= RATE_ERROR_INTERVAL_MS) {
            peer.rateErrorAt = now;
            this.updatePeer(ws, peer);
            send(ws, { type: 'error', code: 'no-positions', message: 'a world voice room relays no positions: voices are placed where their avatars stand (announce yours with an avatar message)', ref: 'pos' });
          }
          return;
        }
        const taken = takeToken(peer.bucket, POSITION_LIMITS, now);
        peer.bucket = taken.state;
        if (!taken.allowed) {
          if (now - peer.rateErrorAt >= RATE_ERROR_INTERVAL_MS) {
            peer.rateErrorAt = now;
            send(ws, { type: 'error', code: 'rate-limited', message: `position updates are limited to ${POSITION_LIMITS.ratePerSecond} per second; extra updates are dropped`, ref: 'pos' });
          }
          this.updatePeer(ws, peer);
          return;
        }
        peer.pos = { x: message.x, y: message.y, z: message.z, facing: message.facing };
        this.updatePeer(ws, peer);
        const relayed: ServerMessage = { type: 'pos', from: peer.id, ...peer.pos };
        const text = JSON.stringify(relayed);
        for (const other of this.openSockets()) if (other !== ws) sendText(other, text);
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
      case 'ping':
        // Only a ping with different spacing gets here; the exact text is auto-answered.
        sendText(ws, PONG_TEXT);
        return;
    }
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
    const text = JSON.stringify({ type: 'leave', id: peer.id } satisfies ServerMessage);
    for (const other of this.openSockets()) if (other !== ws) sendText(other, text);
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

function silentLimit(peer: VoicePeer): number {
  return SILENT_PINGS * peer.pingMs + SILENT_SLACK_MS;
}

function refuse(ws: WebSocket, code: ErrorCode, message: string, ref: string): void {
  send(ws, { type: 'error', code, message, ref });
}

function send(ws: WebSocket, message: ServerMessage): void {
  sendText(ws, JSON.stringify(message));
}

function sendText(ws: WebSocket, text: string): void {
  try {
    ws.send(text);
  } catch {
    // the socket closed between listing and sending; its leave is on the way
  }
}

function randomToken(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
