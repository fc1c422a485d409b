import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { WebSocketConstructor } from '../../../src/core/reconnecting-socket.ts';
import { ScatterLayer } from '../../../src/scatter/scatter-layer.ts';
import { SharedScatter } from '../../../src/scatter/shared-scatter.ts';
import { generateTerrain } from '../../../src/world/terrain/generate.ts';

/**
 * The edit cells' sockets against a server that is down or refuses: they reconnect with the
 * shared backoff (src/core/backoff.ts), each cell on its own jittered schedule, and give up only
 * on a close code that says retrying cannot help. A stand-in server (ws), because what is tested
 * is the page's side: the real cells are tested in tests/server.
 */

const ground = generateTerrain();
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A server on a free port that closes every socket at once with `code`; it records when each cell knocked. */
async function refusingServer(code: number): Promise<{ origin: string; knocks: Map<string, number[]> }> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const knocks = new Map<string, number[]>();
  server.on('connection', (socket, request) => {
    const room = decodeURIComponent(new URL(request.url!, 'http://x').pathname.split('/').pop()!);
    knocks.set(room, [...(knocks.get(room) ?? []), performance.now()]);
    socket.close(code, 'refused by the stand-in');
  });
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { origin: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, knocks };
}

function visitor(origin: string, backoff = { baseMs: 100, maxMs: 1600 }) {
  const layer = new ScatterLayer({ ground, seed: 1 });
  const shared = new SharedScatter({
    layer,
    seed: 1,
    session: null,
    origin,
    backoff,
    WebSocket: WebSocket as unknown as WebSocketConstructor,
  });
  cleanups.push(() => {
    shared.dispose();
    layer.dispose();
  });
  return shared;
}

describe('edit cell sockets', () => {
  it('retry a server that keeps closing them with the shared backoff, each cell on its own jittered schedule', async () => {
    const { origin, knocks } = await refusingServer(1011);
    const shared = visitor(origin);
    shared.focus(0, 0); // the spawn: the 12 cells within 80 m
    expect(shared.stats.joined).toBe(12);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(knocks.size).toBe(12);
    const firstGaps: number[] = [];
    for (const [room, times] of knocks) {
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      // Attempt k waits at least half of min(1,600, 100 · 2^k) ms (a late timer only waits longer).
      gaps.forEach((gap, k) =>
        expect(gap, `${room} gap ${k}: ${gaps.map(Math.round).join(', ')}`).toBeGreaterThanOrEqual(Math.min(1600, 100 * 2 ** k) / 2 - 5),
      );
      // Fixed 100 ms retries would have knocked about 30 times in 3 s. The backoff's shortest gaps
      // (50, 100, 200, 400, 800, 800 ms) put the 7th knock at 2.35 s and the 8th past 3 s: 7 at most.
      expect(times.length, room).toBeLessThanOrEqual(7);
      expect(times.length, room).toBeGreaterThanOrEqual(3);
      firstGaps.push(Math.round(gaps[2]!));
    }
    // Jittered: the cells do not all knock again at the same moment.
    expect(new Set(firstGaps).size).toBeGreaterThan(4);
    expect(shared.stats.cells).toBe(0);
  });

  it('give up on a cell the server says does not exist, and say so', async () => {
    const { origin, knocks } = await refusingServer(4404);
    const shared = visitor(origin);
    const problems: string[] = [];
    shared.on('problem', ({ title }) => problems.push(title));
    shared.focus(32, 32); // within one cell's middle: 0:0 alone with a 20 m radius
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect([...knocks.values()].map((t) => t.length)).toEqual(Array(knocks.size).fill(1));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatch(/^Edits of cell -?\d+:-?\d+ are unavailable$/);
  });
});
