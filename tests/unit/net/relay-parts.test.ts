import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../../src/core/token-bucket.ts';
import { chooseMode, DEFAULT_RELAY_OPTIONS, parseRoomRequest } from '../../../server/avatar/relay-options.ts';
import { TickBuffer } from '../../../server/avatar/tick-buffer.ts';
import { createFrame, encodeFrame, FRAME_BYTES, readSenderId, stampSenderId, writeLeaveFrame } from '../../../src/net/protocol/frame.ts';

function frame(id: number, seq: number): Uint8Array {
  const bytes = new Uint8Array(FRAME_BYTES);
  encodeFrame({ ...createFrame(), seq, x: seq }, bytes);
  stampSenderId(bytes, 0, id);
  return bytes;
}

function frames(message: Uint8Array): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  for (let o = 0; o < message.length; o += FRAME_BYTES) out.push([readSenderId(message, o), view.getUint32(o + 8, true)]);
  return out;
}

describe('TickBuffer (coalescing relay)', () => {
  it('sends each recipient every frame but its own, grouped by sender in arrival order', () => {
    const tick = new TickBuffer(100, 2); // starts small: growing is exercised too
    tick.add(frame(1, 1), 1);
    tick.add(frame(2, 1), 2);
    tick.add(frame(1, 2), 1); // two frames from 1 in this tick
    tick.add(frame(3, 1), 3);
    const leave = new Uint8Array(FRAME_BYTES);
    writeLeaveFrame(leave, 0, 9);
    tick.add(leave, 0); // owned by no recipient
    const got = new Map<number, Array<[number, number]>>();
    const recipients = [1, 2, 3, 4].map((key) => ({ key, send: (m: Uint8Array) => got.set(key, frames(m)) }));
    expect(tick.deliver(recipients)).toEqual({ frames: 3 + 4 + 4 + 5, sends: 4 });
    const sorted = (list: Array<[number, number]>) => [...list].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(sorted(got.get(1)!)).toEqual([
      [2, 1],
      [3, 1],
      [9, 0],
    ]);
    expect(sorted(got.get(2)!)).toEqual([
      [1, 1],
      [1, 2],
      [3, 1],
      [9, 0],
    ]);
    expect(sorted(got.get(3)!)).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
      [9, 0],
    ]);
    expect(sorted(got.get(4)!)).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
      [3, 1],
      [9, 0],
    ]);
    // A sender's own order survives (1,1 before 1,2) in every message.
    for (const list of got.values()) {
      const ones = list.filter(([id]) => id === 1).map(([, seq]) => seq);
      if (ones.length) expect(ones).toEqual([1, 2]);
    }
  });

  it('never reuses the bytes of a message it handed out (sends may read them later)', () => {
    const tick = new TickBuffer(100);
    const held: Uint8Array[] = [];
    const recipients = [
      { key: 1, send: (m: Uint8Array) => held.push(m) },
      { key: 2, send: (m: Uint8Array) => held.push(m) },
    ];
    tick.add(frame(1, 1), 1);
    tick.add(frame(2, 1), 2);
    tick.deliver(recipients);
    const snapshot = held.map((m) => frames(m));
    tick.clear();
    tick.add(frame(1, 2), 1);
    tick.add(frame(2, 2), 2);
    tick.deliver(recipients);
    expect(held.slice(0, 2).map((m) => frames(m))).toEqual(snapshot);
    expect(snapshot).toEqual([[[2, 1]], [[1, 1]]]);
  });

  it('skips a recipient with nothing to receive and refuses frames past its limit', () => {
    const tick = new TickBuffer(2);
    expect(tick.add(frame(1, 1), 1)).toBe(true);
    expect(tick.add(frame(1, 2), 1)).toBe(true);
    expect(tick.add(frame(1, 3), 1)).toBe(false);
    const sent: number[] = [];
    expect(tick.deliver([{ key: 1, send: () => sent.push(1) }])).toEqual({ frames: 0, sends: 0 });
    expect(sent).toEqual([]);
  });
});

describe('relay options', () => {
  it('parses ?mode and ?capacity and explains what it refuses', () => {
    expect(parseRoomRequest(new URL('http://x/r?mode=coalesce&capacity=3'))).toEqual({
      ok: true,
      value: { mode: 'coalesce', capacity: 3 },
    });
    expect(parseRoomRequest(new URL('http://x/r'))).toEqual({ ok: true, value: {} });
    const mode = parseRoomRequest(new URL('http://x/r?mode=fast'));
    expect(mode.ok === false && mode.problem).toMatch(/mode "fast" is not one of auto, direct, coalesce/);
    const cap = parseRoomRequest(new URL(`http://x/r?capacity=${DEFAULT_RELAY_OPTIONS.capacity + 1}`));
    expect(cap.ok === false && cap.problem).toMatch(/capacity must be a whole number from 1 to 320/);
    expect(parseRoomRequest(new URL('http://x/r?capacity=2.5')).ok).toBe(false);
  });

  it('switches to coalescing at coalesceAt sockets and back only two below it', () => {
    const o = { mode: 'auto' as const, coalesceAt: 8 };
    expect(chooseMode(o, 7, 'direct')).toBe('direct');
    expect(chooseMode(o, 8, 'direct')).toBe('coalesce');
    expect(chooseMode(o, 7, 'coalesce')).toBe('coalesce');
    expect(chooseMode(o, 6, 'coalesce')).toBe('direct');
    expect(chooseMode({ mode: 'direct', coalesceAt: 8 }, 300, 'direct')).toBe('direct');
    expect(chooseMode({ mode: 'coalesce', coalesceAt: 8 }, 2, 'direct')).toBe('coalesce');
  });
});

describe("TokenBucket (the relay's per-client rate cap)", () => {
  it('allows a burst, then the rate, and refills with time', () => {
    const bucket = new TokenBucket({ ratePerSecond: 30, burst: 15 }, 0);
    let ok = 0;
    for (let i = 0; i < 100; i++) if (bucket.take(0)) ok++;
    expect(ok).toBe(15);
    // One second later: 30 more tokens, but the bucket holds at most 15.
    ok = 0;
    for (let i = 0; i < 100; i++) if (bucket.take(1000)) ok++;
    expect(ok).toBe(15);
    // Steady 30/s over 10 s: all pass; 60/s: half are dropped.
    const steady = new TokenBucket({ ratePerSecond: 30, burst: 15 }, 0);
    let passed = 0;
    for (let t = 0; t < 10_000; t += 1000 / 30) if (steady.take(t)) passed++;
    expect(passed).toBeGreaterThanOrEqual(299);
    const flood = new TokenBucket({ ratePerSecond: 30, burst: 15 }, 0);
    passed = 0;
    for (let t = 0; t < 10_000; t += 1000 / 60) if (flood.take(t)) passed++;
    expect(passed).toBeGreaterThan(300);
    expect(passed).toBeLessThan(320);
  });
});
