import * as v from 'valibot';

/**
 * The voice signaling protocol: JSON text messages over the VoiceRoom WebSocket
 * (`/rooms/voice/:room`). Shared by the server (server/voice-room.ts) and the browser client
 * (src/voice/signaling-client.ts); pure, no DOM, no Workers types.
 *
 * Audio never touches the server: it only relays session descriptions, ICE candidates and
 * positions. The server stamps `from` on everything it forwards, so a client cannot speak for
 * another peer; whatever `from` a client writes is ignored.
 *
 * See docs/voice.md for the sequence diagrams.
 */

/** Largest text message the server accepts, in UTF-8 bytes. Anything bigger gets `too-large`. */
export const MAX_MESSAGE_BYTES = 16_384;
/** Largest SDP blob inside an offer/answer, in characters (an audio-only SDP is 1–4 KB). */
export const MAX_SDP_CHARS = 12_288;
/** Largest ICE candidate line, in characters. */
export const MAX_CANDIDATE_CHARS = 1_024;
/** Positions beyond this magnitude (metres) are refused as nonsense. */
export const MAX_COORDINATE = 100_000;
/** Largest resume or avatar token, in characters. */
export const MAX_TOKEN_CHARS = 64;
/**
 * Largest avatar id a client may announce: avatar ids are the net module's 32-bit sender ids
 * (0 is never a sender), see src/net/protocol/frame.ts.
 */
export const MAX_AVATAR_ID = 0xffff_ffff;

/**
 * World voice rooms (`world`, or a name starting `world:`): the voice room of the open world,
 * where clients connect only to peers within hearing range (docs/voice.md "Voice in the open
 * world"). Their capacity is the server's `WORLD_VOICE_ROOM_CAPACITY` (1,000), not 16, and they relay no
 * positions (panners follow the avatars instead).
 */
export function isWorldVoiceRoom(room: string): boolean {
  return room === 'world' || room.startsWith('world:');
}

/** WebSocket close codes the VoiceRoom uses (clients tell the user which one happened). */
export const VOICE_CLOSE = {
  /** The socket was replaced by its owner's reconnect (`resume`). */
  replaced: 4001,
  /** The socket stopped pinging (a crashed tab, a dead network) and was reaped. */
  silent: 4002,
  /** The join was refused: its client (a session, or an address without one) holds its most sockets here. */
  tooManySockets: 4006,
  /** The join was refused: the room holds its maximum of peers. */
  full: 4008,
} as const;

/** An RTCIceCandidateInit as it travels (null = end of candidates). */
export interface WireCandidate {
  /** The candidate line (`candidate:…`). */
  candidate: string;
  /** The media stream's identification tag, or null. */
  sdpMid: string | null;
  /** Index of the media description it belongs to, or null. */
  sdpMLineIndex: number | null;
  /** The ICE username fragment, or null. */
  usernameFragment: string | null;
}

/** A peer's place in the world: metres, and facing = atan2(wx, wz) in radians. */
export interface WirePosition {
  /** East position (m). */
  x: number;
  /** Height (m). */
  y: number;
  /** South position (m). */
  z: number;
  /** Facing in radians, atan2(wx, wz). */
  facing: number;
}

// ---------------------------------------------------------------- client → server

/** A session description offer to one peer. */
export interface OfferMessage {
  /** Discriminates the message. */
  type: 'offer';
  /** Target peer id. */
  to: number;
  /** The offer (`v=0…`), at most {@link MAX_SDP_CHARS} characters. */
  sdp: string;
}
/** The answer to a peer's offer. */
export interface AnswerMessage {
  /** Discriminates the message. */
  type: 'answer';
  /** The peer that offered. */
  to: number;
  /** The answer (`v=0…`), at most {@link MAX_SDP_CHARS} characters. */
  sdp: string;
}
/** An ICE candidate for one peer (trickled). */
export interface IceMessage {
  /** Discriminates the message. */
  type: 'ice';
  /** Target peer id. */
  to: number;
  /** The candidate, or null for end of candidates. */
  candidate: WireCandidate | null;
}
export interface PositionMessage extends WirePosition {
  /** Discriminates the message. */
  type: 'pos';
}
/**
 * Sent after a reconnect: "the socket that was peer `id` is me; drop it now". The server closes
 * the old socket (if it is still hanging on) and announces its leave, so the others renegotiate
 * at once instead of waiting for the dead socket to time out.
 */
export interface ResumeMessage {
  /** Discriminates the message. */
  type: 'resume';
  /** The peer id this socket had before it reconnected. */
  id: number;
  /** The resume token the welcome gave that id. */
  token: string;
}
/** Keep-alive. The room answers `{"type":"pong"}` without waking up (hibernation auto-response). */
export interface PingMessage {
  /** Discriminates the message. */
  type: 'ping';
}
/**
 * "My avatar in the world is `id`" (null: none), with `token` proving it: the `avatarToken` of the
 * relay room's `welcome` (a room of the same name) or of the world cell's ack (world voice rooms).
 * The room accepts the claim only with a valid, unexpired token for that id and room, else it
 * answers `bad-avatar-token` and keeps the old one. Sent after every welcome and whenever the
 * avatar id changes (a reconnect of avatar sync gives a new one). The room keeps it in the roster
 * and tells everyone else; clients that follow hearing range connect only to peers whose avatar
 * is within earshot.
 */
export interface AvatarMessage {
  /** Discriminates the message. */
  type: 'avatar';
  /** The avatar id claimed, or null for none. */
  id: number | null;
  /** The avatar token the relay room or world cell issued for `id`; required with an id (the parser refuses a claim without one). */
  token?: string;
}
/**
 * "I closed our link" (it left my hearing range). The receiver closes its side at once instead
 * of waiting for ICE to notice, and does not offer again until the peer has left and re-entered
 * its own hearing range.
 */
export interface ByeMessage {
  /** Discriminates the message. */
  type: 'bye';
  /** The peer whose link was closed. */
  to: number;
}

/** Any message a client sends. */
export type ClientMessage =
  OfferMessage | AnswerMessage | IceMessage | PositionMessage | ResumeMessage | PingMessage | AvatarMessage | ByeMessage;

/** The exact ping text the server's auto-response matches; clients must send it byte for byte. */
export const PING_TEXT = '{"type":"ping"}';
/** The exact text of the room's answer to {@link PING_TEXT}. */
export const PONG_TEXT = '{"type":"pong"}';

// ---------------------------------------------------------------- server → client

/** One peer in the room, as the welcome lists it. */
export interface RosterEntry {
  /** The peer's id. */
  id: number;
  /** Last known position, or null if the peer has not sent one yet. */
  pos: WirePosition | null;
  /** The avatar id the peer announced ({@link AvatarMessage}), or null. */
  avatar: number | null;
}

/** First message on every socket. */
export interface WelcomeMessage {
  /** Discriminates the message. */
  type: 'welcome';
  /** Your peer id in this room. */
  id: number;
  /** Secret for {@link ResumeMessage} after a reconnect. */
  token: string;
  /** The room's name. */
  room: string;
  /** Everyone else in the room now. */
  peers: RosterEntry[];
  /** Position updates per second the room accepts from one client (sustained). */
  positionRate: number;
}
/** A peer joined the room. */
export interface JoinMessage {
  /** Discriminates the message. */
  type: 'join';
  /** Its peer id. */
  id: number;
}
/** A peer left the room. */
export interface LeaveMessage {
  /** Discriminates the message. */
  type: 'leave';
  /** Its peer id. */
  id: number;
}
/** An offer, relayed from the peer that made it. */
export interface RelayedOffer {
  /** Discriminates the message. */
  type: 'offer';
  /** The peer that offered (stamped by the server). */
  from: number;
  /** The offer. */
  sdp: string;
}
/** An answer, relayed from the peer that made it. */
export interface RelayedAnswer {
  /** Discriminates the message. */
  type: 'answer';
  /** The peer that answered (stamped by the server). */
  from: number;
  /** The answer. */
  sdp: string;
}
/** An ICE candidate, relayed. */
export interface RelayedIce {
  /** Discriminates the message. */
  type: 'ice';
  /** The peer it comes from (stamped by the server). */
  from: number;
  /** The candidate, or null for end of candidates. */
  candidate: WireCandidate | null;
}
export interface RelayedPosition extends WirePosition {
  /** Discriminates the message. */
  type: 'pos';
  /** The peer it comes from (stamped by the server). */
  from: number;
}
/** The room's answer to a ping. */
export interface PongMessage {
  /** Discriminates the message. */
  type: 'pong';
}
/** A peer announced (or changed, or withdrew) its avatar id. */
export interface RelayedAvatar {
  /** Discriminates the message. */
  type: 'avatar';
  /** The peer it comes from (stamped by the server). */
  from: number;
  /** Its avatar id now, or null for none. */
  id: number | null;
}
/** A peer closed its link with you. */
export interface RelayedBye {
  /** Discriminates the message. */
  type: 'bye';
  /** The peer that closed the link (stamped by the server). */
  from: number;
}

/** Why the room refused a message, as the error's `code`. */
export const ERROR_CODES = [
  'bad-json',
  'binary',
  'too-large',
  'unknown-type',
  'bad-field',
  'no-such-peer',
  'rate-limited',
  'bad-resume',
  'avatar-taken',
  'bad-avatar-token',
  'target-busy',
  'no-positions',
] as const;
/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Sent to the offending sender only; nothing is forwarded for a message that earns one. */
export interface ErrorMessage {
  /** Discriminates the message. */
  type: 'error';
  /** What was wrong, as a code. */
  code: ErrorCode;
  /** What was wrong, in words. */
  message: string;
  /** The `type` of the message that was refused, when it could be read. */
  ref?: string;
}

/** Any message the room sends. */
export type ServerMessage =
  | WelcomeMessage
  | JoinMessage
  | LeaveMessage
  | RelayedOffer
  | RelayedAnswer
  | RelayedIce
  | RelayedPosition
  | RelayedAvatar
  | RelayedBye
  | PongMessage
  | ErrorMessage;

// ---------------------------------------------------------------- validation

/** The outcome of {@link parseClientMessage}: a clean message, or the error to send back. */
export type Validated<T> =
  | {
      /** The message is valid. */
      ok: true;
      /** A clean copy, holding only the schema's fields. */
      message: T;
    }
  | {
      /** The message was refused. */
      ok: false;
      /** The error for the sender. */
      error: ErrorMessage;
    };

function fail(code: ErrorCode, message: string, ref?: string): { ok: false; error: ErrorMessage } {
  return { ok: false, error: ref === undefined ? { type: 'error', code, message } : { type: 'error', code, message, ref } };
}

/** UTF-8 byte length without allocating (Workers and browsers both lack a cheap Buffer). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** An avatar id: a positive integer that fits the net module's 32-bit sender id. */
export function isAvatarId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= MAX_AVATAR_ID;
}

const TO_PROBLEM = '"to" must be a peer id (a positive integer)';
const to = v.pipe(v.number(TO_PROBLEM), v.integer(TO_PROBLEM), v.minValue(1, TO_PROBLEM), v.maxValue(0x7fffffff, TO_PROBLEM));
const SDP_PROBLEM = '"sdp" must be a non-empty string';
const sdp = v.pipe(
  v.string(SDP_PROBLEM),
  v.minLength(1, SDP_PROBLEM),
  v.maxLength(MAX_SDP_CHARS, (issue) => `"sdp" is ${issue.received.replace(/\D/g, '')} characters; the limit is ${MAX_SDP_CHARS}`),
  v.startsWith('v=0', '"sdp" is not a session description (must start with v=0)'),
);
const shortText = (max: number, problem: string) => v.optional(v.nullable(v.pipe(v.string(problem), v.maxLength(max, problem))), null);
const INDEX_PROBLEM = 'candidate.sdpMLineIndex must be a small non-negative integer or null';
const CandidateInput = v.nullable(
  v.object(
    {
      candidate: v.pipe(
        v.string('candidate.candidate must be a string'),
        v.maxLength(MAX_CANDIDATE_CHARS, `candidate.candidate is longer than ${MAX_CANDIDATE_CHARS} characters`),
      ),
      sdpMid: shortText(64, 'candidate.sdpMid must be a short string or null'),
      sdpMLineIndex: v.optional(
        v.nullable(v.pipe(v.number(INDEX_PROBLEM), v.integer(INDEX_PROBLEM), v.minValue(0, INDEX_PROBLEM), v.maxValue(63, INDEX_PROBLEM))),
        null,
      ),
      usernameFragment: shortText(256, 'candidate.usernameFragment must be a short string or null'),
    },
    'candidate must be an object or null',
  ),
);
const coordinateField = (key: string) => {
  const problem = `"${key}" must be a finite number within ±${MAX_COORDINATE}`;
  return v.pipe(v.number(problem), v.finite(problem), v.minValue(-MAX_COORDINATE, problem), v.maxValue(MAX_COORDINATE, problem));
};
const AVATAR_ID_PROBLEM = `"id" must be an avatar id (an integer from 1 to ${MAX_AVATAR_ID}) or null`;
const AVATAR_TOKEN_PROBLEM = '"token" must be the avatarToken your avatar room or world cell gave you (a short string)';

/**
 * Client → server messages, one schema per type (what {@link parseClientMessage} checks); each
 * problem message says what was wrong. The parse functions are the API; the {@link ClientMessage}
 * types document the fields.
 *
 * @internal
 */
export const ClientMessageSchema = v.variant(
  'type',
  [
    v.object({ type: v.literal('offer'), to, sdp }, `${TO_PROBLEM}; "sdp" a session description`),
    v.object({ type: v.literal('answer'), to, sdp }, `${TO_PROBLEM}; "sdp" a session description`),
    v.object(
      { type: v.literal('ice'), to, candidate: CandidateInput },
      `${TO_PROBLEM}; "candidate" is missing (send null for end-of-candidates)`,
    ),
    v.object(
      {
        type: v.literal('pos'),
        x: coordinateField('x'),
        y: coordinateField('y'),
        z: coordinateField('z'),
        facing: coordinateField('facing'),
      },
      `"x", "y", "z" and "facing" must be finite numbers within ±${MAX_COORDINATE}`,
    ),
    v.object(
      {
        type: v.literal('resume'),
        id: v.pipe(
          v.number('"id" must be a peer id'),
          v.integer('"id" must be a peer id'),
          v.minValue(1, '"id" must be a peer id'),
          v.maxValue(0x7fffffff, '"id" must be a peer id'),
        ),
        token: v.pipe(
          v.string('"token" must be a short string'),
          v.minLength(1, '"token" must be a short string'),
          v.maxLength(MAX_TOKEN_CHARS, '"token" must be a short string'),
        ),
      },
      '"id" must be a peer id; "token" a short string',
    ),
    v.object({ type: v.literal('ping') }),
    v.object(
      {
        type: v.literal('avatar'),
        id: v.nullable(
          v.pipe(
            v.number(AVATAR_ID_PROBLEM),
            v.integer(AVATAR_ID_PROBLEM),
            v.minValue(1, AVATAR_ID_PROBLEM),
            v.maxValue(MAX_AVATAR_ID, AVATAR_ID_PROBLEM),
          ),
        ),
        token: v.optional(
          v.pipe(v.string(AVATAR_TOKEN_PROBLEM), v.minLength(1, AVATAR_TOKEN_PROBLEM), v.maxLength(MAX_TOKEN_CHARS, AVATAR_TOKEN_PROBLEM)),
        ),
      },
      '"id" is missing (send null for no avatar)',
    ),
    v.object({ type: v.literal('bye'), to }, TO_PROBLEM),
  ],
  'unknown message type',
);

/**
 * Parses and validates one client message (type, size cap, field types). Whether a target is in
 * the room is the room's business, checked after this. Returns a clean copy holding only the
 * schema's fields, so nothing a client adds (a forged `from`, extra keys) can ride along.
 */
export function parseClientMessage(raw: string | ArrayBuffer): Validated<ClientMessage> {
  if (typeof raw !== 'string') return fail('binary', 'voice signaling is JSON text; binary frames are not accepted');
  const bytes = utf8Length(raw);
  if (bytes > MAX_MESSAGE_BYTES) return fail('too-large', `message is ${bytes} bytes; the limit is ${MAX_MESSAGE_BYTES}`);
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (error) {
    return fail('bad-json', `message is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return fail('bad-json', 'message must be a JSON object');
  const type: unknown = (data as { type?: unknown }).type;
  if (typeof type !== 'string') return fail('unknown-type', 'message has no string "type"');
  const ref = type.slice(0, 32);
  const parsed = v.safeParse(ClientMessageSchema, data);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    if (issue.kind === 'schema' && issue.type === 'variant')
      return fail('unknown-type', `unknown message type "${ref}"; expected offer, answer, ice, pos, resume, ping, avatar or bye`, ref);
    // An SDP over the cap is refused as too large, like a message over the byte cap.
    return fail(issue.type === 'max_length' && issue.path?.[0]?.key === 'sdp' ? 'too-large' : 'bad-field', issue.message, ref);
  }
  const message = parsed.output;
  if (message.type !== 'avatar') return { ok: true, message };
  if (message.id === null) return { ok: true, message: { type: 'avatar', id: null } };
  if (message.token === undefined) return fail('bad-field', AVATAR_TOKEN_PROBLEM, ref);
  return { ok: true, message: { type: 'avatar', id: message.id, token: message.token } };
}

const peerId = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(0x7fffffff));
const avatarId = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_AVATAR_ID));
const coordinate = v.pipe(v.number(), v.finite(), v.minValue(-MAX_COORDINATE), v.maxValue(MAX_COORDINATE));
const PositionSchema = v.object({ x: coordinate, y: coordinate, z: coordinate, facing: coordinate });
const CandidateSchema = v.nullable(
  v.object({
    candidate: v.string(),
    sdpMid: v.nullable(v.string()),
    sdpMLineIndex: v.nullable(v.number()),
    usernameFragment: v.nullable(v.string()),
  }),
);

/**
 * Server → client messages, one schema per type (what {@link parseServerMessage} checks). The parse
 * function is the API; the {@link ServerMessage} types document the fields.
 *
 * @internal
 */
export const ServerMessageSchema = v.variant('type', [
  v.object({
    type: v.literal('welcome'),
    id: peerId,
    token: v.string(),
    room: v.string(),
    // Roster entries from an older room have no `avatar`: read that as null; a malformed position as none.
    peers: v.array(
      v.object({ id: peerId, pos: v.fallback(v.nullable(PositionSchema), null), avatar: v.optional(v.nullable(avatarId), null) }),
    ),
    positionRate: v.optional(v.number(), 0),
  }),
  v.object({ type: v.literal('join'), id: peerId }),
  v.object({ type: v.literal('leave'), id: peerId }),
  v.object({ type: v.literal('offer'), from: peerId, sdp: v.string() }),
  v.object({ type: v.literal('answer'), from: peerId, sdp: v.string() }),
  v.object({ type: v.literal('ice'), from: peerId, candidate: CandidateSchema }),
  v.object({ type: v.literal('pos'), from: peerId, ...PositionSchema.entries }),
  v.object({ type: v.literal('avatar'), from: peerId, id: v.nullable(avatarId) }),
  v.object({ type: v.literal('bye'), from: peerId }),
  v.object({ type: v.literal('pong') }),
  v.object({ type: v.literal('error'), code: v.picklist(ERROR_CODES), message: v.string(), ref: v.optional(v.string()) }),
]);

/**
 * Parses a server message on the client. The server is trusted to send the schema, but a proxy
 * or an old server might not: anything unreadable returns null and is counted, never thrown.
 */
export function parseServerMessage(raw: unknown): ServerMessage | null {
  if (typeof raw !== 'string') return null;
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return null;
  }
  const parsed = v.safeParse(ServerMessageSchema, data);
  return parsed.success ? parsed.output : null;
}
