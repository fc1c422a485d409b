/**
 * Cairn's avatar wire format: one fixed-size 36-byte little-endian frame per avatar update.
 * Shared by the browser (src/net) and the relay (server/), so it imports nothing.
 *
 * | offset | size | type | field                                                        |
 * |-------:|-----:|------|--------------------------------------------------------------|
 * |      0 |    1 | u8   | format version ({@link FRAME_VERSION})                        |
 * |      1 |    1 | u8   | message kind ({@link FrameKind}: 1 state, 2 leave)            |
 * |      2 |    1 | u8   | animation state ({@link ANIMATION_STATES} index)              |
 * |      3 |    1 | u8   | flags: bit 0 {@link FrameFlag.nearOnly}; bits 1–7 reserved (0)  |
 * |      4 |    4 | u32  | sender id — written by the relay, never trusted from a client |
 * |      8 |    4 | u32  | sequence number (per sender, wraps)                           |
 * |     12 |    4 | f32  | position x (m)                                                |
 * |     16 |    4 | f32  | position y (m)                                                |
 * |     20 |    4 | f32  | position z (m)                                                |
 * |     24 |    4 | f32  | facing (rad, atan2(wx, wz), wrapped to (−π, π])               |
 * |     28 |    2 | u16  | ground speed (mm/s, 0…65.535 m/s)                             |
 * |     30 |    2 | u16  | animation time (ms into the clip, wraps at 65.536 s)          |
 * |     32 |    4 | u32  | sender timestamp (ms on the sender's clock, wraps)            |
 *
 * Encoding and decoding allocate nothing: they go through one module-level scratch buffer and
 * write into caller-owned objects, so a relay or a client can process thousands per second
 * without feeding the garbage collector.
 */

/** Bytes in one frame. A relay message is a whole, non-zero number of these. */
export const FRAME_BYTES = 36;
/** The format version this code reads and writes. */
export const FRAME_VERSION = 1;

/** Byte offsets of each field (see the table above). */
export const FRAME_OFFSET = {
  /** u8 format version. */
  version: 0,
  /** u8 message kind. */
  kind: 1,
  /** u8 animation state. */
  animState: 2,
  /** u8 flags. */
  flags: 3,
  /** u32 sender id. */
  senderId: 4,
  /** u32 sequence number. */
  seq: 8,
  /** f32 position x (m). */
  x: 12,
  /** f32 position y (m). */
  y: 16,
  /** f32 position z (m). */
  z: 20,
  /** f32 facing (rad). */
  facing: 24,
  /** u16 ground speed (mm/s). */
  speed: 28,
  /** u16 animation time (ms). */
  animTime: 30,
  /** u32 sender timestamp (ms). */
  timestamp: 32,
} as const;

/** What a frame says. */
export const FrameKind = {
  /** The sender's avatar pose. */
  state: 1,
  /** The sender left (written by the relay when a socket closes or stops publishing). */
  leave: 2,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

/** Bits of the flags byte. */
export const FrameFlag = {
  /**
   * The sender halves its rate to cells it does not stand in: frames with this bit go only to
   * peers in the sender's own world cell; relays may withhold them from subscribers of
   * neighbouring cells (plain rooms forward them like any frame).
   */
  nearOnly: 0x01,
} as const;
/** Flag bits version 1 defines; frames with any other bit set are rejected. */
export const KNOWN_FLAGS = FrameFlag.nearOnly;

/** Animation states by wire code: index = code. Generic names, resolved to clips by each rig. */
export const ANIMATION_STATES = ['idle', 'walk', 'run', 'jump', 'swim', 'wave', 'dance'] as const;
/** A generic animation state, one of {@link ANIMATION_STATES}. */
export type AnimationStateName = (typeof ANIMATION_STATES)[number];

/** Largest |x| or |z| a frame may carry (m): far beyond any map, small enough to catch garbage. */
export const MAX_HORIZONTAL = 100_000;
/** Largest |y| a frame may carry (m). */
export const MAX_VERTICAL = 10_000;

/** One decoded frame. Decoders fill a caller-owned instance (see {@link createFrame}). */
export interface AvatarFrame {
  /** Format version ({@link FRAME_VERSION}). */
  version: number;
  /** What the frame says: the sender's pose, or that it left. */
  kind: FrameKind;
  /** Index into {@link ANIMATION_STATES}. */
  animState: number;
  /** {@link FrameFlag} bits. */
  flags: number;
  /** The sender's id, stamped by the relay (never trusted from a client). */
  senderId: number;
  /** Sequence number per sender (u32, wraps). */
  seq: number;
  /** East position (m). */
  x: number;
  /** Height (m). */
  y: number;
  /** South position (m). */
  z: number;
  /** Facing in radians, atan2(wx, wz), within (−π, π]. */
  facing: number;
  /** m/s. */
  speed: number;
  /** Seconds into the current clip. */
  animTime: number;
  /** ms on the sender's clock (u32, wraps every ~49.7 days). */
  timestamp: number;
}

/** A zeroed frame to decode into or fill for encoding. */
export function createFrame(): AvatarFrame {
  return {
    version: FRAME_VERSION,
    kind: FrameKind.state,
    animState: 0,
    flags: 0,
    senderId: 0,
    seq: 0,
    x: 0,
    y: 0,
    z: 0,
    facing: 0,
    speed: 0,
    animTime: 0,
    timestamp: 0,
  };
}

/** Wire code of a generic animation state, or -1 when version 1 has no code for it. */
export function animationCode(state: string): number {
  return (ANIMATION_STATES as readonly string[]).indexOf(state);
}

const scratch = new ArrayBuffer(FRAME_BYTES);
const scratchBytes = new Uint8Array(scratch);
const scratchView = new DataView(scratch);
const TAU = Math.PI * 2;

function wrapAngle(angle: number): number {
  let a = angle % TAU;
  if (a <= -Math.PI) a += TAU;
  else if (a > Math.PI) a -= TAU;
  return a;
}

function quantize(value: number, scale: number, max: number): number {
  const q = Math.round(value * scale);
  return q < 0 ? 0 : q > max ? max : q;
}

/**
 * Writes `frame` as 36 bytes into `target` at `offset`. Speed is clamped to 0…65.535 m/s, the
 * animation time wraps at 65.536 s, facing is wrapped to (−π, π]. Throws (a programming error, not
 * bad input) when the frame holds values the format cannot carry: an unknown kind or animation
 * state, non-finite or out-of-range numbers, or a target too small.
 */
export function encodeFrame(frame: AvatarFrame, target: Uint8Array, offset = 0): void {
  if (offset < 0 || offset + FRAME_BYTES > target.length)
    throw new RangeError(`encodeFrame: no room for ${FRAME_BYTES} bytes at offset ${offset} in ${target.length}`);
  if (frame.kind !== FrameKind.state && frame.kind !== FrameKind.leave) throw new RangeError(`encodeFrame: unknown kind ${frame.kind}`);
  if (!(frame.animState >= 0 && frame.animState < ANIMATION_STATES.length) || !Number.isInteger(frame.animState))
    throw new RangeError(`encodeFrame: unknown animation state ${frame.animState}`);
  if (!(Math.abs(frame.x) <= MAX_HORIZONTAL && Math.abs(frame.z) <= MAX_HORIZONTAL && Math.abs(frame.y) <= MAX_VERTICAL)) {
    throw new RangeError(`encodeFrame: position (${frame.x}, ${frame.y}, ${frame.z}) is not finite or outside ±${MAX_HORIZONTAL} m`);
  }
  if (!Number.isFinite(frame.facing) || !Number.isFinite(frame.speed) || !Number.isFinite(frame.animTime))
    throw new RangeError('encodeFrame: facing, speed and animTime must be finite');
  const v = scratchView;
  v.setUint8(FRAME_OFFSET.version, FRAME_VERSION);
  v.setUint8(FRAME_OFFSET.kind, frame.kind);
  v.setUint8(FRAME_OFFSET.animState, frame.animState);
  v.setUint8(FRAME_OFFSET.flags, frame.flags & KNOWN_FLAGS);
  v.setUint32(FRAME_OFFSET.senderId, frame.senderId >>> 0, true);
  v.setUint32(FRAME_OFFSET.seq, frame.seq >>> 0, true);
  v.setFloat32(FRAME_OFFSET.x, frame.x, true);
  v.setFloat32(FRAME_OFFSET.y, frame.y, true);
  v.setFloat32(FRAME_OFFSET.z, frame.z, true);
  v.setFloat32(FRAME_OFFSET.facing, wrapAngle(frame.facing), true);
  v.setUint16(FRAME_OFFSET.speed, quantize(frame.speed, 1000, 0xffff), true);
  const animMs = Math.round(Math.max(0, frame.animTime) * 1000) % 0x10000;
  v.setUint16(FRAME_OFFSET.animTime, animMs, true);
  v.setUint32(FRAME_OFFSET.timestamp, Math.floor(frame.timestamp) >>> 0, true);
  for (let i = 0; i < FRAME_BYTES; i++) target[offset + i] = scratchBytes[i]!;
}

/**
 * Why a frame was rejected. Each is a fixed string, so rejecting allocates nothing either; the
 * caller counts them by reason.
 */
export const FrameProblem = {
  /** Fewer than {@link FRAME_BYTES} bytes left. */
  short: 'truncated: fewer than 36 bytes',
  /** A version other than {@link FRAME_VERSION}. */
  version: 'unsupported format version',
  /** A kind that is not a {@link FrameKind}. */
  kind: 'unknown message kind',
  /** A code past the end of {@link ANIMATION_STATES}. */
  animState: 'unknown animation state',
  /** A flag bit outside {@link KNOWN_FLAGS}. */
  flags: 'reserved flag bits set',
  /** Sender id 0, which no relay stamps. */
  senderId: 'sender id 0 (the relay stamps every frame)',
  /** A coordinate that is NaN, infinite or beyond {@link MAX_HORIZONTAL} / {@link MAX_VERTICAL}. */
  position: 'position not finite or out of range',
  /** A facing that is NaN, infinite or outside ±π. */
  facing: 'facing not finite or outside ±π',
} as const;
export type FrameProblem = (typeof FrameProblem)[keyof typeof FrameProblem];

/**
 * Reads the frame at `offset` into `out`. Returns null on success, or the reason it was rejected —
 * in which case `out` is left exactly as it was (never half-applied).
 */
export function decodeFrame(bytes: Uint8Array, offset: number, out: AvatarFrame): FrameProblem | null {
  if (offset < 0 || offset + FRAME_BYTES > bytes.length) return FrameProblem.short;
  for (let i = 0; i < FRAME_BYTES; i++) scratchBytes[i] = bytes[offset + i]!;
  const problem = checkScratch();
  if (problem) return problem;
  const v = scratchView;
  out.version = FRAME_VERSION;
  out.kind = v.getUint8(FRAME_OFFSET.kind) as FrameKind;
  out.animState = v.getUint8(FRAME_OFFSET.animState);
  out.flags = v.getUint8(FRAME_OFFSET.flags);
  out.senderId = v.getUint32(FRAME_OFFSET.senderId, true);
  out.seq = v.getUint32(FRAME_OFFSET.seq, true);
  out.x = v.getFloat32(FRAME_OFFSET.x, true);
  out.y = v.getFloat32(FRAME_OFFSET.y, true);
  out.z = v.getFloat32(FRAME_OFFSET.z, true);
  out.facing = v.getFloat32(FRAME_OFFSET.facing, true);
  out.speed = v.getUint16(FRAME_OFFSET.speed, true) / 1000;
  out.animTime = v.getUint16(FRAME_OFFSET.animTime, true) / 1000;
  out.timestamp = v.getUint32(FRAME_OFFSET.timestamp, true);
  return null;
}

/** Validates the frame at `offset` without decoding it into anything (the rules of {@link decodeFrame}). */
export function checkFrame(bytes: Uint8Array, offset = 0): FrameProblem | null {
  if (offset < 0 || offset + FRAME_BYTES > bytes.length) return FrameProblem.short;
  for (let i = 0; i < FRAME_BYTES; i++) scratchBytes[i] = bytes[offset + i]!;
  return checkScratch();
}

/**
 * What the relay checks before it stamps a client's frame: exactly the rules of
 * {@link decodeFrame} (so nothing a receiver would refuse is ever forwarded), except that the
 * sender id is not read (the relay overwrites it) and the kind must be a state frame (only the
 * relay writes leaves). Allocation-free: one 36-byte copy into the module scratch.
 */
export function checkClientFrame(bytes: Uint8Array): FrameProblem | null {
  if (bytes.length !== FRAME_BYTES) return FrameProblem.short;
  if (bytes[FRAME_OFFSET.kind] !== FrameKind.state) return FrameProblem.kind;
  for (let i = 0; i < FRAME_BYTES; i++) scratchBytes[i] = bytes[i]!;
  return checkScratch(false);
}

/** The shared rules, on the scratch copy. `withSender`: a relayed frame must carry a sender id. */
function checkScratch(withSender = true): FrameProblem | null {
  const v = scratchView;
  if (v.getUint8(FRAME_OFFSET.version) !== FRAME_VERSION) return FrameProblem.version;
  const kind = v.getUint8(FRAME_OFFSET.kind);
  if (kind !== FrameKind.state && kind !== FrameKind.leave) return FrameProblem.kind;
  if (v.getUint8(FRAME_OFFSET.animState) >= ANIMATION_STATES.length) return FrameProblem.animState;
  if ((v.getUint8(FRAME_OFFSET.flags) & ~KNOWN_FLAGS) !== 0) return FrameProblem.flags;
  if (withSender && v.getUint32(FRAME_OFFSET.senderId, true) === 0) return FrameProblem.senderId;
  if (kind === FrameKind.leave) return null; // a leave carries only the id
  const x = v.getFloat32(FRAME_OFFSET.x, true);
  const y = v.getFloat32(FRAME_OFFSET.y, true);
  const z = v.getFloat32(FRAME_OFFSET.z, true);
  // Written as negated ≤ so that NaN fails too.
  if (!(Math.abs(x) <= MAX_HORIZONTAL && Math.abs(z) <= MAX_HORIZONTAL && Math.abs(y) <= MAX_VERTICAL)) return FrameProblem.position;
  const facing = v.getFloat32(FRAME_OFFSET.facing, true);
  // f32 rounding of π lands a hair above π.
  if (!(Math.abs(facing) <= Math.PI + 1e-6)) return FrameProblem.facing;
  return null;
}

/**
 * The two header bytes of a client frame: version 1, kind state. The relay tells a wrong header
 * (`header`) apart from a bad field ({@link checkClientFrame}, `frame`) in its drop counts.
 */
export function isRelayableHeader(bytes: Uint8Array): boolean {
  return bytes.length === FRAME_BYTES && bytes[FRAME_OFFSET.version] === FRAME_VERSION && bytes[FRAME_OFFSET.kind] === FrameKind.state;
}

/** Writes `id` into the sender-id field of the frame at `offset` (4 bytes, little-endian, no decoding). */
export function stampSenderId(bytes: Uint8Array, offset: number, id: number): void {
  const at = offset + FRAME_OFFSET.senderId;
  bytes[at] = id & 0xff;
  bytes[at + 1] = (id >>> 8) & 0xff;
  bytes[at + 2] = (id >>> 16) & 0xff;
  bytes[at + 3] = (id >>> 24) & 0xff;
}

/** Reads the sender id of the frame at `offset` (for echo filtering without a full decode). */
export function readSenderId(bytes: Uint8Array, offset = 0): number {
  const at = offset + FRAME_OFFSET.senderId;
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/** Reads the sender timestamp of the frame at `offset` (world cells time their publishers' sends with it; benchmarks measure latency). */
export function readTimestamp(bytes: Uint8Array, offset = 0): number {
  const at = offset + FRAME_OFFSET.timestamp;
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/** Writes a leave frame for `id` at `offset` (what the relay sends when a peer goes). */
export function writeLeaveFrame(target: Uint8Array, offset: number, id: number): void {
  for (let i = 0; i < FRAME_BYTES; i++) target[offset + i] = 0;
  target[offset + FRAME_OFFSET.version] = FRAME_VERSION;
  target[offset + FRAME_OFFSET.kind] = FrameKind.leave;
  stampSenderId(target, offset, id);
}
