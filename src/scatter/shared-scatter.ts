import type { BackoffOptions } from '../core/backoff.ts';
import { Emitter } from '../core/emitter.ts';
import { withDefaults } from '../core/options.ts';
import { ReconnectingSocket, type WebSocketConstructor } from '../core/reconnecting-socket.ts';
import { TokenBucket } from '../core/token-bucket.ts';
import { keptSession, type ServerSession } from '../core/server-session.ts';
import type { BrushToolEvents } from './brush-tool.ts';
import type { Placement } from './placement.ts';
import { BUILTIN_PRESET_DATA } from './presets/index.ts';
import type { ScatterLayer } from './scatter-layer.ts';
import type { SessionChange } from './session.ts';
import { CELL_ID_SPAN, CellForest, CellStrokes, type ForestChange, type ForestStroke } from './shared-cell.ts';
import {
  cellInWorld,
  decodeSnapshot,
  DEFAULT_EDIT_WORLD,
  EDIT_CELL_SIZE,
  editCellKey,
  editsRoomName,
  footprintCells,
  MAX_FOOTPRINT_CELLS,
  MAX_SHARED_RADIUS,
  MAX_STROKE_COST,
  MAX_STROKE_EVENTS,
  snapEdit,
  strokeCost,
  strokeFootprint,
  strokeHome,
  strokeSeed,
  type EditCell,
  type EditsServerMessage,
  type EditWorld,
  type SharedEvent,
  type SharedStroke,
} from './shared-edits.ts';

/** Options of a {@link SharedScatter}. */
export interface SharedScatterOptions {
  /** The layer the shared strokes are drawn in (and whose paint and erase become strokes). */
  layer: ScatterLayer;
  /** The brush whose presses delimit strokes (its `strokeStart` / `strokeEnd`); without one, strokes end after {@link idleEndMs}. */
  brush?: BrushLike | null;
  /** World seed (part of the room names). */
  seed: number;
  /**
   * This visitor's session token (`POST /api/session`; {@link editSession} gets and keeps one).
   * The server stores its strokes under the session's id and lets only that session undo them;
   * null joins the cells to watch only (its strokes are refused).
   */
  session: string | null;
  /** ws:// or wss:// origin of the Worker (the page's origin with `ws` for `http`). */
  origin: string;
  /** Cells within this distance of the focus are joined. Default 80 m. */
  joinRadius?: number;
  /** Cells farther than this from the focus are left (unless painted in the last minute). Default 144 m. */
  leaveRadius?: number;
  /** Milliseconds of work per slice when applying what arrived. Default 8. */
  budgetMs?: number;
  /** Preset a stroke takes when the layer has none chosen. Default 'mixed-forest'. */
  defaultPreset?: string;
  /** Preset ids every visitor has (strokes with others stay on this screen). Default: the built-in presets. */
  sharedPresets?: readonly string[];
  /** Props every visitor has, by id (shared strokes place only these). Default: the procedural ones (`proc:`). */
  sharedProp?: (propId: string) => boolean;
  /** The worlds the server keeps edits for (cells off the map are not joined). Default {@link DEFAULT_EDIT_WORLD}. */
  world?: EditWorld;
  /** Reconnect delays of each cell's socket. Default: the shared backoff's (500 ms doubling to 15 s, jittered). */
  backoff?: BackoffOptions;
  /** A stroke painted without brush presses ends after this many ms without a dab. Default 600. */
  idleEndMs?: number;
  /** WebSocket implementation. Default: the global one. */
  WebSocket?: WebSocketConstructor;
}

/** What SharedScatter needs of a brush: its press events, and its radius cap. */
export interface BrushLike {
  /** Hears the brush's `strokeStart` and `strokeEnd`; returns the function that unsubscribes. */
  on<K extends keyof BrushToolEvents>(type: K, listener: (payload: BrushToolEvents[K]) => void): () => void;
  /** Largest radius the brush allows (m); lowered to {@link MAX_SHARED_RADIUS}. */
  maxRadius?: number;
  /** The brush's radius (m); clamped to {@link MAX_SHARED_RADIUS}. */
  radius?: number;
}

/**
 * {@link SharedScatterOptions} with every default filled in, but for the WebSocket: left out, each
 * cell's {@link ReconnectingSocket} takes its own default (the global one).
 */
type ResolvedSharedScatterOptions = Required<Omit<SharedScatterOptions, 'WebSocket'>> & Pick<SharedScatterOptions, 'WebSocket'>;

/** Defaults of a {@link SharedScatter} (layer, seed, session and origin have none; the WebSocket is the socket's own). */
const SHARED_DEFAULTS: Omit<ResolvedSharedScatterOptions, 'layer' | 'seed' | 'session' | 'origin'> = {
  brush: null,
  joinRadius: 80,
  leaveRadius: 144,
  budgetMs: 8,
  defaultPreset: 'mixed-forest',
  sharedPresets: BUILTIN_PRESET_DATA.map((p) => (p.data as { id: string }).id),
  sharedProp: (id) => id.startsWith('proc:'),
  world: DEFAULT_EDIT_WORLD,
  backoff: {},
  idleEndMs: 600,
};

/** `cairn.stats.sharedScatter`: the shared brush's figures. */
export interface SharedScatterStats {
  /** Cells whose socket is open / joined in all. */
  cells: number;
  /** Cells joined in all. */
  joined: number;
  /** The id the cells store this visitor's strokes under (its session's), or null while it may only watch. */
  author: string | null;
  /** Distinct strokes in the joined cells. */
  strokes: number;
  /** Own strokes sent / stored by their home cell / waiting to be sent. */
  sent: number;
  /** Own strokes stored by their home cell. */
  stored: number;
  /** Own strokes waiting to be sent. */
  queued: number;
  /** Strokes of others that arrived live. */
  received: number;
  /** Strokes undone (by their author) / evicted to make room (any author's, and this visitor's own). */
  undone: number;
  /** Strokes evicted to make room (any author's). */
  evicted: number;
  /** Of those, this visitor's own. */
  evictedMine: number;
  /** Messages the cells refused (a stroke that breaks a rule, an undo of another's stroke, editing without a session). */
  refused: number;
  /** The last refusal's reason, as the server wrote it. */
  lastRefusal: string | null;
  /** Dabs kept on this screen only (a preset other visitors do not have). */
  localOnly: number;
  /** Reconnections of cell sockets. */
  reconnects: number;
  /** The applying of what arrived, in slices (see {@link SharedScatterOptions.budgetMs}). */
  apply: {
    /** Milliseconds of work per slice. */
    budgetMs: number;
    /** Slices run. */
    slices: number;
    /** The longest slice so far and the last one, ms, as this code's own timer measured them. */
    longestSliceMs: number;
    /** The last slice (ms). */
    lastSliceMs: number;
    /** Cells with work left, and placements waiting to be drawn. */
    busyCells: number;
    /** Placements waiting to be drawn. */
    queue: number;
    /** Times a cell was computed again because its order changed under the work done. */
    rebuilds: number;
    /** Work applied in all and in the biggest slice, in units of one candidate or event: slicing bounds the second. */
    work: number;
    /** Work of the biggest slice, same units. */
    maxSliceWork: number;
  };
}

/** What SharedScatter emits. */
export interface SharedScatterEvents extends Record<string, unknown> {
  /** A refusal or failure to share: show it where the visitor looks. */
  problem: {
    /** How serious: `error` when a cell's edits cannot be had at all, `warn` for a refusal or an eviction. */
    level: 'warn' | 'error';
    /** One line: what happened. */
    title: string;
    /** The details, as the server or the socket gave them. */
    detail: string;
  };
  /** Every cell has applied what it knows (its forest and the layer agree). */
  settled: {
    /** Cells joined. */
    cells: number;
    /** Distinct strokes in them. */
    strokes: number;
  };
}

/** Placement ids of shared cells: each joined cell takes a slot of {@link CELL_ID_SPAN} ids from here (below the regions' 2³⁰). */
export const SHARED_ID_BASE = 1 << 29;
/** Slots, so {@link SHARED_ID_BASE} + slots × span stays below the regions' ids. */
const SLOTS = (1 << 29) / CELL_ID_SPAN;
/** The client's own pace for edits, under the server's 2 a second after a burst of 8, so the server never has to drop one. */
const SEND_PACE = { ratePerSecond: 1.6, burst: 6 };
/** A cell painted in lately stays joined this long (ms) even when the focus moved away. */
const PAINT_KEEP_MS = 60_000;
/** An own stroke not stored after this long (ms) is reported (once). */
const SLOW_STORE_MS = 10_000;
/** The same problem title is shown again at most this often (ms). */
const PROBLEM_REPEAT_MS = 5000;

interface CellEntry {
  cell: EditCell;
  key: string;
  slot: number;
  socket: ReconnectingSocket;
  strokes: CellStrokes;
  forest: CellForest;
  /** A `joined` arrived: the next binary message is the snapshot. */
  awaitingSnapshot: boolean;
  /** A snapshot arrived since the socket last opened. */
  synced: boolean;
  lastPainted: number;
}

/** An own stroke, from the first dab to the cells' answer. */
interface OwnStroke extends ForestStroke {
  readonly id: string;
  readonly events: SharedEvent[];
  home: EditCell;
  state: 'painting' | 'queued' | 'sent' | 'stored';
  sentAt: number;
  group: number;
}

type Outgoing = { type: 'stroke'; stroke: OwnStroke } | { type: 'undo'; id: string; cell: string };

/**
 * The brush, shared. What a visitor paints is cut into strokes (one press of the brush; a new
 * one only past {@link MAX_STROKE_EVENTS} events, {@link MAX_STROKE_COST} or a footprint of
 * {@link MAX_FOOTPRINT_CELLS} cells) and sent to the stroke's home cell, which stores it in every
 * cell it reaches and relays it to everyone there; a visitor who arrives later gets every stroke
 * on joining. Each cell's forest is computed from that cell's strokes alone, in the cell's order
 * ({@link CellForest}), so every visitor sees the same instances, whichever cells they loaded and
 * in whatever order the strokes arrived. One press is one undo, wherever it went.
 *
 * The brush's preset is the layer's own (the panel's choice); strokes from others never touch it,
 * so a late joiner or a reloaded page paints as any other. A dab shows at once; applying what
 * arrives (a full cell, a recomputation after a stroke landed between others) runs in slices of
 * {@link SharedScatterOptions.budgetMs}, so the page never stalls. Every refusal and failure to
 * share is emitted as `problem` (the world shows it as a notice) and counted in {@link stats}.
 *
 * Editing needs a session token ({@link editSession}): the cells store a stroke under the session's
 * verified id and let only that session undo it. Without one the visitor still sees everyone's
 * strokes, and what it paints is refused (and said so).
 */
export class SharedScatter extends Emitter<SharedScatterEvents> {
  /** Live figures (`cairn.stats.sharedScatter`). */
  readonly stats: SharedScatterStats = {
    cells: 0,
    joined: 0,
    author: null,
    strokes: 0,
    sent: 0,
    stored: 0,
    queued: 0,
    received: 0,
    undone: 0,
    evicted: 0,
    evictedMine: 0,
    refused: 0,
    lastRefusal: null,
    localOnly: 0,
    reconnects: 0,
    apply: { budgetMs: 8, slices: 0, longestSliceMs: 0, lastSliceMs: 0, busyCells: 0, queue: 0, rebuilds: 0, work: 0, maxSliceWork: 0 },
  };
  private readonly layer: ScatterLayer;
  private readonly options: ResolvedSharedScatterOptions;
  private readonly cells = new Map<string, CellEntry>();
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;
  private readonly own = new Map<string, OwnStroke>();
  /** Undo groups (one press each), oldest first: own strokes of this page and, after a reload, those the snapshots name. */
  private readonly mine: Array<{ at: number; ids: string[] }> = [];
  private readonly undoing = new Set<string>();
  private readonly removedIds = new Set<string>();
  private current: OwnStroke | null = null;
  private group = 0;
  private readonly outbox: Outgoing[] = [];
  private readonly pace = new TokenBucket(SEND_PACE, Date.now());
  private drainTimer: ReturnType<typeof setTimeout> | null = null;
  private pumpTimer: ReturnType<typeof setTimeout> | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  /** Layer work waiting (removals before additions, in order). */
  private readonly layerQueue: Array<{ remove: number } | { add: Placement }> = [];
  private readonly sharedProps = new Map<string, readonly string[]>();
  private readonly problemsShown = new Map<string, number>();
  private focusAt = { x: 0, z: 0 };
  private localPresetNoticed = false;
  /** Between the brush's strokeStart and strokeEnd. */
  private pressed = false;
  private strokesChanged = true;
  private wasSettled = true;
  private readonly removers: Array<() => void> = [];
  private disposed = false;

  constructor(options: SharedScatterOptions) {
    super();
    const defaults: ResolvedSharedScatterOptions = { ...SHARED_DEFAULTS, layer: options.layer, seed: 1, session: null, origin: '' };
    this.options = withDefaults(defaults, options);
    this.layer = options.layer;
    this.stats.apply.budgetMs = this.options.budgetMs;
    const brush = this.options.brush;
    if (brush) {
      if (brush.maxRadius !== undefined) brush.maxRadius = Math.min(brush.maxRadius, MAX_SHARED_RADIUS);
      if (brush.radius !== undefined) brush.radius = Math.min(brush.radius, MAX_SHARED_RADIUS);
      this.removers.push(
        brush.on('strokeStart', () => {
          this.endStroke();
          this.pressed = true;
        }),
        brush.on('strokeEnd', () => {
          this.pressed = false;
          this.endStroke();
        }),
      );
    }
    this.layer.editor = {
      paint: (x, z, radius) => this.dab('paint', x, z, radius),
      erase: (x, z, radius) => this.dab('erase', x, z, radius),
    };
  }

  /** Joins the cells near (x, z) and leaves far ones. Call when the focus moves. */
  focus(x: number, z: number): void {
    this.focusAt = { x, z };
    const r = this.options.joinRadius;
    for (let cz = Math.floor((z - r) / EDIT_CELL_SIZE); cz <= Math.floor((z + r) / EDIT_CELL_SIZE); cz++)
      for (let cx = Math.floor((x - r) / EDIT_CELL_SIZE); cx <= Math.floor((x + r) / EDIT_CELL_SIZE); cx++) {
        const cell = { x: cx, z: cz };
        if (cellInWorld(this.options.world, cell) && distanceToCell(x, z, cell) <= r) this.join(cell);
      }
    const now = Date.now();
    for (const entry of [...this.cells.values()]) {
      if (distanceToCell(x, z, entry.cell) <= this.options.leaveRadius || now - entry.lastPainted < PAINT_KEEP_MS) continue;
      if ([...this.own.values()].some((s) => s.state !== 'stored' && footprintKeys(s).includes(entry.key))) continue;
      this.leave(entry);
    }
    this.countCells();
  }

  /**
   * Undoes this visitor's last press that still exists (every stroke of it, in every cell).
   * Returns the first stroke's id, or null when nothing of its own is left.
   */
  undo(): string | null {
    this.endStroke();
    while (this.mine.length > 0) {
      const group = this.mine.pop()!;
      const ids = group.ids.filter((id) => !this.removedIds.has(id) && (this.own.has(id) || this.cellsWith(id).length > 0));
      if (ids.length === 0) continue;
      for (const id of ids) this.undoStroke(id);
      this.schedulePump();
      this.drain();
      return ids[0]!;
    }
    return null;
  }

  /** Per joined cell, a hash of its drawn instances (`count:fnv`): equal on every visitor who sees the same strokes. */
  cellHashes(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const key of [...this.cells.keys()].sort()) out[key] = this.cells.get(key)!.forest.hash();
    return out;
  }

  /** True when every joined cell has sent its snapshot, applied what it knows, and the layer shows it. */
  get settled(): boolean {
    return (
      this.layerQueue.length === 0 &&
      this.current === null &&
      [...this.cells.values()].every((c) => (c.synced || !cellInWorld(this.options.world, c.cell)) && !c.forest.busy)
    );
  }

  /**
   * Computes every joined cell again from its strokes, as a reload would (in slices, like any
   * arrival): for benchmarks, and after anything that changes what strokes place.
   */
  recompute(): void {
    for (const entry of this.cells.values()) {
      const out: ForestChange = { added: [], removed: [] };
      entry.forest.clear(out);
      this.queueLayer(out);
      entry.forest.setStrokes(entry.strokes.list());
    }
    this.schedulePump();
  }

  /** The strokes of a joined cell as it stored them, in its order (a copy, for tools and tests). */
  storedStrokes(cell: EditCell): SharedStroke[] {
    return [...(this.cells.get(editCellKey(cell))?.strokes.storedStrokes ?? [])];
  }

  /** Leaves every cell (closing its socket), detaches from the layer and the brush, and removes what the shared strokes drew. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const remove of this.removers) remove();
    if (this.layer.editor) this.layer.editor = null;
    for (const timer of [this.drainTimer, this.pumpTimer, this.idleTimer]) if (timer !== null) clearTimeout(timer);
    for (const entry of [...this.cells.values()]) this.leave(entry);
    this.flushLayer(Infinity);
    this.clear();
  }

  // ---- painting ---------------------------------------------------------------------------------

  /** A dab from the layer's paint/erase: into the open stroke (started when there is none), drawn at once. */
  private dab(kind: 'paint' | 'erase', x: number, z: number, radius: number): SessionChange {
    const event: SharedEvent = {
      kind,
      x: snapEdit(x),
      z: snapEdit(z),
      radius: snapEdit(Math.min(MAX_SHARED_RADIUS, Math.max(0.25, radius))),
    };
    let stroke = this.current ?? this.beginStroke();
    if (!stroke) {
      // A preset other visitors lack: the dab stays on this screen, in the layer's own session.
      this.stats.localOnly++;
      return this.layer.apply({ kind, x, z, radius });
    }
    if (!fits(stroke, event)) {
      this.closeStroke();
      stroke = this.beginStroke(stroke.group)!;
    }
    stroke.events.push(event);
    stroke.home = strokeHome(stroke.events)!;
    const now = Date.now();
    for (const cell of footprintCells(strokeFootprint(stroke.events)!, stroke.home, this.options.world)) {
      const entry = this.join(cell);
      entry.lastPainted = now;
      entry.strokes.addPending(stroke);
      entry.forest.setStrokes(entry.strokes.list());
    }
    this.restartIdle();
    // Feedback now: the dab's cells are worked on in this task (one slice at most).
    const change = this.pump();
    return change;
  }

  /** A new own stroke with the layer's preset (the default one when none is chosen); null when the preset is not shared. */
  private beginStroke(group = ++this.group): OwnStroke | null {
    let preset = this.layer.session.preset?.id ?? null;
    if (!preset && this.layer.presets.has(this.options.defaultPreset)) {
      void this.layer.choosePreset(this.options.defaultPreset).catch(() => undefined);
      preset = this.options.defaultPreset;
    }
    if (!preset || !this.options.sharedPresets.includes(preset)) {
      if (!this.localPresetNoticed) {
        this.localPresetNoticed = true;
        this.problem(
          'warn',
          `Strokes with “${preset ?? 'no preset'}” stay on your screen`,
          'Other visitors do not have this preset, so what you paint with it is not shared. Choose a built-in preset to paint for everyone.',
        );
      }
      return null;
    }
    const id = randomId();
    const stroke: OwnStroke = {
      id,
      events: [
        { kind: 'preset', presetId: preset },
        { kind: 'reseed', seed: strokeSeed(id) },
      ],
      home: { x: 0, z: 0 },
      state: 'painting',
      sentAt: 0,
      group,
    };
    this.current = stroke;
    return stroke;
  }

  /** Ends the open stroke (a press ended, or no dab for a while): queued for its home cell. */
  private endStroke(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.closeStroke();
    this.schedulePump();
  }

  private closeStroke(): void {
    const stroke = this.current;
    this.current = null;
    if (!stroke || !stroke.events.some((e) => e.kind === 'paint' || e.kind === 'erase')) return;
    stroke.state = 'queued';
    this.own.set(stroke.id, stroke);
    const last = this.mine[this.mine.length - 1];
    if (last && this.own.get(last.ids[0]!)?.group === stroke.group) last.ids.push(stroke.id);
    else this.mine.push({ at: Date.now(), ids: [stroke.id] });
    this.outbox.push({ type: 'stroke', stroke });
    this.drain();
  }

  /** Outside a press of the brush (a script painting the layer) nothing says when a stroke ends: a pause does. */
  private restartIdle(): void {
    if (this.pressed) return;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.endStroke(), this.options.idleEndMs);
  }

  private undoStroke(id: string): void {
    const stroke = this.own.get(id);
    if (stroke && stroke.state === 'queued') {
      // Never sent: it goes here only.
      const index = this.outbox.findIndex((o) => o.type === 'stroke' && o.stroke.id === id);
      if (index >= 0) this.outbox.splice(index, 1);
      this.forgetStroke(id);
      return;
    }
    const holders = this.cellsWith(id);
    const home = stroke ? editCellKey(stroke.home) : undefined;
    const target = holders.find((e) => e.key === home && e.strokes.stored(id)) ?? holders.find((e) => e.strokes.stored(id)) ?? holders[0];
    if (!target) return;
    for (const entry of holders) {
      entry.strokes.hide(id);
      entry.forest.setStrokes(entry.strokes.list());
    }
    this.undoing.add(id);
    this.outbox.push({ type: 'undo', id, cell: target.key });
  }

  // ---- sending ----------------------------------------------------------------------------------

  /** Sends what waits, in order, at the client's own pace, once each message's cell is open. */
  private drain(): void {
    if (this.drainTimer !== null || this.disposed) return;
    const now = Date.now();
    while (this.outbox.length > 0) {
      const next = this.outbox[0]!;
      const entry = next.type === 'stroke' ? this.join(next.stroke.home) : this.cells.get(next.cell);
      if (!entry) {
        this.outbox.shift();
        continue;
      }
      if (!entry.socket.isOpen) break; // sent when the cell opens (its snapshot drains again)
      if (!this.pace.take(now)) {
        this.drainTimer = setTimeout(() => {
          this.drainTimer = null;
          this.drain();
        }, 1000 / SEND_PACE.ratePerSecond);
        break;
      }
      this.outbox.shift();
      if (next.type === 'stroke') {
        entry.socket.send(JSON.stringify({ type: 'stroke', id: next.stroke.id, events: next.stroke.events }));
        if (next.stroke.state === 'queued') this.stats.sent++;
        next.stroke.state = 'sent';
        next.stroke.sentAt = now;
        setTimeout(() => this.checkStored(next.stroke), SLOW_STORE_MS);
      } else entry.socket.send(JSON.stringify({ type: 'undo', id: next.id }));
    }
    this.stats.queued = this.outbox.length;
  }

  private checkStored(stroke: OwnStroke): void {
    if (this.disposed || stroke.state !== 'sent' || !this.own.has(stroke.id)) return;
    this.problem(
      'warn',
      'A stroke is not stored yet',
      `Cell ${editCellKey(stroke.home)} has not confirmed your stroke after ${SLOW_STORE_MS / 1000} s; it is shown here and sent again when the cell reconnects.`,
    );
  }

  // ---- cells ------------------------------------------------------------------------------------

  private join(cell: EditCell): CellEntry {
    const key = editCellKey(cell);
    const known = this.cells.get(key);
    if (known) return known;
    const slot = this.freeSlots.pop() ?? this.nextSlot++;
    if (slot >= SLOTS) throw new RangeError(`SharedScatter: more than ${SLOTS} cells joined at once`);
    const url = `${this.options.origin}/rooms/edits/${encodeURIComponent(editsRoomName(this.options.seed, cell))}?format=binary${this.options.session ? `&session=${encodeURIComponent(this.options.session)}` : ''}`;
    const socket = new ReconnectingSocket({
      url,
      backoff: this.options.backoff,
      // A name the server does not know cannot get better by asking again.
      fatalCloseCodes: [4400, 4404],
      ...(this.options.WebSocket ? { WebSocket: this.options.WebSocket } : {}),
    });
    const entry: CellEntry = {
      cell,
      key,
      slot,
      socket,
      strokes: new CellStrokes(),
      forest: new CellForest({
        cell,
        ground: this.layer.ground,
        propsIn: (category) => this.sharedPropsIn(category),
        presets: this.layer.presets,
        firstId: SHARED_ID_BASE + slot * CELL_ID_SPAN,
      }),
      awaitingSnapshot: false,
      synced: false,
      lastPainted: 0,
    };
    this.cells.set(key, entry);
    socket.events.on('text', (text) => this.onText(entry, text));
    socket.events.on('binary', (bytes) => this.onBinary(entry, bytes));
    socket.events.on('open', ({ reconnect }) => {
      entry.synced = false;
      if (reconnect) this.stats.reconnects++;
      this.countCells();
    });
    socket.events.on('lost', (loss) => {
      this.countCells();
      if (loss.final && !this.disposed)
        this.problem('error', `Edits of cell ${key} are unavailable`, `${loss.reason}. Strokes there are not shared.`);
    });
    if (cellInWorld(this.options.world, cell)) socket.connect();
    this.countCells();
    return entry;
  }

  private leave(entry: CellEntry): void {
    this.strokesChanged = true;
    entry.socket.dispose();
    const out: ForestChange = { added: [], removed: [] };
    entry.forest.clear(out);
    this.queueLayer(out);
    this.cells.delete(entry.key);
    this.freeSlots.push(entry.slot);
    this.schedulePump();
  }

  private onText(entry: CellEntry, text: string): void {
    let message: EditsServerMessage;
    try {
      message = JSON.parse(text) as EditsServerMessage;
    } catch {
      return;
    }
    switch (message.type) {
      case 'snapshot':
        this.onSnapshot(entry, message.author, message.strokes);
        break;
      case 'joined':
        this.stats.author = message.author;
        entry.awaitingSnapshot = true;
        break;
      case 'stroke':
        this.onStroke(entry, message.stroke);
        break;
      case 'undo':
      case 'evicted':
        this.onRemoved(entry, message.id, message.type === 'evicted' ? message : null);
        break;
      case 'refused':
        this.onRefused(entry, message.id, message.reason);
        break;
    }
    this.afterChange(entry);
  }

  private onBinary(entry: CellEntry, bytes: Uint8Array): void {
    if (!entry.awaitingSnapshot) return;
    entry.awaitingSnapshot = false;
    let strokes: SharedStroke[];
    try {
      strokes = decodeSnapshot(bytes);
    } catch (error) {
      this.problem('error', `Cell ${entry.key} sent a snapshot this page cannot read`, (error as Error).message);
      return;
    }
    this.onSnapshot(entry, this.stats.author, strokes);
    this.afterChange(entry);
  }

  private onSnapshot(entry: CellEntry, author: string | null, strokes: readonly SharedStroke[]): void {
    this.stats.author = author;
    entry.synced = true;
    entry.socket.accepted();
    entry.strokes.replace(strokes);
    const stored = new Set(strokes.map((s) => s.id));
    for (const stroke of strokes) {
      if (author !== null && stroke.author === author) this.adopt(stroke);
      this.confirmOwn(stroke.id);
    }
    // Own strokes this cell should hold and does not: sent again if this is their home (the server keeps one copy per id).
    for (const stroke of this.own.values()) {
      if (stored.has(stroke.id) || editCellKey(stroke.home) !== entry.key) continue;
      if (stroke.state === 'sent' && !this.outbox.some((o) => o.type === 'stroke' && o.stroke === stroke)) {
        this.outbox.unshift({ type: 'stroke', stroke });
      }
      if (stroke.state !== 'stored') entry.strokes.addPending(stroke);
    }
    this.drain();
  }

  private onStroke(entry: CellEntry, stroke: SharedStroke): void {
    entry.strokes.add(stroke);
    if (this.own.has(stroke.id)) this.confirmOwn(stroke.id);
    else if (stroke.author === this.stats.author) this.adopt(stroke);
    else if (!this.removedIds.has(stroke.id) && this.cellsWith(stroke.id).length === 1) this.stats.received++;
  }

  private onRemoved(entry: CellEntry, id: string, eviction: { author: string; reason: string } | null): void {
    const had = entry.strokes.remove(id);
    if (this.removedIds.has(id) || !had) return;
    // Counted once per stroke, whichever of its cells says so first; its other cells say so too.
    this.removedIds.add(id);
    if (this.removedIds.size > 4096) this.removedIds.delete(this.removedIds.values().next().value!);
    this.undoing.delete(id);
    const mine = this.own.has(id) || eviction?.author === this.stats.author;
    for (const other of this.cellsWith(id)) {
      other.strokes.remove(id);
      other.forest.setStrokes(other.strokes.list());
    }
    this.own.delete(id);
    if (eviction) {
      this.stats.evicted++;
      if (mine) {
        this.stats.evictedMine++;
        this.problem('warn', 'One of your strokes made room for others', `Cell ${entry.key}: ${eviction.reason}.`);
      }
    } else this.stats.undone++;
  }

  private onRefused(entry: CellEntry, id: string | null, reason: string): void {
    this.stats.refused++;
    this.stats.lastRefusal = reason;
    if (id && this.undoing.delete(id)) {
      for (const other of this.cellsWith(id)) {
        other.strokes.unhide(id);
        other.forest.setStrokes(other.strokes.list());
      }
      this.problem('warn', 'Undo refused', reason);
      return;
    }
    if (id && this.own.has(id)) {
      this.forgetStroke(id);
      this.problem('warn', 'Your stroke was not shared', `${reason}. It is removed from your screen too, as nobody else sees it.`);
      return;
    }
    this.problem('warn', `Cell ${entry.key} refused an edit`, reason);
  }

  /** Own stroke stored (its first echo, from any of its cells). */
  private confirmOwn(id: string): void {
    const stroke = this.own.get(id);
    if (!stroke || stroke.state === 'stored') return;
    if (stroke.state === 'sent' || stroke.state === 'queued') this.stats.stored++;
    stroke.state = 'stored';
  }

  /** A stroke of this visitor's own from before a reload (or another tab): one undo of its own. */
  private adopt(stroke: SharedStroke): void {
    if (this.mine.some((g) => g.ids.includes(stroke.id))) return;
    let at = this.mine.length;
    while (at > 0 && this.mine[at - 1]!.at > stroke.at) at--;
    this.mine.splice(at, 0, { at: stroke.at, ids: [stroke.id] });
  }

  /** Removes an own stroke everywhere here (refused, or undone before it was sent). */
  private forgetStroke(id: string): void {
    this.own.delete(id);
    for (const entry of this.cellsWith(id)) {
      entry.strokes.remove(id);
      entry.forest.setStrokes(entry.strokes.list());
    }
    this.schedulePump();
  }

  private afterChange(entry: CellEntry): void {
    this.strokesChanged = true;
    entry.forest.setStrokes(entry.strokes.list());
    this.schedulePump();
  }

  private cellsWith(id: string): CellEntry[] {
    return [...this.cells.values()].filter((entry) => entry.strokes.has(id));
  }

  /** Distinct stored strokes in the joined cells (counted again only after a change). */
  private countStrokes(): number {
    if (this.strokesChanged) {
      this.strokesChanged = false;
      const ids = new Set<string>();
      for (const entry of this.cells.values()) for (const stroke of entry.strokes.storedStrokes) ids.add(stroke.id);
      this.stats.strokes = ids.size;
    }
    return this.stats.strokes;
  }

  private countCells(): void {
    let open = 0;
    for (const entry of this.cells.values()) if (entry.socket.isOpen) open++;
    this.stats.cells = open;
    this.stats.joined = this.cells.size;
  }

  private sharedPropsIn(category: string): readonly string[] {
    let props = this.sharedProps.get(category);
    if (!props) {
      props = this.layer.catalog.propsIn(category).filter(this.options.sharedProp);
      // Kept once found: props registered later (a file, the asset browser) are this visitor's alone.
      if (props.length > 0) this.sharedProps.set(category, props);
    }
    return props;
  }

  // ---- applying ---------------------------------------------------------------------------------

  private schedulePump(): void {
    if (this.pumpTimer !== null || this.disposed) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      this.pump();
    }, 0);
  }

  /**
   * One slice: draws what waits, then works on the busy cells (the focus's nearest first) until
   * the budget is spent. Returns what it changed in the drawn instances.
   */
  private pump(): SessionChange {
    const start = performance.now();
    const deadline = start + this.options.budgetMs;
    const now = () => performance.now();
    const change: SessionChange = { added: [], removed: [] };
    this.flushLayer(deadline, change);
    const busy = [...this.cells.values()].filter((c) => c.forest.busy);
    busy.sort((a, b) => distanceToCell(this.focusAt.x, this.focusAt.z, a.cell) - distanceToCell(this.focusAt.x, this.focusAt.z, b.cell));
    let work = 0;
    for (const entry of busy) {
      if (now() >= deadline || this.layerQueue.length > 0) break;
      const out: ForestChange = { added: [], removed: [] };
      const before = entry.forest.work;
      entry.forest.step(deadline, now, out);
      work += entry.forest.work - before;
      this.queueLayer(out);
      this.flushLayer(deadline, change);
    }
    const elapsed = performance.now() - start;
    const apply = this.stats.apply;
    apply.slices++;
    apply.lastSliceMs = elapsed;
    apply.longestSliceMs = Math.max(apply.longestSliceMs, elapsed);
    apply.work += work;
    apply.maxSliceWork = Math.max(apply.maxSliceWork, work);
    let rebuilds = 0;
    let busyCells = 0;
    for (const entry of this.cells.values()) {
      rebuilds += entry.forest.rebuilds;
      if (entry.forest.busy) busyCells++;
    }
    apply.rebuilds = rebuilds;
    apply.busyCells = busyCells;
    apply.queue = this.layerQueue.length;
    const strokes = this.countStrokes();
    if (apply.busyCells > 0 || this.layerQueue.length > 0) {
      this.wasSettled = false;
      this.schedulePump();
    } else if (!this.wasSettled) {
      this.wasSettled = true;
      this.emit('settled', { cells: this.cells.size, strokes });
    }
    return change;
  }

  private queueLayer(out: ForestChange): void {
    for (const id of out.removed) this.layerQueue.push({ remove: id });
    for (const placement of out.added) this.layerQueue.push({ add: placement });
  }

  /** Draws queued placements (removals first, as queued) until the deadline, in batches. */
  private flushLayer(deadline: number, change?: SessionChange): void {
    let done = 0;
    while (done < this.layerQueue.length) {
      const end = Math.min(this.layerQueue.length, done + 64);
      const removes: number[] = [];
      const adds: Placement[] = [];
      for (let i = done; i < end; i++) {
        const op = this.layerQueue[i]!;
        if ('remove' in op) {
          // Additions before this removal go first, so an id is never added twice.
          if (adds.length > 0) {
            this.layer.addPlacements(adds);
            change?.added.push(...adds);
            adds.length = 0;
          }
          removes.push(op.remove);
        } else {
          if (removes.length > 0) {
            this.layer.removePlacements(removes);
            removes.length = 0;
          }
          adds.push(op.add);
        }
      }
      if (removes.length > 0) this.layer.removePlacements(removes);
      if (adds.length > 0) {
        this.layer.addPlacements(adds);
        change?.added.push(...adds);
      }
      done = end;
      if (performance.now() >= deadline) break;
    }
    this.layerQueue.splice(0, done);
  }

  private problem(level: 'warn' | 'error', title: string, detail: string): void {
    const now = Date.now();
    if (now - (this.problemsShown.get(title) ?? -Infinity) < PROBLEM_REPEAT_MS) return;
    this.problemsShown.set(title, now);
    this.emit('problem', { level, title, detail });
  }
}

/** Whether one more dab keeps a stroke inside the limits the server holds it to. */
function fits(stroke: OwnStroke, event: SharedEvent): boolean {
  if (stroke.events.length >= MAX_STROKE_EVENTS) return false;
  const events = [...stroke.events, event];
  if (strokeCost(events) > MAX_STROKE_COST) return false;
  const footprint = strokeFootprint(events)!;
  return Math.max(footprint.maxX - footprint.minX, footprint.maxZ - footprint.minZ) + 1 <= MAX_FOOTPRINT_CELLS;
}

function footprintKeys(stroke: OwnStroke): string[] {
  const footprint = strokeFootprint(stroke.events);
  const home = strokeHome(stroke.events);
  return footprint && home ? footprintCells(footprint, home).map(editCellKey) : [];
}

function distanceToCell(x: number, z: number, cell: EditCell): number {
  const minX = cell.x * EDIT_CELL_SIZE;
  const minZ = cell.z * EDIT_CELL_SIZE;
  const dx = Math.max(minX - x, 0, x - (minX + EDIT_CELL_SIZE));
  const dz = Math.max(minZ - z, 0, z - (minZ + EDIT_CELL_SIZE));
  return Math.hypot(dx, dz);
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return [...bytes]
    .map((b) => b.toString(36).padStart(2, '0'))
    .join('')
    .slice(0, 20);
}

/** A session token and when it stops being accepted (ms since epoch), as `POST /api/session` answers. */
export type EditSession = ServerSession;

/** Where {@link editSession} keeps the token. */
export const EDIT_SESSION_KEY = 'cairn.session';

/**
 * This visitor's session for shared edits: the one kept in `storage` while it is valid (so a
 * reload can still undo the strokes it made), else a new one from `POST /api/session` on `origin`
 * (an http(s) origin), stored for next time. Strokes made under an expired session stay in the
 * world but can no longer be undone. Null when the server gives none (offline, or too many
 * sessions from this address lately): the visitor then watches only.
 */
export function editSession(origin: string, storage: Storage, now = Date.now()): Promise<string | null> {
  return keptSession(origin, storage, EDIT_SESSION_KEY, now);
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
