import { DROP_REASON_TEXT, type DropReason, type RelayMode, type WelcomeMessage } from '../../src/net/protocol/control.ts';
import {
  checkClientFrame,
  FRAME_BYTES,
  FRAME_OFFSET,
  FrameFlag,
  isRelayableHeader,
  stampSenderId,
  writeLeaveFrame,
} from '../../src/net/protocol/frame.ts';
import { DIRECTORY_ROOM } from '../../src/net/protocol/world.ts';
import { chooseMode, DEFAULT_RELAY_OPTIONS, type RelayOptions, type RoomRequest } from '../avatar/relay-options.ts';
import { PROFILE_LIMITS, ProfileDesk } from '../avatar/profile-desk.ts';
import { emptyCounters, type PersistedCounters, type RoomStats } from '../avatar/room-stats.ts';
import { TickBuffer, type TickRecipient } from '../avatar/tick-buffer.ts';
import type { Env } from '../env.ts';
import { HibernatingRoom, type SocketAttachment } from '../hibernating-room.ts';
import { signAvatarToken, type AvatarIssuer } from '../identity/avatar-token.ts';
import { ClientLedger, identifyClient, type ClientRef, type SeatLimits } from '../identity/client.ts';
import { KeyRing } from '../identity/key-ring.ts';
import { send, sendJson } from '../send.ts';
import type { CellRole } from '../../src/net/protocol/world.ts';
import type { Profile } from '../../src/net/protocol/profile.ts';

/** What an avatar socket carries through hibernation (well under the 2,048-byte attachment cap). */
export interface AvatarPeer extends SocketAttachment, ClientRef {
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
  /** This socket's random number, signed into its avatar tokens (server/identity/avatar-token.ts). */
  socket: number;
  /**
   * Who the socket belongs to for voice (a session `s:…`, else its address or the socket itself;
   * {@link identifyClient}): an avatar token of this socket is accepted only from a voice socket
   * of the same client. In a relay room the same as `client`; a cell's `client` is the world id.
   */
  owner: string;
  /** The display name and look the socket sent (server/avatar/profile-desk.ts). */
  profile?: Profile;
}

/** A socket's live relay state: rebuilt from the socket and its attachment after hibernation. */
export interface Member {
  ws: WebSocket;
  peer: AvatarPeer;
  drops: Record<DropReason, number>;
  noticeAt: Record<DropReason, number>;
  recipient: TickRecipient;
}

/** What a client's budget covers in an avatar relay: frames, and (world cells) commands. */
export type RelayBudget = 'frame' | 'command' | 'profile';

/** ms between a counter change and its write to storage (so floods cost one write, not thousands). */
const SAVE_DELAY_MS = 1000;
/** Text a client sends to keep its connection alive; answered without waking the object. */
export const PING_TEXT = 'ping';
export const PONG_TEXT = 'pong';
/**
 * Sockets one client may hold in one room or cell (tabs, a reconnect overlapping its old socket),
 * the session-less clients of one address together, and one address in all.
 */
export const RELAY_SEATS: SeatLimits = { client: 4, anonymousAddress: 32, address: 128 };
/** Cell commands (publish, subscribe, renew, pace) per client: each can cost a full flush. */
export const COMMAND_LIMITS = { ratePerSecond: 2, burst: 10 } as const;

const zeroDrops = (): Record<DropReason, number> => ({ text: 0, size: 0, header: 0, frame: 0, rate: 0, role: 0 });
const neverNoticed = (): Record<DropReason, number> => ({
  text: -Infinity,
  size: -Infinity,
  header: -Infinity,
  frame: -Infinity,
  rate: -Infinity,
  role: -Infinity,
});

/**
 * The mechanics shared by a plain relay room ({@link RelayRoom}) and a world cell ({@link WorldCell}):
 * a dumb relay over hibernating WebSockets. It forwards each binary 36-byte frame to every other
 * socket, after checking every field by the rules receivers decode with
 * ({@link checkClientFrame}) and writing the socket's server-assigned id into the sender-id field,
 * so no one can impersonate another or send what a receiver would refuse. It drops text, frames of
 * the wrong size, header or fields, and a client's excess above its rate cap (counting each, and
 * telling the sender at most once a second per reason), and sends the others a leave frame when a
 * socket goes.
 *
 * Budgets belong to clients, not sockets ({@link ClientLedger}): a client's sockets share one rate
 * cap and hold at most {@link RELAY_SEATS} seats.
 *
 * Small rooms forward each frame at once; from {@link RelayOptions.coalesceAt} sockets up, frames
 * arriving within one tick go out together, one message per recipient (see {@link TickBuffer}).
 * World cells also keep watchers from neighbouring cells (`watching`), who get frames not flagged
 * near-only, paced. Keep-alive pings are answered by `setWebSocketAutoResponse`, which does not
 * wake the object.
 *
 * Hibernation: ids live in durable storage, per-socket data in attachments, counters are saved a
 * second after they change; the member table, budgets and tick buffers are rebuilt or restart
 * empty after an eviction (an evicted room was idle, so nothing was in flight).
 */
export abstract class AvatarRelay extends HibernatingRoom<AvatarPeer> implements AvatarIssuer {
  private members: Map<WebSocket, Member> | null = null;
  /** How many members publish here: read for every publisher's frame, so kept rather than counted. */
  private publisherCount = 0;
  protected settings: RelayOptions;
  protected mode: RelayMode = 'direct';
  /** Frames for everyone (plain rooms) or for the cell's own publishers (world cells). */
  private readonly tick: TickBuffer;
  /** World cells: frames for watchers from neighbouring cells (no near-only frames), paced. */
  private readonly farTick: TickBuffer;
  /** World cells: the same frames for close watchers (`pace` close), sent every tick. */
  private readonly closeTick: TickBuffer;
  private tickTimer: ReturnType<typeof setTimeout> | null = null;
  /** World cells: ids of the publishers whose frames are in the tick (it flushes when all are). */
  private readonly heard = new Set<number>();
  /** `Date.now()` when paced watchers last got frames. */
  private farFlushedAt = Number.NEGATIVE_INFINITY;
  protected counters: PersistedCounters = emptyCounters();
  private wakes = 0;
  private wakesStored = false;
  private saveTimer: ReturnType<typeof setTimeout> | null = null;
  protected readonly keys: KeyRing;
  protected readonly ledger: ClientLedger<RelayBudget>;
  /** Display names and looks: stored per socket, sent to joiners, announced on change. */
  protected readonly profiles: ProfileDesk<Member>;

  protected readonly options: RelayOptions;
  private readonly watching: boolean;

  constructor(
    ctx: DurableObjectState,
    env: Env,
    /** The relay's options (plain rooms: the defaults; cells: CELL_RELAY_OPTIONS). */
    options: RelayOptions,
    /** True for world cells: watchers from neighbouring cells get the frames not flagged near-only, paced. */
    watching: boolean,
  ) {
    super(ctx, env);
    this.options = options;
    this.watching = watching;
    this.settings = options;
    this.mode = options.mode === 'coalesce' ? 'coalesce' : 'direct';
    this.tick = new TickBuffer(DEFAULT_RELAY_OPTIONS.capacity * 4);
    this.farTick = new TickBuffer(DEFAULT_RELAY_OPTIONS.capacity * 4);
    this.closeTick = new TickBuffer(DEFAULT_RELAY_OPTIONS.capacity * 4);
    this.keys = new KeyRing(ctx.storage, () => env.WORLD_DIRECTORY.get(env.WORLD_DIRECTORY.idFromName(DIRECTORY_ROOM)).worldKey());
    this.ledger = new ClientLedger<RelayBudget>(
      { frame: { ratePerSecond: options.rateCap, burst: options.rateBurst }, command: COMMAND_LIMITS, profile: PROFILE_LIMITS },
      RELAY_SEATS,
    );
    this.profiles = new ProfileDesk<Member>({
      members: () => this.memberTable().values(),
      take: (member, now) => this.ledger.take(member.peer, 'profile', now),
      store: (member, profile) => this.setPeer(member, { ...member.peer, profile }),
      overBudget: (member) => this.drop(member, 'rate'),
      shown: (member) => member.peer.role === 'pub',
    });
    // Keep-alive without waking: the runtime answers "ping" with "pong" itself.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_TEXT, PONG_TEXT));
    void ctx.blockConcurrencyWhile(async () => {
      const [wakes, counters] = await Promise.all([ctx.storage.get<number>('wakes'), ctx.storage.get<PersistedCounters>('counters')]);
      this.wakes = (wakes ?? 0) + 1;
      if (counters) this.counters = { ...emptyCounters(), ...counters, dropped: { ...emptyCounters().dropped, ...counters.dropped } };
      // Only an object that has had sockets keeps figures: a stats request for a new name stores nothing.
      if (wakes !== undefined) {
        this.wakesStored = true;
        await ctx.storage.put('wakes', this.wakes);
      }
    });
  }

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('X-Cairn-Action') === 'stats')
      return Response.json(await this.stats(request.headers.get('X-Cairn-Room') ?? ''));
    return super.fetch(request);
  }

  /** The room's live figures and persisted counters (reads storage, never writes it). */
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
      profiles: { ...this.profiles.stats },
    };
  }

  /** The avatar scope this relay's tokens name (the room's name; `world` for cells). */
  protected abstract avatarScope(peer: AvatarPeer): string;

  /** A client's join: who it is, and a refusal reason when it holds too many seats here. */
  protected async clientOf(request: Request): Promise<{ ref: ClientRef; problem: string | null }> {
    this.memberTable();
    const ref = await identifyClient(request, () => this.keys.key('session'), Date.now());
    return { ref, problem: this.ledger.seatProblem(ref) };
  }

  /** Puts a joined socket in the table and sends its welcome (with a fresh avatar token). */
  protected async welcome(ws: WebSocket, peer: AvatarPeer): Promise<void> {
    if (!this.wakesStored) {
      this.wakesStored = true;
      await this.ctx.storage.put('wakes', this.wakes);
    }
    const member = this.createMember(ws, peer);
    this.putMember(ws, member);
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
      avatarToken: await this.avatarToken(peer),
    };
    sendJson(ws, welcome);
    this.profiles.greet(member);
  }

  /** A signed token naming `peer.id` and its socket in this relay's avatar scope, for the voice room. */
  protected async avatarToken(peer: AvatarPeer): Promise<string> {
    const grant = { id: peer.id, scope: this.avatarScope(peer), socket: peer.socket, cell: this.avatarCell() };
    return signAvatarToken(await this.keys.key('avatar'), grant, Date.now());
  }

  /** The cell signed into avatar tokens (world cells), or null (relay rooms). */
  protected avatarCell(): { x: number; z: number } | null {
    return null;
  }

  /**
   * RPC from a voice room checking an avatar claim: the owner ({@link AvatarPeer.owner}) of the
   * open socket `socket` that holds avatar `id` here, or null when no such socket is open (it
   * closed, was replaced by a reconnect, or never existed). Reads memory only.
   */
  async avatarHolder(id: number, socket: number): Promise<string | null> {
    for (const member of this.memberTable().values()) {
      const peer = member.peer;
      if (peer.id === id && peer.socket === socket && member.ws.readyState === WebSocket.OPEN && !this.hasDeparted(member.ws))
        return typeof peer.owner === 'string' ? peer.owner : null;
    }
    return null;
  }

  // ── Messages ────────────────────────────────────────────────────────────────────────────────

  protected override async onMessage(ws: WebSocket, peer: AvatarPeer, message: string | ArrayBuffer): Promise<void> {
    const member = this.memberOf(ws, peer);
    if (typeof message === 'string') return this.onText(member, message);
    if (message.byteLength !== FRAME_BYTES) return this.drop(member, 'size');
    const bytes = new Uint8Array(message);
    if (!isRelayableHeader(bytes)) return this.drop(member, 'header');
    if (checkClientFrame(bytes) !== null) return this.drop(member, 'frame');
    if (member.peer.role !== 'pub') return this.drop(member, 'role');
    const now = Date.now();
    if (!this.ledger.take(member.peer, 'frame', now)) return this.drop(member, 'rate');
    stampSenderId(bytes, 0, member.peer.id);
    this.counters.received++;
    this.relay(bytes, member, (bytes[FRAME_OFFSET.flags]! & FrameFlag.nearOnly) !== 0);
    this.scheduleSave();
    this.afterFrame(member, bytes, now);
  }

  /** Text from a client: plain rooms take a profile and nothing else. */
  protected onText(member: Member, text: string): void | Promise<void> {
    if (!this.profiles.receive(member, text, Date.now())) this.drop(member, 'text');
  }

  /** After a frame was relayed (world cells time it). */
  protected afterFrame(_member: Member, _bytes: Uint8Array, _now: number): void {}

  /** Removes a departed socket; true when it was a publisher whose identity is not here any more (its leave was sent). */
  protected removeMember(ws: WebSocket, peer: AvatarPeer): boolean {
    const members = this.memberTable();
    const member = members.get(ws);
    if (member && members.delete(ws)) {
      if (member.peer.role === 'pub') this.publisherCount--;
      this.ledger.unseat(member.peer, Date.now());
    }
    // A replaced socket's identity is still here (the newer socket): no leave for it.
    const role = member?.peer.role ?? peer.role;
    const left = role === 'pub' && !this.hasMember(peer.id);
    if (left) this.sendLeave(peer.id);
    this.membershipChanged();
    return role === 'pub';
  }

  protected setPeer(member: Member, peer: AvatarPeer): void {
    if (this.members?.get(member.ws) === member && member.peer.role !== peer.role) this.publisherCount += peer.role === 'pub' ? 1 : -1;
    const promoted = member.peer.role !== 'pub' && peer.role === 'pub';
    member.peer = peer;
    member.recipient.key = peer.role === 'pub' ? peer.id : 0;
    this.updatePeer(member.ws, peer);
    // A watcher that starts publishing here (a hop) is shown to this cell from now on.
    if (promoted) this.profiles.announce(member);
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
        if (send(member.ws, bytes)) delivered++;
      }
      this.counters.delivered += delivered;
      this.counters.sends += delivered;
      return;
    }
    const key = from ? from.peer.id : 0;
    // A full buffer means more frames than capacity × 4 in one tick: flush now rather than lose
    // any. Each buffer is retried on its own, so a frame never lands twice in one of them.
    if (!this.tick.add(bytes, key)) {
      this.flush();
      this.tick.add(bytes, key);
    }
    if (this.watching && !nearOnly && !this.farTick.add(bytes, key)) {
      this.flush();
      this.farTick.add(bytes, key);
    }
    if (this.watching && !nearOnly && !this.closeTick.add(bytes, key)) {
      this.flush();
      this.closeTick.add(bytes, key);
    }
    if (this.watching && from?.peer.role === 'pub') {
      this.heard.add(key);
      // Every player publishing here has sent since the last flush. They send once per period,
      // at the cell's moment (cellSendPhase), so nothing more is coming: flush now instead of
      // waiting out the tick. Players sending at random moments rarely all land in one tick; for
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
  protected flush(everyone = false): void {
    if (this.tickTimer !== null) clearTimeout(this.tickTimer);
    this.tickTimer = null;
    this.heard.clear();
    if (this.tick.count === 0 && this.farTick.count === 0 && this.closeTick.count === 0) return;
    const now = Date.now();
    const farDue =
      everyone ||
      !this.watching ||
      now - this.farFlushedAt >= this.settings.farIntervalMs ||
      this.farTick.count > this.farTick.maxFrames / 2;
    const near: TickRecipient[] = [];
    const close: TickRecipient[] = [];
    const far: TickRecipient[] = [];
    for (const member of this.memberTable().values()) {
      if (!this.watching || member.peer.role === 'pub') near.push(member.recipient);
      else (member.peer.close ? close : far).push(member.recipient);
    }
    const toNear = this.tick.deliver(near);
    this.tick.clear();
    const toClose = close.length ? this.closeTick.deliver(close) : { frames: 0, sends: 0 };
    this.closeTick.clear();
    let toFar = { frames: 0, sends: 0 };
    if (farDue) {
      if (far.length) toFar = this.farTick.deliver(far);
      if (this.farTick.count > 0) this.farFlushedAt = now;
      this.farTick.clear();
    }
    this.counters.delivered += toNear.frames + toFar.frames + toClose.frames;
    this.counters.sends += toNear.sends + toFar.sends + toClose.sends;
    this.counters.ticks++;
    // Frames still waiting for paced watchers keep the tick running.
    if (this.farTick.count > 0) this.tickTimer = setTimeout(() => this.flush(), this.settings.tickMs);
  }

  protected drop(member: Member, reason: DropReason): void {
    member.drops[reason]++;
    this.counters.dropped[reason]++;
    this.scheduleSave();
    const now = Date.now();
    if (now - member.noticeAt[reason] < 1000) return;
    member.noticeAt[reason] = now;
    sendJson(member.ws, { type: 'dropped', reason, detail: DROP_REASON_TEXT[reason], count: member.drops[reason] });
  }

  protected countRefusal(): void {
    this.counters.refused++;
    this.scheduleSave();
  }

  // ── Members ─────────────────────────────────────────────────────────────────────────────────

  protected publishers(): number {
    this.memberTable();
    return this.publisherCount;
  }

  protected hasMember(id: number): boolean {
    for (const member of this.memberTable().values()) if (member.peer.id === id) return true;
    return false;
  }

  private createMember(ws: WebSocket, peer: AvatarPeer): Member {
    return {
      ws,
      peer,
      drops: zeroDrops(),
      noticeAt: neverNoticed(),
      recipient: {
        // Subscribers own no frames in this cell, so nothing is excluded from their messages.
        key: peer.role === 'pub' ? peer.id : 0,
        send: (message) => ws.send(message),
      },
    };
  }

  /** The member table; after hibernation it is rebuilt from the open sockets and their attachments (and the seats recounted). */
  protected memberTable(): Map<WebSocket, Member> {
    if (this.members) return this.members;
    this.members = new Map();
    this.publisherCount = 0;
    this.ledger.clearSeats();
    const now = Date.now();
    for (const ws of this.openSockets()) {
      const peer = this.peerOf(ws);
      if (!peer) continue;
      this.members.set(ws, this.createMember(ws, peer));
      this.ledger.seat(peer, now);
      if (peer.role === 'pub') this.publisherCount++;
    }
    this.membershipChanged();
    return this.members;
  }

  /** Puts `member` in the table under `ws` (replacing whatever was there), keeping the publisher count and seats. */
  private putMember(ws: WebSocket, member: Member): void {
    const members = this.memberTable();
    const previous = members.get(ws);
    if (previous?.peer.role === 'pub') this.publisherCount--;
    if (!previous) this.ledger.seat(member.peer, Date.now());
    members.set(ws, member);
    if (member.peer.role === 'pub') this.publisherCount++;
  }

  protected memberOf(ws: WebSocket, peer: AvatarPeer): Member {
    const members = this.memberTable();
    let member = members.get(ws);
    if (!member) {
      member = this.createMember(ws, peer);
      this.putMember(ws, member);
      this.membershipChanged();
    }
    return member;
  }

  /** Members, for subclasses that walk them. */
  protected memberList(): Member[] {
    return [...this.memberTable().values()];
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

  protected scheduleSave(): void {
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = null;
      void this.ctx.storage.put('counters', this.counters);
    }, SAVE_DELAY_MS);
  }
}
