import { afterAll, describe, expect, inject, it } from 'vitest';
import { FrameFlag, FrameKind } from '../../src/net/protocol/frame.ts';
import {
  cellRoom,
  cellSendPhase,
  phaseOf,
  SEND_PERIOD_MS,
  type Cell,
  type WorldDirectory,
  type WorldEntry,
  type WorldHop,
} from '../../src/net/protocol/world.ts';
import WebSocket from 'ws';
import type { WebSocketConstructor } from '../../src/net/transport/websocket-transport.ts';
import { WorldTransport } from '../../src/net/world/world-transport.ts';
import { RelayClient, roomStats, settle } from '../harness/net-client.ts';
import { wsUrl } from '../harness/ws-client.ts';

const base = inject('serverUrl');
const opened: RelayClient[] = [];
/**
 * The quickest delivery of a frame over loopback, at most (ms): a ms or two on an idle machine,
 * 16 measured while other suites' type checks hold both cores.
 */
const LOOPBACK_MS = 20;
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => undefined)));
});

async function post<T>(path: string, body: unknown): Promise<{ status: number; value: T; text: string }> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, value: (response.ok ? JSON.parse(text) : null) as T, text };
}

async function enter(x: number, z: number): Promise<WorldEntry> {
  const { status, value, text } = await post<WorldEntry>('/api/world/enter', { x, z });
  if (status !== 200) throw new Error(`enter: ${status} ${text}`);
  return value;
}

const cellUrl = (cell: Cell, token: string, role: 'pub' | 'sub'): string =>
  wsUrl(base, `/rooms/avatar/${encodeURIComponent(cellRoom(cell))}?role=${role}&token=${token}`);

async function join(cell: Cell, token: string, role: 'pub' | 'sub'): Promise<RelayClient> {
  const client = await RelayClient.join(cellUrl(cell, token, role));
  opened.push(client);
  await client.waitFor(() => client.controls('cell').length > 0, 'cell ack');
  return client;
}

/** Connects and returns the close the cell answers with (for refusals). */
async function refused(cell: Cell, token: string, role: 'pub' | 'sub'): Promise<{ code: number; reason: string }> {
  const client = await RelayClient.connect(cellUrl(cell, token, role));
  return client.closeFrame;
}

/** A player: an identity, a publishing socket where it stands and subscriptions around. */
async function player(
  x: number,
  z: number,
  watch: Cell[] = [],
): Promise<{ entry: WorldEntry; pub: RelayClient; subs: Map<string, RelayClient> }> {
  const entry = await enter(x, z);
  const pub = await join(entry.cell, entry.token, 'pub');
  const subs = new Map<string, RelayClient>();
  for (const cell of watch) subs.set(cellRoom(cell), await join(cell, entry.token, 'sub'));
  return { entry, pub, subs };
}

// Far from the spawn and from each test's cells, so tests never see each other's players.
describe('world cells (real workerd)', () => {
  it('routes by cell: publish only where the token says, watch only the 3×3 around it', async () => {
    const entry = await enter(100, -30);
    expect(entry.cell).toEqual({ x: 1, z: -1 });
    expect(entry.cellSize).toBe(64);
    // The server's clock, for the client's send moment (same machine: within the round trip).
    expect(Math.abs(entry.serverTime! - Date.now())).toBeLessThan(5000);
    const pub = await join(entry.cell, entry.token, 'pub');
    expect(pub.id).toBe(entry.id); // the world id, not a per-cell counter
    expect(pub.controls('cell')[0]).toMatchObject({ cell: { x: 1, z: -1 }, role: 'pub' });
    await join({ x: 2, z: 0 }, entry.token, 'sub');
    expect(await refused({ x: 2, z: 0 }, entry.token, 'pub')).toEqual({
      code: 4004,
      reason: 'token is for cell 1:-1; publish only where you stand',
    });
    expect((await refused({ x: 3, z: -1 }, entry.token, 'sub')).code).toBe(4004);
    expect((await refused(entry.cell, '', 'sub')).reason).toMatch(/need \?token=/);
    expect((await refused(entry.cell, 'not-a-token-at-all-xxxx', 'sub')).code).toBe(4003);
    // One flipped bit in the signed part: the signature no longer matches.
    const forged = entry.token.slice(0, 2) + (entry.token[2] === 'A' ? 'B' : 'A') + entry.token.slice(3);
    expect(await refused(entry.cell, forged, 'pub')).toEqual({ code: 4003, reason: 'world token signature does not match' });
    // A plain client cannot walk into a cell or the directory.
    expect((await (await RelayClient.connect(wsUrl(base, '/rooms/avatar/world:cell:1:-1'))).closeFrame).code).toBe(4003);
    expect((await (await RelayClient.connect(wsUrl(base, '/rooms/avatar/world:directory'))).closeFrame).reason).toMatch(/takes no sockets/);
  });

  it('delivers across a border through subscriptions, each frame once, and near-only frames only inside the cell', async () => {
    // A stands in cell (10, 10); B next door in (11, 10) watches A's cell; C stands in A's cell.
    const a = await player(10 * 64 + 60, 10 * 64 + 5, [{ x: 11, z: 10 }]);
    const b = await player(11 * 64 + 4, 10 * 64 + 5, [
      { x: 10, z: 10 },
      { x: 10, z: 11 },
      { x: 12, z: 10 },
    ]);
    const c = await player(10 * 64 + 30, 10 * 64 + 30);
    expect(a.entry.cell).toEqual({ x: 10, z: 10 });
    expect(b.entry.cell).toEqual({ x: 11, z: 10 });
    for (let seq = 1; seq <= 6; seq++) a.pub.sendFrame({ seq, x: seq, flags: seq % 2 === 0 ? FrameFlag.nearOnly : 0 });
    b.pub.sendFrame({ seq: 1, x: 100 });
    const bWatchesA = b.subs.get(cellRoom({ x: 10, z: 10 }))!;
    await c.pub.waitFor(() => c.pub.frames().filter((f) => f.senderId === a.entry.id).length === 6, 'C gets all six of A’s frames');
    await bWatchesA.waitFor(() => bWatchesA.frames().length === 3, 'B gets A’s far frames');
    const aWatchesB = a.subs.get(cellRoom({ x: 11, z: 10 }))!;
    await aWatchesB.waitFor(() => aWatchesB.frames().length === 1, 'A gets B’s frame');
    await settle();
    // Across every socket B holds, A's frames arrive once each, and only the ones A sent to far cells.
    const seenByB = [b.pub, ...b.subs.values()].flatMap((client) => client.frames()).filter((f) => f.senderId === a.entry.id);
    expect(seenByB.map((f) => f.seq)).toEqual([1, 3, 5]);
    expect(
      c.pub
        .frames()
        .filter((f) => f.senderId === a.entry.id)
        .map((f) => f.seq),
    ).toEqual([1, 2, 3, 4, 5, 6]);
    expect(aWatchesB.frames()[0]).toMatchObject({ senderId: b.entry.id, x: 100 });
    // Coalesced: the six frames reached C in few messages, not six.
    expect(c.pub.binary.length).toBeLessThan(6);
    // Subscribers may not publish.
    bWatchesA.sendFrame({ seq: 9 });
    await bWatchesA.waitFor(() => bWatchesA.controls('dropped').length === 1, 'role drop');
    expect(bWatchesA.controls<{ reason: string }>('dropped')[0]!.reason).toBe('role');
  });

  it('paces watchers: a neighbouring cell gets every far frame once, in a third to a quarter of the messages the cell’s own players get', async () => {
    const sender = await player(60 * 64 + 10, 60 * 64 + 10);
    const resident = await player(60 * 64 + 40, 60 * 64 + 40);
    const watcher = await player(61 * 64 + 10, 60 * 64 + 10, [{ x: 60, z: 60 }]);
    const watching = watcher.subs.get(cellRoom({ x: 60, z: 60 }))!;
    // 20 frames, one per 25 ms cell tick: the resident gets them tick by tick (give or take
    // timer bunching on a loaded machine); the watcher at most every 80 ms (every 3rd–4th tick).
    for (let seq = 1; seq <= 20; seq++) {
      sender.pub.sendFrame({ seq, x: seq });
      await settle(25);
    }
    const fromSender = (client: RelayClient): number[] =>
      client
        .frames()
        .filter((f) => f.senderId === sender.entry.id)
        .map((f) => f.seq);
    await watching.waitFor(() => fromSender(watching).length === 20, 'the watcher gets all 20 frames');
    await resident.pub.waitFor(() => fromSender(resident.pub).length === 20, 'the resident gets all 20 frames');
    await settle();
    const seqs = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(fromSender(watching)).toEqual(seqs);
    expect(fromSender(resident.pub)).toEqual(seqs);
    const residentMessages = resident.pub.binary.length;
    const watcherMessages = watching.binary.length;
    expect(residentMessages).toBeGreaterThanOrEqual(3);
    // Without pacing both would get the same count; paced, about a third to a quarter.
    expect(watcherMessages).toBeLessThanOrEqual(Math.ceil(residentMessages / 2) + 1);
  });

  it('paces watchers in time, not ticks: players sending together (one tick per 100 ms) reach a watcher every tick', async () => {
    const sender = await player(62 * 64 + 10, 62 * 64 + 10);
    const watcher = await player(63 * 64 + 10, 62 * 64 + 10, [{ x: 62, z: 62 }]);
    const watching = watcher.subs.get(cellRoom({ x: 62, z: 62 }))!;
    // What a cell sees when its players send at its moment: one burst, then nothing for 100 ms.
    // Far-capable frames (no near-only flag), as every other frame of a real player is.
    for (let seq = 1; seq <= 8; seq++) {
      sender.pub.sendFrame({ seq, x: seq });
      await settle(100);
    }
    const fromSender = (): number[] =>
      watching
        .frames()
        .filter((f) => f.senderId === sender.entry.id)
        .map((f) => f.seq);
    await watching.waitFor(() => fromSender().length === 8, 'the watcher gets all 8 frames');
    expect(fromSender()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // Paced by tick count (every 4th tick) it would get them 4 to a message, 400 ms late; paced
    // by time (80 ms) every 100 ms tick is due. A loaded machine may bunch two frames, not four.
    expect(watching.binary.length).toBeGreaterThanOrEqual(6);
  });

  it('times its publishers: frames arriving ~30 ms after the cell’s send moment get a timing note saying so', async () => {
    const cell = { x: 64, z: 62 };
    const sender = await player(cell.x * 64 + 10, cell.z * 64 + 10);
    expect(sender.entry.cell).toEqual(cell);
    const phase = cellSendPhase(cell);
    // Same machine, same clock: send each frame 30 ms after the moment, 10 a second.
    // Five verdicts' worth, so one spoilt by a busy machine (arrivals spread > 15 ms) cannot fail it.
    for (let seq = 1; seq <= 40 && sender.pub.controls('timing').length === 0; seq++) {
      const wait = phaseOf(phase + 30 - Date.now(), SEND_PERIOD_MS);
      await settle(wait);
      sender.pub.sendFrame({ seq });
    }
    await sender.pub.waitFor(() => sender.pub.controls('timing').length >= 1, 'a timing note');
    const late = sender.pub.controls<{ lateMs: number }>('timing')[0]!.lateMs;
    expect(late).toBeGreaterThanOrEqual(26);
    expect(late).toBeLessThanOrEqual(30 + LOOPBACK_MS);
    const stats = await roomStats(base, cellRoom(cell));
    expect(stats.timingNotes as number).toBeGreaterThanOrEqual(1);
  });

  it('times a publisher by when it sent, not by how long its frames waited on the way', async () => {
    const cell = { x: -60, z: 50 };
    const sender = await player(cell.x * 64 + 10, cell.z * 64 + 10);
    const phase = cellSendPhase(cell);
    // Every frame stamped 30 ms after the moment, as if sent then, but held 0–40 ms before it
    // goes (a backlog on the way): raw arrivals spread 40 ms, and a cell timing them would say
    // nothing, or the backlog. The sender's own lateness is what the note must carry.
    const held = [0, 35, 10, 25, 0, 40, 5, 30];
    for (let seq = 1; seq <= 40 && sender.pub.controls('timing').length === 0; seq++) {
      // The stamp is the moment meant, not when the timer fired: a busy machine fires timers late.
      const stamp = Date.now() + phaseOf(phase + 30 - Date.now(), SEND_PERIOD_MS);
      await settle(stamp - Date.now());
      await settle(held[seq % held.length]!);
      sender.pub.sendFrame({ seq, timestamp: stamp % 2 ** 32 });
    }
    await sender.pub.waitFor(() => sender.pub.controls('timing').length >= 1, 'a timing note');
    const late = sender.pub.controls<{ lateMs: number }>('timing')[0]!.lateMs;
    // The sender's 30 ms and the quickest delivery; a cell timing the backlog would say nothing
    // (raw arrivals spread 40 ms) or up to 40 ms more.
    expect(late).toBeGreaterThanOrEqual(26);
    expect(late).toBeLessThanOrEqual(30 + LOOPBACK_MS);
  });

  it('answers clock probes with its time, one a socket every half second; a probe without a time is dropped', async () => {
    const p = await player(-58 * 64 + 10, 50 * 64 + 10);
    const before = Date.now();
    p.pub.send(JSON.stringify({ type: 'clock', t: 12345 }));
    await p.pub.waitFor(() => p.pub.controls('clock').length === 1, 'clock answer');
    const answer = p.pub.controls<{ t: number; serverTime: number }>('clock')[0]!;
    expect(answer.t).toBe(12345);
    // Same machine, same clock: stamped between asking and now.
    expect(answer.serverTime).toBeGreaterThanOrEqual(before);
    expect(answer.serverTime).toBeLessThanOrEqual(Date.now());
    // At once again: over the rate, dropped and said so; the first answer stays the only one.
    p.pub.send(JSON.stringify({ type: 'clock', t: 12346 }));
    await p.pub.waitFor(() => p.pub.controls<{ reason: string }>('dropped').some((d) => d.reason === 'rate'), 'rate drop');
    p.pub.send(JSON.stringify({ type: 'clock', t: 'now' }));
    await p.pub.waitFor(() => p.pub.controls<{ reason: string }>('dropped').some((d) => d.reason === 'text'), 'text drop');
    await settle(600);
    p.pub.send(JSON.stringify({ type: 'clock', t: 12347 }));
    await p.pub.waitFor(() => p.pub.controls('clock').length === 2, 'second clock answer');
    expect(p.pub.controls<{ t: number }>('clock').map((c) => c.t)).toEqual([12345, 12347]);
  });

  it('a WorldTransport probes its cell’s clock and ends up within half a round trip of it (one machine: offset 0)', async () => {
    const world = new WorldTransport({
      origin: base,
      start: { x: -56 * 64 + 10, z: 50 * 64 + 10 },
      WebSocket: WebSocket as unknown as WebSocketConstructor,
    });
    try {
      expect(await world.start()).toBe(true);
      const deadline = Date.now() + 20_000;
      while (world.world.clockProbes < 2 && Date.now() < deadline) await settle(100);
      expect(world.world.clockProbes).toBeGreaterThanOrEqual(2);
      expect(Math.abs(world.world.clockOffsetMs!)).toBeLessThanOrEqual(world.world.clockRttMs! / 2 + 1);
      expect(world.sendPhase()).not.toBeNull();
    } finally {
      world.dispose();
    }
  });

  it('moves publication across a border: hop, publish in the new cell, leave frame in the old', async () => {
    const mover = await player(20 * 64 + 62, 20 * 64 + 10, [{ x: 21, z: 20 }]);
    const oldCell = { x: 20, z: 20 };
    const newCell = { x: 21, z: 20 };
    const resident = await player(20 * 64 + 30, 20 * 64 + 30, [newCell]); // stands in the old cell, watches the new
    mover.pub.sendFrame({ seq: 1 });
    await resident.pub.waitFor(() => resident.pub.frames().length === 1, 'frame in the old cell');
    // Too soon after entering? No: entering is not a hop. Hop to a non-adjacent cell is refused.
    const far = await post<WorldHop>('/api/world/hop', { token: mover.entry.token, cell: { x: 23, z: 20 } });
    expect(far.status).toBe(400);
    expect(far.text).toMatch(/not next to 20:20; enter again to teleport/);
    const hop = await post<WorldHop>('/api/world/hop', { token: mover.entry.token, cell: newCell });
    expect(hop.status).toBe(200);
    expect(hop.value.cell).toEqual(newCell);
    // The old token is spent: it cannot fork into another cell.
    const stale = await post<WorldHop>('/api/world/hop', { token: mover.entry.token, cell: { x: 20, z: 21 } });
    expect(stale.status).toBe(409);
    const watching = mover.subs.get(cellRoom(newCell))!;
    watching.send(JSON.stringify({ type: 'publish', token: hop.value.token }));
    await watching.waitFor(() => watching.controls('cell').some((a) => a.role === 'pub'), 'publish ack');
    mover.pub.send(JSON.stringify({ type: 'subscribe' }));
    await resident.pub.waitFor(() => resident.pub.frames().some((f) => f.kind === FrameKind.leave), 'leave in the old cell');
    expect(resident.pub.frames().find((f) => f.kind === FrameKind.leave)!.senderId).toBe(mover.entry.id);
    watching.sendFrame({ seq: 2, x: 2 });
    const residentWatchesNew = resident.subs.get(cellRoom(newCell))!;
    await residentWatchesNew.waitFor(() => residentWatchesNew.frames().some((f) => f.seq === 2), 'frame from the new cell');
    expect(residentWatchesNew.frames().find((f) => f.seq === 2)!.senderId).toBe(mover.entry.id);
    // The old socket now only watches: its frames are dropped.
    mover.pub.sendFrame({ seq: 3 });
    await mover.pub.waitFor(() => mover.pub.controls('dropped').length === 1, 'role drop in the old cell');
    // Hopping straight back is refused until a second has passed.
    const back = await post<WorldHop>('/api/world/hop', { token: hop.value.token, cell: oldCell });
    expect([200, 429]).toContain(back.status);
    if (back.status === 429) expect(back.text).toMatch(/at most one hop per 1000 ms/);
    expect((await roomStats(base, cellRoom(oldCell))).leaves).toBe(1);
  });

  it('replaces an older socket of the same identity in a cell without telling anyone it left', async () => {
    const watcher = await player(30 * 64 + 10, 30 * 64 + 10);
    const entry = await enter(30 * 64 + 20, 30 * 64 + 20);
    const first = await join(entry.cell, entry.token, 'pub');
    const second = await join(entry.cell, entry.token, 'pub');
    expect(await first.closeFrame).toEqual({ code: 4002, reason: 'replaced by a newer connection of the same identity' });
    second.sendFrame({ seq: 1 });
    await watcher.pub.waitFor(() => watcher.pub.frames().length === 1, 'frame');
    await settle();
    expect(watcher.pub.frames().map((f) => f.kind)).toEqual([FrameKind.state]);
  });

  it('caps abuse: junk commands are dropped, renewals for another identity or a far cell are refused', async () => {
    const a = await player(40 * 64 + 10, 40 * 64 + 10);
    const b = await enter(40 * 64 + 20, 40 * 64 + 20);
    a.pub.send('{"type":"teleport","to":[0,0]}');
    a.pub.send(JSON.stringify({ type: 'renew', token: b.token }));
    await a.pub.waitFor(() => a.pub.controls('refused').length === 1 && a.pub.controls('dropped').length === 1, 'refusal and drop');
    expect(a.pub.controls<{ reason: string }>('refused')[0]!.reason).toBe('token belongs to another identity');
    expect(a.pub.controls<{ reason: string }>('dropped')[0]!.reason).toBe('text');
    // Publishing floods are capped per socket like in any room.
    for (let seq = 1; seq <= 100; seq++) a.pub.sendFrame({ seq });
    await a.pub.waitFor(() => a.pub.controls<{ reason: string }>('dropped').some((d) => d.reason === 'rate'), 'rate cap');
    await settle();
    const stats = await roomStats(base, cellRoom(a.entry.cell));
    expect(stats.dropped.rate).toBeGreaterThan(0);
    expect(stats.received + stats.dropped.rate).toBe(100);
    expect(stats.mode).toBe('coalesce');
  });

  it('the directory reports busy cells and a spawn point; bad requests get reasons', async () => {
    await player(50 * 64 + 10, 50 * 64 + 10);
    await player(50 * 64 + 20, 50 * 64 + 20);
    // Cells report at most every 2 s.
    await settle(2500);
    const directory = (await (await fetch(`${base}/api/world`)).json()) as WorldDirectory;
    const busy = directory.cells.find((c) => c.x === 50 && c.z === 50);
    expect(busy?.players).toBe(2);
    expect(directory.players).toBeGreaterThanOrEqual(2);
    expect(directory.spawn).not.toBeNull();
    expect((await post('/api/world/enter', { x: 'north' })).text).toMatch(/x and z must both be numbers/);
    expect((await post('/api/world/enter', { x: 1e7, z: 0 })).text).toMatch(/outside the world/);
    expect((await post('/api/world/hop', { token: 'x' })).status).toBe(400);
    expect((await post('/api/world/hop', { token: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', cell: { x: 0, z: 0 } })).status).toBe(403);
    const response = await fetch(`${base}/api/world/enter`, { method: 'POST', body: '{not json' });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/not JSON/);
    expect((await fetch(`${base}/api/world/enter`)).status).toBe(405);
  });
});
