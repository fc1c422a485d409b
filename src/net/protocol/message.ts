import { createFrame, decodeFrame, FRAME_BYTES, type AvatarFrame, type FrameProblem } from './frame.ts';

/**
 * A binary message from the relay carries one or more whole 36-byte frames (one in direct mode,
 * every other peer's frames of a tick in coalescing mode).
 */

/** Why a whole message was rejected. */
export const MessageProblem = {
  empty: 'empty message',
  length: 'length is not a whole number of 36-byte frames',
  tooMany: 'more frames than the reader holds',
} as const;
export type MessageProblem = (typeof MessageProblem)[keyof typeof MessageProblem];

export interface MessageRejection {
  problem: MessageProblem | FrameProblem;
  /** Index of the offending frame, or -1 for a problem with the message as a whole. */
  frame: number;
}

/**
 * Decodes relay messages all-or-nothing into a pool of reusable frames: either every frame in the
 * message is valid and {@link frames}[0 … count) hold them, or nothing is applied and the reason
 * is returned. Allocates only when a message holds more frames than ever before (the pool grows
 * up to `maxFrames`).
 */
export class MessageReader {
  /** Decoded frames of the last accepted message; only the first {@link count} are valid. */
  readonly frames: AvatarFrame[] = [];
  /** Frames in the last accepted message. */
  count = 0;
  private readonly staging: AvatarFrame[] = [];
  private readonly rejection: MessageRejection = { problem: MessageProblem.empty, frame: -1 };

  constructor(
    /** Most frames one message may hold; a relay room of 512 peers sends at most 511 per tick. Default 1024. */
    readonly maxFrames = 1024,
  ) {}

  /**
   * Reads `bytes`. Returns null when accepted (see {@link frames}/{@link count}), otherwise the
   * rejection (a reused object: copy what you keep). On rejection the previous contents stay.
   */
  read(bytes: Uint8Array): MessageRejection | null {
    if (bytes.length === 0) return this.reject(MessageProblem.empty, -1);
    if (bytes.length % FRAME_BYTES !== 0) return this.reject(MessageProblem.length, -1);
    const n = bytes.length / FRAME_BYTES;
    if (n > this.maxFrames) return this.reject(MessageProblem.tooMany, -1);
    while (this.staging.length < n) this.staging.push(createFrame());
    for (let i = 0; i < n; i++) {
      const problem = decodeFrame(bytes, i * FRAME_BYTES, this.staging[i]!);
      if (problem) return this.reject(problem, i);
    }
    // Every frame is valid: swap the staged frames in.
    while (this.frames.length < n) this.frames.push(createFrame());
    for (let i = 0; i < n; i++) {
      const staged = this.staging[i]!;
      this.staging[i] = this.frames[i]!;
      this.frames[i] = staged;
    }
    this.count = n;
    return null;
  }

  private reject(problem: MessageProblem | FrameProblem, frame: number): MessageRejection {
    this.rejection.problem = problem;
    this.rejection.frame = frame;
    return this.rejection;
  }
}
