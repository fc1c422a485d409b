import { describe, expect, inject, it } from 'vitest';
import type WebSocket from 'ws';
import { MAX_AUTHOR_STROKES, MAX_CELL_STROKES, type EditsServerMessage } from '../../src/scatter/shared-edits.ts';
import { openSocket, wsUrl } from '../harness/ws-client.ts';

const base = inject('serverUrl');
// Durable storage outlives a run of wrangler dev: a fresh world seed per run.
const seed = Math.floor(Math.random() * 1e9);

interface Client {
  socket: WebSocket;
  messages: EditsServerMessage[];
  next(type: EditsServerMessage['type']): Promise<EditsServerMessage>;
}

/** A session token from `POST /api/session` (the test server's loopback address is not throttled). */
async function newSession(): Promise<string> {
  const response = await fetch(`${base}/api/session`, { method: 'POST' });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

/** Joins a cell with `query` (`session=…`, or anything a forger tries; empty: watch only). */
async function join(cell: string, query = ''): Promise<Client> {
  const socket = await openSocket(
    wsUrl(base, `/rooms/edits/${encodeURIComponent(`world:edits:${seed}:${cell}`)}${query ? `?${query}` : ''}`),
  );
  const messages: EditsServerMessage[] = [];
  let read = 0;
  const waiters: Array<() => void> = [];
  socket.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as EditsServerMessage);
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    socket,
    messages,
    async next(type) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        while (read < messages.length) {
          const message = messages[read++]!;
          if (message.type === type) return message;
        }
        if (Date.now() > deadline) throw new Error(`no ${type} message; got ${JSON.stringify(messages)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 500);
        });
      }
    },
  };
}

/** Joins with a session of its own and returns the client and its author id (from the snapshot). */
async function editor(cell: string, token?: string): Promise<Client & { author: string; token: string }> {
  const session = token ?? (await newSession());
  const client = await join(cell, `session=${session}`);
  const snapshot = (await client.next('snapshot')) as Extract<EditsServerMessage, { type: 'snapshot' }>;
  expect(snapshot.author).toMatch(/^[0-9a-f]{16}$/);
  return Object.assign(client, { author: snapshot.author!, token: session });
}

const stroke = (id: string, x = 10, z = 10, radius = 5) =>
  JSON.stringify({
    type: 'stroke',
    id,
    events: [
      { kind: 'preset', presetId: 'meadow' },
      { kind: 'reseed', seed: 7 },
      { kind: 'paint', x, z, radius },
    ],
  });
const undo = (id: string) => JSON.stringify({ type: 'undo', id });
/**
 * The close code and reason a refused socket got, read from the close frame as soon as it arrives
 * (ws keeps them in these fields; its `close` event waits for the TCP teardown, which wrangler dev
 * delays by seconds).
 */
async function closeFrame(socket: WebSocket): Promise<{ code: number; reason: string }> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (Reflect.get(socket, '_closeFrameReceived') === true)
      return { code: Number(Reflect.get(socket, '_closeCode')), reason: String(Reflect.get(socket, '_closeMessage')) };
    await sleep(20);
  }
  throw new Error('no close frame within 10 s');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('world edits cell (real workerd)', () => {
  it('stores strokes under the session’s id, relays them to everyone and replays them to a later watcher', async () => {
    const a = await editor('0:0');
    const b = await editor('0:0');
    expect(a.messages[0]).toEqual({ type: 'snapshot', cell: { x: 0, z: 0 }, author: a.author, strokes: [] });
    expect(b.author).not.toBe(a.author);
    a.socket.send(stroke('stroke-one'));
    const toA = await a.next('stroke');
    const toB = await b.next('stroke');
    expect(toA).toEqual(toB);
    expect(toB).toMatchObject({
      stroke: {
        id: 'stroke-one',
        author: a.author,
        seq: 1,
        events: [{ kind: 'preset' }, { kind: 'reseed' }, { kind: 'paint', x: 10, z: 10, radius: 5 }],
      },
    });
    // No session: admitted to watch (author null), with every stroke.
    const later = await join('0:0');
    expect(await later.next('snapshot')).toMatchObject({ author: null, strokes: [{ id: 'stroke-one', author: a.author, seq: 1 }] });
    for (const c of [a, b, later]) c.socket.close();
  });

  it('refuses bad input to its sender only', async () => {
    const a = await editor('1:0');
    const b = await editor('1:0');
    const bad = [
      'not json',
      JSON.stringify({ type: 'stroke', id: 'x', events: [] }),
      JSON.stringify({ type: 'stroke', id: 'bad-radius', events: [{ kind: 'paint', x: 70, z: 10, radius: 1000 }] }),
      JSON.stringify({ type: 'stroke', id: 'bad-preset', events: [{ kind: 'preset', presetId: '<script>' }] }),
      JSON.stringify({ type: 'teleport', id: 'whatever' }),
      stroke('outside', 10, 10), // cell 1:0 spans x 64–128
    ];
    for (const message of bad) a.socket.send(message);
    const reasons: string[] = [];
    for (let i = 0; i < bad.length; i++) reasons.push(((await a.next('refused')) as { reason: string }).reason);
    expect(reasons[0]).toMatch(/not JSON/);
    expect(reasons[1]).toMatch(/6–40 letters/);
    expect(reasons[2]).toMatch(/radius must be ≤ 40/);
    expect(reasons[3]).toMatch(/preset id/);
    expect(reasons[5]).toMatch(/outside cell 1:0/);
    // A good stroke after them is the only thing B ever sees.
    a.socket.send(stroke('good-after-bad', 70, 10));
    await b.next('stroke');
    expect(b.messages.map((m) => m.type)).toEqual(['snapshot', 'stroke']);
    a.socket.close();
    b.socket.close();
  });

  it('lets only the author’s session undo a stroke: a forged author, another session or none is refused', async () => {
    const a = await editor('2:0');
    const b = await editor('2:0');
    a.socket.send(stroke('mine-to-undo', 130, 10));
    await b.next('stroke');
    // Another session.
    b.socket.send(undo('mine-to-undo'));
    expect(await b.next('refused')).toMatchObject({ id: 'mine-to-undo', reason: expect.stringMatching(/only its author/) });
    // The author's id as a claim (the parameter clients used to choose): watch only.
    const claimant = await join('2:0', `author=${a.author}`);
    expect(await claimant.next('snapshot')).toMatchObject({ author: null });
    claimant.socket.send(undo('mine-to-undo'));
    expect(await claimant.next('refused')).toMatchObject({ id: 'mine-to-undo', reason: expect.stringMatching(/editing needs a session/) });
    // A forged token (right shape, wrong signature) and a mangled copy of the author's own token.
    const forged = await join('2:0', `session=${'A'.repeat(39)}`);
    const mangled = await join('2:0', `session=${a.token.slice(0, -2)}${a.token.endsWith('AA') ? 'BB' : 'AA'}`);
    for (const forger of [forged, mangled]) {
      expect(await forger.next('snapshot')).toMatchObject({ author: null });
      forger.socket.send(undo('mine-to-undo'));
      expect(await forger.next('refused')).toMatchObject({ reason: expect.stringMatching(/invalid or expired/) });
      forger.socket.send(stroke('forged-stroke', 140, 10));
      expect(await forger.next('refused')).toMatchObject({ id: 'forged-stroke' });
    }
    // The stroke stays for everyone; nobody saw an undo or the forged stroke.
    const witness = await join('2:0');
    expect(await witness.next('snapshot')).toMatchObject({ strokes: [{ id: 'mine-to-undo', author: a.author }] });
    for (const c of [a, b, claimant, forged, mangled])
      expect(c.messages.filter((m) => m.type === 'undo' || (m.type === 'stroke' && m.stroke.id !== 'mine-to-undo'))).toEqual([]);
    // The author's session, on a new socket (a reload): its undo reaches everyone.
    a.socket.close();
    const reloaded = await editor('2:0', a.token);
    expect(reloaded.author).toBe(a.author);
    reloaded.socket.send(undo('mine-to-undo'));
    expect(await b.next('undo')).toEqual({ type: 'undo', id: 'mine-to-undo' });
    expect(await witness.next('undo')).toEqual({ type: 'undo', id: 'mine-to-undo' });
    const later = await join('2:0');
    expect(await later.next('snapshot')).toMatchObject({ strokes: [] });
    for (const c of [reloaded, b, claimant, forged, mangled, witness, later]) c.socket.close();
  });

  it('budgets each session, not each socket, and bounds what a cell and an author store', async () => {
    // One session, two sockets: 12 strokes at once pass 8 (the burst) and earn one notice, not four.
    const a = await editor('3:0');
    const a2 = await editor('3:0', a.token);
    for (let i = 0; i < 12; i++) (i % 2 ? a : a2).socket.send(stroke(`burst-${i}`, 200, 10));
    await expect.poll(() => a.messages.filter((m) => m.type === 'stroke').length).toBeGreaterThanOrEqual(8);
    await sleep(300);
    expect(a.messages.filter((m) => m.type === 'stroke').length).toBeLessThanOrEqual(9);
    const notices = [...a.messages, ...a2.messages].filter((m) => m.type === 'refused');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ reason: expect.stringMatching(/too many edits/) });

    // One author's share: past MAX_AUTHOR_STROKES its strokes are refused; another author's still land.
    const share = async (): Promise<void> => {
      const one = await editor('5:0');
      let sent = 0;
      while (sent <= MAX_AUTHOR_STROKES) {
        one.socket.send(stroke(`share-${sent++}`, 330, 10, 2));
        // Inside the rate budget (a burst of 8, then 2 a second) with margin: after the burst a
        // pause banks two tokens, then 600 ms apart, so messages bunched by a loaded machine on
        // their way still pass the rate and only the author's share can refuse them.
        await sleep(sent < 8 ? 0 : sent === 8 ? 1000 : 600);
      }
      expect(await one.next('refused')).toMatchObject({
        id: `share-${MAX_AUTHOR_STROKES}`,
        reason: expect.stringMatching(/one author's limit/),
      });
      expect(one.messages.filter((m) => m.type === 'stroke')).toHaveLength(MAX_AUTHOR_STROKES);
      const other = await editor('5:0');
      other.socket.send(stroke('another-author', 330, 10, 2));
      expect(await other.next('stroke')).toMatchObject({ stroke: { id: 'another-author', author: other.author } });
      one.socket.close();
      other.socket.close();
    };

    // The cell's bound: many sessions (each within its burst) fill it, then one more is refused.
    const fill = async (): Promise<void> => {
      const perClient = 8;
      const clients = await Promise.all(Array.from({ length: MAX_CELL_STROKES / perClient }, () => editor('4:0')));
      clients.forEach((c, i) => {
        for (let k = 0; k < perClient; k++) c.socket.send(stroke(`fill-${i}-${k}`, 260, 10, 2));
      });
      const last = clients[clients.length - 1]!;
      await expect.poll(() => last.messages.filter((m) => m.type === 'stroke').length, { timeout: 30_000 }).toBe(MAX_CELL_STROKES);
      const extra = await editor('4:0');
      expect((extra.messages[0] as { strokes: unknown[] }).strokes).toHaveLength(MAX_CELL_STROKES);
      extra.socket.send(stroke('over-the-bound', 260, 10, 2));
      expect(await extra.next('refused')).toMatchObject({ id: 'over-the-bound', reason: expect.stringMatching(/256 strokes, its limit/) });
      for (const c of [...clients, extra]) c.socket.close();
    };
    await Promise.all([share(), fill()]);
    a.socket.close();
    a2.socket.close();
  });

  it('admits a join without a session to watch only, and refuses names outside the edits naming', async () => {
    const watcher = await join('6:0');
    expect(await watcher.next('snapshot')).toMatchObject({ author: null });
    watcher.socket.send(stroke('watcher-stroke', 400, 10));
    expect(await watcher.next('refused')).toMatchObject({ id: 'watcher-stroke', reason: expect.stringMatching(/editing needs a session/) });
    watcher.socket.close();
    const badName = await openSocket(wsUrl(base, '/rooms/edits/lobby'));
    expect(await closeFrame(badName)).toMatchObject({ code: 4400, reason: expect.stringMatching(/world:edits/) });
    badName.terminate();
  });
});
