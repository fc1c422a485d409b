/**
 * What a join of a full edits cell costs, against real workerd: bytes per join (the JSON snapshot
 * every tool gets, and the binary one the world page asks for), and an honest painter's round trip
 * (stroke sent → its echo back) while eight watchers from one address join the full cell over and
 * over, against the same round trip with nobody else there, measured in the same run (quiet and
 * busy phases interleaved).
 *
 * The cell is filled as a griefer would: sessions from many addresses send strokes of 94 dabs
 * (radius 4 m) until the cell keeps no more. Env: SCATTER_BENCH_EDIT_ROUNDS (pairs of phases,
 * default 2), SCATTER_BENCH_EDIT_SAMPLES (round trips per phase, default 16).
 */
import WebSocket from 'ws';
import { percentile } from '../lib/measure.ts';
import { recordTable } from '../lib/record.ts';
import { startServer } from '../../tests/harness/server.ts';

const ROUNDS = Number(process.env.SCATTER_BENCH_EDIT_ROUNDS ?? 2);
const SAMPLES = Number(process.env.SCATTER_BENCH_EDIT_SAMPLES ?? 16);
const WATCHERS = 8;
const SEED = 1;

const progress = (what: string) => process.stderr.write(`[edits-joins] ${what}\n`);
const server = await startServer();
progress('server up');
const base = server.url;
const ws = (path: string) => base.replace(/^http/, 'ws') + path;
const room = (cell: string) => `/rooms/edits/${encodeURIComponent(`world:edits:${SEED}:${cell}`)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let address = 1;
const freshIp = () => `198.51.100.${address++}`;

async function sessionFrom(ip: string): Promise<string> {
  const response = await fetch(`${base}/api/session`, { method: 'POST', headers: { 'X-Test-Client-IP': ip } });
  if (!response.ok) throw new Error(`session: ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}

/** Opens a socket; a handshake that hangs (seen in wrangler dev on a loaded machine) is given up after 20 s and tried again. */
async function open(url: string, ip: string): Promise<WebSocket> {
  for (let attempt = 1; ; attempt++) {
    const socket = new WebSocket(url, { headers: { 'X-Test-Client-IP': ip } });
    socket.on('error', () => undefined);
    const opened = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 20_000);
      socket.once('open', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (opened) return socket;
    socket.terminate();
    progress(`a handshake hung for 20 s (attempt ${attempt}): ${url.slice(0, 80)}…`);
    if (attempt === 3) throw new Error(`not open after 3 tries: ${url}`);
  }
}

/** A stroke of `dabs` dabs along x in cell 0:0 (or the cell of x0; quantised to 1/64 m, as the brush sends them). */
function stroke(id: string, dabs: number, radius: number, x0 = 8, z = 8): string {
  const events: object[] = [
    { kind: 'preset', presetId: 'meadow' },
    { kind: 'reseed', seed: 7 },
  ];
  for (let i = 0; i < dabs; i++) events.push({ kind: 'paint', x: x0 + (i % 47) + 0.5, z: z + Math.floor(i / 47) * 20 + 0.25, radius });
  return JSON.stringify({ type: 'stroke', id, events });
}

/** Bytes and ms of one join: until the snapshot (JSON) or the binary snapshot has arrived. */
async function joinOnce(format: 'json' | 'binary', ip: string, cell = '0:0'): Promise<{ bytes: number; ms: number; refused: boolean }> {
  const start = performance.now();
  const socket = new WebSocket(ws(room(cell) + (format === 'binary' ? '?format=binary' : '')), { headers: { 'X-Test-Client-IP': ip } });
  return new Promise((resolve) => {
    let bytes = 0;
    let finished = false;
    const done = (refused: boolean) => {
      if (finished) return;
      finished = true;
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      resolve({ bytes, ms: performance.now() - start, refused });
    };
    socket.on('message', (data, isBinary) => {
      const buffer = data as Buffer;
      bytes += buffer.byteLength;
      if (isBinary) return done(false);
      const message = JSON.parse(buffer.toString()) as { type: string };
      if (message.type === 'snapshot') done(false);
    });
    socket.on('close', () => done(true));
    socket.on('error', () => done(true));
    // A handshake that hangs counts as refused (the loop goes on).
    setTimeout(() => done(true), 10_000);
  });
}

// Fill: 32 sessions from 32 addresses, 8 strokes each (inside each one's burst).
const fillers = await Promise.all(
  Array.from({ length: 32 }, async () => {
    const ip = freshIp();
    return open(ws(`${room('0:0')}?session=${await sessionFrom(ip)}`), ip);
  }),
);
progress('fillers open');
fillers.forEach((socket, s) => {
  for (let k = 0; k < 8; k++) socket.send(stroke(`fill-${s}-${k}`, 94, 4));
});
// The most bytes a cell can hold: dabs of 0.25 m (cell 1:0), from another 32 sessions.
let opened = 0;
const tinyFillers = await Promise.all(
  Array.from({ length: 32 }, async () => {
    const ip = freshIp();
    const token = await sessionFrom(ip);
    const socket = await open(ws(`${room('1:0')}?session=${token}`), ip);
    if (++opened % 8 === 0) progress(`${opened} open in cell 1:0`);
    return socket;
  }),
);
tinyFillers.forEach((socket, s) => {
  for (let k = 0; k < 8; k++) socket.send(stroke(`tiny-${s}-${k}`, 94, 0.25, 72, 8));
});
progress('filling');
await sleep(8000);
for (const socket of [...fillers, ...tinyFillers]) socket.close();
progress('filled');
const tinyJson = await joinOnce('json', freshIp(), '1:0');
const tinyBinary = await joinOnce('binary', freshIp(), '1:0');

const jsonJoin = await joinOnce('json', freshIp());
const binaryJoin = await joinOnce('binary', freshIp());
const jsonText = await new Promise<string>((resolve, reject) => {
  const socket = new WebSocket(ws(room('0:0')), { headers: { 'X-Test-Client-IP': freshIp() } });
  socket.once('message', (data) => {
    resolve(String(data));
    socket.terminate();
  });
  setTimeout(() => reject(new Error('no snapshot within 30 s')), 30_000);
});
const snapshot = JSON.parse(jsonText) as { strokes: Array<{ events: unknown[] }> };
const dabs = snapshot.strokes.reduce((n, s) => n + s.events.length - 2, 0);
console.log(`full cell: ${snapshot.strokes.length} strokes, ${dabs} dabs`);

// The honest painter: its own session and address; strokes 600 ms apart (inside 2 a second).
const honestIp = freshIp();
const honest = await open(ws(`${room('0:0')}?session=${await sessionFrom(honestIp)}`), honestIp);
const echoes = new Map<string, () => void>();
honest.on('message', (data, isBinary) => {
  if (isBinary) return;
  const message = JSON.parse(String(data)) as { type: string; stroke?: { id: string }; id?: string | null; reason?: string };
  if (message.type === 'stroke' && message.stroke) echoes.get(message.stroke.id)?.();
  if (message.type === 'refused' && message.id) echoes.get(message.id)?.();
});
let sent = 0;
async function roundTrips(count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const id = `honest-${sent++}`;
    const start = performance.now();
    const echoed = new Promise<void>((resolve) => echoes.set(id, resolve));
    honest.send(stroke(id, 3, 2, 30, 40));
    await Promise.race([echoed, sleep(10_000)]);
    times.push(performance.now() - start);
    echoes.delete(id);
    await sleep(600);
  }
  return times;
}

/** Eight watchers from one address, each joining the full cell again as soon as its snapshot lands. */
function watchers(): { stop(): Promise<{ joins: number; refused: number; bytes: number; ms: number }> } {
  const ip = freshIp();
  let running = true;
  const totals = { joins: 0, refused: 0, bytes: 0 };
  const start = performance.now();
  const loops = Array.from({ length: WATCHERS }, async () => {
    while (running) {
      const join = await joinOnce('json', ip);
      totals.bytes += join.bytes;
      if (join.refused) totals.refused++;
      else totals.joins++;
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return { ...totals, ms: performance.now() - start };
    },
  };
}

const quiet: number[] = [];
const busy: number[] = [];
const pulled = { joins: 0, refused: 0, bytes: 0, ms: 0 };
progress('measuring');
await roundTrips(2); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  quiet.push(...(await roundTrips(SAMPLES)));
  const load = watchers();
  await sleep(1000);
  busy.push(...(await roundTrips(SAMPLES)));
  const got = await load.stop();
  progress(`round ${round + 1} of ${ROUNDS}`);
  for (const key of ['joins', 'refused', 'bytes', 'ms'] as const) pulled[key] += got[key];
}
honest.close();
await server.stop();

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const p50q = percentile(quiet, 50);
const p50b = percentile(busy, 50);
const table = {
  title: `edits cell joins: a full cell (${snapshot.strokes.length} strokes, ${dabs} dabs), ${WATCHERS} watchers from one address`,
  columns: ['figure', 'value', 'vs quiet'],
  rows: [
    ['bytes per join, JSON snapshot', kb(jsonJoin.bytes), ''],
    ['bytes per join, binary snapshot (?format=binary)', kb(binaryJoin.bytes), ''],
    ['join to snapshot, JSON', `${jsonJoin.ms.toFixed(0)} ms`, ''],
    ['bytes per join, the fullest cell (0.25 m dabs), JSON / binary', `${kb(tinyJson.bytes)} / ${kb(tinyBinary.bytes)}`, ''],
    ['honest round trip p50, quiet', `${p50q.toFixed(0)} ms`, '× 1.00'],
    ['honest round trip p50, 8 watchers', `${p50b.toFixed(0)} ms`, `× ${(p50b / p50q).toFixed(2)}`],
    ['honest round trip p95, quiet / 8 watchers', `${percentile(quiet, 95).toFixed(0)} / ${percentile(busy, 95).toFixed(0)} ms`, ''],
    [
      'watchers pulled',
      `${(pulled.bytes / 1024 / 1024).toFixed(1)} MB in ${(pulled.ms / 1000).toFixed(0)} s (${pulled.joins} joins, ${pulled.refused} refused)`,
      '',
    ],
  ],
};
console.log(`\n## ${table.title}`);
console.log(`| ${table.columns.join(' | ')} |\n|${table.columns.map(() => '---').join('|')}|`);
for (const row of table.rows) console.log(`| ${row.join(' | ')} |`);
recordTable(table);
