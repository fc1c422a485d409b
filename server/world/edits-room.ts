import type { TokenBucketLimits } from '../../src/core/token-bucket.ts';
import { DIRECTORY_ROOM } from '../../src/net/protocol/world.ts';
import {
  MAX_AUTHOR_STROKES,
  MAX_CELL_STROKES,
  parseEditsMessage,
  parseEditsRoom,
  strokeOutsideCell,
  type EditsServerMessage,
  type SharedStroke,
} from '../../src/scatter/shared-edits.ts';
import type { Env } from '../env.ts';
import { HibernatingRoom, type Refusal, type SocketAttachment } from '../hibernating-room.ts';
import { ClientLedger, identifyClient, type ClientRef, type SeatLimits } from '../identity/client.ts';
import { KeyRing } from '../identity/key-ring.ts';

/** What a client's budget covers in an edits cell: every message it sends. */
export type EditsBudget = 'edit';

/** One client's edit budget: a burst of 8 messages, then 2 a second (a painter sends one per press). */
export const EDITS_LIMITS: Record<EditsBudget, TokenBucketLimits> = { edit: { ratePerSecond: 2, burst: 8 } };
/**
 * Seats in one cell: a session (a tab, another tab of the same browser, a reconnect), the
 * session-less watchers of one address, and one address in all.
 */
export const EDITS_SEATS: SeatLimits = { client: 4, anonymousAddress: 16, address: 64 };
/** Close code for a join refused because its client already holds its most sockets here (as the relay's and voice's). */
export const CLOSE_TOO_MANY_SOCKETS = 4006;
/** A client over its budget hears about it at most this often (ms); the other messages are dropped silently. */
const RATE_NOTICE_INTERVAL_MS = 1000;
/** Largest message accepted, bytes (a full stroke is about 6 KB). */
const MAX_MESSAGE_BYTES = 16_384;

/** What an edits socket carries through hibernation. */
interface EditsPeer extends SocketAttachment, ClientRef {
  /** The verified session id its strokes are stored under, or null: it joined to watch only. */
  author: string | null;
  /** Why it may only watch (no session, or one that failed verification); null for an editor. */
  watchOnly: string | null;
}

/**
 * One world cell's edits (scatter strokes): a Durable Object named `world:edits:<seed>:<x>:<z>`.
 * It stores every stroke durably in arrival order (`seq`), sends them all to a visitor who joins,
 * and relays each new stroke and undo to everyone in the cell, the author included, so every
 * visitor applies the same strokes in the same order.
 *
 * Authors are proven: editing needs a session token (`?session=` from `POST /api/session`), and a
 * stroke's author is the session id from the token's verified claims. A socket without a valid
 * session may watch (snapshot and live strokes); its edits are refused. Undo removes a stroke only
 * for a socket of the session that sent it.
 *
 * Every message is validated by the schema the client uses (src/scatter/shared-edits.ts); bad
 * input is answered with a `refused` to its sender only and reaches no one else. Budgets belong to
 * clients, not sockets ({@link ClientLedger}, server/identity/client.ts): a session's sockets share
 * one edit budget ({@link EDITS_LIMITS}) and a few seats ({@link EDITS_SEATS}). Storage is bounded:
 * at most {@link MAX_CELL_STROKES} strokes per cell and {@link MAX_AUTHOR_STROKES} per author (then
 * new ones are refused; nobody's work is evicted).
 */
export class EditsRoom extends HibernatingRoom<EditsPeer> {
  private readonly keys: KeyRing;
  private ledger: ClientLedger<EditsBudget> | null = null;
  /** Client identities worked out in admit(), for describePeer of the same request. */
  private readonly admitted = new WeakMap<Request, { ref: ClientRef; author: string | null; watchOnly: string | null }>();
  /** When each client was last told it is over budget (in memory; after hibernation it is told again). */
  private readonly rateNotices = new Map<string, number>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.keys = new KeyRing(ctx.storage, () => env.WORLD_DIRECTORY.get(env.WORLD_DIRECTORY.idFromName(DIRECTORY_ROOM)).worldKey());
  }

  protected override async admit(request: Request): Promise<Refusal | null> {
    const room = request.headers.get('X-Cairn-Room') ?? '';
    if (!parseEditsRoom(room)) return { code: 4400, reason: 'an edits room is named world:edits:<seed>:<x>:<z>' };
    const ref = await identifyClient(request, () => this.keys.key('session'), Date.now());
    const problem = this.budgets().seatProblem(ref);
    if (problem) return { code: CLOSE_TOO_MANY_SOCKETS, reason: problem };
    // identifyClient names a client `s:<id>` only from a verified, unexpired session token.
    const author = ref.client.startsWith('s:') ? ref.client.slice(2) : null;
    const given = new URL(request.url).searchParams.has('session');
    const watchOnly = author
      ? null
      : given
        ? 'the session token is invalid or expired: get a new one from POST /api/session to edit (your earlier strokes stay, under the old session)'
        : 'editing needs a session: join with ?session=<token from POST /api/session>; without one you may only watch';
    this.admitted.set(request, { ref, author, watchOnly });
    return null;
  }

  protected override async describePeer(request: Request, base: SocketAttachment): Promise<EditsPeer> {
    const admitted = this.admitted.get(request) ?? {
      ref: { client: `sock:${base.id}`, ip: 'local' },
      author: null,
      watchOnly: 'not identified',
    };
    return { ...base, ...admitted.ref, author: admitted.author, watchOnly: admitted.watchOnly };
  }

  protected override async onJoin(ws: WebSocket, peer: EditsPeer): Promise<void> {
    this.budgets().seat(peer, Date.now());
    const cell = parseEditsRoom(peer.room)!.cell;
    this.send(ws, { type: 'snapshot', cell, author: peer.author, strokes: await this.strokes() });
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
    const storage = this.ctx.storage;
    if (edit.type === 'undo') {
      const seq = await storage.get<number>(`id:${edit.id}`);
      const stroke = seq === undefined ? undefined : await storage.get<SharedStroke>(strokeKey(seq));
      if (!stroke) return this.refuse(ws, edit.id, `no stroke ${edit.id} in this cell`);
      if (stroke.author !== author) return this.refuse(ws, edit.id, 'only its author (the session that sent it) can undo a stroke');
      const [count, own] = await Promise.all([storage.get<number>('count'), storage.get<number>(authorKey(author))]);
      await storage.delete([strokeKey(stroke.seq), `id:${edit.id}`]);
      await storage.put({ count: Math.max(0, (count ?? 1) - 1), [authorKey(author)]: Math.max(0, (own ?? 1) - 1) });
      return this.broadcast({ type: 'undo', id: edit.id });
    }
    const cell = parseEditsRoom(peer.room)!.cell;
    const outside = strokeOutsideCell(edit.events, cell);
    if (outside) return this.refuse(ws, edit.id, outside);
    if ((await storage.get<number>(`id:${edit.id}`)) !== undefined) return this.refuse(ws, edit.id, `stroke ${edit.id} already exists`);
    const count = (await storage.get<number>('count')) ?? 0;
    if (count >= MAX_CELL_STROKES)
      return this.refuse(ws, edit.id, `this cell holds ${MAX_CELL_STROKES} strokes, its limit; undo some first`);
    const own = (await storage.get<number>(authorKey(author))) ?? 0;
    if (own >= MAX_AUTHOR_STROKES)
      return this.refuse(ws, edit.id, `you have ${MAX_AUTHOR_STROKES} strokes in this cell, one author's limit; undo some first`);
    const seq = ((await storage.get<number>('seq')) ?? 0) + 1;
    const stroke: SharedStroke = { id: edit.id, author, seq, events: edit.events };
    await storage.put({ seq, count: count + 1, [authorKey(author)]: own + 1, [strokeKey(seq)]: stroke, [`id:${edit.id}`]: seq });
    this.broadcast({ type: 'stroke', stroke });
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

  /** The cell's strokes in order. */
  private async strokes(): Promise<SharedStroke[]> {
    const stored = await this.ctx.storage.list<SharedStroke>({ prefix: 'stroke:' });
    return [...stored.values()];
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

/** Storage key of a stroke: zero-padded so `list()` returns them in order. */
function strokeKey(seq: number): string {
  return `stroke:${String(seq).padStart(10, '0')}`;
}

/** Storage key of an author's stroke count in this cell. */
function authorKey(author: string): string {
  return `author:${author}`;
}
