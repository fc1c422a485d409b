import { describe, expect, it } from 'vitest';
import { cellRoom, type Cell } from '../../../src/net/protocol/world.ts';
import type { WebSocketConstructor } from '../../../src/net/transport/websocket-transport.ts';
import { WorldTransport } from '../../../src/net/world/world-transport.ts';

/** Sockets that open when told and record what the client sends them (no network). */
function fakeSockets(): { Impl: WebSocketConstructor; byCell: Map<string, FakeSocket> } {
  const byCell = new Map<string, FakeSocket>();
  const Impl = class implements FakeSocket {
    readyState = 0;
    binaryType = 'blob';
    sent: string[] = [];
    onopen?: () => void;
    onmessage?: (event: { data: unknown }) => void;
    onclose?: (event: { code: number; reason: string }) => void;
    readonly url: string;

    constructor(url: string) {
      this.url = url;
      byCell.set(decodeURIComponent(/\/rooms\/avatar\/([^?]+)/.exec(url)![1]!), this);
    }
    send(data: unknown): void {
      if (typeof data === 'string') this.sent.push(data);
    }
    close(): void {}
  } as unknown as WebSocketConstructor;
  return { Impl, byCell };
}

interface FakeSocket {
  readyState: number;
  url: string;
  sent: string[];
  onopen?: () => void;
  onmessage?: (event: { data: unknown }) => void;
}

function openWithRole(socket: FakeSocket, cell: Cell, role: 'pub' | 'sub'): void {
  socket.readyState = 1;
  socket.onopen!();
  // The publication cell's ack carries the avatar token (proof for voice's avatar claim).
  socket.onmessage!({
    data: JSON.stringify({
      type: 'cell',
      cell,
      role,
      expiresAt: Date.now() + 120_000,
      avatarToken: role === 'pub' ? 'avatar-tok-7' : 'avatar-tok-watch',
    }),
  });
}

const paceCommands = (socket: FakeSocket): boolean[] =>
  socket.sent.filter((t) => t.includes('"pace"')).map((t) => (JSON.parse(t) as { close: boolean }).close);

describe('WorldTransport pacing', () => {
  it('asks the neighbouring cells it stands close to for every tick, and lets go when it walks away', async () => {
    const { Impl, byCell } = fakeSockets();
    const entry = { id: 7, token: 'tok-tok-tok-tok-tok', cell: { x: 0, z: 0 }, cellSize: 64, expiresAt: Date.now() + 120_000 };
    const fetchOnce = (async () => new Response(JSON.stringify(entry), { status: 200 })) as unknown as typeof fetch;
    // Start near the east edge of cell 0:0: 4 m from 1:0, 60 m from -1:0.
    const world = new WorldTransport({ origin: 'http://127.0.0.1:1', start: { x: 60, z: 32 }, fetch: fetchOnce, WebSocket: Impl });
    expect(await world.start()).toBe(true);
    expect(byCell.size).toBe(9);
    const tokens: Array<string | null> = [];
    world.events.on('avatarToken', (token) => tokens.push(token));
    expect(world.avatarToken).toBeNull();
    for (const [room, socket] of byCell) {
      const cell = { x: Number(room.split(':')[2]), z: Number(room.split(':')[3]) };
      openWithRole(socket, cell, room === cellRoom({ x: 0, z: 0 }) ? 'pub' : 'sub');
    }
    expect(world.avatarToken).toBe('avatar-tok-7');
    expect(tokens).toEqual(['avatar-tok-7']);
    world.setPosition(60, 32);
    const east = byCell.get(cellRoom({ x: 1, z: 0 }))!;
    const west = byCell.get(cellRoom({ x: -1, z: 0 }))!;
    const home = byCell.get(cellRoom({ x: 0, z: 0 }))!;
    expect(paceCommands(east)).toEqual([true]);
    expect(paceCommands(west)).toEqual([]); // 60 m away: stays paced (the cell's default)
    expect(paceCommands(home)).toEqual([]); // its own cell: a publisher, never paced
    // North-east: 4 m east and 32 m north of its corner (32.2 m); north: 32 m. Both within 44 m.
    expect(paceCommands(byCell.get(cellRoom({ x: 1, z: -1 }))!)).toEqual([true]);
    expect(paceCommands(byCell.get(cellRoom({ x: 0, z: -1 }))!)).toEqual([true]);
    expect(paceCommands(byCell.get(cellRoom({ x: -1, z: -1 }))!)).toEqual([]); // 64.1 m
    expect(world.world.closeWatches).toBe(5); // east, north-east, south-east, north, south
    // Walk west: east goes back to paced only beyond 48 m (x < 16), the west cells come close.
    for (let x = 60; x >= 10; x -= 2) world.setPosition(x, 32);
    expect(paceCommands(east)).toEqual([true, false]);
    expect(paceCommands(west)).toEqual([true]);
    expect(world.world.closeWatches).toBe(5); // west, north-west, south-west, north, south
    world.dispose();
  });
});
