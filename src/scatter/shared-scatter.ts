import type { BrushTool } from './brush-tool.ts';
import type { ScatterLayer } from './scatter-layer.ts';
import type { BrushEvent } from './session.ts';
import {
  EDIT_CELL_SIZE,
  editCellAt,
  editsRoomName,
  MAX_STROKE_EVENTS,
  strokeSeed,
  type EditCell,
  type EditsServerMessage,
  type SharedEvent,
  type SharedStroke,
} from './shared-edits.ts';

/**
 * The brush, shared: what a visitor paints is cut into strokes (one press, one cell, at most
 * {@link MAX_STROKE_EVENTS} events), sent to the cell's Durable Object, stored there and relayed
 * to everyone in the cell; a visitor who arrives later gets every stroke on joining. Every visitor
 * applies the same strokes in the same order from the same seed, so they see the same forest.
 *
 * Each stroke starts with its preset and a `reseed` from its id, applied locally before its first
 * dab, so the stroke places the same things here and everywhere. When a stroke could not be kept
 * whole (a drag across a cell border), or strokes arrive in another order than they were applied,
 * the layer replays everything in the agreed order. Undo removes one's own last stroke.
 *
 * Editing needs a session token ({@link editSession}): the cells store a stroke under the session's
 * verified id and let only that session undo it, so nobody can undo another visitor's work by
 * claiming their name. Without one the visitor still sees everyone's strokes.
 */
export interface SharedScatterOptions {
  layer: ScatterLayer;
  brush: BrushTool;
  /** World seed (part of the room names). */
  seed: number;
  /**
   * This visitor's session token (`POST /api/session`; {@link editSession} gets and keeps one).
   * The server stores its strokes under the session's id and lets only that session undo them;
   * null joins the cells to watch only (its strokes are refused).
   */
  session: string | null;
  /** ws:// or wss:// origin of the Worker. Default: this page's. */
  origin?: string;
  /** Cells within this distance of the focus are joined. Default 80 m. */
  joinRadius?: number;
}

/** `cairn.stats.sharedScatter`. */
export interface SharedScatterStats {
  cells: number;
  /** The id the cells store this visitor's strokes under (its session's), or null while it may only watch. */
  author: string | null;
  strokes: number;
  sent: number;
  received: number;
  undone: number;
  replays: number;
  /** Messages the cells refused (a stroke over a limit, an undo of another's stroke, editing without a session). */
  refused: number;
  /** The last refusal's reason, as the server wrote it. */
  lastRefusal: string | null;
}

interface Cell {
  key: string;
  cell: EditCell;
  socket: WebSocket | null;
  retry: number | null;
}

export class SharedScatter {
  readonly stats: SharedScatterStats = {
    cells: 0,
    author: null,
    strokes: 0,
    sent: 0,
    received: 0,
    undone: 0,
    replays: 0,
    refused: 0,
    lastRefusal: null,
  };
  private readonly layer: ScatterLayer;
  private readonly options: Required<SharedScatterOptions>;
  private readonly cells = new Map<string, Cell>();
  /** Strokes applied to the layer, in the order applied (confirmed and own pending). */
  private applied: SharedStroke[] = [];
  private readonly pending = new Set<string>();
  private readonly mine: string[] = [];
  private current: { stroke: SharedStroke; cell: EditCell } | null = null;
  private needsReplay = new Set<string>();
  private remote = false;
  private preset: string | null = null;
  private readonly removers: Array<() => void> = [];
  private disposed = false;

  constructor(options: SharedScatterOptions) {
    this.options = { origin: location.origin.replace(/^http/, 'ws'), joinRadius: 80, ...options };
    this.layer = options.layer;
    this.preset = this.layer.session.preset?.id ?? null;
    this.removers.push(
      options.brush.on('strokeStart', ({ x, z }) => this.begin(x, z)),
      options.brush.on('strokeEnd', () => this.flush()),
      this.layer.on('change', ({ event }) => this.onLocal(event)),
    );
  }

  /** Joins the cells near (x, z) and leaves far ones. Call when the focus moves. */
  focus(x: number, z: number): void {
    const r = this.options.joinRadius;
    const wanted = new Set<string>();
    for (let cz = Math.floor((z - r) / EDIT_CELL_SIZE); cz <= Math.floor((z + r) / EDIT_CELL_SIZE); cz++) {
      for (let cx = Math.floor((x - r) / EDIT_CELL_SIZE); cx <= Math.floor((x + r) / EDIT_CELL_SIZE); cx++) {
        const key = `${cx}:${cz}`;
        wanted.add(key);
        if (!this.cells.has(key)) this.join({ x: cx, z: cz });
      }
    }
    // Joined cells stay joined (their strokes stay drawn); only the count is reported.
    this.stats.cells = [...this.cells.values()].filter((c) => c.socket?.readyState === WebSocket.OPEN).length;
  }

  /** Undoes this visitor's last stroke that still exists. Returns its id, or null. */
  undo(): string | null {
    this.flush();
    while (this.mine.length > 0) {
      const id = this.mine.pop()!;
      const stroke = this.applied.find((s) => s.id === id);
      if (!stroke) continue;
      const cell = this.cells.get(cellKey(editCellAt(firstDab(stroke)?.x ?? 0, firstDab(stroke)?.z ?? 0)));
      cell?.socket?.send(JSON.stringify({ type: 'undo', id }));
      return id;
    }
    return null;
  }

  dispose(): void {
    this.disposed = true;
    for (const remove of this.removers) remove();
    for (const cell of this.cells.values()) {
      if (cell.retry !== null) clearTimeout(cell.retry);
      cell.socket?.close(1000, 'leaving');
    }
    this.cells.clear();
  }

  private join(cell: EditCell): void {
    const entry: Cell = { key: cellKey(cell), cell, socket: null, retry: null };
    this.cells.set(entry.key, entry);
    this.connect(entry);
  }

  private connect(entry: Cell): void {
    if (this.disposed) return;
    const url = `${this.options.origin}/rooms/edits/${encodeURIComponent(editsRoomName(this.options.seed, entry.cell))}${this.options.session ? `?session=${encodeURIComponent(this.options.session)}` : ''}`;
    const socket = new WebSocket(url);
    entry.socket = socket;
    socket.onmessage = (event) => this.onServer(JSON.parse(String(event.data)) as EditsServerMessage);
    socket.onopen = () => (this.stats.cells = [...this.cells.values()].filter((c) => c.socket?.readyState === WebSocket.OPEN).length);
    socket.onclose = () => {
      if (this.disposed || entry.socket !== socket) return;
      entry.retry = window.setTimeout(() => {
        entry.retry = null;
        this.connect(entry);
      }, 2000);
    };
  }

  /** Before a press's first dab: a new stroke, its preset and reseed applied first. */
  private begin(x: number, z: number): void {
    this.flush();
    if (!this.preset) return;
    const id = randomId();
    const events: SharedEvent[] = [
      { kind: 'preset', presetId: this.preset },
      { kind: 'reseed', seed: strokeSeed(id) },
    ];
    this.current = { stroke: { id, author: this.stats.author ?? '', seq: 0, events }, cell: editCellAt(x, z) };
    this.withRemote(() => {
      for (const event of events) this.layer.apply(event);
    });
  }

  /** An event the layer applied: part of the open stroke, or the user's preset choice. */
  private onLocal(event: BrushEvent): void {
    if (this.remote) return;
    if (event.kind === 'preset') {
      this.preset = event.presetId;
      return;
    }
    if (event.kind !== 'paint' && event.kind !== 'erase') return;
    let current = this.current;
    const cell = editCellAt(event.x, event.z);
    if (!current || cellKey(cell) !== cellKey(current.cell) || current.stroke.events.length >= MAX_STROKE_EVENTS) {
      // The dab is already applied without its own stroke's reseed before it: replay when agreed.
      this.flush();
      if (!this.preset) return;
      const id = randomId();
      current = this.current = {
        stroke: {
          id,
          author: this.stats.author ?? '',
          seq: 0,
          events: [
            { kind: 'preset', presetId: this.preset },
            { kind: 'reseed', seed: strokeSeed(id) },
          ],
        },
        cell,
      };
      this.needsReplay.add(id);
    }
    current.stroke.events.push({ ...event });
  }

  /** Sends the open stroke (if it has any dab). */
  private flush(): void {
    const current = this.current;
    this.current = null;
    if (!current || current.stroke.events.length <= 2) return;
    const { stroke, cell } = current;
    this.applied.push(stroke);
    this.pending.add(stroke.id);
    this.mine.push(stroke.id);
    const entry = this.cells.get(cellKey(cell)) ?? (this.join(cell), this.cells.get(cellKey(cell))!);
    const message = JSON.stringify({ type: 'stroke', id: stroke.id, events: stroke.events });
    if (entry.socket?.readyState === WebSocket.OPEN) entry.socket.send(message);
    else entry.socket?.addEventListener('open', () => entry.socket?.send(message), { once: true });
    this.stats.sent++;
  }

  private onServer(message: EditsServerMessage): void {
    switch (message.type) {
      case 'snapshot':
        this.stats.author = message.author;
        for (const stroke of message.strokes) {
          // Our own strokes from before a reload (same session) can still be undone.
          if (message.author !== null && stroke.author === message.author && !this.mine.includes(stroke.id)) this.mine.push(stroke.id);
          this.receive(stroke);
        }
        break;
      case 'stroke':
        this.receive(message.stroke);
        break;
      case 'undo': {
        const before = this.applied.length;
        this.applied = this.applied.filter((s) => s.id !== message.id);
        if (this.applied.length !== before) {
          this.stats.undone++;
          this.replay();
        }
        break;
      }
      case 'refused':
        this.stats.refused++;
        this.stats.lastRefusal = message.reason;
        if (message.id && this.pending.delete(message.id)) {
          this.applied = this.applied.filter((s) => s.id !== message.id);
          this.replay();
        }
        break;
    }
    this.stats.strokes = this.applied.length;
  }

  private receive(stroke: SharedStroke): void {
    if (this.pending.delete(stroke.id)) {
      // Our own stroke, now agreed. Its place in the order is where we applied it unless strokes
      // from others were agreed before it meanwhile; a stroke cut at a cell border replays too.
      const index = this.applied.findIndex((s) => s.id === stroke.id);
      const ahead = this.applied.slice(0, index).some((s) => this.pending.has(s.id));
      if (this.needsReplay.delete(stroke.id) || ahead) this.replay();
      return;
    }
    if (this.applied.some((s) => s.id === stroke.id)) return;
    this.stats.received++;
    this.applied.push(stroke);
    // Applied after our own pending strokes here; agreed after them everywhere only if they were
    // sent first, which holds within a cell (one object orders them). Replay when it does not.
    const pendingAhead = this.applied.some((s) => this.pending.has(s.id));
    if (pendingAhead) {
      this.applied = [...this.applied.filter((s) => !this.pending.has(s.id)), ...this.applied.filter((s) => this.pending.has(s.id))];
      this.replay();
      return;
    }
    this.withRemote(() => {
      for (const event of stroke.events) this.safeApply(event);
    });
  }

  /** Rebuilds the layer from the strokes in their agreed order (then our pending ones). */
  private replay(): void {
    this.stats.replays++;
    const seed = this.layer.session.seed;
    this.withRemote(() => {
      this.layer.reset(seed);
      for (const stroke of this.applied) for (const event of stroke.events) this.safeApply(event);
    });
  }

  private safeApply(event: SharedEvent): void {
    try {
      this.layer.apply(event);
    } catch {
      // An event this client cannot apply (a preset it lacks) is skipped, everywhere the same.
    }
  }

  private withRemote(apply: () => void): void {
    this.remote = true;
    try {
      apply();
    } finally {
      this.remote = false;
    }
  }
}

function cellKey(cell: EditCell): string {
  return `${cell.x}:${cell.z}`;
}

function firstDab(stroke: SharedStroke): { x: number; z: number } | undefined {
  return stroke.events.find((e): e is Extract<SharedEvent, { kind: 'paint' | 'erase' }> => e.kind === 'paint' || e.kind === 'erase');
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return [...bytes]
    .map((b) => b.toString(36).padStart(2, '0'))
    .join('')
    .slice(0, 20);
}

/** A session token and when it stops being accepted (ms since epoch), as `POST /api/session` answers. */
export interface EditSession {
  token: string;
  expiresAt: number;
}

/** Where {@link editSession} keeps the token. */
export const EDIT_SESSION_KEY = 'cairn.session';
/** A stored token this close to its expiry (ms) is replaced rather than reused. */
const SESSION_MARGIN_MS = 10 * 60_000;

/**
 * This visitor's session for shared edits: the one kept in `storage` while it is valid (so a
 * reload can still undo the strokes it made), else a new one from `POST /api/session` on `origin`
 * (an http(s) origin), stored for next time. Strokes made under an expired session stay in the
 * world but can no longer be undone. Null when the server gives none (offline, or too many
 * sessions from this address lately): the visitor then watches only.
 */
export async function editSession(origin: string, storage: Storage, now = Date.now()): Promise<string | null> {
  const kept = readSession(storage.getItem(EDIT_SESSION_KEY));
  if (kept && kept.expiresAt - SESSION_MARGIN_MS > now) return kept.token;
  try {
    const response = await fetch(`${origin}/api/session`, { method: 'POST' });
    if (!response.ok) return null;
    const issued = readSession(await response.text());
    if (!issued) return null;
    storage.setItem(EDIT_SESSION_KEY, JSON.stringify(issued));
    return issued.token;
  } catch {
    return null;
  }
}

function readSession(text: string | null): EditSession | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || !('token' in value) || !('expiresAt' in value)) return null;
    const { token, expiresAt } = value;
    return typeof token === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(token) && typeof expiresAt === 'number' ? { token, expiresAt } : null;
  } catch {
    return null;
  }
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** Scatter strokes shared per world cell through the edits rooms. */
    sharedScatter: SharedScatter;
  }
}

declare module '../world/cairn-global.ts' {
  interface CairnStats {
    /** Shared scatter strokes (the world). */
    sharedScatter?: SharedScatterStats;
  }
}
