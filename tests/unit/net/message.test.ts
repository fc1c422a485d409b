import { describe, expect, it } from 'vitest';
import { createFrame, encodeFrame, FRAME_BYTES, FrameProblem } from '../../../src/net/protocol/frame.ts';
import { MessageProblem, MessageReader } from '../../../src/net/protocol/message.ts';

function message(ids: number[]): Uint8Array {
  const bytes = new Uint8Array(ids.length * FRAME_BYTES);
  ids.forEach((id, i) => encodeFrame({ ...createFrame(), senderId: id, seq: i + 1, x: id }, bytes, i * FRAME_BYTES));
  return bytes;
}

describe('MessageReader (relay messages: one or more whole frames)', () => {
  it('reads every frame of a coalesced message', () => {
    const reader = new MessageReader();
    expect(reader.read(message([3, 4, 5]))).toBeNull();
    expect(reader.count).toBe(3);
    expect(reader.frames.slice(0, 3).map((f) => f.senderId)).toEqual([3, 4, 5]);
  });

  it('skips a bad frame and reads the others of the message, counting what it skipped', () => {
    const reader = new MessageReader();
    reader.read(message([1, 2]));
    const bad = message([7, 8, 9]);
    bad[FRAME_BYTES * 1] = 99; // second frame: bad version
    bad[FRAME_BYTES * 2 + 2] = 200; // third frame: animation state 200
    expect(reader.read(bad)).toBeNull();
    expect(reader.count).toBe(1);
    expect(reader.frames[0]!.senderId).toBe(7);
    expect(reader.skipped).toBe(2);
    expect(reader.lastSkip).toBe(FrameProblem.animState);
    // The honest frames of a message around a bad one all arrive.
    const mixed = message([4, 5, 6]);
    mixed[FRAME_BYTES * 1 + 3] = 0x80; // reserved flag bit
    expect(reader.read(mixed)).toBeNull();
    expect(reader.frames.slice(0, reader.count).map((f) => f.senderId)).toEqual([4, 6]);
    expect(reader.skipped).toBe(3);
  });

  it('keeps the previous contents when a message is refused as a whole', () => {
    const reader = new MessageReader();
    reader.read(message([1, 2]));
    expect(reader.read(message([3, 4]).subarray(0, 40))?.problem).toBe(MessageProblem.length);
    expect(reader.count).toBe(2);
    expect(reader.frames.slice(0, 2).map((f) => f.senderId)).toEqual([1, 2]);
  });

  it('rejects empty, truncated and oversized messages as a whole', () => {
    const reader = new MessageReader(4);
    expect(reader.read(new Uint8Array(0))?.problem).toBe(MessageProblem.empty);
    expect(reader.read(message([1, 2]).subarray(0, 50))?.problem).toBe(MessageProblem.length);
    expect(reader.read(message([1, 2, 3, 4, 5]))?.problem).toBe(MessageProblem.tooMany);
    expect(reader.count).toBe(0);
  });

  it('reuses its frame objects (no allocation once warmed up)', () => {
    const reader = new MessageReader();
    reader.read(message([1, 2, 3]));
    const objects = reader.frames.slice();
    reader.read(message([4, 5, 6]));
    reader.read(message([7, 8, 9]));
    const all = new Set([...objects, ...reader.frames]);
    expect(all.size).toBe(3); // the same three objects, filled in place
  });
});
