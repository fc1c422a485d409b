/**
 * Control messages: small JSON text messages beside the binary frames. The relay sends them to
 * tell a socket who it is and what was dropped; a client never needs to send any in a plain room
 * (there, client text is dropped). World cells accept a few client commands (see world.ts).
 */

/** Longest control text either side accepts; anything longer is refused unparsed. */
export const MAX_CONTROL_CHARS = 2048;

/** Close codes the relay uses, with the reason text it sends alongside. */
export const CloseCode = {
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
  /** The socket kept sending garbage after warnings. */
  abuse: 4008,
} as const;

/** Why the relay dropped something from a socket (counted per room and reported to the sender). */
export type DropReason = 'text' | 'size' | 'header' | 'rate' | 'role';

export const DROP_REASON_TEXT: Record<DropReason, string> = {
  text: 'text message where a 36-byte binary frame was expected',
  size: 'binary message that is not exactly one 36-byte frame',
  header: 'frame header is not a version-1 state frame',
  rate: 'above the per-socket rate cap',
  role: 'frame from a subscribe-only socket',
};

/** How the relay delivers frames in a room. */
export type RelayMode = 'direct' | 'coalesce';

/** Sent once to each socket as it joins. */
export interface WelcomeMessage {
  type: 'welcome';
  /** The id the relay stamps on this socket's frames: filter your own echo with it. */
  id: number;
  room: string;
  /** Delivery mode now in use (it follows the room's size unless forced). */
  mode: RelayMode;
  /** Coalescing tick (ms). */
  tickMs: number;
  capacity: number;
  /** Frames per second per socket above which frames are dropped. */
  rateCap: number;
  /** Open sockets in the room, this one included. */
  peers: number;
  /** Signed token naming {@link id} as this socket's avatar (voice's avatar claim carries it). */
  avatarToken?: string;
}

/** Sent (at most once a second per reason) to a socket whose input the relay dropped. */
export interface DroppedMessage {
  type: 'dropped';
  reason: DropReason;
  detail: string;
  /** How many this socket has had dropped for this reason so far. */
  count: number;
}

/** Anything else a newer relay may send; clients ignore unknown types. */
export interface OtherServerMessage {
  type: string;
  [key: string]: unknown;
}

export type ServerControl = WelcomeMessage | DroppedMessage | OtherServerMessage;

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isUint32(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffffffff;
}

/** Parses a text message from the relay. Unknown `type`s parse (for forward compatibility). */
export function parseServerControl(text: string): Parsed<ServerControl> {
  if (text.length > MAX_CONTROL_CHARS) return { ok: false, problem: `control text of ${text.length} characters (at most ${MAX_CONTROL_CHARS})` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'control text is not JSON' };
  }
  if (!isRecord(value) || typeof value.type !== 'string') return { ok: false, problem: 'control message has no "type"' };
  if (value.type === 'welcome') {
    if (!isUint32(value.id) || value.id === 0) return { ok: false, problem: 'welcome without a valid id' };
    if (value.mode !== 'direct' && value.mode !== 'coalesce') return { ok: false, problem: 'welcome with an unknown mode' };
    for (const key of ['tickMs', 'capacity', 'rateCap', 'peers'] as const) {
      if (!isUint32(value[key])) return { ok: false, problem: `welcome without a valid ${key}` };
    }
    if (typeof value.room !== 'string') return { ok: false, problem: 'welcome without a room' };
  }
  if (value.type === 'dropped') {
    if (typeof value.reason !== 'string' || !(value.reason in DROP_REASON_TEXT)) return { ok: false, problem: 'dropped with an unknown reason' };
    if (!isUint32(value.count)) return { ok: false, problem: 'dropped without a count' };
  }
  return { ok: true, value: value as ServerControl };
}
