import * as v from 'valibot';

/**
 * Shared world edits: the wire format between a visitor's scatter brush and the Durable Object
 * that stores the edits of one world cell (server/world/edits-room.ts). Pure (no three, no DOM);
 * the server and the client validate with the same valibot schemas, so the types and the error
 * messages come from one place and bad input is refused before it reaches anyone.
 *
 * A stroke is a short run of brush events (a preset choice, a reseed, then dabs) in one cell.
 * Each stroke reseeds the placement RNG from its own id, so what it places depends on its own
 * events and on nearby earlier strokes' spacing — not on how many strokes came before elsewhere.
 */

/** Edge of an edits cell, metres (the world's net cells are the same size). */
export const EDIT_CELL_SIZE = 64;
/** Events in one stroke, at most. */
export const MAX_STROKE_EVENTS = 96;
/** Strokes a cell stores, at most; past it new strokes are refused (nobody's work is evicted). */
export const MAX_CELL_STROKES = 256;
/** Strokes one author (one session) may keep in a cell, so one visitor cannot fill a cell alone. */
export const MAX_AUTHOR_STROKES = 32;
/** Brush radius a shared stroke may use, metres. */
export const MAX_SHARED_RADIUS = 40;
/** Room name prefix of an edits cell: `world:edits:<seed>:<x>:<z>`. */
export const EDITS_ROOM_PREFIX = 'world:edits:';

const id = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{6,40}$/, 'an id is 6–40 letters, digits, _ or -'));
const coordinate = v.pipe(v.number(), v.finite('must be a finite number'));
const radius = v.pipe(
  v.number(),
  v.finite(),
  v.minValue(0.25, 'radius must be ≥ 0.25 m'),
  v.maxValue(MAX_SHARED_RADIUS, `radius must be ≤ ${MAX_SHARED_RADIUS} m`),
);

/** One brush event as it travels (the scatter session's BrushEvent, plus `reseed`). */
export const SharedEventSchema = v.variant('kind', [
  v.object({
    kind: v.literal('preset'),
    presetId: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'a preset id is 1–40 lower-case letters, digits or -')),
  }),
  v.object({ kind: v.literal('reseed'), seed: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffffffff)) }),
  v.object({ kind: v.literal('paint'), x: coordinate, z: coordinate, radius }),
  v.object({ kind: v.literal('erase'), x: coordinate, z: coordinate, radius }),
]);
export type SharedEvent = v.InferOutput<typeof SharedEventSchema>;

/** What a client sends. */
export const EditsClientMessageSchema = v.variant('type', [
  v.object({
    type: v.literal('stroke'),
    id,
    events: v.pipe(
      v.array(SharedEventSchema),
      v.minLength(1),
      v.maxLength(MAX_STROKE_EVENTS, `a stroke has at most ${MAX_STROKE_EVENTS} events`),
    ),
  }),
  v.object({ type: v.literal('undo'), id }),
]);
export type EditsClientMessage = v.InferOutput<typeof EditsClientMessageSchema>;

/**
 * A stored stroke: its id, its author's id and its events; `seq` orders the cell's strokes. The
 * author is the id of the session the stroke was sent with, as the server verified it (never a
 * name the client chose): only a socket of the same session may undo the stroke.
 */
export interface SharedStroke {
  id: string;
  author: string;
  seq: number;
  events: SharedEvent[];
}

/**
 * What the cell sends. `snapshot` on join, with `author`: the id this socket's strokes are stored
 * under (its session's), or null when it joined without a valid session and may only watch;
 * `stroke` and `undo` to everyone, the author included; `refused` to the sender only.
 */
export type EditsServerMessage =
  | { type: 'snapshot'; cell: { x: number; z: number }; author: string | null; strokes: SharedStroke[] }
  | { type: 'stroke'; stroke: SharedStroke }
  | { type: 'undo'; id: string }
  | { type: 'refused'; id: string | null; reason: string };

/** An edits cell: integer coordinates, `floor(x / EDIT_CELL_SIZE)`. */
export interface EditCell {
  x: number;
  z: number;
}

export function editCellAt(x: number, z: number): EditCell {
  return { x: Math.floor(x / EDIT_CELL_SIZE), z: Math.floor(z / EDIT_CELL_SIZE) };
}

export function editsRoomName(seed: number, cell: EditCell): string {
  return `${EDITS_ROOM_PREFIX}${seed >>> 0}:${cell.x}:${cell.z}`;
}

/** Parses an edits room name; null when it is not one. */
export function parseEditsRoom(name: string): { seed: number; cell: EditCell } | null {
  const match = /^world:edits:(\d{1,10}):(-?\d{1,4}):(-?\d{1,4})$/.exec(name);
  if (!match) return null;
  const seed = Number(match[1]);
  if (seed > 0xffffffff) return null;
  return { seed, cell: { x: Number(match[2]), z: Number(match[3]) } };
}

/** Validates a client message; the problems are valibot's, joined. */
export function parseEditsMessage(input: unknown): { ok: true; message: EditsClientMessage } | { ok: false; problem: string } {
  const result = v.safeParse(EditsClientMessageSchema, input);
  if (result.success) return { ok: true, message: result.output };
  return { ok: false, problem: result.issues.map((issue) => `${v.getDotPath(issue) ?? 'message'}: ${issue.message}`).join('; ') };
}

/**
 * Whether every disk of a stroke lies in the cell (its centre inside; the disk may overhang by
 * its radius, as a brush on a border does). Returns the problem, or null.
 */
export function strokeOutsideCell(events: readonly SharedEvent[], cell: EditCell): string | null {
  const minX = cell.x * EDIT_CELL_SIZE;
  const minZ = cell.z * EDIT_CELL_SIZE;
  for (const event of events) {
    if (event.kind !== 'paint' && event.kind !== 'erase') continue;
    if (event.x < minX || event.x >= minX + EDIT_CELL_SIZE || event.z < minZ || event.z >= minZ + EDIT_CELL_SIZE) {
      return `${event.kind} at (${event.x.toFixed(1)}, ${event.z.toFixed(1)}) is outside cell ${cell.x}:${cell.z}`;
    }
  }
  return null;
}

/** A 32-bit seed from a stroke id (FNV-1a), for the stroke's `reseed` event. */
export function strokeSeed(strokeId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < strokeId.length; i++) h = Math.imul(h ^ strokeId.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
