import { HibernatingRoom, type Refusal, type SocketAttachment } from '../hibernating-room.ts';
import { TokenBucket } from '../../src/core/token-bucket.ts';
import {
  MAX_CELL_STROKES,
  parseEditsMessage,
  parseEditsRoom,
  strokeOutsideCell,
  type EditsServerMessage,
  type SharedStroke,
} from '../../src/scatter/shared-edits.ts';

/**
 * One world cell's edits (scatter strokes): a Durable Object named `world:edits:<seed>:<x>:<z>`.
 * It stores every stroke durably in arrival order (`seq`), sends them all to a visitor who joins,
 * and relays each new stroke and undo to everyone in the cell, the author included, so every
 * visitor applies the same strokes in the same order. Bounded: at most {@link MAX_CELL_STROKES}
 * strokes (then new ones are refused, nobody's work is evicted). Every message is validated by
 * the schema the client uses (src/scatter/shared-edits.ts); bad input is answered with a
 * `refused` to its sender only and reaches no one else. Each socket has a budget (a burst of 8
 * messages, then 2 a second). Undo removes one's own stroke (the author id the socket joined with).
 */
interface EditsPeer extends SocketAttachment {
  author: string;
}

/** Largest message accepted, bytes (a full stroke is about 6 KB). */
const MAX_MESSAGE_BYTES = 16_384;
const AUTHOR = /^[A-Za-z0-9_-]{6,40}$/;

export class EditsRoom extends HibernatingRoom<EditsPeer> {
  /** Per-socket budgets; after hibernation a socket starts with a full bucket again. */
  private readonly budgets = new WeakMap<WebSocket, TokenBucket>();

  protected override async admit(request: Request): Promise<Refusal | null> {
    const room = request.headers.get('X-Cairn-Room') ?? '';
    if (!parseEditsRoom(room)) return { code: 4400, reason: 'an edits room is named world:edits:<seed>:<x>:<z>' };
    const author = new URL(request.url).searchParams.get('author') ?? '';
    if (!AUTHOR.test(author)) return { code: 4400, reason: 'join with ?author=<6–40 letters, digits, _ or ->' };
    return null;
  }

  protected override async describePeer(request: Request, base: SocketAttachment): Promise<EditsPeer> {
    return { ...base, author: new URL(request.url).searchParams.get('author') ?? '' };
  }

  protected override async onJoin(ws: WebSocket, peer: EditsPeer): Promise<void> {
    const cell = parseEditsRoom(peer.room)!.cell;
    this.send(ws, { type: 'snapshot', cell, strokes: await this.strokes() });
  }

  protected override async onMessage(ws: WebSocket, peer: EditsPeer, message: string | ArrayBuffer): Promise<void> {
    if (typeof message !== 'string') return this.refuse(ws, null, 'edits are JSON text messages');
    if (message.length > MAX_MESSAGE_BYTES) return this.refuse(ws, null, `message is ${message.length} bytes; at most ${MAX_MESSAGE_BYTES}`);
    let budget = this.budgets.get(ws);
    if (!budget) this.budgets.set(ws, (budget = new TokenBucket({ ratePerSecond: 2, burst: 8 }, Date.now())));
    if (!budget.take(Date.now())) return this.refuse(ws, null, 'too many edits: at most 2 a second after a burst of 8');
    let input: unknown;
    try {
      input = JSON.parse(message);
    } catch {
      return this.refuse(ws, null, 'message is not JSON');
    }
    const parsed = parseEditsMessage(input);
    if (!parsed.ok) return this.refuse(ws, null, parsed.problem);
    const edit = parsed.message;
    const storage = this.ctx.storage;
    if (edit.type === 'undo') {
      const seq = await storage.get<number>(`id:${edit.id}`);
      const stroke = seq === undefined ? undefined : await storage.get<SharedStroke>(strokeKey(seq));
      if (!stroke) return this.refuse(ws, edit.id, `no stroke ${edit.id} in this cell`);
      if (stroke.author !== peer.author) return this.refuse(ws, edit.id, 'only its author can undo a stroke');
      await storage.delete([strokeKey(stroke.seq), `id:${edit.id}`]);
      await storage.put('count', ((await storage.get<number>('count')) ?? 1) - 1);
      return this.broadcast({ type: 'undo', id: edit.id });
    }
    const cell = parseEditsRoom(peer.room)!.cell;
    const outside = strokeOutsideCell(edit.events, cell);
    if (outside) return this.refuse(ws, edit.id, outside);
    if ((await storage.get<number>(`id:${edit.id}`)) !== undefined) return this.refuse(ws, edit.id, `stroke ${edit.id} already exists`);
    const count = (await storage.get<number>('count')) ?? 0;
    if (count >= MAX_CELL_STROKES) return this.refuse(ws, edit.id, `this cell holds ${MAX_CELL_STROKES} strokes, its limit; undo some first`);
    const seq = ((await storage.get<number>('seq')) ?? 0) + 1;
    const stroke: SharedStroke = { id: edit.id, author: peer.author, seq, events: edit.events };
    await storage.put({ seq, count: count + 1, [strokeKey(seq)]: stroke, [`id:${edit.id}`]: seq });
    this.broadcast({ type: 'stroke', stroke });
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
