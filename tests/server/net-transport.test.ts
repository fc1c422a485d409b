import WebSocket from 'ws';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createFrame, encodeFrame, FRAME_BYTES } from '../../src/net/protocol/frame.ts';
import type { TransportState } from '../../src/net/transport/transport.ts';
import { WebSocketTransport, type WebSocketConstructor } from '../../src/net/transport/websocket-transport.ts';
import { NetCutter } from '../harness/net-cutter.ts';
import { RelayClient } from '../harness/net-client.ts';
import { wsUrl } from '../harness/ws-client.ts';

const base = inject('serverUrl');
const room = `transport-${Date.now().toString(36)}`;

function until(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (predicate()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`timed out waiting for ${what}`));
      }
    }, 20);
  });
}

describe('WebSocketTransport against the real relay', () => {
  const cleanup: Array<() => unknown> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('reconnects after the network drops, with growing jittered delays, and resumes sending under a new id', async () => {
    const cutter = await NetCutter.start(Number(new URL(base).port));
    cleanup.push(() => cutter.stop());
    const transport = new WebSocketTransport({
      url: `ws://127.0.0.1:${cutter.port}/rooms/avatar/${room}`,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      backoff: { baseMs: 200, maxMs: 3200 },
    });
    cleanup.push(() => transport.dispose());
    const states: TransportState[] = [];
    transport.events.on('state', (s) => states.push(s));
    const watcher = await RelayClient.join(wsUrl(base, `/rooms/avatar/${room}`));
    cleanup.push(() => watcher.close());
    expect(await transport.opened()).toBe(true);
    await until(() => transport.selfId !== null, 'welcome');
    const firstId = transport.selfId!;
    const frame = new Uint8Array(FRAME_BYTES);
    encodeFrame({ ...createFrame(), seq: 1, x: 1 }, frame);
    expect(transport.send(frame)).toBe(true);
    await watcher.waitFor(() => watcher.frames().length === 1, 'frame before the cut');
    expect(watcher.frames()[0]!.senderId).toBe(firstId);

    cutter.cut();
    await until(() => transport.state === 'reconnecting', 'reconnecting');
    expect(transport.send(frame)).toBe(false); // not queued while down: a stale pose is worthless
    expect(transport.stats.unsent).toBe(1);
    // The relay noticed the drop and told the others.
    await watcher.waitFor(() => watcher.frames().some((f) => f.kind === 2 && f.senderId === firstId), 'leave for the dropped id');
    await until(() => cutter.refusedAt.length >= 4, 'four refused attempts');
    cutter.restore();
    const gaps = cutter.refusedAt.slice(1, 4).map((t, i) => t - cutter.refusedAt[i]!);
    // Attempt n waits within [cap/2, cap], cap = 200 ms · 2ⁿ: 200–400, 400–800, 800–1600 ms (+ connect time).
    expect(gaps[0]).toBeGreaterThanOrEqual(180);
    expect(gaps[1]).toBeGreaterThanOrEqual(380);
    expect(gaps[2]).toBeGreaterThanOrEqual(780);
    expect(gaps[2]).toBeLessThan(2500);

    await until(() => transport.state === 'open' && transport.selfId !== null, 'reconnected');
    expect(transport.stats.reconnects).toBe(1);
    expect(transport.selfId).not.toBe(firstId); // a new socket, a new id
    encodeFrame({ ...createFrame(), seq: 2, x: 2 }, frame);
    expect(transport.send(frame)).toBe(true);
    await watcher.waitFor(() => watcher.frames().some((f) => f.seq === 2), 'frame after reconnecting');
    expect(watcher.frames().find((f) => f.seq === 2)!.senderId).toBe(transport.selfId);
    expect(states[0]).toBe('open');
    expect(states.at(-1)).toBe('open');
    expect(new Set(states.slice(1, -1))).toEqual(new Set(['reconnecting']));
  });

  it('measures the keep-alive round trip, and reports a failed first attempt (so a page can fall back)', async () => {
    const transport = new WebSocketTransport({
      url: wsUrl(base, `/rooms/avatar/${room}-ping`),
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      pingMs: 300,
    });
    cleanup.push(() => transport.dispose());
    expect(await transport.opened()).toBe(true);
    await until(() => transport.stats.pingMs !== null, 'a pong');
    expect(transport.stats.pingMs).toBeGreaterThanOrEqual(0);
    // A 400 (bad parameter) fails the handshake: the first attempt fails and opened() says so.
    const bad = new WebSocketTransport({
      url: wsUrl(base, `/rooms/avatar/${room}?mode=warp`),
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      backoff: { baseMs: 5000 },
    });
    cleanup.push(() => bad.dispose());
    expect(await bad.opened()).toBe(false);
    expect(bad.state).toBe('reconnecting');
    expect(() => new WebSocketTransport({ url: 'http://nope', WebSocket: WebSocket as unknown as WebSocketConstructor })).toThrow(
      /not a ws:\/\/ or wss:\/\/ URL/,
    );
  });
});
