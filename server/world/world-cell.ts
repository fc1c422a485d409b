import { CloseCode } from '../../src/net/protocol/control.ts';
import { readTimestamp } from '../../src/net/protocol/frame.ts';
import {
  cellSendPhase,
  CLOCK_ANSWER_INTERVAL_MS,
  DIRECTORY_ROOM,
  parseCellCommand,
  parseCellRoom,
  SEND_PERIOD_MS,
  type Cell,
  type CellAck,
  type CellClock,
  type CellRefusal,
  type CellRole,
  type CellTiming,
} from '../../src/net/protocol/world.ts';
import { CELL_RELAY_OPTIONS, MAX_CELL_PUBLISHERS } from '../avatar/relay-options.ts';
import type { Env } from '../env.ts';
import type { Refusal, SocketAttachment } from '../hibernating-room.ts';
import { randomSocketNumber, WORLD_SCOPE } from '../identity/avatar-token.ts';
import { CLIENT_IP_HEADER, identifyClient, isLocalIp } from '../identity/client.ts';
import { sendJson } from '../send.ts';
import { AvatarRelay, type AvatarPeer, type Member } from '../relay/avatar-relay.ts';
import { ArrivalTiming } from './arrival-timing.ts';
import { CellGate } from './cell-gate.ts';
import { REPORT_INTERVAL_MS } from './directory.ts';
import type { TokenClaims } from './token.ts';

/** World cells check for expired tokens at most this often (ms). */
const SWEEP_INTERVAL_MS = 5000;
/** A busy cell re-reports its population this often, so the directory never shows a stale count. */
const REREPORT_MS = 60_000;
/**
 * Most players one address may publish in one cell: a crowded NAT (a school, a LAN party) fits;
 * one host minting identities cannot fill the cell's {@link MAX_CELL_PUBLISHERS}.
 */
export const MAX_PUBLISHERS_PER_IP = 20;

/** A publisher's arrival timing and a socket's clock answers (live only; restart empty after hibernation). */
interface CellExtras {
  timing: ArrivalTiming | null;
  clockAnsweredAt: number;
}

/**
 * A world cell (`world:cell:X:Z`, docs/scale.md): the relay of {@link AvatarRelay} where joins
 * need a signed world token, the id stamped is the world id, sockets publish (`pub`, the cell they
 * stand in) or watch from a neighbouring cell (`sub`, which does not get frames the sender flagged
 * near-only), the cell reports its population to the directory, and it answers a few text
 * commands (publish, subscribe, renew, pace, clock; budgeted per client). Its ack of the join
 * carries an avatar token for the world voice room.
 */
export class WorldCell extends AvatarRelay {
  private cell: Cell | null = null;
  private gate: CellGate | null = null;
  /** Token claims checked in admit() and the socket's owner (its session, if any), for assignPeerId/describePeer of the same request. */
  private readonly admitted = new WeakMap<Request, { claims: TokenClaims; owner: string }>();
  private readonly extras = new WeakMap<Member, CellExtras>();
  private lastSweep = 0;
  private reportTimer: ReturnType<typeof setTimeout> | null = null;
  private lastReport = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, CELL_RELAY_OPTIONS, true);
  }

  protected avatarScope(): string {
    return WORLD_SCOPE;
  }

  protected override avatarCell(): Cell | null {
    return this.cell;
  }

  // ── Joining ─────────────────────────────────────────────────────────────────────────────────

  protected override async admit(request: Request): Promise<Refusal | null> {
    const url = new URL(request.url);
    this.identify(request.headers.get('X-Cairn-Room') ?? '');
    if (!this.gate) return { code: 1008, reason: 'not a world cell name' };
    const role: CellRole = url.searchParams.get('role') === 'sub' ? 'sub' : 'pub';
    const checked = await this.gate.check(url.searchParams.get('token'), role, Date.now());
    if (!checked.ok) {
      this.countRefusal();
      return { code: checked.code, reason: checked.reason };
    }
    this.sweep(true);
    const id = checked.claims.id;
    const ip = request.headers.get(CLIENT_IP_HEADER) ?? 'local';
    if (role === 'pub' && !this.hasMember(id)) {
      if (this.publishers() >= MAX_CELL_PUBLISHERS) {
        this.countRefusal();
        return { code: CloseCode.roomFull, reason: `cell full: ${MAX_CELL_PUBLISHERS} players publish here already` };
      }
      if (!isLocalIp(ip) && this.memberList().filter((m) => m.peer.role === 'pub' && m.peer.ip === ip).length >= MAX_PUBLISHERS_PER_IP) {
        this.countRefusal();
        return { code: CloseCode.tooManySockets, reason: `this address already publishes ${MAX_PUBLISHERS_PER_IP} players here` };
      }
    }
    const members = this.memberTable();
    if (members.size >= this.settings.capacity) {
      this.countRefusal();
      return { code: CloseCode.roomFull, reason: `room full: ${members.size} of ${this.settings.capacity} peers` };
    }
    const problem = this.ledger.seatProblem({ client: `w:${id}`, ip });
    if (problem) {
      this.countRefusal();
      return { code: CloseCode.tooManySockets, reason: problem };
    }
    // Who the socket belongs to for voice: its session (`?session=`), else its address or itself.
    const { client: owner } = await identifyClient(request, () => this.keys.key('session'), Date.now());
    this.admitted.set(request, { claims: checked.claims, owner });
    return null;
  }

  protected override async assignPeerId(request: Request): Promise<number> {
    return this.admitted.get(request)?.claims.id ?? super.assignPeerId(request);
  }

  protected override async describePeer(request: Request, base: SocketAttachment): Promise<AvatarPeer> {
    const admitted = this.admitted.get(request);
    const claims = admitted?.claims;
    const role: CellRole = new URL(request.url).searchParams.get('role') === 'sub' ? 'sub' : 'pub';
    return {
      ...base,
      client: `w:${base.id}`,
      ip: request.headers.get(CLIENT_IP_HEADER) ?? 'local',
      request: {},
      role,
      ...(claims ? { expiresAt: claims.expiresAt } : {}),
      socket: randomSocketNumber(),
      owner: admitted?.owner ?? 'none',
    };
  }

  protected override async onJoin(ws: WebSocket, peer: AvatarPeer): Promise<void> {
    const older = this.memberList().filter((member) => member.peer.id === peer.id && member.ws !== ws);
    await this.welcome(ws, peer);
    // One socket per identity per cell: a newer one (a reconnect) replaces the older — after the
    // newer is in the table, so the older's departure sends no leave for an identity still here.
    for (const member of older) await this.dismiss(member.ws, CloseCode.replaced, 'replaced by a newer connection of the same identity');
    await this.acknowledge(ws, peer);
    if (peer.role === 'pub') this.schedulePopulationReport();
  }

  protected override async onLeave(ws: WebSocket, peer: AvatarPeer): Promise<void> {
    if (this.removeMember(ws, peer)) this.schedulePopulationReport();
  }

  // ── Commands ────────────────────────────────────────────────────────────────────────────────

  /** World-cell commands: publish here, stop publishing here, renew the token, pace, clock (and a profile, server/avatar/profile-desk.ts). */
  protected override async onText(member: Member, text: string): Promise<void> {
    if (this.profiles.receive(member, text, Date.now())) return;
    if (!text.startsWith('{')) return this.drop(member, 'text');
    const parsed = parseCellCommand(text);
    if (!parsed.ok) return this.drop(member, 'text');
    const command = parsed.value;
    const ws = member.ws;
    const now = Date.now();
    const extras = this.extrasOf(member);
    if (command.type === 'clock') {
      if (now - extras.clockAnsweredAt < CLOCK_ANSWER_INTERVAL_MS) return this.drop(member, 'rate');
      extras.clockAnsweredAt = now;
      sendJson(ws, { type: 'clock', t: command.t, serverTime: now } satisfies CellClock);
      return;
    }
    // Each of these may flush the cell: a client gets a few a second, not thousands.
    if (!this.ledger.take(member.peer, 'command', now)) return this.drop(member, 'rate');
    const refuse = (reason: string): void => void sendJson(ws, { type: 'refused', command: command.type, reason } satisfies CellRefusal);
    if (command.type === 'pace') {
      if ((member.peer.close ?? false) !== command.close) {
        // Which buffer this socket reads from changes: send what is pending first.
        this.flush(true);
        this.setPeer(member, { ...member.peer, close: command.close });
      }
      return;
    }
    if (command.type === 'subscribe') {
      this.demote(member);
      await this.acknowledge(ws, member.peer);
      return;
    }
    const role: CellRole = command.type === 'publish' ? 'pub' : member.peer.role;
    const checked = await this.gate!.check(command.token, role, now);
    if (!checked.ok) return refuse(checked.reason);
    if (checked.claims.id !== member.peer.id) return refuse('token belongs to another identity');
    if (role === 'pub' && member.peer.role !== 'pub' && this.publishers() >= MAX_CELL_PUBLISHERS)
      return refuse(`cell full: ${MAX_CELL_PUBLISHERS} players publish here already`);
    const wasPub = member.peer.role === 'pub';
    // A watcher becoming a publisher: send the watchers' pending frames first, or it would never
    // get those already sent to the cell's publishers.
    if (!wasPub && role === 'pub') this.flush(true);
    this.setPeer(member, { ...member.peer, role, expiresAt: checked.claims.expiresAt });
    if (!wasPub && role === 'pub') this.schedulePopulationReport();
    await this.acknowledge(ws, member.peer);
  }

  /**
   * The directory issued identity `id` a token for another cell (a hop): its socket here stops
   * publishing at once (it may still watch from next door until its old token expires), so a
   * superseded token cannot keep publishing in its old cell.
   */
  async superseded(id: number): Promise<void> {
    for (const member of this.memberList()) {
      if (member.peer.id !== id || member.peer.role !== 'pub') continue;
      this.demote(member);
      await this.acknowledge(member.ws, member.peer);
    }
  }

  /** A publisher becomes a watcher: the others are told it left. */
  private demote(member: Member): void {
    if (member.peer.role !== 'pub') return;
    // What is pending was queued for this socket as a publisher: send it before it becomes a
    // watcher, or the paced watcher buffer would hand it the same frames a second time.
    this.flush(true);
    this.setPeer(member, { ...member.peer, role: 'sub' });
    this.sendLeave(member.peer.id);
    this.schedulePopulationReport();
  }

  /**
   * Notes when a publisher's frame arrived against the cell's send moment and, every few frames,
   * tells it how late they typically are when that is more than a few ms (see ArrivalTiming): the
   * client moves its sends by that, so the cell's players arrive in one tick.
   */
  protected override afterFrame(member: Member, bytes: Uint8Array, now: number): void {
    const cell = this.cell!;
    const extras = this.extrasOf(member);
    extras.timing ??= new ArrivalTiming(cellSendPhase(cell), SEND_PERIOD_MS);
    const late = extras.timing.record(now, readTimestamp(bytes, 0));
    if (late !== null) {
      this.counters.timingNotes++;
      sendJson(member.ws, { type: 'timing', lateMs: Math.round(late) } satisfies CellTiming);
    }
    this.sweep(false);
    if (now - this.lastReport > REREPORT_MS) this.schedulePopulationReport();
  }

  private async acknowledge(ws: WebSocket, peer: AvatarPeer): Promise<void> {
    const ack: CellAck = {
      type: 'cell',
      cell: this.cell!,
      role: peer.role,
      expiresAt: peer.expiresAt ?? 0,
      avatarToken: await this.avatarToken(peer),
    };
    sendJson(ws, ack);
  }

  private extrasOf(member: Member): CellExtras {
    let extras = this.extras.get(member);
    if (!extras) {
      extras = { timing: null, clockAnsweredAt: Number.NEGATIVE_INFINITY };
      this.extras.set(member, extras);
    }
    return extras;
  }

  // ── Expiry sweep and population reports ─────────────────────────────────────────────────────

  /** Closes sockets whose token expired without renewal (at most every few seconds unless forced). */
  private sweep(force: boolean): void {
    const now = Date.now();
    if (!force && now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const member of this.memberList()) {
      if (member.peer.expiresAt !== undefined && member.peer.expiresAt <= now)
        void this.dismiss(member.ws, CloseCode.expired, 'world token expired; renew before it runs out');
    }
  }

  /** Tells the directory how many players publish here, at most every couple of seconds. */
  private schedulePopulationReport(): void {
    const cell = this.cell;
    if (this.reportTimer !== null || !cell) return;
    const wait = Math.max(0, REPORT_INTERVAL_MS - (Date.now() - this.lastReport));
    this.reportTimer = setTimeout(() => {
      this.reportTimer = null;
      this.lastReport = Date.now();
      void this.directory()
        .worldReport(cell, this.publishers())
        .catch(() => undefined);
    }, wait);
  }

  private directory(): DurableObjectStub<import('./world-directory-room.ts').WorldDirectoryRoom> {
    return this.env.WORLD_DIRECTORY.get(this.env.WORLD_DIRECTORY.idFromName(DIRECTORY_ROOM));
  }

  /** Learns which cell this object is from its name (first request, or any attachment after hibernation). */
  private identify(room: string): void {
    if (this.cell || !room) return;
    const cell = parseCellRoom(room);
    if (!cell) return;
    this.cell = cell;
    this.gate = new CellGate(cell, () => this.keys.key('world'));
  }

  protected override memberTable(): Map<WebSocket, Member> {
    const table = super.memberTable();
    if (!this.cell) for (const member of table.values()) this.identify(member.peer.room);
    return table;
  }
}
