import { afterAll, describe, expect, inject, it } from 'vitest';
import { cellRoom, type Cell, type WorldEntry, type WorldHop } from '../../src/net/protocol/world.ts';
import { RelayClient, settle } from '../harness/net-client.ts';
import { wsUrl } from '../harness/ws-client.ts';

/**
 * World cells against real workerd: close watchers (the `pace` command) get a neighbouring
 * cell's frames every tick, and a socket that changes role mid-tick (a hop) gets every pending
 * frame exactly once. Cells at negative coordinates, away from scale-cells.test.ts's, so the files never share a cell.
 */
const base = inject('serverUrl');
const opened: RelayClient[] = [];
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => undefined)));
});

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

async function join(cell: Cell, token: string, role: 'pub' | 'sub'): Promise<RelayClient> {
  const client = await RelayClient.join(wsUrl(base, `/rooms/avatar/${encodeURIComponent(cellRoom(cell))}?role=${role}&token=${token}`));
  opened.push(client);
  await client.waitFor(() => client.controls('cell').length > 0, 'cell ack');
  return client;
}

async function player(
  x: number,
  z: number,
  watch: Cell[] = [],
): Promise<{ entry: WorldEntry; pub: RelayClient; subs: Map<string, RelayClient> }> {
  const entry = await post<WorldEntry>('/api/world/enter', { x, z });
  const pub = await join(entry.cell, entry.token, 'pub');
  const subs = new Map<string, RelayClient>();
  for (const cell of watch) subs.set(cellRoom(cell), await join(cell, entry.token, 'sub'));
  return { entry, pub, subs };
}

const seqsFrom = (client: RelayClient, id: number): number[] =>
  client
    .frames()
    .filter((f) => f.senderId === id && f.kind === 1)
    .map((f) => f.seq);

describe('world cells: pacing and role changes (real workerd)', () => {
  it('a close watcher gets a neighbouring cell’s frames every tick, like its own players; a paced one in fewer messages', async () => {
    const home = { x: -40, z: -40 };
    const sender = await player(-40 * 64 + 60, -40 * 64 + 10);
    const resident = await player(-40 * 64 + 40, -40 * 64 + 40);
    const near = await player(-39 * 64 + 5, -40 * 64 + 10, [home]);
    const far = await player(-39 * 64 + 60, -40 * 64 + 10, [home]);
    const closeSocket = near.subs.get(cellRoom(home))!;
    const pacedSocket = far.subs.get(cellRoom(home))!;
    closeSocket.send(JSON.stringify({ type: 'pace', close: true }));
    await settle(100);
    for (let seq = 1; seq <= 20; seq++) {
      sender.pub.sendFrame({ seq, x: seq });
      await settle(25);
    }
    const all = Array.from({ length: 20 }, (_, i) => i + 1);
    for (const client of [resident.pub, closeSocket, pacedSocket])
      await client.waitFor(() => seqsFrom(client, sender.entry.id).length >= 20, 'all 20 frames');
    await settle();
    for (const client of [resident.pub, closeSocket, pacedSocket]) expect(seqsFrom(client, sender.entry.id)).toEqual(all);
    // The close watcher is served from the same flushes as the cell's own players.
    expect(closeSocket.binary.length).toBe(resident.pub.binary.length);
    expect(pacedSocket.binary.length).toBeLessThanOrEqual(Math.ceil(resident.pub.binary.length / 2) + 1);

    // Walking away: paced again.
    closeSocket.send(JSON.stringify({ type: 'pace', close: false }));
    await settle(100);
    const before = { close: closeSocket.binary.length, resident: resident.pub.binary.length };
    for (let seq = 21; seq <= 40; seq++) {
      sender.pub.sendFrame({ seq, x: seq });
      await settle(25);
    }
    await closeSocket.waitFor(() => seqsFrom(closeSocket, sender.entry.id).length >= 40, 'frames 21–40');
    await settle();
    expect(seqsFrom(closeSocket, sender.entry.id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const residentGot = resident.pub.binary.length - before.resident;
    expect(closeSocket.binary.length - before.close).toBeLessThanOrEqual(Math.ceil(residentGot / 2) + 1);
  });

  it('a bad pace command is dropped and counted, and changes nothing', async () => {
    const watcher = await player(-36 * 64 + 5, -40 * 64 + 5, [{ x: -37, z: -40 }]);
    const socket = watcher.subs.get(cellRoom({ x: -37, z: -40 }))!;
    socket.send(JSON.stringify({ type: 'pace', close: 'yes' }));
    await socket.waitFor(() => socket.controls('dropped').length === 1, 'drop notice');
    expect(socket.controls('dropped')[0]).toMatchObject({ reason: 'text' });
  });

  it('a hop mid-stream: each frame pending in either cell reaches the hopping player exactly once', async () => {
    // P publishes in cell A (-30:-40), Q in cell B (-29:-40) next door; S stands in B watching A, then hops into A
    // while both keep sending every 25 ms. S's socket in A turns watcher → publisher, its socket
    // in B publisher → watcher, each with frames queued for the other role.
    const a = { x: -30, z: -40 };
    const p = await player(-30 * 64 + 40, -40 * 64 + 10);
    const q = await player(-29 * 64 + 40, -40 * 64 + 10);
    const s = await player(-29 * 64 + 3, -40 * 64 + 10, [a]);
    const sInA = s.subs.get(cellRoom(a))!;
    const sInB = s.pub;
    const frames = 48;
    let hopped = false;
    let subscribed = false;
    for (let seq = 1; seq <= frames; seq++) {
      p.pub.sendFrame({ seq });
      q.pub.sendFrame({ seq });
      if (seq === 20) {
        const hop = await post<WorldHop>('/api/world/hop', { token: s.entry.token, cell: a });
        sInA.send(JSON.stringify({ type: 'publish', token: hop.token }));
        hopped = true;
      }
      if (hopped && seq > 20 && sInA.controls('cell').some((ack) => ack.role === 'pub') && !subscribed) {
        sInB.send(JSON.stringify({ type: 'subscribe' }));
        subscribed = true;
      }
      await settle(25);
    }
    const all = Array.from({ length: frames }, (_, i) => i + 1);
    await sInA.waitFor(() => seqsFrom(sInA, p.entry.id).length >= frames, "all of P's frames in A");
    await sInB.waitFor(() => seqsFrom(sInB, q.entry.id).length >= frames, "all of Q's frames in B");
    await settle();
    expect(sInA.controls('cell').some((ack) => ack.role === 'pub')).toBe(true);
    expect(sInB.controls('cell').some((ack) => ack.role === 'sub')).toBe(true);
    expect(seqsFrom(sInA, p.entry.id)).toEqual(all);
    expect(seqsFrom(sInB, q.entry.id)).toEqual(all);
  });
});
