import { DROP_REASON_TEXT, CloseCode, type DropReason, type RelayMode, type WelcomeMessage } from '../src/net/protocol/control.ts';
import { FRAME_BYTES, FRAME_OFFSET, FrameFlag, isRelayableHeader, readTimestamp, stampSenderId, writeLeaveFrame } from '../src/net/protocol/frame.ts';
import { cellSendPhase, CLOCK_ANSWER_INTERVAL_MS, DIRECTORY_ROOM, parseCellCommand, parseCellRoom, SEND_PERIOD_MS, type Cell, type CellAck, type CellClock, type CellRole, type WorldDirectory as DirectoryView, type WorldEntry, type WorldHop } from '../src/net/protocol/world.ts';
import { TokenBucket } from './avatar/rate-bucket.ts';
import { CELL_RELAY_OPTIONS, chooseMode, DEFAULT_RELAY_OPTIONS, MAX_CELL_PUBLISHERS, parseRoomRequest, type RelayOptions, type RoomRequest } from './avatar/relay-options.ts';
import { emptyCounters, type PersistedCounters, type RoomStats } from './avatar/room-stats.ts';
import { TickBuffer, type TickRecipient } from './avatar/tick-buffer.ts';
import type { Env } from './env.ts';
import { HibernatingRoom, type Refusal, type SocketAttachment } from './hibernating-room.ts';
import { ArrivalTiming } from './world/arrival-timing.ts';
import { CellGate } from './world/cell-gate.ts';
import { REPORT_INTERVAL_MS, WorldDirectory, type DirectoryResult } from './world/directory.ts';
import type { TokenClaims } from './world/token.ts';

/** What an avatar socket carries through hibernation (well under the 2,048-byte attachment cap). */
export interface AvatarPeer extends SocketAttachment {
  /** What the socket asked of the room; the founder's (earliest joiner's) request applies. */
  request: RoomRequest;
  /** `pub` sockets send frames and get a leave frame when they go; `sub` sockets only listen. */
  role: CellRole;
  /** World cells: ms since epoch when the socket's token expires unless renewed. */
  expiresAt?: number;
  /**
   * World cells, watchers: the player is close to this cell (the `pace` command), so it gets the
   * cell's frames every tick instead of at most every {@link RelayOptions.farIntervalMs} ms.
   */
  close?: boolean;
}

/** A socket's live relay state: rebuilt from the socket and its attachment after hibernation. */
interface Member {
  ws: WebSocket;
  peer: AvatarPeer;
  bucket: TokenBucket;
  drops: Record<DropReason, number>;
  noticeAt: Record<DropReason, number>;
  recipient: TickRecipient;
  /** World cells, publishers: when its frames arrive against the cell's send moment (created on its first frame). */
  timing: ArrivalTiming | null;
  /** World cells: `Date.now()` of the last `clock` probe answered (one per {@link CLOCK_ANSWER_INTERVAL_MS}). */
  clockAnsweredAt: number;
}

/** What this object is, from its name: a plain room, a world cell, or the world directory. */
type RoomKind = { kind: 'room' } | { kind: 'cell'; cell: Cell } | { kind: 'directory' };

/** ms between a counter change and its write to storage (so floods cost one write, not thousands). */
const SAVE_DELAY_MS = 1000;
/** World cells check for expired tokens at most this often (ms). */
const SWEEP_INTERVAL_MS = 5000;
/** A busy cell re-reports its population this often, so the directory never shows a stale count. */
const REREPORT_MS = 60_000;
/** Text a client sends to keep its connection alive; answered without waking the object. */
export const PING_TEXT = 'ping';
export const PONG_TEXT = 'pong';

function kindOf(room: string): RoomKind {
  if (room === DIRECTORY_ROOM) return { kind: 'directory' };
  const cell = parseCellRoom(room);
  return cell ? { kind: 'cell', cell } : { kind: 'room' };
}

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
 * The same class serves the open world (docs/scale.md): rooms named `world:cell:X:Z` are cells —
 * joins need a signed identity token, the id stamped is the world id, sockets publish (`pub`, the
 * cell they stand in) or watch from a neighbouring cell (`sub`, which does not get frames the
 * sender flagged near-only), and the cell reports its population to the directory. The object
 * named `world:directory` is the {@link WorldDirectory}, reached through RPC methods only.
 *
 * Hibernation: ids live in durable storage, per-socket data in attachments, counters are saved a
 * second after they change; the member table, token buckets and the tick buffers are rebuilt or
 * restart empty after an eviction (an evicted room was idle, so nothing was in flight).
 */
export class AvatarRoom extends HibernatingRoom<AvatarPeer> {
  private members: Map<WebSocket, Member> | null = null;
  /** How many members publish here: read for every publisher's frame, so kept rather than counted. */
  private publisherCount = 0;
  private options: RelayOptions = DEFAULT_RELAY_OPTIONS;
  private settings: RelayOptions = DEFAULT_RELAY_OPTIONS;
  private mode: RelayMode = 'direct';
  private room: RoomKind | null = null;
  /** Frames for everyone (plain rooms) or for the cell's own publishers (world cells). */
  private readonly tick: TickBuffer;
  /** World cells: frames for watchers from neighbouring cells (no near-only frames), paced. */
  private readonly farTick: TickBuffer;
  /** World cells: the same frames for close watchers (`pace` close), sent every tick. */
  private readonly closeTick: TickBuffer;
  private tickTimer: ReturnType<typeof setTimeout> | null = null;
  /** World cells: ids of the publishers whose frames are in the tick (it flushes when all are). */
  private readonly heard = new Set<number>();
  /** `Date.now()` when paced watchers last got frames (they get more {@link RelayOptions.farIntervalMs} later). */
  private farFlushedAt = Number.NEGATIVE_INFINITY;
  private counters: PersistedCounters = emptyCounters();
  private wakes = 0;
  private saveTimer: ReturnType<typeof setTimeout> | null = null;
  private gate: CellGate | null = null;
  /** Token claims checked in admit(), for assignPeerId/describePeer of the same request. */
  private readonly admitted = new WeakMap<Request, TokenClaims>();
  private lastSweep = 0;
  private reportTimer: ReturnType<typeof setTimeout> | null = null;
  private lastReport = 0;
  private directoryLogic: WorldDirectory | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.tick = new TickBuffer(DEFAULT_RELAY_OPTIONS.capacity * 4);
    this.farTick = new TickBuffer(DEFAULT_RELAY_OPTIONS.capacity * 4);
    this.closeTick = new TickBuffer(DEFAULT_RELAY_OPTIONS.capacity * 4);
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
    const room = request.headers.get('X-Cairn-Room') ?? '';
    this.identify(room);
    if (request.headers.get('X-Cairn-Action') === 'stats') return Response.json(await this.stats(room));
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

  // ── World directory (RPC: only Worker code holding the binding can call these) ──────────────

  /** The directory's token key (base64), for cells. */
  async worldKey(): Promise<string> {
    return this.directory().rawKey();
  }

  async worldEnter(position: { x: number; z: number } | null): Promise<DirectoryResult<WorldEntry>> {
    return this.directory().enter(position);
  }

  async worldHop(token: string, to: Cell): Promise<DirectoryResult<WorldHop>> {
    return this.directory().hop(token, to);
  }

  async worldReport(cell: Cell, players: number): Promise<void> {
    await this.directory().report(cell, players);
  }

  async worldSnapshot(): Promise<DirectoryView> {
    return this.directory().snapshot();
  }

  private directory(): WorldDirectory {
    this.directoryLogic ??= new WorldDirectory(this.ctx.storage);
    return this.directoryLogic;
  }

  // ── Joining ─────────────────────────────────────────────────────────────────────────────────

  protected override async admit(request: Request): Promise<Refusal | null> {
    const url = new URL(request.url);
    const room = this.room ?? { kind: 'room' };
    if (room.kind === 'directory') return { code: 1008, reason: 'the world directory takes no sockets; use /api/world' };
    const parsed = parseRoomRequest(url);
    if (!parsed.ok) {
      this.count('refused');
      return { code: 1008, reason: parsed.problem };
    }
    const members = this.memberTable();
    if (room.kind === 'cell') {
      const role = url.searchParams.get('role') === 'sub' ? 'sub' : 'pub';
      const checked = await this.gate!.check(url.searchParams.get('token'), role, Date.now());
      if (!checked.ok) {
        this.count('refused');
        return { code: checked.code, reason: checked.reason };
      }
      this.sweep(true);
      if (role === 'pub' && this.publishers() >= MAX_CELL_PUBLISHERS && !this.hasMember(checked.claims.id)) {
        this.count('refused');
        return { code: CloseCode.roomFull, reason: `cell full: ${MAX_CELL_PUBLISHERS} players publish here already` };
      }
      this.admitted.set(request, checked.claims);
    }
    const capacity = members.size === 0 ? (parsed.value.capacity ?? this.options.capacity) : this.settings.capacity;
    if (members.size >= capacity) {
      this.count('refused');
      return { code: CloseCode.roomFull, reason: `room full: ${members.size} of ${capacity} peers` };
    }
    return null;
  }

  protected override async assignPeerId(request: Request): Promise<number> {
    return this.admitted.get(request)?.id ?? super.assignPeerId(request);
  }

  protected override async describePeer(request: Request, base: SocketAttachment): Promise<AvatarPeer> {
    const url = new URL(request.url);
    const parsed = parseRoomRequest(url);
    const claims = this.admitted.get(request);
    if (!claims) return { ...base, request: parsed.ok ? parsed.value : {}, role: 'pub' };
    return { ...base, request: {}, role: url.searchParams.get('role') === 'sub' ? 'sub' : 'pub', expiresAt: claims.expiresAt };
  }

  protected override async onJoin(ws: WebSocket, peer: AvatarPeer): Promise<void> {
    const older = [...this.memberTable().values()].filter((member) => this.room?.kind === 'cell' && member.peer.id === peer.id && member.ws !== ws);
    this.putMember(ws, this.createMember(ws, peer));
    // One socket per identity per cell: a newer one (a reconnect) replaces the older — after the
    // newer is in the table, so the older's departure sends no leave for an identity still here.
    for (const member of older) await this.dismiss(member.ws, CloseCode.replaced, 'replaced by a newer connection of the same identity');
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
    if (this.room?.kind === 'cell') {
      this.acknowledge(ws, peer);
      if (peer.role === 'pub') this.schedulePopulationReport();
    }
  }

  // ── Messages ────────────────────────────────────────────────────────────────────────────────

  protected override async onMessage(ws: WebSocket, peer: AvatarPeer, message: string | ArrayBuffer): Promise<void> {
    const member = this.memberOf(ws, peer);
    if (typeof message === 'string') {
      if (this.room?.kind === 'cell' && message.startsWith('{')) return this.command(member, message);
      return this.drop(member, 'text');
    }
    if (message.byteLength !== FRAME_BYTES) return this.drop(member, 'size');
    const bytes = new Uint8Array(message);
    if (!isRelayableHeader(bytes)) return this.drop(member, 'header');
    if (member.peer.role !== 'pub') return this.drop(member, 'role');
    if (!member.bucket.take(Date.now())) return this.drop(member, 'rate');
    stampSenderId(bytes, 0, member.peer.id);
    this.counters.received++;
    this.relay(bytes, member, (bytes[FRAME_OFFSET.flags]! & FrameFlag.nearOnly) !== 0);
    this.scheduleSave();
    if (this.room?.kind === 'cell') {
      this.timeArrival(member, this.room.cell, readTimestamp(bytes, 0));
      this.sweep(false);
      if (Date.now() - this.lastReport > REREPORT_MS) this.schedulePopulationReport();
    }
  }

  protected override async onLeave(ws: WebSocket, peer: AvatarPeer): Promise<void> {
    const members = this.memberTable();
    const member = members.get(ws);
    if (member && members.delete(ws) && member.peer.role === 'pub') this.publisherCount--;
    // A replaced socket's identity is still here (the newer socket): no leave for it.
    const stillHere = this.hasMember(peer.id);
    const role = member?.peer.role ?? peer.role;
    if (role === 'pub' && !stillHere) this.sendLeave(peer.id);
    this.membershipChanged();
    if (this.room?.kind === 'cell' && role === 'pub') this.schedulePopulationReport();
  }

  /** World-cell commands: publish here, stop publishing here, renew the token. */
  private async command(member: Member, text: string): Promise<void> {
    const parsed = parseCellCommand(text);
    if (!parsed.ok) return this.drop(member, 'text');
    const command = parsed.value;
    const ws = member.ws;
    const refuse = (reason: string): void => {
      try {
        ws.send(JSON.stringify({ type: 'refused', command: command.type, reason }));
      } catch {
        // closing
      }
    };
    if (command.type === 'clock') {
      const now = Date.now();
      if (now - member.clockAnsweredAt < CLOCK_ANSWER_INTERVAL_MS) return this.drop(member, 'rate');
      member.clockAnsweredAt = now;
      const answer: CellClock = { type: 'clock', t: command.t, serverTime: now };
      try {
        ws.send(JSON.stringify(answer));
      } catch {
        // closing
      }
      return;
    }
    if (command.type === 'pace') {
      if ((member.peer.close ?? false) !== command.close) {
        // Which buffer this socket reads from changes: send what is pending first.
        this.flush(true);
        this.setPeer(member, { ...member.peer, close: command.close });
      }
      return;
    }
    if (command.type === 'subscribe') {
      if (member.peer.role === 'pub') {
        // What is pending was queued for this socket as a publisher: send it before it becomes a
        // watcher, or the paced watcher buffer would hand it the same frames a second time.
        this.flush(true);
        this.setPeer(member, { ...member.peer, role: 'sub' });
        this.sendLeave(member.peer.id);
        this.schedulePopulationReport();
      }
      this.acknowledge(ws, member.peer);
      return;
    }
    const role: CellRole = command.type === 'publish' ? 'pub' : member.peer.role;
    const checked = await this.gate!.check(command.token, role, Date.now());
    if (!checked.ok) return refuse(checked.reason);
    if (checked.claims.id !== member.peer.id) return refuse('token belongs to another identity');
    if (role === 'pub' && member.peer.role !== 'pub' && this.publishers() >= MAX_CELL_PUBLISHERS) return refuse(`cell full: ${MAX_CELL_PUBLISHERS} players publish here already`);
    const wasPub = member.peer.role === 'pub';
    // A watcher becoming a publisher: send the watchers' pending frames first, or it would never
    // get those already sent to the cell's publishers.
    if (!wasPub && role === 'pub') this.flush(true);
    this.setPeer(member, { ...member.peer, role, expiresAt: checked.claims.expiresAt });
    if (!wasPub && role === 'pub') this.schedulePopulationReport();
    this.acknowledge(ws, member.peer);
  }

  /**
   * Notes when a publisher's frame arrived against the cell's send moment and, every few frames,
   * tells it how late they typically are when that is more than a few ms (see ArrivalTiming): the
   * client moves its sends by that, so the cell's players arrive in one tick.
   */
  private timeArrival(member: Member, cell: Cell, sentStamp: number): void {
    member.timing ??= new ArrivalTiming(cellSendPhase(cell), SEND_PERIOD_MS);
    const late = member.timing.record(Date.now(), sentStamp);
    if (late === null) return;
    this.counters.timingNotes++;
    try {
      member.ws.send(JSON.stringify({ type: 'timing', lateMs: Math.round(late) }));
    } catch {
      // closing
    }
  }

  private acknowledge(ws: WebSocket, peer: AvatarPeer): void {
    const room = this.room;
    if (room?.kind !== 'cell') return;
    const ack: CellAck = { type: 'cell', cell: room.cell, role: peer.role, expiresAt: peer.expiresAt ?? 0 };
    try {
      ws.send(JSON.stringify(ack));
    } catch {
      // closing
    }
  }

  private setPeer(member: Member, peer: AvatarPeer): void {
    if (this.members?.get(member.ws) === member && member.peer.role !== peer.role) this.publisherCount += peer.role === 'pub' ? 1 : -1;
    member.peer = peer;
    member.recipient.key = peer.role === 'pub' ? peer.id : 0;
    this.updatePeer(member.ws, peer);
  }

  // ── Relaying ────────────────────────────────────────────────────────────────────────────────

  /**
   * Sends (or queues, when coalescing) `bytes` — one stamped frame — to every member but `from`.
   * In a world cell, near-only frames go to the cell's own publishers only.
   */
  protected relay(bytes: Uint8Array, from: Member | null, nearOnly = false): void {
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
    const key = from ? from.peer.id : 0;
    const cell = this.room?.kind === 'cell';
    // A full buffer means more frames than capacity × 4 in one tick: flush now rather than lose
    // any. Each buffer is retried on its own, so a frame never lands twice in one of them.
    if (!this.tick.add(bytes, key)) {
      this.flush();
      this.tick.add(bytes, key);
    }
    if (cell && !nearOnly && !this.farTick.add(bytes, key)) {
      this.flush();
      this.farTick.add(bytes, key);
    }
    if (cell && !nearOnly && !this.closeTick.add(bytes, key)) {
      this.flush();
      this.closeTick.add(bytes, key);
    }
    if (cell && from?.peer.role === 'pub') {
      this.heard.add(key);
      // Every player publishing here has sent since the last flush. They send once per period,
      // at the cell's moment (cellSendPhase), so nothing more is coming: flush now instead of
      // waiting out the tick. Players sending at random moments rarely all land in one tick: for
      // them the tick timer below flushes.
      if (this.heard.size >= this.publishers()) return this.flush();
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

  /**
   * Sends the tick's frames: one message per member holding every frame but its own. In a world
   * cell, the cell's own publishers and close watchers get theirs every tick, other watchers from
   * neighbouring cells at most every {@link RelayOptions.farIntervalMs} — or now, with `everyone`
   * (before a socket changes role or pace, so no frame reaches it twice or never).
   */
  private flush(everyone = false): void {
    if (this.tickTimer !== null) clearTimeout(this.tickTimer);
    this.tickTimer = null;
    this.heard.clear();
    if (this.tick.count === 0 && this.farTick.count === 0 && this.closeTick.count === 0) return;
    const cell = this.room?.kind === 'cell';
    const now = Date.now();
    const farDue = everyone || !cell || now - this.farFlushedAt >= this.settings.farIntervalMs || this.farTick.count > this.farTick.maxFrames / 2;
    const near: TickRecipient[] = [];
    const close: TickRecipient[] = [];
    const far: TickRecipient[] = [];
    for (const member of this.memberTable().values()) {
      if (!cell || member.peer.role === 'pub') near.push(member.recipient);
      else (member.peer.close ? close : far).push(member.recipient);
    }
    const a = this.tick.deliver(near);
    this.tick.clear();
    const c = close.length ? this.closeTick.deliver(close) : { frames: 0, sends: 0 };
    this.closeTick.clear();
    let b = { frames: 0, sends: 0 };
    if (farDue) {
      if (far.length) b = this.farTick.deliver(far);
      if (this.farTick.count > 0) this.farFlushedAt = now;
      this.farTick.clear();
    }
    this.counters.delivered += a.frames + b.frames + c.frames;
    this.counters.sends += a.sends + b.sends + c.sends;
    this.counters.ticks++;
    // Frames still waiting for paced watchers keep the tick running.
    if (this.farTick.count > 0) this.tickTimer = setTimeout(() => this.flush(), this.settings.tickMs);
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

  // ── World cells: expiry sweep and population reports ──────────────────────────────────────

  /** Closes sockets whose token expired without renewal (at most every few seconds unless forced). */
  private sweep(force: boolean): void {
    const now = Date.now();
    if (!force && now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const member of [...this.memberTable().values()]) {
      if (member.peer.expiresAt !== undefined && member.peer.expiresAt <= now) void this.dismiss(member.ws, CloseCode.expired, 'world token expired; renew before it runs out');
    }
  }

  private publishers(): number {
    this.memberTable();
    return this.publisherCount;
  }

  private hasMember(id: number): boolean {
    for (const member of this.memberTable().values()) if (member.peer.id === id) return true;
    return false;
  }

  /** Tells the directory how many players publish here, at most every couple of seconds. */
  private schedulePopulationReport(): void {
    if (this.reportTimer !== null || this.room?.kind !== 'cell') return;
    const cell = this.room.cell;
    const wait = Math.max(0, REPORT_INTERVAL_MS - (Date.now() - this.lastReport));
    this.reportTimer = setTimeout(() => {
      this.reportTimer = null;
      this.lastReport = Date.now();
      void this.directoryStub()
        .worldReport(cell, this.publishers())
        .catch(() => undefined);
    }, wait);
  }

  private directoryStub(): DurableObjectStub<AvatarRoom> {
    const namespace = this.env.AVATAR_ROOM as unknown as DurableObjectNamespace<AvatarRoom>;
    return namespace.get(namespace.idFromName(DIRECTORY_ROOM));
  }

  /** Learns what this object is from its name (first request, or any attachment after hibernation). */
  private identify(room: string): void {
    if (this.room || !room) return;
    this.room = kindOf(room);
    const room_ = this.room;
    if (room_.kind === 'cell') {
      this.options = CELL_RELAY_OPTIONS;
      this.settings = CELL_RELAY_OPTIONS;
      this.mode = 'coalesce';
      this.gate = new CellGate(room_.cell, async () => {
        let raw = await this.ctx.storage.get<Uint8Array>('world:cellKey');
        if (!raw) {
          const b64 = await this.directoryStub().worldKey();
          raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
          await this.ctx.storage.put('world:cellKey', raw);
        }
        return raw;
      });
    }
  }

  // ── Members ─────────────────────────────────────────────────────────────────────────────────

  private createMember(ws: WebSocket, peer: AvatarPeer): Member {
    const zero = (): Record<DropReason, number> => ({ text: 0, size: 0, header: 0, rate: 0, role: 0 });
    return {
      ws,
      peer,
      bucket: new TokenBucket(this.options.rateCap, this.options.rateBurst, Date.now()),
      drops: zero(),
      noticeAt: { text: -Infinity, size: -Infinity, header: -Infinity, rate: -Infinity, role: -Infinity },
      recipient: {
        // Subscribers own no frames in this cell, so nothing is excluded from their messages.
        key: peer.role === 'pub' ? peer.id : 0,
        send: (message) => ws.send(message),
      },
      timing: null,
      clockAnsweredAt: Number.NEGATIVE_INFINITY,
    };
  }

  /** The member table; after hibernation it is rebuilt from the open sockets and their attachments. */
  protected memberTable(): Map<WebSocket, Member> {
    if (this.members) return this.members;
    this.members = new Map();
    this.publisherCount = 0;
    for (const ws of this.openSockets()) {
      const peer = this.peerOf(ws);
      if (!peer) continue;
      this.identify(peer.room);
      this.members.set(ws, this.createMember(ws, peer));
      if (peer.role === 'pub') this.publisherCount++;
    }
    this.membershipChanged();
    return this.members;
  }

  /** Puts `member` in the table under `ws` (replacing whatever was there), keeping the publisher count. */
  private putMember(ws: WebSocket, member: Member): void {
    const members = this.memberTable();
    if (members.get(ws)?.peer.role === 'pub') this.publisherCount--;
    members.set(ws, member);
    if (member.peer.role === 'pub') this.publisherCount++;
  }

  private memberOf(ws: WebSocket, peer: AvatarPeer): Member {
    const members = this.memberTable();
    let member = members.get(ws);
    if (!member) {
      this.identify(peer.room);
      member = this.createMember(ws, peer);
      this.putMember(ws, member);
      this.membershipChanged();
    }
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

