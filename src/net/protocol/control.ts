import * as v from 'valibot';
import { ProfilesSchema, type Checked } from './profile.ts';
import { CellAckSchema, CellClockSchema, CellRefusalSchema, CellTimingSchema } from './world.ts';

/**
 * Control messages: small JSON text messages beside the binary frames. The relay sends them to
 * tell a socket who it is, what was dropped and who the others are (`profiles`, profile.ts). A
 * client sends its profile as text (profile.ts) in a plain room or a world cell; other client text
 * is dropped in a plain room, and world cells accept a few commands more (see world.ts).
 */

/** Longest control text either side accepts; anything longer is refused unparsed. */
export const MAX_CONTROL_CHARS = 2048;

/** Close codes the relay uses, with the reason text it sends alongside. */
export const CloseCode = {
  /** A join the room does not take (bad parameters, the directory's name). */
  policy: 1008,
  /** The room is at capacity. */
  roomFull: 4001,
  /** Another socket with the same world identity joined this cell; the older one goes. */
  replaced: 4002,
  /** A world-cell join without a valid identity token. */
  badToken: 4003,
  /** A world-cell subscription outside the 3×3 around where the client stands. */
  tooFar: 4004,
  /** A world-cell identity token expired and was not renewed. */
  expired: 4005,
  /** The client (a session, or an address without one) already holds its most sockets in this room or cell. */
  tooManySockets: 4006,
  /** The socket kept sending garbage after warnings. */
  abuse: 4008,
} as const;

/** Why the relay dropped something from a socket (counted per room and reported to the sender). */
export const DROP_REASONS = ['text', 'size', 'header', 'frame', 'rate', 'role'] as const;
/** One of {@link DROP_REASONS}. */
export type DropReason = (typeof DROP_REASONS)[number];

/** Each drop reason in words, for the HUD and notices. */
export const DROP_REASON_TEXT: Record<DropReason, string> = {
  text: 'text message where a 36-byte binary frame was expected',
  size: 'binary message that is not exactly one 36-byte frame',
  header: 'frame header is not a version-1 state frame',
  frame: 'frame field out of range (animation state, flags, position or facing)',
  rate: "above the client's rate cap",
  role: 'frame from a subscribe-only socket',
};

/** How the relay delivers frames in a room. */
export type RelayMode = 'direct' | 'coalesce';

const uint32 = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffffffff));

/**
 * Sent once to each socket as it joins: `id` is what the relay stamps on this socket's frames
 * (filter your own echo with it); `mode` the delivery mode now in use (it follows the room's size
 * unless forced); `tickMs` the coalescing tick; `rateCap` frames per second per client above which
 * frames are dropped; `peers` open sockets in the room, this one included; `avatarToken` a signed
 * token naming `id` in this room, which a voice room of the same name accepts as proof of the
 * avatar (src/voice/protocol/signaling.ts `avatar`).
 */
export const WelcomeSchema = v.object({
  /** Discriminates the message. */
  type: v.literal('welcome'),
  /** The id the relay stamps on this socket's frames (≥ 1): filter your own echo with it. */
  id: v.pipe(uint32, v.minValue(1)),
  /** The room's name. */
  room: v.string(),
  /** The delivery mode now in use; it follows the room's size unless forced. */
  mode: v.picklist(['direct', 'coalesce']),
  /** The coalescing tick (ms). */
  tickMs: uint32,
  /** Most sockets the room takes. */
  capacity: uint32,
  /** Frames per second per client above which frames are dropped. */
  rateCap: uint32,
  /** Open sockets in the room, this one included. */
  peers: uint32,
  /** A signed token naming `id` in this room, which a voice room of the same name accepts as proof of the avatar. */
  avatarToken: v.string(),
});
/** The relay's welcome to a joining socket ({@link WelcomeSchema}). */
export type WelcomeMessage = v.InferOutput<typeof WelcomeSchema>;

/** Sent (at most once a second per reason) to a socket whose input the relay dropped; `count` is how many so far for this reason. */
export const DroppedSchema = v.object({
  /** Discriminates the message. */
  type: v.literal('dropped'),
  /** What was dropped, one of {@link DROP_REASONS}. */
  reason: v.picklist(DROP_REASONS),
  /** The reason in words. */
  detail: v.string(),
  /** Drops for this reason so far. */
  count: uint32,
});
/** The relay's note that it dropped a socket's input ({@link DroppedSchema}). */
export type DroppedMessage = v.InferOutput<typeof DroppedSchema>;

/** Every text message a relay room or world cell sends, as one discriminated union on `type`. */
export const ServerControlSchema = v.variant('type', [
  WelcomeSchema,
  DroppedSchema,
  CellAckSchema,
  CellRefusalSchema,
  CellClockSchema,
  CellTimingSchema,
  ProfilesSchema,
]);
/** Any text message a relay room or world cell sends. */
export type ServerControl = v.InferOutput<typeof ServerControlSchema>;

/** The outcome of parsing untrusted input: the value, or the problem in words (never thrown). The same shape as {@link Checked}. */
export type Parsed<T> = Checked<T>;

/** Parses and validates a text message from the relay; unknown types are refused (counted by the caller, never thrown). */
export function parseServerControl(text: string): Parsed<ServerControl> {
  if (text.length > MAX_CONTROL_CHARS)
    return { ok: false, problem: `control text of ${text.length} characters (at most ${MAX_CONTROL_CHARS})` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'control text is not JSON' };
  }
  const parsed = v.safeParse(ServerControlSchema, value);
  if (parsed.success) return { ok: true, value: parsed.output };
  const issue = parsed.issues[0];
  const path = issue.path?.map((item) => String(item.key)).join('.');
  return { ok: false, problem: `control message ${path ? `field ${path}: ` : ''}${issue.message}` };
}
