import { FRAME_BYTES } from '../../src/net/protocol/frame.ts';

/** Someone who receives a tick's frames. `key` is the id stamped on its own frames (0: none). */
export interface TickRecipient {
  key: number;
  send(message: Uint8Array): void;
}

/**
 * The coalescing relay's buffer: collects the (already id-stamped) frames that arrive within one
 * tick and sends every recipient one message holding every frame but its own — a whole number of
 * 36-byte frames, byte for byte as they arrived.
 *
 * Per-send overhead, not bytes, is what saturates a relay, so the point is one send per recipient
 * per tick instead of one per frame. A WebSocket send in workerd keeps a reference to the bytes
 * until they are written (measured: reusing one scratch buffer delivered the last recipient's
 * message to everyone), so every message must be bytes no one touches afterwards. Instead of one
 * copy per recipient, each tick writes one buffer: the frames grouped by owner, twice over
 * (F₀…Fₙ₋₁ F₀…Fₙ₋₁). Every recipient's message — all frames but its own group — is then one
 * contiguous window of it: the n − c frames after its group. One allocation per tick, no copy
 * per recipient. Pure: no Durable Object, no sockets — the room hands it recipients.
 */
export class TickBuffer {
  private bytes: Uint8Array;
  private owners: Int32Array;
  private frames = 0;
  /** Frames per owner key this tick, in order of first arrival. */
  private readonly groups = new Map<number, { count: number; start: number; cursor: number }>();

  readonly maxFrames: number;

  constructor(
    /** Most frames held in one tick; {@link add} refuses beyond it. */
    maxFrames: number,
    initialFrames = 64,
  ) {
    this.maxFrames = maxFrames;
    const n = Math.min(maxFrames, initialFrames);
    this.bytes = new Uint8Array(n * FRAME_BYTES);
    this.owners = new Int32Array(n);
  }

  /** Frames collected this tick. */
  get count(): number {
    return this.frames;
  }

  /**
   * Adds one 36-byte frame owned by `key` (0 for frames no recipient owns, such as leaves).
   * Returns false when the tick is full.
   */
  add(frame: Uint8Array, key: number): boolean {
    if (this.frames >= this.maxFrames) return false;
    if (this.frames * FRAME_BYTES >= this.bytes.length) this.grow();
    this.bytes.set(frame, this.frames * FRAME_BYTES);
    this.owners[this.frames] = key;
    const group = this.groups.get(key);
    if (group) group.count++;
    else this.groups.set(key, { count: 1, start: 0, cursor: 0 });
    this.frames++;
    return true;
  }

  /**
   * Sends each recipient every frame of the tick except its own; a recipient with nothing to
   * receive gets nothing. Returns the number of frames delivered and sends made. Does not clear.
   */
  deliver(recipients: Iterable<TickRecipient>): { frames: number; sends: number } {
    let frames = 0;
    let sends = 0;
    const n = this.frames;
    if (n === 0) return { frames, sends };
    const out = this.groupedTwice();
    for (const recipient of recipients) {
      const group = recipient.key === 0 ? undefined : this.groups.get(recipient.key);
      if (!group) {
        recipient.send(out.subarray(0, n * FRAME_BYTES));
        frames += n;
        sends++;
        continue;
      }
      const others = n - group.count;
      if (others === 0) continue;
      const from = group.start + group.count;
      recipient.send(out.subarray(from * FRAME_BYTES, (from + others) * FRAME_BYTES));
      frames += others;
      sends++;
    }
    return { frames, sends };
  }

  /** Empties the buffer for the next tick. */
  clear(): void {
    this.frames = 0;
    this.groups.clear();
  }

  /** A fresh buffer holding the frames grouped by owner (arrival order kept within a group), twice. */
  private groupedTwice(): Uint8Array {
    const n = this.frames;
    let start = 0;
    for (const group of this.groups.values()) {
      group.start = start;
      group.cursor = start;
      start += group.count;
    }
    const out = new Uint8Array(2 * n * FRAME_BYTES);
    for (let i = 0; i < n; i++) {
      const group = this.groups.get(this.owners[i]!)!;
      out.set(this.bytes.subarray(i * FRAME_BYTES, (i + 1) * FRAME_BYTES), group.cursor * FRAME_BYTES);
      group.cursor++;
    }
    out.copyWithin(n * FRAME_BYTES, 0, n * FRAME_BYTES);
    return out;
  }

  private grow(): void {
    const frames = Math.min(this.maxFrames, Math.max(1, (this.bytes.length / FRAME_BYTES) * 2));
    const bytes = new Uint8Array(frames * FRAME_BYTES);
    bytes.set(this.bytes);
    const owners = new Int32Array(frames);
    owners.set(this.owners);
    this.bytes = bytes;
    this.owners = owners;
  }
}
