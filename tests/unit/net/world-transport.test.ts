import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WorldTransport } from '../../../src/net/world/world-transport.ts';
import type { WebSocketConstructor } from '../../../src/net/transport/websocket-transport.ts';

/**
 * Races the Worker cannot produce on demand: a request still in flight when the page goes, and a
 * Worker that restarts mid-request. fetch is scripted; sockets are counted, never connected.
 */
function scripted(): { fetch: typeof fetch; answer(status: number, body: unknown): void; calls: number; sockets: string[]; WebSocket: WebSocketConstructor } {
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
    const world = new WorldTransport({ origin: 'http://127.0.0.1:1', start: { x: 10, z: 10 }, fetch: h.fetch, WebSocket: h.WebSocket, backoff: { baseMs: 1, maxMs: 2 } });
    const started = world.start();
    await tick();
    h.answer(503, 'Your worker restarted mid-request.');
    while (h.calls < 2) await tick();
    h.answer(200, entry);
    expect(await started).toBe(true);
    expect(h.sockets).toHaveLength(9);
    expect(h.sockets.filter((url) => url.includes('role=pub'))).toEqual(['ws://127.0.0.1:1/rooms/avatar/world%3Acell%3A0%3A0?role=pub&token=tok']);
    world.dispose();

    const refused = scripted();
    const other = new WorldTransport({ origin: 'http://127.0.0.1:1', start: { x: 1e7, z: 0 }, fetch: refused.fetch, WebSocket: refused.WebSocket, backoff: { baseMs: 1, maxMs: 2 } });
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
      const world = new WorldTransport({ origin: `http://127.0.0.1:${port}`, start: { x: 0, z: 0 }, requestTimeoutMs: 150, backoff: { baseMs: 1, maxMs: 2 } });
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
