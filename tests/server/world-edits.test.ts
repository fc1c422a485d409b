import { afterAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { Emitter } from '../../src/core/emitter.ts';
import type { WebSocketConstructor } from '../../src/core/reconnecting-socket.ts';
import type { BrushToolEvents } from '../../src/scatter/brush-tool.ts';
import { ScatterLayer } from '../../src/scatter/scatter-layer.ts';
import { decodeSnapshot, type EditsServerMessage, type SharedStroke } from '../../src/scatter/shared-edits.ts';
import { SharedScatter } from '../../src/scatter/shared-scatter.ts';
import { generateTerrain } from '../../src/world/terrain/generate.ts';
import { wsUrl } from '../harness/ws-client.ts';

const base = inject('serverUrl');
// The test server's map reaches ±4,160 m (65 cells each way): these tests keep to cells x 20–29 (z 20,
// and z 0 where the page's side needs ground above the sea), apart from every other file's. A fresh server per run starts with empty storage.
const SEED = 1;

interface Client {
  socket: WebSocket;
  messages: EditsServerMessage[];
  binary: Uint8Array[];
  /** Keep-alive answers (`pong`) received. */
  pongs: number;
  next(type: EditsServerMessage['type']): Promise<EditsServerMessage>;
}

/** A session token from `POST /api/session` (the test server's loopback address is not throttled). */
async function newSession(): Promise<string> {
  const response = await fetch(`${base}/api/session`, { method: 'POST' });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

const roomUrl = (cell: string, query = '') =>
  wsUrl(base, `/rooms/edits/${encodeURIComponent(`world:edits:${SEED}:${cell}`)}${query ? `?${query}` : ''}`);

/** Opens a socket to `url` and collects what arrives (it may be refused: see {@link closeFrame}). */
function connect(url: string, headers: Record<string, string> = {}): Client {
  const socket = new WebSocket(url, { headers });
  const messages: EditsServerMessage[] = [];
  const binary: Uint8Array[] = [];
  let read = 0;
  const waiters: Array<() => void> = [];
  socket.on('error', () => undefined);
  const client = { pongs: 0 };
  socket.on('message', (data, isBinary) => {
    if (isBinary) binary.push(new Uint8Array(data as Buffer));
    else if (String(data) === 'pong') client.pongs++;
    else messages.push(JSON.parse(String(data)) as EditsServerMessage);
    for (const wake of waiters.splice(0)) wake();
  });
  return Object.assign(client, {
    socket,
    messages,
    binary,
    async next(type: EditsServerMessage['type']) {
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
  });
}

/** Joins a cell with `query` (`session=…`, or anything a forger tries; empty: watch only). */
function join(cell: string, query = ''): Client {
  return connect(roomUrl(cell, query));
}

/** Joins with a session of its own and returns the client and its author id (from the snapshot). */
async function editor(cell: string, token?: string): Promise<Client & { author: string; token: string }> {
  const session = token ?? (await newSession());
  const client = join(cell, `session=${session}`);
  const snapshot = (await client.next('snapshot')) as Extract<EditsServerMessage, { type: 'snapshot' }>;
  expect(snapshot.author).toMatch(/^[0-9a-f]{16}$/);
  return Object.assign(client, { author: snapshot.author!, token: session });
}

/** A stroke of dabs at the given points (radius 5 unless given). */
const stroke = (id: string, ...dabs: Array<[number, number, number?]>) =>
  JSON.stringify({
    type: 'stroke',
    id,
    events: [
      { kind: 'preset', presetId: 'meadow' },
      { kind: 'reseed', seed: 7 },
      ...dabs.map(([x, z, radius]) => ({ kind: 'paint', x, z, radius: radius ?? 5 })),
    ],
  });
const undo = (id: string) => JSON.stringify({ type: 'undo', id });
const strokesOf = (client: Client) =>
  client.messages.filter((m): m is Extract<EditsServerMessage, { type: 'stroke' }> => m.type === 'stroke').map((m) => m.stroke);

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
  it('stores strokes under the session’s id, relays them to everyone and replays them to a later watcher, as JSON or binary', async () => {
    const a = await editor('20:20');
    const b = await editor('20:20');
    expect(a.messages[0]).toEqual({ type: 'snapshot', cell: { x: 20, z: 20 }, author: a.author, strokes: [] });
    expect(b.author).not.toBe(a.author);
    // 1,290.3 m is off the 1/64 m grid: it is stored (and relayed) snapped.
    a.socket.send(stroke('stroke-one', [1290.3, 1290, 5], [1300, 1292.5, 4.001]));
    const toA = await a.next('stroke');
    const toB = await b.next('stroke');
    expect(toA).toEqual(toB);
    expect(toB).toMatchObject({
      stroke: {
        id: 'stroke-one',
        author: a.author,
        seq: 1,
        events: [
          { kind: 'preset' },
          { kind: 'reseed' },
          { kind: 'paint', x: 1290.296875, z: 1290, radius: 5 },
          { kind: 'paint', x: 1300, z: 1292.5, radius: 4 },
        ],
      },
    });
    expect((toB as { stroke: SharedStroke }).stroke.at).toBeGreaterThan(Date.now() - 60_000);
    // No session: admitted to watch (author null), with every stroke.
    const later = join('20:20');
    const snapshot = (await later.next('snapshot')) as Extract<EditsServerMessage, { type: 'snapshot' }>;
    expect(snapshot).toMatchObject({ author: null, strokes: [{ id: 'stroke-one', author: a.author, seq: 1 }] });
    // The binary snapshot holds the same strokes, in a fifth of the bytes or less.
    const binary = join('20:20', 'format=binary');
    expect(await binary.next('joined')).toMatchObject({ type: 'joined', cell: { x: 20, z: 20 }, author: null, strokes: 1 });
    await expect.poll(() => binary.binary.length).toBe(1);
    expect(decodeSnapshot(binary.binary[0]!)).toEqual(snapshot.strokes);
    // The runtime answers the keep-alive (what ReconnectingSocket sends).
    later.socket.send('ping');
    await expect.poll(() => later.pongs).toBe(1);
    expect(later.messages.map((m) => m.type)).toEqual(['snapshot']);
    for (const c of [a, b, later, binary]) c.socket.close();
  });

  it('refuses bad input to its sender only', async () => {
    const a = await editor('21:20');
    const b = await editor('21:20');
    const bad = [
      'not json',
      JSON.stringify({ type: 'stroke', id: 'x', events: [] }),
      JSON.stringify({ type: 'stroke', id: 'bad-radius', events: [{ kind: 'paint', x: 1350, z: 1290, radius: 1000 }] }),
      JSON.stringify({ type: 'stroke', id: 'bad-preset', events: [{ kind: 'preset', presetId: '<script>' }] }),
      JSON.stringify({ type: 'teleport', id: 'whatever' }),
      stroke('outside', [10, 10]), // cell 21:20 spans x 1344–1408
      stroke('too-wide', [1350, 1290, 2], [1350 + 200, 1290, 2]), // reaches 4 cells across
      stroke('too-dear', ...Array.from({ length: 20 }, (_, i) => [1350 + i, 1300, 40] as [number, number, number])), // 20 × 5,043 m²
      JSON.stringify({ type: 'stroke', id: 'no-dabs', events: [{ kind: 'preset', presetId: 'meadow' }] }),
    ];
    for (const message of bad) a.socket.send(message);
    const reasons: string[] = [];
    for (let i = 0; i < 8; i++) reasons.push(((await a.next('refused')) as { reason: string }).reason);
    await sleep(1200); // past the burst of 8: the ninth costs a second of budget
    reasons.push(((await a.next('refused')) as { reason: string }).reason);
    expect(reasons[0]).toMatch(/not JSON/);
    expect(reasons[1]).toMatch(/6–40 letters/);
    expect(reasons[2]).toMatch(/radius must be ≤ 40/);
    expect(reasons[3]).toMatch(/preset id/);
    expect(reasons[5]).toMatch(/outside cell 21:20/);
    expect(reasons[6]).toMatch(/reaches 4 cells across; at most 3/);
    expect(reasons[7]).toMatch(/costs \d+ m² of painted ground; at most 65536/);
    expect(reasons.slice(8).join()).toMatch(/too many edits|needs a paint or erase/);
    // A good stroke after them is the only thing B ever sees.
    await sleep(1000);
    a.socket.send(stroke('good-after-bad', [1350, 1290]));
    await b.next('stroke');
    expect(b.messages.map((m) => m.type)).toEqual(['snapshot', 'stroke']);
    a.socket.close();
    b.socket.close();
  });

  it('lets only the author’s session undo a stroke: a forged author, another session or none is refused', async () => {
    const a = await editor('22:20');
    const b = await editor('22:20');
    a.socket.send(stroke('mine-to-undo', [1420, 1290]));
    await b.next('stroke');
    // Another session.
    b.socket.send(undo('mine-to-undo'));
    expect(await b.next('refused')).toMatchObject({ id: 'mine-to-undo', reason: expect.stringMatching(/only its author/) });
    // The author's id as a claim (the parameter clients used to choose): watch only.
    const claimant = join('22:20', `author=${a.author}`);
    expect(await claimant.next('snapshot')).toMatchObject({ author: null });
    claimant.socket.send(undo('mine-to-undo'));
    expect(await claimant.next('refused')).toMatchObject({ id: 'mine-to-undo', reason: expect.stringMatching(/editing needs a session/) });
    // A forged token (right shape, wrong signature) and a mangled copy of the author's own token.
    const forged = join('22:20', `session=${'A'.repeat(39)}`);
    const mangled = join('22:20', `session=${a.token.slice(0, -2)}${a.token.endsWith('AA') ? 'BB' : 'AA'}`);
    for (const forger of [forged, mangled]) {
      expect(await forger.next('snapshot')).toMatchObject({ author: null });
      forger.socket.send(undo('mine-to-undo'));
      expect(await forger.next('refused')).toMatchObject({ reason: expect.stringMatching(/invalid or expired/) });
      forger.socket.send(stroke('forged-stroke', [1430, 1290]));
      expect(await forger.next('refused')).toMatchObject({ id: 'forged-stroke' });
    }
    // The stroke stays for everyone; nobody saw an undo or the forged stroke.
    const witness = join('22:20');
    expect(await witness.next('snapshot')).toMatchObject({ strokes: [{ id: 'mine-to-undo', author: a.author }] });
    for (const c of [a, b, claimant, forged, mangled])
      expect(c.messages.filter((m) => m.type === 'undo' || (m.type === 'stroke' && m.stroke.id !== 'mine-to-undo'))).toEqual([]);
    // The author's session, on a new socket (a reload): its undo reaches everyone.
    a.socket.close();
    const reloaded = await editor('22:20', a.token);
    expect(reloaded.author).toBe(a.author);
    reloaded.socket.send(undo('mine-to-undo'));
    expect(await b.next('undo')).toEqual({ type: 'undo', id: 'mine-to-undo' });
    expect(await witness.next('undo')).toEqual({ type: 'undo', id: 'mine-to-undo' });
    const later = join('22:20');
    expect(await later.next('snapshot')).toMatchObject({ strokes: [] });
    // Sent again after the undo (a stale resend): refused, not stored anew.
    reloaded.socket.send(stroke('mine-to-undo', [1420, 1290]));
    expect(await reloaded.next('refused')).toMatchObject({ id: 'mine-to-undo', reason: expect.stringMatching(/was undone or evicted/) });
    for (const c of [reloaded, b, claimant, forged, mangled, witness, later]) c.socket.close();
  });

  it('stores a stroke across a cell border in both cells under one id, and one undo removes it from both', async () => {
    // Cells 23:20 and 24:20 meet at x = 1,536.
    const left = await editor('23:20');
    const right = join('24:20');
    await right.next('snapshot');
    // A stroke already in the right cell first, so the two cells number the crossing stroke differently.
    const other = await editor('24:20');
    other.socket.send(stroke('right-first', [1560, 1300]));
    await right.next('stroke');
    left.socket.send(stroke('across-1536', [1525, 1300], [1531, 1300], [1537, 1300], [1543, 1300]));
    const inLeft = ((await left.next('stroke')) as { stroke: SharedStroke }).stroke;
    const inRight = ((await right.next('stroke')) as { stroke: SharedStroke }).stroke;
    expect(inLeft).toMatchObject({ id: 'across-1536', author: left.author, seq: 1 });
    expect(inRight).toMatchObject({ id: 'across-1536', author: left.author, seq: 2, at: inLeft.at, events: inLeft.events });
    // A stroke that starts in the right cell goes there: the left cell refuses it.
    left.socket.send(stroke('starts-right', [1540, 1300], [1530, 1300]));
    expect(await left.next('refused')).toMatchObject({ id: 'starts-right', reason: expect.stringMatching(/outside cell 23:20/) });
    // One undo, sent to the cell that is not its home: gone from both.
    const leftWatcher = join('23:20');
    await leftWatcher.next('snapshot');
    const author = await editor('24:20', left.token);
    author.socket.send(undo('across-1536'));
    expect(await right.next('undo')).toEqual({ type: 'undo', id: 'across-1536' });
    expect(await leftWatcher.next('undo')).toEqual({ type: 'undo', id: 'across-1536' });
    const [l, r] = [join('23:20'), join('24:20')];
    expect(((await l.next('snapshot')) as { strokes: SharedStroke[] }).strokes).toEqual([]);
    expect(((await r.next('snapshot')) as { strokes: SharedStroke[] }).strokes.map((s) => s.id)).toEqual(['right-first']);
    for (const c of [left, right, other, leftWatcher, author, l, r]) c.socket.close();
  });

  it('budgets each session, not each socket', async () => {
    // One session, two sockets: 12 strokes at once pass 8 (the burst) and earn one notice, not four.
    const a = await editor('25:20');
    const a2 = await editor('25:20', a.token);
    for (let i = 0; i < 12; i++) (i % 2 ? a : a2).socket.send(stroke(`burst-${i}`, [1610, 1290, 2]));
    await expect.poll(() => strokesOf(a).length).toBeGreaterThanOrEqual(8);
    await sleep(300);
    expect(strokesOf(a).length).toBeLessThanOrEqual(9);
    const notices = [...a.messages, ...a2.messages].filter((m) => m.type === 'refused');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ reason: expect.stringMatching(/too many edits/) });
    a.socket.close();
    a2.socket.close();
  });

  it('admits a join without a session to watch only, and refuses names outside the edits naming and cells of worlds that do not exist', async () => {
    const watcher = join('26:20');
    expect(await watcher.next('snapshot')).toMatchObject({ author: null });
    watcher.socket.send(stroke('watcher-stroke', [1670, 1290]));
    expect(await watcher.next('refused')).toMatchObject({ id: 'watcher-stroke', reason: expect.stringMatching(/editing needs a session/) });
    watcher.socket.close();
    for (const [name, code, reason] of [
      ['lobby', 4400, /world:edits/],
      ['world:edits:1:03:0', 4400, /world:edits/],
      ['world:edits:4294967295:0:0', 4404, /no world has seed 4294967295/],
      ['world:edits:2:0:0', 4404, /no world has seed 2/],
      ['world:edits:1:9999:0', 4404, /off the map/],
      ['world:edits:1:0:-66', 4404, /off the map/],
    ] as const) {
      const socket = connect(wsUrl(base, `/rooms/edits/${encodeURIComponent(name)}`)).socket;
      expect(await closeFrame(socket), name).toMatchObject({ code, reason: expect.stringMatching(reason) });
      socket.terminate();
    }
  });
});

describe('SharedScatter, the page’s side, against real workerd', () => {
  // The test server's map (±4,160 m), so the far cells these tests use have ground.
  const ground = generateTerrain({ worldSize: 8320, resolution: 257 });
  const visitors: Array<{ shared: SharedScatter; layer: ScatterLayer }> = [];
  afterAll(() => {
    for (const { shared, layer } of visitors) {
      shared.dispose();
      layer.dispose();
    }
  });

  /** A visitor as the world page makes one, focused on the border of cells 27:0 and 28:0 (x = 1,792), or on `at`. */
  async function visitor(session: string | null, at: { x: number; z: number; cells: number } = { x: 1792, z: 30, cells: 2 }) {
    const layer = new ScatterLayer({ ground, seed: 1 });
    const brush = new Emitter<BrushToolEvents>();
    const shared = new SharedScatter({
      layer,
      brush,
      seed: SEED,
      session,
      origin: wsUrl(base, ''),
      joinRadius: 20,
      world: { seeds: [SEED], halfExtentM: 4160 },
      WebSocket: WebSocket as unknown as WebSocketConstructor,
    });
    visitors.push({ shared, layer });
    shared.focus(at.x, at.z);
    await expect.poll(() => shared.stats.cells, { timeout: 15_000 }).toBe(at.cells);
    await expect.poll(() => shared.settled, { timeout: 15_000 }).toBe(true);
    /** A press of the brush; `preset` null paints with whatever the layer has (none chosen yet on a fresh page). */
    const paint = (preset: string | null, ...dabs: Array<[number, number]>) => {
      if (preset) void layer.choosePreset(preset);
      brush.emit('strokeStart', { x: dabs[0]![0], z: dabs[0]![1], erasing: false });
      for (const [x, z] of dabs) layer.paint(x, z, 5);
      brush.emit('strokeEnd', {});
    };
    return { shared, layer, paint };
  }
  const settled = async (...all: Array<{ shared: SharedScatter }>) => {
    for (const { shared } of all) await expect.poll(() => shared.settled && shared.stats.queued === 0, { timeout: 20_000 }).toBe(true);
  };
  /** Waits until every visitor shows the same instances in every cell (copies reach a stroke's other cells a moment later), then asserts it. */
  const agree = async (...all: Array<{ shared: SharedScatter }>) => {
    const hashes = () => all.map(({ shared }) => JSON.stringify(shared.settled && shared.cellHashes()));
    await expect.poll(() => new Set(hashes()).size, { timeout: 20_000 }).toBe(1);
    for (const { shared } of all.slice(1)) expect(shared.cellHashes()).toEqual(all[0]!.shared.cellHashes());
  };

  it('paints for everyone, first or late or after a reload: one id and one undo per press across a border, the same instances on every page', async () => {
    const tokenA = await newSession();
    const first = await visitor(tokenA);
    const second = await visitor(await newSession());
    // The first painter drags across x = 1,792; the second paints over its right half with another preset.
    first.paint('mixed-forest', [1780, 30], [1786, 30], [1792, 31], [1798, 32], [1804, 32]);
    second.paint('meadow', [1800, 26], [1804, 30], [1808, 34]);
    await expect.poll(() => first.shared.stats.stored + second.shared.stats.stored, { timeout: 15_000 }).toBe(2);
    await agree(first, second);
    const across = first.shared.storedStrokes({ x: 27, z: 0 });
    expect(across).toHaveLength(1);
    expect(first.shared.storedStrokes({ x: 28, z: 0 }).map((s) => s.id)).toContain(across[0]!.id);
    expect(first.layer.stats.instances).toBeGreaterThan(10);

    // A late joiner sees the same, and what it paints reaches the others.
    const late = await visitor(await newSession());
    await expect.poll(() => late.shared.stats.strokes, { timeout: 15_000 }).toBe(2);
    await agree(first, late);
    // It never chose a preset, and the strokes it drew did not choose one for it: it paints with the default.
    expect(late.layer.session.preset).toBeNull();
    late.paint(null, [1786, 40], [1794, 42]);
    await expect.poll(() => first.shared.stats.received, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await agree(first, second, late);
    expect(late.shared.stats.sent).toBe(1);
    const lateStroke = first.shared.storedStrokes({ x: 27, z: 0 }).find((s) => s.author === late.shared.stats.author)!;
    expect(lateStroke.events.slice(0, 1)).toEqual([{ kind: 'preset', presetId: 'mixed-forest' }]);

    // The first painter reloads (a new page, the same session): it can undo its drag, once, in both cells.
    first.paint('mixed-forest', [1770, 20], [1776, 20]);
    await expect.poll(() => first.shared.stats.stored, { timeout: 15_000 }).toBe(2);
    const reloaded = await visitor(tokenA);
    await agree(first, reloaded);
    expect(reloaded.shared.undo()).not.toBeNull(); // its later stroke (27:0 only)
    expect(reloaded.shared.undo()).toBe(across[0]!.id); // then the drag, in both cells
    await expect.poll(() => second.shared.stats.undone, { timeout: 15_000 }).toBe(2);
    await agree(first, second, late, reloaded);
    expect(second.shared.storedStrokes({ x: 27, z: 0 }).map((s) => s.id)).not.toContain(across[0]!.id);
    expect(second.shared.storedStrokes({ x: 28, z: 0 }).map((s) => s.id)).not.toContain(across[0]!.id);
    // Nothing else of its own is left; the others' strokes are not its to undo.
    expect(reloaded.shared.undo()).toBeNull();
    expect(second.shared.stats.refused + late.shared.stats.refused + reloaded.shared.stats.refused).toBe(0);
  });

  it('says so, in a problem and a figure, when a visitor without a session paints', async () => {
    const watcher = await visitor(null);
    const problems: string[] = [];
    watcher.shared.on('problem', ({ title, detail }) => problems.push(`${title}: ${detail}`));
    watcher.paint('meadow', [1800, 50]);
    await expect.poll(() => watcher.shared.stats.refused, { timeout: 15_000 }).toBe(1);
    expect(watcher.shared.stats.lastRefusal).toMatch(/editing needs a session/);
    expect(problems).toEqual([expect.stringMatching(/^Your stroke was not shared: editing needs a session/)]);
    await settled(watcher);
    expect(watcher.shared.stats.stored).toBe(0);
  });

  it('applies a full cell in slices: no slice does a quarter of the work', async () => {
    // Cell 29:0 filled as a griefer would: eight sessions' bursts of the costliest strokes it takes.
    const sessions = await Promise.all(Array.from({ length: 8 }, () => editor('29:0')));
    let n = 0;
    for (const client of sessions)
      for (let k = 0; k < 8; k++) {
        const dabs = Array.from(
          { length: 94 },
          (_, i) => [1868 + ((i * 7 + k) % 40), 12 + ((i * 3 + n) % 40), 10] as [number, number, number],
        );
        client.socket.send(stroke(`full-${n++}`, ...dabs));
      }
    await expect.poll(() => strokesOf(sessions[0]!).length, { timeout: 20_000 }).toBe(64);
    for (const client of sessions) client.socket.close();
    const joiner = await visitor(await newSession(), { x: 1888, z: 32, cells: 1 });
    await settled(joiner);
    const { apply } = joiner.shared.stats;
    expect(joiner.shared.stats.strokes).toBeGreaterThanOrEqual(4);
    expect(joiner.layer.stats.instances).toBeGreaterThan(1000);
    expect(apply.slices).toBeGreaterThanOrEqual(4);
    expect(apply.maxSliceWork * 4).toBeLessThanOrEqual(apply.work);
  });
});
