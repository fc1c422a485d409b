import * as v from 'valibot';

/**
 * Shared world edits: the wire format between a visitor's scatter brush and the Durable Objects
 * that store the edits of the world's 64 m cells (server/world/edits-room.ts). Pure (no three, no
 * DOM); the server and the client validate with the same valibot schemas, so the types and the
 * error messages come from one place and bad input is refused before it reaches anyone.
 *
 * A stroke is one press of the brush: a preset choice, a reseed, then dabs, with one id. Its
 * *home* is the cell of its first dab; its *footprint* is every cell its dab disks reach (at most
 * {@link MAX_FOOTPRINT_CELLS} along each axis). It is sent to its home, which stores it and hands
 * a copy to every other cell of its footprint; undoing it removes it from all of them.
 *
 * The order that makes everyone's forest the same ({@link CellForest}, shared-cell.ts): each cell
 * numbers the strokes it stores (`seq`, one counter per cell), and a cell's instances are what its
 * strokes place *inside that cell*, applied in `seq` order. No cell looks at another's instances,
 * so the order in which cells load, and the order between cells, change nothing.
 */

/** Edge of an edits cell, metres (the world's net cells are the same size). */
export const EDIT_CELL_SIZE = 64;
/** Positions and radii travel and are applied on a grid of 1/64 m, so a stroke round-trips exactly (binary and JSON). */
export const EDIT_GRID = 64;
/** Events in one stroke, at most. */
export const MAX_STROKE_EVENTS = 96;
/** Brush radius a shared stroke may use, metres. */
export const MAX_SHARED_RADIUS = 40;
/** Cells a stroke's footprint may span along each axis (3: its home and a neighbour each side). */
export const MAX_FOOTPRINT_CELLS = 3;
/**
 * What a stroke costs a cell's storage, in square metres of painted ground: this base per stroke,
 * plus {@link DAB_BASE_COST} and the disk's area per dab. Area is what a client pays to place a
 * stroke (candidates are density × area), so the bound on storage is also a bound on the work
 * any visitor does to apply a full cell.
 */
export const STROKE_BASE_COST = 512;
/** Cost of a dab besides its area, m² (so tiny dabs still count). */
export const DAB_BASE_COST = 16;
/** Cost a cell holds at most (2¹⁷ m²: 32 times its ground); past it the fair-share eviction makes room. */
export const CELL_CAPACITY = 131_072;
/** Cost of one stroke at most (half a cell's capacity); the brush starts a new stroke before it. */
export const MAX_STROKE_COST = CELL_CAPACITY / 2;
/** Strokes a cell holds at most (each costs at least {@link STROKE_BASE_COST}). */
export const MAX_CELL_STROKES = CELL_CAPACITY / STROKE_BASE_COST;
/** Room name prefix of an edits cell: `world:edits:<seed>:<x>:<z>`. */
export const EDITS_ROOM_PREFIX = 'world:edits:';

/** Snaps a position or radius to the {@link EDIT_GRID}. */
export function snapEdit(value: number): number {
  // `+ 0` turns −0 into 0, so a snapped value has one spelling in JSON, binary and arithmetic.
  return Math.round(value * EDIT_GRID) / EDIT_GRID + 0;
}

const id = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{6,40}$/, 'an id is 6–40 letters, digits, _ or -'));
const coordinate = v.pipe(
  v.number(),
  v.finite('must be a finite number'),
  v.minValue(-65_536, 'must be within ±65,536 m'),
  v.maxValue(65_536, 'must be within ±65,536 m'),
  v.transform(snapEdit),
);
const radius = v.pipe(
  v.number(),
  v.finite(),
  v.minValue(0.25, 'radius must be ≥ 0.25 m'),
  v.maxValue(MAX_SHARED_RADIUS, `radius must be ≤ ${MAX_SHARED_RADIUS} m`),
  v.transform(snapEdit),
);

/** One brush event as it travels (the scatter session's BrushEvent, plus `reseed`). */
export const SharedEventSchema = v.variant('kind', [
  v.object({
    /** Chooses the preset later dabs paint with. */
    kind: v.literal('preset'),
    /** The preset's id: 1–40 lower-case letters, digits or -. */
    presetId: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'a preset id is 1–40 lower-case letters, digits or -')),
  }),
  v.object({
    /** Restarts the placement RNG. */
    kind: v.literal('reseed'),
    /** The new seed (u32). */
    seed: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffffffff)),
  }),
  v.object({
    /** Places instances in a disk. */
    kind: v.literal('paint'),
    /** East position of the centre (m, within ±65,536, snapped to the grid). */
    x: coordinate,
    /** South position of the centre (m, within ±65,536, snapped to the grid). */
    z: coordinate,
    /** Radius (m, 0.25 to {@link MAX_SHARED_RADIUS}, snapped to the grid). */
    radius,
  }),
  v.object({
    /** Removes instances in a disk. */
    kind: v.literal('erase'),
    /** East position of the centre (m, within ±65,536, snapped to the grid). */
    x: coordinate,
    /** South position of the centre (m, within ±65,536, snapped to the grid). */
    z: coordinate,
    /** Radius (m, 0.25 to {@link MAX_SHARED_RADIUS}, snapped to the grid). */
    radius,
  }),
]);
/** One brush event as it travels ({@link SharedEventSchema}). */
export type SharedEvent = v.InferOutput<typeof SharedEventSchema>;
/** A paint or erase event. */
export type SharedDab = Extract<
  SharedEvent,
  {
    /** Paint or erase. */
    kind: 'paint' | 'erase';
  }
>;

/** What a client sends. */
export const EditsClientMessageSchema = v.variant('type', [
  v.object({
    /** A stroke to store, sent to its home cell. */
    type: v.literal('stroke'),
    /** The stroke's id: 6–40 letters, digits, _ or -. */
    id,
    /** Its events, 1 to {@link MAX_STROKE_EVENTS}. */
    events: v.pipe(
      v.array(SharedEventSchema),
      v.minLength(1),
      v.maxLength(MAX_STROKE_EVENTS, `a stroke has at most ${MAX_STROKE_EVENTS} events`),
    ),
  }),
  v.object({
    /** Undo one of the sender's own strokes. */
    type: v.literal('undo'),
    /** The stroke's id. */
    id,
  }),
]);
/** A message a client sends ({@link EditsClientMessageSchema}). */
export type EditsClientMessage = v.InferOutput<typeof EditsClientMessageSchema>;

/**
 * A stored stroke: its id, its author's id, its events; `seq` is its place in the order of the
 * cell that sent it (each cell of a footprint numbers its copy itself) and `at` the home cell's
 * clock when it was stored (ms since epoch; the same in every copy). The author is the id of the
 * session the stroke was sent with, as the server verified it (never a name the client chose):
 * only a socket of the same session may undo the stroke.
 */
export interface SharedStroke {
  /** The stroke's id (6–40 letters, digits, _ or -). */
  id: string;
  /** The id of the session the stroke was sent with, as the server verified it. */
  author: string;
  /** Its place in the order of the cell holding this copy. */
  seq: number;
  /** When the home cell stored it (ms since epoch). */
  at: number;
  /** Its events, in order. */
  events: SharedEvent[];
}

/**
 * What a cell sends. On join, `snapshot` (every stroke, as JSON) — or, for a socket that joined
 * with `?format=binary`, `joined` followed by one binary message ({@link encodeSnapshot}). Both
 * carry `author`: the id this socket's strokes are stored under (its session's), or null when it
 * joined without a valid session and may only watch. `stroke`, `undo` and `evicted` go to
 * everyone in the cell, the author included; `refused` to the sender only.
 */
export type EditsServerMessage =
  | {
      /** On join: every stroke, as JSON. */
      type: 'snapshot';
      /** The cell. */
      cell: EditCell;
      /** The id this socket's strokes are stored under, or null (watch only). */
      author: string | null;
      /** Every stroke the cell holds, in its order. */
      strokes: SharedStroke[];
    }
  | {
      /** On a binary join: the snapshot follows as one binary message. */
      type: 'joined';
      /** The cell. */
      cell: EditCell;
      /** The id this socket's strokes are stored under, or null (watch only). */
      author: string | null;
      /** Strokes in the snapshot. */
      strokes: number;
      /** Bytes of the snapshot. */
      bytes: number;
    }
  | {
      /** A stroke was stored. */
      type: 'stroke';
      /** The stroke, with its place in the cell's order. */
      stroke: SharedStroke;
    }
  | {
      /** A stroke was undone by its author. */
      type: 'undo';
      /** The stroke's id. */
      id: string;
    }
  /** Removed to make room (the fair-share eviction), in this cell and every other of its footprint. */
  | {
      /** A stroke was evicted to make room. */
      type: 'evicted';
      /** The stroke's id. */
      id: string;
      /** Its author. */
      author: string;
      /** Why, in words. */
      reason: string;
    }
  | {
      /** The cell refused what this socket sent. */
      type: 'refused';
      /** The stroke or undo refused, or null when the message had no usable id. */
      id: string | null;
      /** Why, in words. */
      reason: string;
    };

/** An edits cell: integer coordinates, `floor(x / EDIT_CELL_SIZE)`. */
export interface EditCell {
  /** Column: ⌊x / {@link EDIT_CELL_SIZE}⌋. */
  x: number;
  /** Row: ⌊z / {@link EDIT_CELL_SIZE}⌋. */
  z: number;
}

/** The edits cell holding world position (x, z). */
export function editCellAt(x: number, z: number): EditCell {
  return { x: Math.floor(x / EDIT_CELL_SIZE), z: Math.floor(z / EDIT_CELL_SIZE) };
}

/** `x:z`, a cell's key in maps. */
export function editCellKey(cell: EditCell): string {
  return `${cell.x}:${cell.z}`;
}

/** The room name of an edits cell: `world:edits:<seed>:<x>:<z>`. */
export function editsRoomName(seed: number, cell: EditCell): string {
  return `${EDITS_ROOM_PREFIX}${seed >>> 0}:${cell.x}:${cell.z}`;
}

/** Parses an edits room name (its spelling only; {@link editsRoomProblem} checks the world); null when it is not one. */
export function parseEditsRoom(name: string): {
  /** The world seed. */
  seed: number;
  /** The cell. */
  cell: EditCell;
} | null {
  const match = /^world:edits:(\d{1,10}):(-?\d{1,4}):(-?\d{1,4})$/.exec(name);
  if (!match) return null;
  const seed = Number(match[1]);
  if (seed > 0xffffffff) return null;
  const room = { seed, cell: { x: Number(match[2]) + 0, z: Number(match[3]) + 0 } };
  // One spelling per cell ("03", "-0" name the same one), so a cell is always one object.
  return editsRoomName(room.seed, room.cell) === name ? room : null;
}

/** The worlds that exist: which seeds, and how far the map reaches. */
export interface EditWorld {
  /** World seeds with edits (the world page's `?seed=`). */
  seeds: readonly number[];
  /** Half the map's edge, metres: cells lie within ±this. */
  halfExtentM: number;
}

/** Cairn's world: seed 1 and the 512 m map (cells −4…3 each way). */
export const DEFAULT_EDIT_WORLD: EditWorld = { seeds: [1], halfExtentM: 256 };

/**
 * The world from a deployment's settings: `seeds` a comma-separated list (`1,2`), `halfExtentM` a
 * number of metres; missing or unreadable settings keep {@link DEFAULT_EDIT_WORLD}'s.
 */
export function editWorldFrom(seeds: string | undefined, halfExtentM: string | undefined): EditWorld {
  const list = (seeds ?? '')
    .split(',')
    .filter((s) => s.trim() !== '')
    .map((s) => Number(s.trim()))
    .filter((n) => s32(n));
  const extent = Number(halfExtentM);
  return {
    seeds: list.length > 0 ? list : DEFAULT_EDIT_WORLD.seeds,
    halfExtentM: Number.isFinite(extent) && extent >= EDIT_CELL_SIZE ? extent : DEFAULT_EDIT_WORLD.halfExtentM,
  };
}

function s32(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 0xffffffff;
}

/** Whether a cell lies on the map (wholly inside ±halfExtentM). */
export function cellInWorld(world: EditWorld, cell: EditCell): boolean {
  const h = world.halfExtentM;
  return (
    cell.x * EDIT_CELL_SIZE >= -h &&
    (cell.x + 1) * EDIT_CELL_SIZE <= h &&
    cell.z * EDIT_CELL_SIZE >= -h &&
    (cell.z + 1) * EDIT_CELL_SIZE <= h
  );
}

/** Why `name` is not an edits cell of `world`, or null when it is one. */
export function editsRoomProblem(name: string, world: EditWorld): string | null {
  const room = parseEditsRoom(name);
  if (!room) return 'an edits room is named world:edits:<seed>:<x>:<z>';
  if (!world.seeds.includes(room.seed)) return `no world has seed ${room.seed} (edits exist for seed ${world.seeds.join(', ')})`;
  if (!cellInWorld(world, room.cell)) {
    const last = Math.floor(world.halfExtentM / EDIT_CELL_SIZE);
    return `cell ${editCellKey(room.cell)} is off the map (cells run from ${-last} to ${last - 1} each way)`;
  }
  return null;
}

/** Validates a client message; the problems are valibot's, joined. Positions and radii come back snapped to the grid. */
export function parseEditsMessage(input: unknown):
  | {
      /** The message is valid. */
      ok: true;
      /** The message, positions and radii snapped. */
      message: EditsClientMessage;
    }
  | {
      /** The message was refused. */
      ok: false;
      /** Every problem, with its path. */
      problem: string;
    } {
  const result = v.safeParse(EditsClientMessageSchema, input);
  if (result.success) return { ok: true, message: result.output };
  return { ok: false, problem: result.issues.map((issue) => `${v.getDotPath(issue) ?? 'message'}: ${issue.message}`).join('; ') };
}

/** Whether an event is a paint or erase dab. */
export function isDab(event: SharedEvent): event is SharedDab {
  return event.kind === 'paint' || event.kind === 'erase';
}

/** The cell of a stroke's first dab (where it is sent and stored first), or null when it has none. */
export function strokeHome(events: readonly SharedEvent[]): EditCell | null {
  const first = events.find(isDab);
  return first ? editCellAt(first.x, first.z) : null;
}

/** The cells a stroke's dab disks reach, as index ranges (inclusive); null when it has no dab. */
export interface Footprint {
  /** Westmost cell column reached. */
  minX: number;
  /** Eastmost cell column reached. */
  maxX: number;
  /** Northmost cell row reached. */
  minZ: number;
  /** Southmost cell row reached. */
  maxZ: number;
}

/** The cells a stroke's dabs reach; null when it has no dab. */
export function strokeFootprint(events: readonly SharedEvent[]): Footprint | null {
  let minX = Infinity;
  let maxX = -Infinity;
  let minZ = Infinity;
  let maxZ = -Infinity;
  for (const event of events) {
    if (!isDab(event)) continue;
    minX = Math.min(minX, event.x - event.radius);
    maxX = Math.max(maxX, event.x + event.radius);
    minZ = Math.min(minZ, event.z - event.radius);
    maxZ = Math.max(maxZ, event.z + event.radius);
  }
  if (minX === Infinity) return null;
  return {
    minX: Math.floor(minX / EDIT_CELL_SIZE),
    maxX: Math.floor(maxX / EDIT_CELL_SIZE),
    minZ: Math.floor(minZ / EDIT_CELL_SIZE),
    maxZ: Math.floor(maxZ / EDIT_CELL_SIZE),
  };
}

/** The cells of a footprint that lie in `world` (all of them when no world is given), home first. */
export function footprintCells(footprint: Footprint, home: EditCell, world?: EditWorld): EditCell[] {
  const cells: EditCell[] = [home];
  for (let z = footprint.minZ; z <= footprint.maxZ; z++)
    for (let x = footprint.minX; x <= footprint.maxX; x++) {
      if (x === home.x && z === home.z) continue;
      const cell = { x, z };
      if (!world || cellInWorld(world, cell)) cells.push(cell);
    }
  return cells;
}

/** What a dab costs a cell (see {@link STROKE_BASE_COST}). */
export function dabCost(radius: number): number {
  return DAB_BASE_COST + Math.PI * radius * radius;
}

/** What a stroke costs each cell of its footprint (see {@link STROKE_BASE_COST}). */
export function strokeCost(events: readonly SharedEvent[]): number {
  let cost = STROKE_BASE_COST;
  for (const event of events) if (isDab(event)) cost += dabCost(event.radius);
  return cost;
}

/**
 * Why a (validated) stroke may not be stored with `cell` as its home in `world`, or null: it
 * must have a dab, start in `cell`, keep every dab centre on the map, span at most
 * {@link MAX_FOOTPRINT_CELLS} cells each way and cost at most {@link MAX_STROKE_COST}.
 */
export function strokeProblem(events: readonly SharedEvent[], cell: EditCell, world: EditWorld): string | null {
  const home = strokeHome(events);
  if (!home) return 'a stroke needs a paint or erase event';
  if (home.x !== cell.x || home.z !== cell.z) {
    const first = events.find(isDab)!;
    return `${first.kind} at (${first.x.toFixed(1)}, ${first.z.toFixed(1)}) is outside cell ${editCellKey(cell)} (a stroke goes to the cell of its first dab)`;
  }
  const h = world.halfExtentM;
  for (const event of events) {
    if (isDab(event) && (Math.abs(event.x) > h || Math.abs(event.z) > h))
      return `${event.kind} at (${event.x.toFixed(1)}, ${event.z.toFixed(1)}) is off the map (±${h} m)`;
  }
  const footprint = strokeFootprint(events)!;
  const span = Math.max(footprint.maxX - footprint.minX, footprint.maxZ - footprint.minZ) + 1;
  if (span > MAX_FOOTPRINT_CELLS)
    return `a stroke reaches ${span} cells across; at most ${MAX_FOOTPRINT_CELLS} (start a new stroke further on)`;
  const cost = strokeCost(events);
  if (cost > MAX_STROKE_COST) return `a stroke costs ${Math.round(cost)} m² of painted ground; at most ${MAX_STROKE_COST}`;
  return null;
}

/** A 32-bit seed from a stroke id (FNV-1a), for the stroke's `reseed` event. */
export function strokeSeed(strokeId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < strokeId.length; i++) h = Math.imul(h ^ strokeId.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

// ---- The binary snapshot ----------------------------------------------------------------------

/** First byte of a binary snapshot. */
export const SNAPSHOT_VERSION = 1;
const KIND_CODES = { preset: 0, reseed: 1, paint: 2, erase: 3 } as const;

/**
 * A cell's strokes as one binary message (little-endian): version u8, then tables of the authors
 * and preset ids it names (count u16; each a u8 length and ASCII), then each stroke: id (u8 length,
 * ASCII), author index u16, seq u32, at f64, event count u8, events — preset: kind u8, preset
 * index u16; reseed: kind u8, seed u32; paint/erase: kind u8, x and z as i32 steps of 1/64 m,
 * radius u16 steps. A dab is 11 bytes (about 60 in JSON).
 */
export function encodeSnapshot(strokes: readonly SharedStroke[]): Uint8Array<ArrayBuffer> {
  const authors = new Map<string, number>();
  const presets = new Map<string, number>();
  let size = 1 + 2 + 2 + 2;
  for (const stroke of strokes) {
    if (!authors.has(stroke.author)) {
      authors.set(stroke.author, authors.size);
      size += 1 + stroke.author.length;
    }
    size += 1 + stroke.id.length + 2 + 4 + 8 + 1;
    for (const event of stroke.events) {
      if (event.kind === 'preset') {
        if (!presets.has(event.presetId)) {
          presets.set(event.presetId, presets.size);
          size += 1 + event.presetId.length;
        }
        size += 3;
      } else size += event.kind === 'reseed' ? 5 : 11;
    }
  }
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  let at = 0;
  const text = (s: string) => {
    bytes[at++] = s.length;
    for (let i = 0; i < s.length; i++) bytes[at++] = s.charCodeAt(i);
  };
  bytes[at++] = SNAPSHOT_VERSION;
  view.setUint16(at, strokes.length, true);
  at += 2;
  view.setUint16(at, authors.size, true);
  at += 2;
  for (const author of authors.keys()) text(author);
  view.setUint16(at, presets.size, true);
  at += 2;
  for (const preset of presets.keys()) text(preset);
  for (const stroke of strokes) {
    text(stroke.id);
    view.setUint16(at, authors.get(stroke.author)!, true);
    view.setUint32(at + 2, stroke.seq, true);
    view.setFloat64(at + 6, stroke.at, true);
    bytes[at + 14] = stroke.events.length;
    at += 15;
    for (const event of stroke.events) {
      bytes[at++] = KIND_CODES[event.kind];
      if (event.kind === 'preset') {
        view.setUint16(at, presets.get(event.presetId)!, true);
        at += 2;
      } else if (event.kind === 'reseed') {
        view.setUint32(at, event.seed, true);
        at += 4;
      } else {
        view.setInt32(at, Math.round(event.x * EDIT_GRID), true);
        view.setInt32(at + 4, Math.round(event.z * EDIT_GRID), true);
        view.setUint16(at + 8, Math.round(event.radius * EDIT_GRID), true);
        at += 10;
      }
    }
  }
  return bytes;
}

/** Reads {@link encodeSnapshot}'s bytes. Throws a RangeError for bytes that are not a whole snapshot. */
export function decodeSnapshot(bytes: Uint8Array): SharedStroke[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new RangeError(`snapshot ends early (byte ${at} of ${bytes.length})`);
  };
  const u8 = () => (need(1), bytes[at++]!);
  const u16 = () => (need(2), (at += 2), view.getUint16(at - 2, true));
  const text = () => {
    const length = u8();
    need(length);
    let s = '';
    for (let i = 0; i < length; i++) s += String.fromCharCode(bytes[at++]!);
    return s;
  };
  const version = u8();
  if (version !== SNAPSHOT_VERSION) throw new RangeError(`snapshot version ${version}; this client reads ${SNAPSHOT_VERSION}`);
  const count = u16();
  const authors = Array.from({ length: u16() }, text);
  const presets = Array.from({ length: u16() }, text);
  const strokes: SharedStroke[] = [];
  for (let s = 0; s < count; s++) {
    const id = text();
    need(15);
    const author = authors[view.getUint16(at, true)];
    const seq = view.getUint32(at + 2, true);
    const time = view.getFloat64(at + 6, true);
    const eventCount = bytes[at + 14]!;
    at += 15;
    if (author === undefined) throw new RangeError(`stroke ${id} names author ${view.getUint16(at - 15, true)} of ${authors.length}`);
    const events: SharedEvent[] = [];
    for (let e = 0; e < eventCount; e++) {
      const kind = u8();
      if (kind === KIND_CODES.preset) {
        const presetId = presets[u16()];
        if (presetId === undefined) throw new RangeError(`stroke ${id} names a preset past the table`);
        events.push({ kind: 'preset', presetId });
      } else if (kind === KIND_CODES.reseed) {
        need(4);
        events.push({ kind: 'reseed', seed: view.getUint32(at, true) });
        at += 4;
      } else if (kind === KIND_CODES.paint || kind === KIND_CODES.erase) {
        need(10);
        events.push({
          kind: kind === KIND_CODES.paint ? 'paint' : 'erase',
          x: view.getInt32(at, true) / EDIT_GRID,
          z: view.getInt32(at + 4, true) / EDIT_GRID,
          radius: view.getUint16(at + 8, true) / EDIT_GRID,
        });
        at += 10;
      } else throw new RangeError(`stroke ${id}: unknown event kind ${kind}`);
    }
    strokes.push({ id, author, seq, at: time, events });
  }
  if (at !== bytes.length) throw new RangeError(`snapshot has ${bytes.length - at} bytes past its last stroke`);
  return strokes;
}
