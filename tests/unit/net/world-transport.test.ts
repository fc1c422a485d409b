import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WorldTransport } from '../../../src/net/world/world-transport.ts';
import { cellSendPhase, phaseOf, sendMomentNumber } from '../../../src/net/protocol/world.ts';
import type { WebSocketConstructor } from '../../../src/net/transport/websocket-transport.ts';

/**
 * Races the Worker cannot produce on demand: a request still in flight when the page goes, and a
 * Worker that restarts mid-request. fetch is scripted; sockets are counted, never connected.
 */
function scripted(): {
  fetch: typeof fetch;
  answer(status: number, body: unknown): void;
  calls: number;
  sockets: string[];
  WebSocket: WebSocketConstructor;
} {
  const pending: Array<(response: Response) => void> = [];
  const sockets: string[] = [];
  const harness = {
    calls: 0,
    sockets,
    fetch: (() => {
      harness.calls++;
      return new Promise<Response>((resolve) => pending.push(resolve));
    }) as unknown as typeof fetch,
    answer(status: number, body: unknown) {
      const resolve = pending.shift();
      if (!resolve) throw new Error('no request waiting');
      resolve(new Response(typeof body === 'string' ? body : JSON.stringify(body), { status }));
    },
    WebSocket: class {
      readyState = 0;
      binaryType = 'blob';
      constructor(url: string) {
        sockets.push(url);
      }
      addEventListener(): void {}
      removeEventListener(): void {}
      send(): void {}
      close(): void {}
    } as unknown as WebSocketConstructor,
  };
  return harness;
}

const entry = { id: 5, token: 'tok', cell: { x: 0, z: 0 }, cellSize: 64, expiresAt: Date.now() + 120_000 };
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('WorldTransport send moment', () => {
  it('learns the server clock from the directory’s answer and sends at its cell’s moment in local time', async () => {
    const h = scripted();
    const world = new WorldTransport({ origin: 'http://127.0.0.1:1', start: { x: 70, z: 10 }, fetch: h.fetch, WebSocket: h.WebSocket });
    expect(world.sendPhase()).toBeNull();
    const started = world.start();
    await tick();
    // The server's clock runs 5,000 ms ahead of this one; the answer comes back at once.
    h.answer(200, { ...entry, cell: { x: 1, z: 0 }, serverTime: Date.now() + 5000 });
    expect(await started).toBe(true);
    // The stamp is taken to be mid-way through the round trip: wrong by at most half of it.
    expect(world.world.clockRttMs).not.toBeNull();
    expect(Math.abs(world.world.clockOffsetMs! - 5000)).toBeLessThanOrEqual(world.world.clockRttMs! / 2 + 1);
    const offset = world.world.clockOffsetMs!;
    // No publication acknowledged yet: no moment.
    expect(world.sendPhase()).toBeNull();
    // Once cell 1:0 acknowledges (its socket's 'cell' control), the moment is its phase on this clock.
    (world as unknown as { cell: { x: number; z: number } }).cell = { x: 1, z: 0 };
    expect(world.sendPhase()).toBeCloseTo(phaseOf(cellSendPhase({ x: 1, z: 0 }) - offset, 100), 9);
    expect(world.world.sendPhase).toBe(world.sendPhase());
    // The cell says its frames arrive 12 ms late: the moment moves 12 ms earlier. A note from a
    // cell it does not publish in, or out of range, is ignored.
    const before = world.sendPhase()!;
    const onControl = (cell: { x: number; z: number }, control: unknown): void =>
      (world as unknown as { onControl(s: unknown, c: unknown): void }).onControl({ cell }, control);
    onControl({ x: 1, z: 0 }, { type: 'timing', lateMs: 12 });
    expect(world.world.timingNotes).toBe(1);
    expect(world.world.timingCorrectionMs).toBe(12);
    expect(world.sendPhase()).toBeCloseTo(phaseOf(before - 12, 100), 9);
    onControl({ x: 2, z: 0 }, { type: 'timing', lateMs: 30 });
    onControl({ x: 1, z: 0 }, { type: 'timing', lateMs: 75 });
    onControl({ x: 1, z: 0 }, { type: 'timing', lateMs: 'soon' });
    expect(world.world.timingNotes).toBe(1);
    // Corrections add up around the period: 12 + 45 = 57 is −43.
    onControl({ x: 1, z: 0 }, { type: 'timing', lateMs: 45 });
    expect(world.world.timingCorrectionMs).toBe(-43);
    expect(world.sendPhase()).toBeCloseTo(phaseOf(before - 57, 100), 9);
    // Its moments are numbered on the server's clock as refined by the notes: a frame sent at this
    // client's moment gets the number of the server's moment it was meant for.
    const wall = Date.now();
    const localMoment = wall - phaseOf(wall, 100) + world.sendPhase()!;
    const serverMoment = localMoment + offset - 43;
    expect(phaseOf(serverMoment - cellSendPhase({ x: 1, z: 0 }), 100)).toBeCloseTo(0, 6);
    expect(world.sendMoment(localMoment)).toBe(sendMomentNumber(serverMoment, { x: 1, z: 0 }));
    expect(world.sendMoment(localMoment + 100)).toBe(world.sendMoment(localMoment)! + 1);
    world.dispose();
  });

  it('sends unaligned when the server does not say its time (an older Worker)', async () => {
    const h = scripted();
    const world = new WorldTransport({ origin: 'http://127.0.0.1:1', start: { x: 10, z: 10 }, fetch: h.fetch, WebSocket: h.WebSocket });
    const started = world.start();
    await tick();
    h.answer(200, entry);
    expect(await started).toBe(true);
    (world as unknown as { cell: { x: number; z: number } }).cell = { x: 0, z: 0 };
    expect(world.world.clockOffsetMs).toBeNull();
    expect(world.sendPhase()).toBeNull();
    expect(world.sendMoment(Date.now())).toBeNull();
    world.dispose();
  });
});

describe('WorldTransport lifecycle', () => {
  it('disposed while entering: the answer arrives later and opens no cell socket', async () => {
    const h = scripted();
    const world = new WorldTransport({ origin: 'http://127.0.0.1:1', start: { x: 10, z: 10 }, fetch: h.fetch, WebSocket: h.WebSocket });
    const started = world.start();
    await tick();
    world.dispose();
    h.answer(200, entry);
    expect(await started).toBe(false);
    expect(h.sockets).toEqual([]);
    expect(world.world.subscriptions).toBe(0);
  });

  it('retries a 5xx (a restarting Worker) and opens the 3×3; a 4xx refusal is final', async () => {
    const h = scripted();
    const world = new WorldTransport({
      origin: 'http://127.0.0.1:1',
      start: { x: 10, z: 10 },
      fetch: h.fetch,
      WebSocket: h.WebSocket,
      backoff: { baseMs: 1, maxMs: 2 },
    });
    const started = world.start();
    await tick();
    h.answer(503, 'Your worker restarted mid-request.');
    while (h.calls < 2) await tick();
    h.answer(200, entry);
    expect(await started).toBe(true);
    expect(h.sockets).toHaveLength(9);
    expect(h.sockets.filter((url) => url.includes('role=pub'))).toEqual([
      'ws://127.0.0.1:1/rooms/avatar/world%3Acell%3A0%3A0?role=pub&token=tok',
    ]);
    world.dispose();

    const refused = scripted();
    const other = new WorldTransport({
      origin: 'http://127.0.0.1:1',
      start: { x: 1e7, z: 0 },
      fetch: refused.fetch,
      WebSocket: refused.WebSocket,
      backoff: { baseMs: 1, maxMs: 2 },
    });
    const result = other.start();
    await tick();
    refused.answer(400, 'position outside the world');
    expect(await result).toBe(false);
    expect(refused.calls).toBe(1);
    expect(other.stats.lastError).toMatch(/HTTP 400 position outside the world/);
    expect(refused.sockets).toEqual([]);
  });

  it('gives up on a directory that accepts the connection but never answers, and says so (real HTTP server, real fetch)', async () => {
    const requests: string[] = [];
    const server = createServer((request) => requests.push(request.url ?? '')); // never responds
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const world = new WorldTransport({
        origin: `http://127.0.0.1:${port}`,
        start: { x: 0, z: 0 },
        requestTimeoutMs: 150,
        backoff: { baseMs: 1, maxMs: 2 },
      });
      expect(await world.start()).toBe(false);
      expect(world.stats.lastError).toBe('/api/world/enter: no answer within 150 ms');
      expect(requests).toEqual(['/api/world/enter', '/api/world/enter', '/api/world/enter']); // tried three times
      world.dispose();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
