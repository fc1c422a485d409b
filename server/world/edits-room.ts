import { DIRECTORY_ROOM } from '../../src/net/protocol/world.ts';
import {
  editsRoomName,
  editsRoomProblem,
  editWorldFrom,
  footprintCells,
  parseEditsMessage,
  parseEditsRoom,
  strokeFootprint,
  strokeProblem,
  type EditCell,
  type EditsServerMessage,
  type EditWorld,
} from '../../src/scatter/shared-edits.ts';
import type { Env } from '../env.ts';
import { HibernatingRoom, type Refusal, type SocketAttachment } from '../hibernating-room.ts';
import { ClientLedger, identifyClient, isLocalIp, type ClientRef } from '../identity/client.ts';
import { KeyRing } from '../identity/key-ring.ts';
import {
  CLOSE_BAD_ROOM,
  CLOSE_NO_SUCH_CELL,
  CLOSE_TOO_MANY_JOINS,
  CLOSE_TOO_MANY_SOCKETS,
  EDITS_LIMITS,
  EDITS_SEATS,
  type EditsBudget,
} from './edits-limits.ts';
import { EditsStore, wire, type StoredStroke } from './edits-store.ts';

export { CLOSE_BAD_ROOM, CLOSE_NO_SUCH_CELL, CLOSE_TOO_MANY_JOINS, CLOSE_TOO_MANY_SOCKETS, EDITS_LIMITS, EDITS_SEATS, type EditsBudget };

/** A client over its budget hears about it at most this often (ms); the other messages are dropped silently. */
const RATE_NOTICE_INTERVAL_MS = 1000;
/** Largest message accepted, bytes (a full stroke is about 6 KB). */
const MAX_MESSAGE_BYTES = 16_384;
/** A copy or removal another cell could not take is retried this many times (with backoff), then dropped. */
const OUTBOX_TRIES = 12;

/** What an edits socket carries through hibernation. */
interface EditsPeer extends SocketAttachment, ClientRef {
  /** The verified session id its strokes are stored under, or null: it joined to watch only. */
  author: string | null;
  /** Why it may only watch (no session, or one that failed verification); null for an editor. */
  watchOnly: string | null;
  /** Who its strokes count against in the fair share (see edits-store.ts). */
  holder: string;
  /** It joined with `?format=binary`: its snapshot is one binary message. */
  binary: boolean;
}

/** A copy or removal for another cell of a footprint, kept until that cell has it. */
interface Outgoing {
  op: 'replicate' | 'retract';
  room: string;
  stroke?: StoredStroke;
  id?: string;
  reason?: 'undo' | 'evicted';
  tries: number;
}

/**
 * One world cell's edits (scatter strokes): a Durable Object named `world:edits:<seed>:<x>:<z>`,
 * for the worlds that exist only ({@link EditWorld}: the deployment's seeds and map). It stores
 * the strokes that reach the cell (an {@link EditsStore}: fair share, seq order, cached
 * snapshots), sends them all to a visitor who joins, and relays each new stroke, undo and
 * eviction to everyone in the cell, the author included.
 *
 * A stroke is sent to its home (the cell of its first dab), which stores it and hands a copy to
 * every other cell of its footprint through RPC ({@link replicate}); an undo, sent to any cell
 * holding the stroke, and an eviction remove it from every cell of the footprint
 * ({@link retract}). A copy or removal that fails is kept in an outbox and retried from an alarm.
 *
 * Authors are proven: editing needs a session token (`?session=` from `POST /api/session`), and a
 * stroke's author is the session id from the token's verified claims. A socket without a valid
 * session may watch (snapshot and live strokes); its edits are refused. Undo removes a stroke only
 * for a socket of the session that sent it.
 *
 * Every message is validated by the schema the client uses (src/scatter/shared-edits.ts); bad
 * input is answered with a `refused` to its sender only and reaches no one else. Budgets belong to
 * clients, not sockets ({@link ClientLedger}, server/identity/client.ts): a session's sockets share
 * one edit budget and one join budget ({@link EDITS_LIMITS}) and a few seats ({@link EDITS_SEATS}).
 * Keep-alive pings are answered by the runtime without waking the object.
 */
export class EditsRoom extends HibernatingRoom<EditsPeer> {
  private readonly keys: KeyRing;
  private readonly store: EditsStore;
  private readonly world: EditWorld;
  private ledger: ClientLedger<EditsBudget> | null = null;
  /** Client identities worked out in admit(), for describePeer of the same request. */
  private readonly admitted = new WeakMap<Request, Omit<EditsPeer, keyof SocketAttachment>>();
  /** When each client was last told it is over budget (in memory; after hibernation it is told again). */
  private readonly rateNotices = new Map<string, number>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.keys = new KeyRing(ctx.storage, () => env.WORLD_DIRECTORY.get(env.WORLD_DIRECTORY.idFromName(DIRECTORY_ROOM)).worldKey());
    this.store = new EditsStore(ctx.storage);
    this.world = editWorldFrom(env.WORLD_SEEDS, env.WORLD_HALF_EXTENT_M);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('ping', 'pong'));
  }

  protected override async admit(request: Request): Promise<Refusal | null> {
    const room = request.headers.get('X-Cairn-Room') ?? '';
    const problem = editsRoomProblem(room, this.world);
    if (problem) return { code: parseEditsRoom(room) ? CLOSE_NO_SUCH_CELL : CLOSE_BAD_ROOM, reason: problem };
    const now = Date.now();
    const ref = await identifyClient(request, () => this.keys.key('session'), now);
    const seats = this.budgets().seatProblem(ref);
    if (seats) return { code: CLOSE_TOO_MANY_SOCKETS, reason: seats };
    await this.store.load();
    const format = new URL(request.url).searchParams.get('format') === 'binary' ? 'binary' : 'json';
    // A join costs the kilobytes its snapshot sends (at least one).
    const cost = Math.max(1, Math.ceil(this.store.snapshotBytes(format) / 1024));
    if (!this.budgets().take(ref, 'join', now, cost)) {
      const { ratePerSecond, burst } = EDITS_LIMITS.join;
      return {
        code: CLOSE_TOO_MANY_JOINS,
        reason: `too many joins of this cell lately (${burst} KB of snapshots, then ${ratePerSecond} KB a second); retry later`,
      };
    }
    // identifyClient names a client `s:<id>` only from a verified, unexpired session token.
    const author = ref.client.startsWith('s:') ? ref.client.slice(2) : null;
    const given = new URL(request.url).searchParams.has('session');
    const watchOnly = author
      ? null
      : given
        ? 'the session token is invalid or expired: get a new one from POST /api/session to edit (your earlier strokes stay, under the old session)'
        : 'editing needs a session: join with ?session=<token from POST /api/session>; without one you may only watch';
    const holder = isLocalIp(ref.ip) ? `s:${author ?? ref.client}` : `a:${hashAddress(ref.ip)}`;
    this.admitted.set(request, { ...ref, author, watchOnly, holder, binary: format === 'binary' });
    return null;
  }

  protected override async describePeer(request: Request, base: SocketAttachment): Promise<EditsPeer> {
    const admitted = this.admitted.get(request) ?? {
      client: `sock:${base.id}`,
      ip: 'local',
      author: null,
      watchOnly: 'not identified',
      holder: `s:sock:${base.id}`,
      binary: false,
    };
    return { ...base, ...admitted };
  }

  protected override async onJoin(ws: WebSocket, peer: EditsPeer): Promise<void> {
    this.budgets().seat(peer, Date.now());
    const cell = this.cellOf(peer.room);
    if (peer.binary) {
      const bytes = this.store.snapshotBinary();
      this.send(ws, { type: 'joined', cell, author: peer.author, strokes: this.store.list().length, bytes: bytes.byteLength });
      try {
        ws.send(bytes);
      } catch {
        // closing
      }
      return;
    }
    this.sendText(ws, this.store.snapshotJson(cell, peer.author));
  }

  protected override async onLeave(_ws: WebSocket, peer: EditsPeer): Promise<void> {
    this.budgets().unseat(peer, Date.now());
  }

  protected override async onMessage(ws: WebSocket, peer: EditsPeer, message: string | ArrayBuffer): Promise<void> {
    const now = Date.now();
    if (!this.budgets().take(peer, 'edit', now)) {
      const noticed = this.rateNotices.get(peer.client) ?? 0;
      if (now - noticed < RATE_NOTICE_INTERVAL_MS) return;
      if (this.rateNotices.size > 4096) this.rateNotices.clear();
      this.rateNotices.set(peer.client, now);
      const { ratePerSecond, burst } = EDITS_LIMITS.edit;
      return this.refuse(
        ws,
        null,
        `too many edits: at most ${ratePerSecond} a second after a burst of ${burst}, for all of this client's sockets together`,
      );
    }
    if (typeof message !== 'string') return this.refuse(ws, null, 'edits are JSON text messages');
    if (message.length > MAX_MESSAGE_BYTES)
      return this.refuse(ws, null, `message is ${message.length} bytes; at most ${MAX_MESSAGE_BYTES}`);
    let input: unknown;
    try {
      input = JSON.parse(message);
    } catch {
      return this.refuse(ws, null, 'message is not JSON');
    }
    const parsed = parseEditsMessage(input);
    if (!parsed.ok) return this.refuse(ws, null, parsed.problem);
    const edit = parsed.message;
    const author = peer.author;
    if (author === null) return this.refuse(ws, edit.id, peer.watchOnly ?? 'this socket may only watch');
    if (edit.type === 'undo') {
      const stroke = (await this.store.load(), this.store.get(edit.id));
      if (!stroke) return this.refuse(ws, edit.id, `no stroke ${edit.id} in this cell`);
      if (stroke.author !== author) return this.refuse(ws, edit.id, 'only its author (the session that sent it) can undo a stroke');
      await this.store.remove(edit.id, now);
      this.broadcast({ type: 'undo', id: edit.id });
      await this.retractElsewhere(peer.room, stroke, 'undo');
      return;
    }
    const cell = this.cellOf(peer.room);
    const problem = strokeProblem(edit.events, cell, this.world);
    if (problem) return this.refuse(ws, edit.id, problem);
    const added = await this.store.add({ id: edit.id, author, events: edit.events }, peer.holder, now);
    if (!added.ok) {
      // The author sending again what is stored (a resend after a reconnect): it gets the stored stroke back.
      if (added.existing?.author === author) return this.send(ws, { type: 'stroke', stroke: wire(added.existing) });
      return this.refuse(ws, edit.id, added.problem);
    }
    this.broadcast({ type: 'stroke', stroke: wire(added.stroke) });
    await this.evicted(peer.room, added.evicted);
    const others = footprintCells(strokeFootprint(edit.events)!, cell, this.world).slice(1);
    const seed = parseEditsRoom(peer.room)!.seed;
    await Promise.all(
      others.map((other) => this.deliver({ op: 'replicate', room: editsRoomName(seed, other), stroke: added.stroke, tries: 0 })),
    );
  }

  /**
   * RPC from a stroke's home: stores this cell's copy (under this cell's next seq, the home's
   * time) and relays it here. Its evictions are relayed and removed from their other cells.
   */
  async replicate(room: string, stroke: StoredStroke): Promise<void> {
    if (editsRoomProblem(room, this.world)) return;
    const added = await this.store.add(stroke, stroke.holder, Date.now(), stroke.at);
    if (!added.ok) return;
    this.broadcast({ type: 'stroke', stroke: wire(added.stroke) });
    await this.evicted(room, added.evicted);
  }

  /** RPC from another cell of a stroke's footprint: the stroke was undone or evicted there, so it goes here too. */
  async retract(room: string, id: string, reason: 'undo' | 'evicted'): Promise<void> {
    if (editsRoomProblem(room, this.world)) return;
    const removed = await this.store.remove(id, Date.now());
    if (!removed) return;
    this.broadcast(reason === 'undo' ? { type: 'undo', id } : { type: 'evicted', id, author: removed.author, reason: EVICTED_REASON });
  }

  /** Retries what another cell could not take. */
  override async alarm(): Promise<void> {
    const waiting = await this.ctx.storage.list<Outgoing>({ prefix: 'o:' });
    for (const [key, outgoing] of waiting) {
      await this.ctx.storage.delete(key);
      await this.deliver({ ...outgoing, tries: outgoing.tries + 1 });
    }
  }

  private async evicted(room: string, strokes: readonly StoredStroke[]): Promise<void> {
    for (const stroke of strokes) {
      this.broadcast({ type: 'evicted', id: stroke.id, author: stroke.author, reason: EVICTED_REASON });
      await this.retractElsewhere(room, stroke, 'evicted');
    }
  }

  private async retractElsewhere(room: string, stroke: StoredStroke, reason: 'undo' | 'evicted'): Promise<void> {
    const parsed = parseEditsRoom(room)!;
    const footprint = strokeFootprint(stroke.events);
    if (!footprint) return;
    const cells = footprintCells(footprint, parsed.cell, this.world).slice(1);
    await Promise.all(
      cells.map((cell) => this.deliver({ op: 'retract', room: editsRoomName(parsed.seed, cell), id: stroke.id, reason, tries: 0 })),
    );
  }

  /** Sends a copy or removal to another cell; on failure keeps it for the alarm. */
  private async deliver(outgoing: Outgoing): Promise<void> {
    const stub = this.env.EDITS_ROOM.get(this.env.EDITS_ROOM.idFromName(outgoing.room));
    try {
      if (outgoing.op === 'replicate') await stub.replicate(outgoing.room, outgoing.stroke!);
      else await stub.retract(outgoing.room, outgoing.id!, outgoing.reason!);
    } catch (error) {
      if (outgoing.tries >= OUTBOX_TRIES) {
        console.warn(`edits: ${outgoing.op} to ${outgoing.room} dropped after ${outgoing.tries} tries: ${(error as Error).message}`);
        return;
      }
      await this.ctx.storage.put(`o:${Date.now()}:${crypto.randomUUID()}`, outgoing);
      const delay = Math.min(60_000, 500 * 2 ** outgoing.tries);
      const current = await this.ctx.storage.getAlarm();
      if (current === null || current > Date.now() + delay) await this.ctx.storage.setAlarm(Date.now() + delay);
    }
  }

  /**
   * The cell's client budgets; after hibernation rebuilt with the open sockets' seats (buckets
   * start full: a cell hibernates only when idle, so nobody was over budget).
   */
  private budgets(): ClientLedger<EditsBudget> {
    if (this.ledger) return this.ledger;
    const ledger = new ClientLedger<EditsBudget>(EDITS_LIMITS, EDITS_SEATS);
    const now = Date.now();
    for (const ws of this.openSockets()) {
      const peer = this.peerOf(ws);
      if (peer) ledger.seat(peer, now);
    }
    this.ledger = ledger;
    return ledger;
  }

  private cellOf(room: string): EditCell {
    return parseEditsRoom(room)!.cell;
  }

  private refuse(ws: WebSocket, id: string | null, reason: string): void {
    this.send(ws, { type: 'refused', id, reason });
  }

  private broadcast(message: EditsServerMessage): void {
    const text = JSON.stringify(message);
    for (const ws of this.openSockets()) this.sendText(ws, text);
  }

  private send(ws: WebSocket, message: EditsServerMessage): void {
    this.sendText(ws, JSON.stringify(message));
  }

  private sendText(ws: WebSocket, text: string): void {
    try {
      ws.send(text);
    } catch {
      // closing: its leave runs on close
    }
  }
}

const EVICTED_REASON = 'the cell was full: the oldest stroke of whoever held the most of it made room (each visitor keeps a fair share)';

/** A short hash of an address (FNV-1a): the fair share needs to tell addresses apart, not to know them. */
function hashAddress(ip: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < ip.length; i++) h = Math.imul(h ^ ip.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}
