import { describe, expect, inject, it } from 'vitest';
import type WebSocket from 'ws';
import { MAX_CELL_STROKES, type EditsServerMessage } from '../../src/scatter/shared-edits.ts';
import { closed, openSocket, wsUrl } from '../harness/ws-client.ts';

const base = inject('serverUrl');
// Durable storage outlives a run of wrangler dev: a fresh world seed per run.
const seed = Math.floor(Math.random() * 1e9);

interface Client {
  socket: WebSocket;
  messages: EditsServerMessage[];
  next(type: EditsServerMessage['type']): Promise<EditsServerMessage>;
}

async function join(cell: string, author: string): Promise<Client> {
  const socket = await openSocket(wsUrl(base, `/rooms/edits/${encodeURIComponent(`world:edits:${seed}:${cell}`)}?author=${author}`));
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

const stroke = (id: string, x = 10, z = 10, radius = 5) => JSON.stringify({ type: 'stroke', id, events: [{ kind: 'preset', presetId: 'meadow' }, { kind: 'reseed', seed: 7 }, { kind: 'paint', x, z, radius }] });

describe('world edits cell (real workerd)', () => {
  it('stores strokes, relays them to everyone and replays them to a later visitor', async () => {
    const a = await join('0:0', 'author-a');
    const b = await join('0:0', 'author-b');
    expect(await a.next('snapshot')).toEqual({ type: 'snapshot', cell: { x: 0, z: 0 }, strokes: [] });
    await b.next('snapshot');
    a.socket.send(stroke('stroke-one'));
    const toA = await a.next('stroke');
    const toB = await b.next('stroke');
    expect(toA).toEqual(toB);
    expect(toB).toMatchObject({ stroke: { id: 'stroke-one', author: 'author-a', seq: 1, events: [{ kind: 'preset' }, { kind: 'reseed' }, { kind: 'paint', x: 10, z: 10, radius: 5 }] } });
    const later = await join('0:0', 'author-c');
    expect(await later.next('snapshot')).toMatchObject({ strokes: [{ id: 'stroke-one', seq: 1 }] });
    for (const c of [a, b, later]) c.socket.close();
  });

  it('refuses bad input to its sender only', async () => {
    const a = await join('1:0', 'author-a');
    const b = await join('1:0', 'author-b');
    await a.next('snapshot');
    await b.next('snapshot');
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

  it('lets only the author undo a stroke, for everyone and for later visitors', async () => {
    const a = await join('2:0', 'author-a');
    const b = await join('2:0', 'author-b');
    await a.next('snapshot');
    await b.next('snapshot');
    a.socket.send(stroke('mine-to-undo', 130, 10));
    await b.next('stroke');
    b.socket.send(JSON.stringify({ type: 'undo', id: 'mine-to-undo' }));
    expect(await b.next('refused')).toMatchObject({ id: 'mine-to-undo', reason: expect.stringMatching(/only its author/) });
    a.socket.send(JSON.stringify({ type: 'undo', id: 'mine-to-undo' }));
    expect(await b.next('undo')).toEqual({ type: 'undo', id: 'mine-to-undo' });
    const later = await join('2:0', 'author-c');
    expect(await later.next('snapshot')).toMatchObject({ strokes: [] });
    for (const c of [a, b, later]) c.socket.close();
  });

  it('budgets each client and bounds what a cell stores', async () => {
    const a = await join('3:0', 'author-a');
    await a.next('snapshot');
    for (let i = 0; i < 12; i++) a.socket.send(stroke(`burst-${i}`, 200, 10));
    expect(await a.next('refused')).toMatchObject({ reason: expect.stringMatching(/too many edits/) });
    a.socket.close();

    // Fill a cell to its bound with many clients (each within its burst), then one more.
    const perClient = 8;
    const clients = await Promise.all(Array.from({ length: MAX_CELL_STROKES / perClient }, (_, i) => join('4:0', `filler-${i}`)));
    for (const c of clients) await c.next('snapshot');
    clients.forEach((c, i) => {
      for (let k = 0; k < perClient; k++) c.socket.send(stroke(`fill-${i}-${k}`, 260, 10, 2));
    });
    const last = clients[clients.length - 1]!;
    await expect.poll(() => last.messages.filter((m) => m.type === 'stroke').length, { timeout: 30_000 }).toBe(MAX_CELL_STROKES);
    const extra = await join('4:0', 'one-more');
    expect(((await extra.next('snapshot')) as { strokes: unknown[] }).strokes).toHaveLength(MAX_CELL_STROKES);
    extra.socket.send(stroke('over-the-bound', 260, 10, 2));
    expect(await extra.next('refused')).toMatchObject({ id: 'over-the-bound', reason: expect.stringMatching(/limit/) });
    for (const c of [...clients, extra]) c.socket.close();
  });

  it('refuses a join without an author or outside the edits naming', async () => {
    const noAuthor = await openSocket(wsUrl(base, `/rooms/edits/${encodeURIComponent(`world:edits:${seed}:0:0`)}`));
    expect(await closed(noAuthor)).toMatchObject({ code: 4400, reason: expect.stringMatching(/author/) });
    const badName = await openSocket(wsUrl(base, '/rooms/edits/lobby?author=someone'));
    expect(await closed(badName)).toMatchObject({ code: 4400, reason: expect.stringMatching(/world:edits/) });
  });
});
