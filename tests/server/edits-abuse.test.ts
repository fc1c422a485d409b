/**
 * Attacks on the shared edits cells, each beside honest clients, against real workerd: the test
 * server trusts `X-Test-Client-IP`, so clients come from the addresses the attack needs. These
 * tests keep to cells x 40–49 (z 0) and to addresses 198.51.100.x (TEST-NET-2), apart from every
 * other file's, whose budgets and throttles they would otherwise share.
 */
import { describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { CELL_CAPACITY, decodeSnapshot, strokeCost, type EditsServerMessage, type SharedStroke } from '../../src/scatter/shared-edits.ts';
import { EDITS_LIMITS } from '../../server/world/edits-limits.ts';
import { wsUrl } from '../harness/ws-client.ts';

const base = inject('serverUrl');
let nextAddress = 1;
const freshIp = (): string => `198.51.100.${nextAddress++}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sessionFrom(ip: string): Promise<string> {
  const response = await fetch(`${base}/api/session`, { method: 'POST', headers: { 'X-Test-Client-IP': ip } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

interface Client {
  socket: WebSocket;
  messages: EditsServerMessage[];
  bytes: number;
  binary: Uint8Array[];
  closed: { code: number; reason: string } | null;
}

/** A socket to cell `x:0` from `ip` (with `query`), collecting what arrives. */
function open(x: number, ip: string, query = ''): Client {
  const socket = new WebSocket(wsUrl(base, `/rooms/edits/${encodeURIComponent(`world:edits:1:${x}:0`)}${query ? `?${query}` : ''}`), {
    headers: { 'X-Test-Client-IP': ip },
  });
  const client: Client = { socket, messages: [], bytes: 0, binary: [], closed: null };
  socket.on('error', () => undefined);
  socket.on('message', (data, isBinary) => {
    const buffer = data as Buffer;
    client.bytes += buffer.byteLength;
    if (isBinary) client.binary.push(new Uint8Array(buffer));
    else client.messages.push(JSON.parse(buffer.toString()) as EditsServerMessage);
  });
  // ws reports the close frame in these fields as soon as it arrives (its `close` event waits for the TCP teardown).
  const poll = setInterval(() => {
    if (Reflect.get(socket, '_closeFrameReceived') === true || socket.readyState === WebSocket.CLOSED) {
      client.closed = { code: Number(Reflect.get(socket, '_closeCode')), reason: String(Reflect.get(socket, '_closeMessage')) };
      clearInterval(poll);
    }
  }, 20);
  return client;
}

/** Resolves once the client has its snapshot ('in') or was refused (its close). */
async function admission(client: Client): Promise<'in' | { code: number; reason: string }> {
  for (let waited = 0; waited < 15_000; waited += 20) {
    if (client.messages.some((m) => m.type === 'snapshot') || client.binary.length > 0) return 'in';
    if (client.closed) return client.closed;
    await sleep(20);
  }
  throw new Error('neither admitted nor refused within 15 s');
}

const strokesOf = (client: Client) =>
  client.messages.filter((m): m is Extract<EditsServerMessage, { type: 'stroke' }> => m.type === 'stroke').map((m) => m.stroke);

/** A stroke in cell `x:0`: `dabs` dabs of radius `radius` along a row. */
function stroke(id: string, cellX: number, dabs: number, radius: number, row = 0): string {
  const x0 = cellX * 64 + 8;
  const events: object[] = [
    { kind: 'preset', presetId: 'meadow' },
    { kind: 'reseed', seed: 7 },
  ];
  for (let i = 0; i < dabs; i++) events.push({ kind: 'paint', x: x0 + (i % 48), z: 8 + row * 4 + Math.floor(i / 48) * 2, radius });
  return JSON.stringify({ type: 'stroke', id, events });
}

describe('abuse: shared edits storage and joins (real workerd)', () => {
  it('an honest visitor can always paint in a cell a griefer filled from one address with eight sessions, and its strokes stay', async () => {
    const CELL = 40;
    const griefIp = freshIp();
    const griefers = await Promise.all(Array.from({ length: 8 }, async () => open(CELL, griefIp, `session=${await sessionFrom(griefIp)}`)));
    for (const g of griefers) expect(await admission(g)).toBe('in');
    // Each session's burst: 8 strokes of 12 dabs of 40 m (about 61,000 m² each, so three fill the cell).
    let n = 0;
    griefers.forEach((g) => {
      for (let k = 0; k < 8; k++) g.socket.send(stroke(`grief-${n++}`, CELL, 12, 40));
    });
    const witness = griefers[0]!;
    await expect.poll(() => strokesOf(witness).length, { timeout: 20_000 }).toBe(64);
    const evictions = () => witness.messages.filter((m) => m.type === 'evicted');
    expect(evictions().length).toBeGreaterThanOrEqual(60); // the cell kept only what fits: the griefer's own newest

    // The honest visitor, from its own address, paints while the griefer keeps going (its eight sessions at their rate).
    const honestIp = freshIp();
    const honest = open(CELL, honestIp, `session=${await sessionFrom(honestIp)}`);
    expect(await admission(honest)).toBe('in');
    const honestIds: string[] = [];
    const start = Date.now();
    let round = 0;
    while (Date.now() - start < 6000) {
      for (const g of griefers) g.socket.send(stroke(`grief-${n++}`, CELL, 12, 40));
      if (round++ % 2 === 0) {
        const id = `honest-${honestIds.length}`;
        honestIds.push(id);
        honest.socket.send(stroke(id, CELL, 20, 4, honestIds.length));
      }
      await sleep(600);
    }
    // Every honest stroke was stored, none refused, none evicted.
    await expect.poll(() => strokesOf(honest).filter((s) => honestIds.includes(s.id)).length, { timeout: 15_000 }).toBe(honestIds.length);
    expect(honest.messages.filter((m) => m.type === 'refused')).toEqual([]);
    expect(honest.messages.filter((m) => m.type === 'evicted' && honestIds.includes(m.id))).toEqual([]);
    // A later visitor's snapshot has them all, and the cell is within its bound.
    const later = open(CELL, freshIp(), 'format=binary');
    expect(await admission(later)).toBe('in');
    const stored: SharedStroke[] = decodeSnapshot(later.binary[0]!);
    expect(honestIds.every((id) => stored.some((s) => s.id === id))).toBe(true);
    const cost = stored.reduce((sum, s) => sum + strokeCost(s.events), 0);
    expect(cost).toBeLessThanOrEqual(CELL_CAPACITY);
    const griefCost = stored.filter((s) => s.id.startsWith('grief')).reduce((sum, s) => sum + strokeCost(s.events), 0);
    console.log(
      `shared edits, one address with 8 sessions filling a cell: ${n} strokes sent, ${evictions().length} evicted; ` +
        `the honest visitor's ${honestIds.length} strokes all stored; the cell holds ${Math.round(cost)} m² (griefer ${Math.round(griefCost)})`,
    );
    for (const c of [...griefers, honest, later]) c.socket.terminate();
  });

  it('holds eight watchers of one address rejoining a full cell to the join budget, while an honest painter’s strokes keep arriving', async () => {
    const CELL = 42;
    // Fill the cell with as many dabs as it holds (tiny ones: the most bytes per join): 8 sessions × 8 strokes × 94 dabs.
    const fillIp = freshIp();
    const fillers = await Promise.all(Array.from({ length: 8 }, async () => open(CELL, fillIp, `session=${await sessionFrom(fillIp)}`)));
    for (const f of fillers) expect(await admission(f)).toBe('in');
    let n = 0;
    fillers.forEach((f) => {
      for (let k = 0; k < 8; k++) f.socket.send(stroke(`fill-${n++}`, CELL, 94, 0.25, k));
    });
    await expect.poll(() => strokesOf(fillers[0]!).length, { timeout: 20_000 }).toBe(64);
    for (const f of fillers) f.socket.terminate();
    const probe = open(CELL, freshIp());
    expect(await admission(probe)).toBe('in');
    const snapshotBytes = probe.bytes;
    probe.socket.terminate();

    const honestIp = freshIp();
    const honest = open(CELL, honestIp, `session=${await sessionFrom(honestIp)}`);
    expect(await admission(honest)).toBe('in');
    // Eight session-less watchers from one address, each joining again as soon as its snapshot lands (the JSON one: the biggest).
    const watchIp = freshIp();
    let running = true;
    const pulled = { joins: 0, refused: 0, bytes: 0 };
    const started = Date.now();
    const loops = Array.from({ length: 8 }, async () => {
      while (running) {
        const watcher = open(CELL, watchIp);
        const outcome = await admission(watcher);
        pulled.bytes += watcher.bytes;
        if (outcome === 'in') pulled.joins++;
        else {
          pulled.refused++;
          expect(outcome).toMatchObject({ code: 4029, reason: expect.stringMatching(/too many joins/) });
        }
        watcher.socket.terminate();
      }
    });
    const honestIds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const id = `honest-watched-${i}`;
      honestIds.push(id);
      honest.socket.send(stroke(id, CELL, 3, 2, 12));
      await sleep(700);
    }
    running = false;
    await Promise.all(loops);
    const seconds = (Date.now() - started) / 1000;
    await expect.poll(() => strokesOf(honest).filter((s) => honestIds.includes(s.id)).length, { timeout: 15_000 }).toBe(8);
    // The address's eight clients' worth of join budget (eight times one client's), and no more.
    const { burst, ratePerSecond } = EDITS_LIMITS.join;
    const allowed = 8 * (burst + ratePerSecond * seconds) * 1024;
    console.log(
      `shared edits, 8 watchers of one address on a full cell (${(snapshotBytes / 1024).toFixed(0)} KB JSON): ` +
        `${pulled.joins} joins, ${pulled.refused} refused, ${(pulled.bytes / 1024 / 1024).toFixed(1)} MB in ${seconds.toFixed(1)} s ` +
        `(budget ${(allowed / 1024 / 1024).toFixed(1)} MB)`,
    );
    expect(pulled.refused).toBeGreaterThan(0);
    expect(pulled.bytes).toBeLessThanOrEqual(allowed + 8 * snapshotBytes);
    // Meanwhile a visitor from another address still joins at once.
    const other = open(CELL, freshIp());
    expect(await admission(other)).toBe('in');
    for (const c of [honest, other]) c.socket.terminate();
  });
});
