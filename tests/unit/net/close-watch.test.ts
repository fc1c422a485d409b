import { describe, expect, it } from 'vitest';
import { CLOSE_WATCH_RADIUS, CLOSE_WATCH_RELEASE, distanceToCell, parseCellCommand } from '../../../src/net/protocol/world.ts';
import { WebSocketTransport, type WebSocketConstructor } from '../../../src/net/transport/websocket-transport.ts';
import { wantsCloseWatch } from '../../../src/net/world/close-watch.ts';

describe('close watching (pace)', () => {
  it('measures the distance from a point to a cell square: 0 inside, straight to an edge, diagonal to a corner', () => {
    expect(distanceToCell(10, 10, { x: 0, z: 0 })).toBe(0);
    expect(distanceToCell(70, 10, { x: 0, z: 0 })).toBe(6); // 6 m east of the east edge
    expect(distanceToCell(-3, 30, { x: 0, z: 0 })).toBe(3);
    expect(distanceToCell(67, 68, { x: 0, z: 0 })).toBe(5); // 3-4-5 from the corner (64, 64)
    expect(distanceToCell(10, 10, { x: 1, z: 0 })).toBe(54);
  });

  it('asks for every tick within the radius and lets go only beyond the release distance', () => {
    expect(CLOSE_WATCH_RELEASE).toBeGreaterThan(CLOSE_WATCH_RADIUS);
    expect(wantsCloseWatch(false, CLOSE_WATCH_RADIUS + 1)).toBe(false);
    expect(wantsCloseWatch(false, CLOSE_WATCH_RADIUS)).toBe(true);
    // Between the two distances the last answer stands: no flapping along the band.
    expect(wantsCloseWatch(true, (CLOSE_WATCH_RADIUS + CLOSE_WATCH_RELEASE) / 2)).toBe(true);
    expect(wantsCloseWatch(false, (CLOSE_WATCH_RADIUS + CLOSE_WATCH_RELEASE) / 2)).toBe(false);
    expect(wantsCloseWatch(true, CLOSE_WATCH_RELEASE + 0.1)).toBe(false);
    // Walking back and forth across the inner edge 50 times changes the answer once.
    let close = false;
    let changes = 0;
    for (let i = 0; i < 50; i++) {
      const next = wantsCloseWatch(close, CLOSE_WATCH_RADIUS + (i % 2 === 0 ? -1 : 1));
      if (next !== close) changes++;
      close = next;
    }
    expect(changes).toBe(1);
  });

  it('parses the pace command and refuses one without a boolean', () => {
    expect(parseCellCommand('{"type":"pace","close":true}')).toEqual({ ok: true, value: { type: 'pace', close: true } });
    expect(parseCellCommand('{"type":"pace","close":false}')).toEqual({ ok: true, value: { type: 'pace', close: false } });
    expect(parseCellCommand('{"type":"pace","close":"yes"}')).toEqual({ ok: false, problem: 'pace without close: true or false' });
    expect(parseCellCommand('{"type":"pace"}')).toMatchObject({ ok: false });
  });
});

describe('WebSocketTransport.send', () => {
  it('hands the socket its own copy, so a caller reusing one buffer cannot rewrite a queued frame', () => {
    // A socket that keeps what it was given by reference, as Node's `ws` does while it compresses.
    const queued: Uint8Array[] = [];
    const sockets: Array<{ readyState: number; onopen?: () => void }> = [];
    const Impl = class {
      readyState = 0;
      binaryType = 'blob';
      onopen?: () => void;
      constructor() {
        sockets.push(this);
      }
      send(data: Uint8Array): void {
        queued.push(data);
      }
      close(): void {}
    } as unknown as WebSocketConstructor;
    const transport = new WebSocketTransport({ url: 'ws://127.0.0.1:1/rooms/avatar/x', WebSocket: Impl });
    const socket = sockets[0]!;
    socket.readyState = 1;
    socket.onopen!();
    const buffer = new Uint8Array(36);
    buffer[8] = 1;
    expect(transport.send(buffer)).toBe(true);
    buffer[8] = 2; // the caller writes its next frame into the same buffer
    expect(transport.send(buffer)).toBe(true);
    expect(queued.map((q) => q[8])).toEqual([1, 2]);
    transport.dispose();
  });
});
