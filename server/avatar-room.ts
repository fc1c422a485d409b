import { DROP_REASON_TEXT, CloseCode, type DropReason, type RelayMode, type WelcomeMessage } from '../src/net/protocol/control.ts';
import { FRAME_BYTES, isRelayableHeader, stampSenderId, writeLeaveFrame } from '../src/net/protocol/frame.ts';
import { TokenBucket } from './avatar/rate-bucket.ts';
import { chooseMode, DEFAULT_RELAY_OPTIONS, parseRoomRequest, type RelayOptions, type RoomRequest } from './avatar/relay-options.ts';
import { emptyCounters, type PersistedCounters, type RoomStats } from './avatar/room-stats.ts';
import { TickBuffer, type TickRecipient } from './avatar/tick-buffer.ts';
import type { Env } from './env.ts';
import { HibernatingRoom, type Refusal, type SocketAttachment } from './hibernating-room.ts';

/** What an avatar socket carries through hibernation (well under the 2,048-byte attachment cap). */
export interface AvatarPeer extends SocketAttachment {
  /** What the socket asked of the room; the founder's (earliest joiner's) request applies. */
  request: RoomRequest;
  /** `pub` sockets send frames and get a leave frame when they go; `sub` sockets only listen. */
  role: 'pub' | 'sub';
}

/** A socket's live relay state: rebuilt from the socket and its attachment after hibernation. */
interface Member {
  ws: WebSocket;
  peer: AvatarPeer;
  bucket: TokenBucket;
  drops: Record<DropReason, number>;
  noticeAt: Record<DropReason, number>;
  recipient: TickRecipient;
}

/** ms between a counter change and its write to storage (so floods cost one write, not thousands). */
const SAVE_DELAY_MS = 1000;
/** Text a client sends to keep its connection alive; answered without waking the object. */
export const PING_TEXT = 'ping';
export const PONG_TEXT = 'pong';

/**
 * One room of avatar sync: a dumb relay over hibernating WebSockets. It forwards each binary
 * 36-byte frame unchanged to every other socket in the room, except that it writes the socket's
 * server-assigned id into the sender-id field (4 bytes, no decoding) so no one can impersonate
 * another. It drops text, frames of the wrong size or header, and a socket's excess above the
 * rate cap (counting each, and telling the sender at most once a second per reason); refuses joins
 * past capacity with a close reason; and sends the others a leave frame when a socket goes.
 *
 * Small rooms forward each frame at once; from {@link RelayOptions.coalesceAt} sockets up, frames
 * arriving within one tick go out together, one message per recipient holding every other peer's
 * frames (see {@link TickBuffer}). Keep-alive pings are answered by `setWebSocketAutoResponse`,
 * which does not wake the object.
 *
 * Hibernation: ids live in durable storage, per-socket data in attachments, counters are saved a
 * second after they change; the member table, token buckets and the tick buffer are rebuilt or
 * restart empty after an eviction (an evicted room was idle, so nothing was in flight).
 */
export class AvatarRoom extends HibernatingRoom<AvatarPeer> {
  protected readonly options: RelayOptions = DEFAULT_RELAY_OPTIONS;
  private members: Map<WebSocket, Member> | null = null;
  private settings: RelayOptions = DEFAULT_RELAY_OPTIONS;
  private mode: RelayMode = 'direct';
  private readonly tick: TickBuffer;
  private tickTimer: ReturnType<typeof setTimeout> | null = null;
  private counters: PersistedCounters = emptyCounters();
  private wakes = 0;
  private saveTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.tick = new TickBuffer(this.options.capacity * 4);
    // Keep-alive without waking: the runtime answers "ping" with "pong" itself.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_TEXT, PONG_TEXT));
    void ctx.blockConcurrencyWhile(async () => {
      const [wakes, counters] = await Promise.all([ctx.storage.get<number>('wakes'), ctx.storage.get<PersistedCounters>('counters')]);
      this.wakes = (wakes ?? 0) + 1;
      if (counters) this.counters = { ...emptyCounters(), ...counters, dropped: { ...emptyCounters().dropped, ...counters.dropped } };
      await ctx.storage.put('wakes', this.wakes);
    });
  }

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('X-Cairn-Action') === 'stats') return Response.json(await this.stats(request.headers.get('X-Cairn-Room') ?? ''));
    return super.fetch(request);
  }

  /** The room's live figures and persisted counters. */
  async stats(room: string): Promise<RoomStats> {
    const members = this.memberTable();
    return {
      room,
      peers: members.size,
      mode: this.mode,
      capacity: this.settings.capacity,
      wakes: this.wakes,
      lastPeerId: (await this.ctx.storage.get<number>('lastPeerId')) ?? 0,
      ...this.counters,
      dropped: { ...this.counters.dropped },
    };
  }

  protected override async admit(request: Request): Promise<Refusal | null> {
    const parsed = parseRoomRequest(new URL(request.url));
    if (!parsed.ok) {
      this.count('refused');
      return { code: 1008, reason: parsed.problem };
    }
    const members = this.memberTable();
    const capacity = members.size === 0 ? (parsed.value.capacity ?? this.options.capacity) : this.settings.capacity;
    if (members.size >= capacity) {
      this.count('refused');
      return { code: CloseCode.roomFull, reason: `room full: ${members.size} of ${capacity} peers` };
    }
    return null;
  }

  protected override async describePeer(request: Request, base: SocketAttachment): Promise<AvatarPeer> {
    const parsed = parseRoomRequest(new URL(request.url));
    return { ...base, request: parsed.ok ? parsed.value : {}, role: 'pub' };
  }

  protected override async onJoin(ws: WebSocket, peer: AvatarPeer): Promise<void> {
    this.memberTable().set(ws, this.createMember(ws, peer));
    this.membershipChanged();
    const welcome: WelcomeMessage = {
      type: 'welcome',
      id: peer.id,
      room: peer.room,
      mode: this.mode,
      tickMs: this.settings.tickMs,
      capacity: this.settings.capacity,
      rateCap: this.settings.rateCap,
      peers: this.memberTable().size,
    };
    ws.send(JSON.stringify(welcome));
  }

  protected override async onMessage(ws: WebSocket, peer: AvatarPeer, message: string | ArrayBuffer): Promise<void> {
    const member = this.memberOf(ws, peer);
    if (typeof message === 'string') return this.drop(member, 'text');
    if (message.byteLength !== FRAME_BYTES) return this.drop(member, 'size');
    const bytes = new Uint8Array(message);
    if (!isRelayableHeader(bytes)) return this.drop(member, 'header');
    if (peer.role !== 'pub') return this.drop(member, 'role');
    if (!member.bucket.take(Date.now())) return this.drop(member, 'rate');
    stampSenderId(bytes, 0, peer.id);
    this.counters.received++;
    this.relay(bytes, member);
    this.scheduleSave();
  }

  protected override async onLeave(ws: WebSocket, peer: AvatarPeer): Promise<void> {
    const members = this.memberTable();
    members.delete(ws);
    if (peer.role === 'pub') this.sendLeave(peer.id);
    this.membershipChanged();
  }

  /** Sends (or queues, when coalescing) `bytes` — one stamped frame — to every member but `from`. */
  protected relay(bytes: Uint8Array, from: Member | null): void {
    if (this.mode === 'direct') {
      let delivered = 0;
      for (const member of this.memberTable().values()) {
        if (member === from) continue;
        if (this.trySend(member, bytes)) delivered++;
      }
      this.counters.delivered += delivered;
      this.counters.sends += delivered;
      return;
    }
    if (!this.tick.add(bytes, from ? from.peer.id : 0)) {
      // A full tick means more frames than capacity × 4 in one tick: flush now rather than lose any.
      this.flush();
      this.tick.add(bytes, from ? from.peer.id : 0);
    }
    this.tickTimer ??= setTimeout(() => this.flush(), this.settings.tickMs);
  }

  /** Sends the others a leave frame for `id`. */
  protected sendLeave(id: number): void {
    const leave = new Uint8Array(FRAME_BYTES);
    writeLeaveFrame(leave, 0, id);
    this.counters.leaves++;
    this.relay(leave, null);
    this.scheduleSave();
  }

  /** Sends the tick's frames: one message per member holding every frame but its own. */
  private flush(): void {
    if (this.tickTimer !== null) clearTimeout(this.tickTimer);
    this.tickTimer = null;
    if (this.tick.count === 0) return;
    const recipients: TickRecipient[] = [];
    for (const member of this.memberTable().values()) recipients.push(member.recipient);
    const { frames, sends } = this.tick.deliver(recipients);
    this.tick.clear();
    this.counters.delivered += frames;
    this.counters.sends += sends;
    this.counters.ticks++;
  }

  private trySend(member: Member, bytes: Uint8Array): boolean {
    try {
      member.ws.send(bytes);
      return true;
    } catch {
      // Closing under us: its close event will remove it.
      return false;
    }
  }

  private drop(member: Member, reason: DropReason): void {
    member.drops[reason]++;
    this.counters.dropped[reason]++;
    this.scheduleSave();
    const now = Date.now();
    if (now - member.noticeAt[reason] < 1000) return;
    member.noticeAt[reason] = now;
    try {
      member.ws.send(JSON.stringify({ type: 'dropped', reason, detail: DROP_REASON_TEXT[reason], count: member.drops[reason] }));
    } catch {
      // closing
    }
  }

  private count(key: 'refused'): void {
    this.counters[key]++;
    this.scheduleSave();
  }

  private createMember(ws: WebSocket, peer: AvatarPeer): Member {
    const zero = (): Record<DropReason, number> => ({ text: 0, size: 0, header: 0, rate: 0, role: 0 });
    return {
      ws,
      peer,
      bucket: new TokenBucket(this.options.rateCap, this.options.rateBurst, Date.now()),
      drops: zero(),
      noticeAt: { text: -Infinity, size: -Infinity, header: -Infinity, rate: -Infinity, role: -Infinity },
      recipient: {
        key: peer.id,
        send: (message) => ws.send(message),
      },
    };
  }

  /** The member table; after hibernation it is rebuilt from the open sockets and their attachments. */
  protected memberTable(): Map<WebSocket, Member> {
    if (this.members) return this.members;
    this.members = new Map();
    for (const ws of this.openSockets()) {
      const peer = this.peerOf(ws);
      if (peer) this.members.set(ws, this.createMember(ws, peer));
    }
    this.membershipChanged();
    return this.members;
  }

  private memberOf(ws: WebSocket, peer: AvatarPeer): Member {
    const members = this.memberTable();
    let member = members.get(ws);
    if (!member) {
      member = this.createMember(ws, peer);
      members.set(ws, member);
      this.membershipChanged();
    }
    member.peer = peer;
    return member;
  }

  /** Re-derives the room's settings (the founder's request) and delivery mode. */
  private membershipChanged(): void {
    const members = this.members;
    if (!members) return;
    let founder: AvatarPeer | null = null;
    for (const { peer } of members.values()) {
      if (!founder || peer.joinedAt < founder.joinedAt || (peer.joinedAt === founder.joinedAt && peer.id < founder.id)) founder = peer;
    }
    const request = founder?.request ?? {};
    this.settings = { ...this.options, mode: request.mode ?? this.options.mode, capacity: request.capacity ?? this.options.capacity };
    const next = chooseMode(this.settings, members.size, this.mode);
    if (next !== this.mode) {
      // Leaving coalescing: send what is queued first, so order is kept.
      if (this.mode === 'coalesce') this.flush();
      this.mode = next;
    }
  }

  private scheduleSave(): void {
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = null;
      void this.ctx.storage.put('counters', this.counters);
    }, SAVE_DELAY_MS);
  }
}
