import { createFrame, decodeFrame, FRAME_BYTES, type AvatarFrame, type FrameProblem } from './frame.ts';

/**
 * A binary message from the relay carries one or more whole 36-byte frames (one in direct mode,
 * every other peer's frames of a tick in coalescing mode).
 */

/** Why a whole message was rejected. */
export const MessageProblem = {
  /** No bytes. */
  empty: 'empty message',
  /** A length that is not a multiple of 36. */
  length: 'length is not a whole number of 36-byte frames',
  /** More frames than the reader's `maxFrames`. */
  tooMany: 'more frames than the reader holds',
} as const;
export type MessageProblem = (typeof MessageProblem)[keyof typeof MessageProblem];

/** Why {@link MessageReader.read} rejected a message, and where. */
export interface MessageRejection {
  /** The problem: with the message as a whole, or with the frame at {@link frame}. */
  problem: MessageProblem | FrameProblem;
  /** Index of the offending frame, or -1 for a problem with the message as a whole. */
  frame: number;
}

/**
 * Decodes relay messages into a pool of reusable frames. A problem with the message as a whole
 * (empty, not a whole number of frames, more than `maxFrames`) rejects it and keeps the previous
 * contents; a bad frame inside a good message is skipped and counted ({@link skipped}), and the
 * message's other frames are read — so one bad frame never costs the honest frames beside it
 * (the relay validates every frame, so this guards against a relay that does not). Allocates only
 * when a message holds more frames than ever before (the pool grows up to `maxFrames`).
 */
export class MessageReader {
  /** Decoded frames of the last accepted message; only the first {@link count} are valid. */
  readonly frames: AvatarFrame[] = [];
  /** Valid frames in the last accepted message. */
  count = 0;
  /** Frames skipped as invalid so far (over every message read). */
  skipped = 0;
  /** Why the last skipped frame was skipped, or null when none has been. */
  lastSkip: FrameProblem | null = null;
  private readonly rejection: MessageRejection = { problem: MessageProblem.empty, frame: -1 };

  /** Most frames one message may hold. */
  readonly maxFrames: number;

  constructor(
    /** Most frames one message may hold; a relay room of 512 peers sends at most 511 per tick. Default 1024. */
    maxFrames = 1024,
  ) {
    this.maxFrames = maxFrames;
  }

  /**
   * Reads `bytes`. Returns null when the message is accepted (see {@link frames}/{@link count};
   * invalid frames in it are skipped and counted in {@link skipped}), otherwise the rejection (a
   * reused object: copy what you keep), and the previous contents stay.
   */
  read(bytes: Uint8Array): MessageRejection | null {
    if (bytes.length === 0) return this.reject(MessageProblem.empty, -1);
    if (bytes.length % FRAME_BYTES !== 0) return this.reject(MessageProblem.length, -1);
    const n = bytes.length / FRAME_BYTES;
    if (n > this.maxFrames) return this.reject(MessageProblem.tooMany, -1);
    while (this.frames.length < n) this.frames.push(createFrame());
    let count = 0;
    for (let i = 0; i < n; i++) {
      // decodeFrame leaves its target untouched on a problem, so the slot is reused by the next frame.
      const problem = decodeFrame(bytes, i * FRAME_BYTES, this.frames[count]!);
      if (problem) {
        this.skipped++;
        this.lastSkip = problem;
      } else count++;
    }
    this.count = count;
    return null;
  }
  private reject(problem: MessageProblem | FrameProblem, frame: number): MessageRejection {
    this.rejection.problem = problem;
    this.rejection.frame = frame;
    return this.rejection;
  }
}
