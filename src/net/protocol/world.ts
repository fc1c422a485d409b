import * as v from 'valibot';

/**
 * The open world's spatial cells, shared by the browser and the relay: the world is split into
 * square cells, each its own WorldCell Durable Object named `world:cell:X:Z`. A client publishes
 * its frames to the cell it stands in and subscribes to the 3×3 cells around it.
 */

/** Cell edge (m). 64 m: a neighbourhood of 3×3 cells sees at least 60 m in every direction. */
export const CELL_SIZE = 64;

/** Room-name prefix of world cells. */
export const CELL_ROOM_PREFIX = 'world:cell:';
/** The world directory's object name. */
export const DIRECTORY_ROOM = 'world:directory';

/** A world cell: integer coordinates of a {@link CELL_SIZE} square, x east and z south. */
export interface Cell {
  /** Cell column: ⌊x / cell size⌋. */
  x: number;
  /** Cell row: ⌊z / cell size⌋. */
  z: number;
}

/** The cell holding world position (x, z). */
export function cellAt(x: number, z: number, size = CELL_SIZE): Cell {
  return { x: Math.floor(x / size), z: Math.floor(z / size) };
}

/** `world:cell:X:Z`. */
export function cellRoom(cell: Cell): string {
  return `${CELL_ROOM_PREFIX}${cell.x}:${cell.z}`;
}

/** Cell coordinates from a room name, or null when it is not a world cell. */
export function parseCellRoom(name: string): Cell | null {
  if (!name.startsWith(CELL_ROOM_PREFIX)) return null;
  const match = /^(-?\d{1,5}):(-?\d{1,5})$/.exec(name.slice(CELL_ROOM_PREFIX.length));
  if (!match) return null;
  return { x: Number(match[1]) + 0, z: Number(match[2]) + 0 };
}

/**
 * True when `name` is a cell's one spelling ({@link cellRoom} of what it parses to): `03`, `-0`
 * and the like name the same cell and are refused, so a cell is always one object.
 */
export function isCanonicalCellRoom(name: string): boolean {
  const cell = parseCellRoom(name);
  return cell !== null && cellRoom(cell) === name;
}

/** Chebyshev distance in cells: 0 the same cell, 1 a neighbour (the 3×3). */
export function cellDistance(a: Cell, b: Cell): number {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.z - b.z));
}

/** Regular frames go out every this many ms (10 Hz), and world cells line their players' sends up on it. */
export const SEND_PERIOD_MS = 100;

/**
 * When, within each {@link SEND_PERIOD_MS} of the *server's* clock (ms since epoch, modulo the
 * period), players publishing in `cell` send their regular frames.
 *
 * A cell coalesces what arrives within one 25 ms tick into one message per recipient. Players
 * sending at random moments fill ~4 ticks per period, so every recipient gets ~4 messages a
 * period from the cell; players sending at the same moment fill one. Sends, not bytes, are what
 * a relay and its clients pay for, so lining clocks up cuts both by up to 4. Neighbouring cells
 * get different moments — slot (x mod 3) + 3·(z mod 3), period / 9 apart, so the nine cells of any
 * 3×3 never share one — which spreads a client's nine incoming streams (and, where several cells
 * share a machine, their flushes) over the period instead of stacking them.
 */
export function cellSendPhase(cell: Cell, periodMs = SEND_PERIOD_MS): number {
  const slot = (((cell.x % 3) + 3) % 3) + 3 * (((cell.z % 3) + 3) % 3);
  return (slot * periodMs) / 9;
}

/**
 * Which of `cell`'s send moments the server time `serverTime` (ms since epoch) belongs to: the
 * number of the nearest one, counted from the epoch, so a frame sent up to half a period either
 * side of a moment gets that moment's number. Players of a cell send their half-rate frames to
 * the neighbouring cells on the same numbers (every second one), so those cells' watchers get one
 * message every second period instead of one every period, each with twice the frames.
 */
export function sendMomentNumber(serverTime: number, cell: Cell, periodMs = SEND_PERIOD_MS): number {
  return Math.round((serverTime - cellSendPhase(cell, periodMs)) / periodMs);
}

/** `a` modulo `period`, always in [0, period). */
export function phaseOf(a: number, period: number): number {
  return ((a % period) + period) % period;
}

/** `a` modulo `period` as the nearest offset either way, in (−period/2, period/2]. */
export function signedPhase(a: number, period: number): number {
  const p = phaseOf(a, period);
  return p > period / 2 ? p - period : p;
}

/** The cells within `radius` (1: the 3×3) of `center`, center first. */
export function neighbourhood(center: Cell, radius = 1): Cell[] {
  const cells: Cell[] = [{ ...center }];
  for (let dz = -radius; dz <= radius; dz++) {
    for (let dx = -radius; dx <= radius; dx++) if (dx !== 0 || dz !== 0) cells.push({ x: center.x + dx, z: center.z + dz });
  }
  return cells;
}

/** Whether two cells are the same cell. */
export function sameCell(a: Cell, b: Cell): boolean {
  return a.x === b.x && a.z === b.z;
}

/** A socket's role in a cell: `pub` stands there (sends and gets everything), `sub` watches from next door. */
export type CellRole = 'pub' | 'sub';

/**
 * Commands a client may send a cell as text (anything else is dropped like any text):
 * - `publish` with a token for this cell: start publishing here (after a hop);
 * - `subscribe`: stop publishing here (the cell tells the others this peer left);
 * - `renew` with a fresher token: keep this socket past the old token's expiry;
 * - `pace` (watchers): `close: true` while the player is within {@link CLOSE_WATCH_RADIUS} of
 *   this cell's square — the cell then sends it every tick, like its own players — and
 *   `close: false` (the default for a new socket) once it is beyond
 *   {@link CLOSE_WATCH_RELEASE}: every few ticks (fewer messages; those peers are drawn baked);
 * - `clock` with the client's time `t`: the cell answers {@link CellClock} (at most one a socket
 *   every {@link CLOCK_ANSWER_INTERVAL_MS}), so the client can read the server's clock.
 */
export type CellCommand = v.InferOutput<typeof CellCommandSchema>;
/** A cell answers one `clock` probe a socket at most this often (ms); probes in between are dropped as over the rate. */
export const CLOCK_ANSWER_INTERVAL_MS = 500;

/** Cell → client: the answer to a `clock` probe (`t` echoed, `serverTime` the cell's clock, ms since epoch). */
export const CellClockSchema = v.object({
  /** Discriminates the message. */
  type: v.literal('clock'),
  /** The probe's client time, echoed. */
  t: v.number(),
  /** The cell's clock when it answered (ms since epoch). */
  serverTime: v.number(),
});
/** A cell's answer to a `clock` probe ({@link CellClockSchema}). */
export type CellClock = v.InferOutput<typeof CellClockSchema>;

/**
 * Cell → publisher: its frames typically arrive `lateMs` after the cell's send moment; the client
 * moves its sends by that (see server/world/arrival-timing.ts).
 */
export const CellTimingSchema = v.object({
  /** Discriminates the message. */
  type: v.literal('timing'),
  /** How late (ms) the publisher's frames typically arrive after the cell's send moment. */
  lateMs: v.number(),
});
/** A cell's note of how late a publisher's frames arrive ({@link CellTimingSchema}). */
export type CellTiming = v.InferOutput<typeof CellTimingSchema>;

/**
 * A watcher this close (m) to a neighbouring cell's square gets that cell's frames at its full
 * tick rate: anyone there within the 40 m live-detail radius of the player is inside it, and the
 * 4 m more covers both walking on before the next pace command lands.
 */
export const CLOSE_WATCH_RADIUS = 44;
/** A close watcher goes back to the paced rate beyond this (m): hysteresis, so no flapping. */
export const CLOSE_WATCH_RELEASE = 48;

/** Distance (m) from a point to a cell's square (0 inside it). */
export function distanceToCell(x: number, z: number, cell: Cell, size = CELL_SIZE): number {
  const dx = Math.max(cell.x * size - x, 0, x - (cell.x + 1) * size);
  const dz = Math.max(cell.z * size - z, 0, z - (cell.z + 1) * size);
  return Math.hypot(dx, dz);
}

const CellSchema = v.object({
  /** Cell column. */
  x: v.pipe(v.number(), v.integer()),
  /** Cell row. */
  z: v.pipe(v.number(), v.integer()),
});

/**
 * Cell → client acknowledgement of a command (or of the join): the cell, the socket's role and
 * when its token expires unless renewed (ms since epoch); `avatarToken` proves the socket's world
 * id to a world voice room (see src/voice/protocol/signaling.ts `avatar`).
 */
export const CellAckSchema = v.object({
  /** Discriminates the message. */
  type: v.literal('cell'),
  /** The cell answering. */
  cell: CellSchema,
  /** The socket's role there now. */
  role: v.picklist(['pub', 'sub']),
  /** When the socket's token expires unless renewed (ms since epoch). */
  expiresAt: v.number(),
  /** Proves the socket's world id to a world voice room. */
  avatarToken: v.string(),
});
/** A cell's acknowledgement of a command or of the join ({@link CellAckSchema}). */
export type CellAck = v.InferOutput<typeof CellAckSchema>;

/** Cell → client: a command was refused (the socket keeps its old role). */
export const CellRefusalSchema = v.object({
  /** Discriminates the message. */
  type: v.literal('refused'),
  /** The command refused (its `type`). */
  command: v.string(),
  /** Why, in words. */
  reason: v.string(),
});
/** A cell's refusal of a command ({@link CellRefusalSchema}). */
export type CellRefusal = v.InferOutput<typeof CellRefusalSchema>;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
const token = (problem: string) => v.pipe(v.string(problem), v.regex(TOKEN_PATTERN, problem));

/** Client → cell commands (see {@link CellCommand}); each problem message says what was wrong. */
export const CellCommandSchema = v.variant(
  'type',
  [
    v.object(
      {
        /** Start publishing in this cell. */
        type: v.literal('publish'),
        /** A token for this cell. */
        token: token('publish without a well-formed token'),
      },
      'publish without a well-formed token',
    ),
    v.object(
      {
        /** Keep this socket past the old token's expiry. */
        type: v.literal('renew'),
        /** The fresher token. */
        token: token('renew without a well-formed token'),
      },
      'renew without a well-formed token',
    ),
    v.object({
      /** Stop publishing in this cell (watch it only). */
      type: v.literal('subscribe'),
    }),
    v.object(
      {
        /** Set how often this watcher gets the cell's frames. */
        type: v.literal('pace'),
        /** True: every tick (the player is close); false: every few ticks. */
        close: v.boolean('pace without close: true or false'),
      },
      'pace without close: true or false',
    ),
    v.object(
      {
        /** Ask for the cell's clock. */
        type: v.literal('clock'),
        /** The client's time, echoed in the answer. */
        t: v.pipe(v.number('clock without a numeric t'), v.finite('clock without a numeric t')),
      },
      'clock without a numeric t',
    ),
  ],
  'unknown command',
);

/** Parses a client command: the command, or why it was refused (never thrown). */
export function parseCellCommand(text: string):
  | {
      /** The command is valid. */
      ok: true;
      /** The command. */
      value: CellCommand;
    }
  | {
      /** The text was refused. */
      ok: false;
      /** Why, in words. */
      problem: string;
    } {
  if (text.length > 512) return { ok: false, problem: 'command longer than 512 characters' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null) return { ok: false, problem: 'not an object' };
  const parsed = v.safeParse(CellCommandSchema, value);
  return parsed.success ? { ok: true, value: parsed.output } : { ok: false, problem: parsed.issues[0].message };
}

/** `POST /api/world/enter` answer: a world identity and where it may publish. */
export interface WorldEntry {
  /** The id every cell stamps on this client's frames (the same in every cell). */
  id: number;
  /** Signed identity token: id, cell, issue time. Opaque to clients. */
  token: string;
  /** The cell the token is for: the one the client may publish in. */
  cell: Cell;
  /** ms since epoch; renew (hop to the same cell) well before. */
  expiresAt: number;
  /** Cell edge (m) of this world. */
  cellSize: number;
  /**
   * The server's clock (ms since epoch) when it answered: with the request's round trip, the
   * client's offset from it, so it can send at its cell's {@link cellSendPhase}. Absent from
   * servers older than this field (the client then sends unaligned).
   */
  serverTime?: number;
}

/** `POST /api/world/hop` answer: a token for the new (adjacent or same) cell. */
export type WorldHop = Omit<WorldEntry, 'id' | 'cellSize'>;

/** One busy cell in the directory. */
export interface CellPopulation {
  /** Cell column. */
  x: number;
  /** Cell row. */
  z: number;
  /** Players publishing in the cell at its last report. */
  players: number;
  /** ms since epoch of that report. */
  at: number;
}

/** `GET /api/world` answer. */
export interface WorldDirectory {
  /** Cell edge (m) of this world. */
  cellSize: number;
  /** Busy cells, busiest first. */
  cells: CellPopulation[];
  /** Players publishing in the world, summed over the busy cells. */
  players: number;
  /** Where a newcomer could spawn: the centre of the busiest cell that is not crowded, or null when the world is empty. */
  spawn: {
    /** East position (m). */
    x: number;
    /** South position (m). */
    z: number;
    /** The cell it lies in. */
    cell: Cell;
  } | null;
}
