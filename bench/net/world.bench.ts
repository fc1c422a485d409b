/**
 * `npm run bench:world`: simulated walkers — real Cairn clients (WorldTransport: a WebSocket per
 * cell of the 3×3, hops through the directory; LocalPublisher at 10 Hz, far rate halved) moving
 * over the map against local workerd. Prints per-cell message rates, delivery ratio and p50/p99
 * latency between walkers within 40 m of each other, relay CPU, and the projected Cloudflare cost
 * per player-hour.
 *
 * This machine cannot hold 1,000 full clients (9,000 sockets, ~60,000 messages a second into one
 * Node process beside the relay on two cores). So the run simulates what it can *at the density
 * of a 1,000-player world*: 1,000 players over the 8×8 cells of the 512 m map is ~16 per cell;
 * 144 walkers in a 3×3-cell region is the same 16 per cell, so every populated cell carries the
 * load it would carry with 1,000 players spread over the map. docs/scale.md takes the measured
 * per-cell figures to 1,000 and 10,000 players on paper.
 *
 * The peers in the same run: the cells with every walker sending at a random moment of its own
 * (as before cells gave their players one send moment, `cellSendPhase`), and the same walkers
 * in one relay room (coalescing), which is what a world without cells would be. Each row: 3 s
 * warm-up, 10 s measured, 1.5 s drain; the whole run takes 3–4 minutes. `-- --walkers N --cells
 * K` changes the load (N walkers over K×K cells); `--sends aligned|random` runs one cell row only.
 *
 * `--dump rows.csv` writes every near delivery; `CAIRN_WORKERD_INSPECTOR=<port>` opens the
 * direct workerd's V8 inspector there (to profile the relay with Chrome DevTools).
 *
 * `--server direct` (default) runs the Worker bundle in one workerd through Miniflare, with no
 * dev proxy in the data path, as on Cloudflare; `--server wrangler` runs it under `wrangler dev`
 * (proxy workerd + Node), as the tests do. See lib/bench-server.ts.
 */
import { writeFileSync } from 'node:fs';
import { cellRoom, CELL_SIZE } from '../../src/net/protocol/world.ts';
import { serverPathArg, startBenchServer } from './lib/bench-server.ts';
import { loadAverage, machineBusySeconds, processCpuSeconds } from './lib/proc-cpu.ts';
import { histogramQuantile } from './lib/histogram.ts';
import type { Mobility } from './lib/mobility.ts';
import { walk, type WalkResult } from './lib/walkers.ts';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
/** `--name value` where value must be one of `allowed`; `fallback` when the flag is absent. */
function choice<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = process.argv[at + 1];
  if (!allowed.includes(value as T)) throw new Error(`--${name} must be ${allowed.join(', ')}, not ${value ?? 'nothing'}`);
  return value as T;
}
const CELLS = arg('cells', 3);
const WALKERS = arg('walkers', 16 * CELLS * CELLS);
const MEASURE_MS = arg('seconds', 10) * 1000;
/** `--lockstep`: every walker sends in the same loop tick (the old generator: bursty worst case). */
const LOCKSTEP = process.argv.includes('--lockstep');
/** `--deflate`: let the walkers' sockets negotiate permessage-deflate (see WalkOptions.deflate). */
const DEFLATE = process.argv.includes('--deflate');
/** `--repeat N`: N rounds of (cells, one room), interleaved, to show the spread on a shared machine. */
const REPEAT = Math.max(1, arg('repeat', 1));
/** `--no-room`: cells only (scanning walker counts). */
const NO_ROOM = process.argv.includes('--no-room');
/**
 * `--sends aligned|random|both` (default both): cell players send at their cell's moment
 * (`cellSendPhase`, the product default), at random moments (the naive baseline), or one
 * row of each, side by side.
 */
const SENDS = ((value): Array<'aligned' | 'random'> => (value === 'both' ? ['aligned', 'random'] : [value]))(
  choice('sends', ['aligned', 'random', 'both'], 'both'),
);
/** `--far-by-seq`: walkers pick their half-rate frames for neighbouring cells by their own sequence number, not their cell's moment numbers (the naive choice, for comparison). */
const FAR_BY_SEQ = process.argv.includes('--far-by-seq');
/** `--no-close-watch`: walkers never ask neighbouring cells for every tick (all watchers paced: the pace command's naive baseline). */
const CLOSE_WATCH = !process.argv.includes('--no-close-watch');
const dumpAt = process.argv.indexOf('--dump');
/** `--dump rows.csv`: every near delivery of each row, for offline analysis (file name gets the row's layout). */
const DUMP = dumpAt >= 0 ? process.argv[dumpAt + 1] : undefined;
/** `--server direct|wrangler`: which path serves the Worker (lib/bench-server.ts). */
const SERVER_PATH = serverPathArg(process.argv, 'direct');
/**
 * `--mobility heading|waypoint` (default heading): how walkers move (lib/mobility.ts). Random
 * waypoints gather the crowd in the centre cell (at 144 walkers over 3×3 cells: 16 at the start,
 * ~20 after the 3 s warm-up, ~30 at the end of an 8 s window), so they overstate the per-cell
 * load the run claims; kept to compare with the heading walk.
 */
const MOBILITY: Mobility = choice('mobility', ['heading', 'waypoint'], 'heading');
/**
 * `--offset M`: move the walkers' region M metres towards −x and −z, off the cell grid (32: half a
 * cell, so the K×K region lies over parts of (K+1)×(K+1) cells — more objects busy, more
 * neighbour traffic, the same walkers). Default 0.
 */
const OFFSET = arg('offset', 0);
const region = {
  x0: -Math.floor(CELLS / 2) * CELL_SIZE - OFFSET,
  z0: -Math.floor(CELLS / 2) * CELL_SIZE - OFFSET,
  size: CELLS * CELL_SIZE,
};

// Published Cloudflare prices (Workers Paid, developers.cloudflare.com/durable-objects/platform/pricing):
const PRICE_PER_MILLION_REQUESTS = 0.15; // Durable Object requests; incoming WebSocket messages count 1/20
const PRICE_PER_MILLION_GB_S = 12.5; // duration, billed at 128 MB per active object
const WORKER_PRICE_PER_MILLION = 0.3; // Worker requests (the /api/world calls)
const SOFT_LIMIT = 1000; // requests per second a single object handles comfortably

interface Counters {
  received: number;
  sends: number;
}

async function roomCounters(base: string, rooms: string[]): Promise<Map<string, Counters>> {
  const out = new Map<string, Counters>();
  await Promise.all(
    rooms.map(async (room) => {
      const response = await fetch(`${base}/api/rooms/avatar/${encodeURIComponent(room)}`, { signal: AbortSignal.timeout(15_000) });
      const stats = (await response.json()) as Counters;
      out.set(room, { received: stats.received, sends: stats.sends });
    }),
  );
  return out;
}

interface Measured extends WalkResult {
  label: string;
  /** Round (1-based) of `--repeat`. */
  round: number;
  /** 1-minute load average when the row started and ended. */
  load: [number, number];
  /** Cores used in the window by: the workerd running the Worker and cells, wrangler's proxy workerd (wrangler path only), the server's Node process (wrangler's, or Miniflare's idle host), the walkers (this process), and everything else on the machine. */
  cores: { workerd: number; proxy: number; node: number; walkers: number; others: number };
  objects: number;
  maxInbound: number;
  meanInbound: number;
  maxSends: number;
  relayCpu: number;
}

const server = await startBenchServer(SERVER_PATH);
// Interrupted (Ctrl-C, a timeout): stop the relays too, or wrangler outlives the run in its own group.
const stopOnSignal = (): void => {
  void server.stop().finally(() => process.exit(130));
};
process.once('SIGINT', stopOnSignal);
process.once('SIGTERM', stopOnSignal);
const run = Date.now().toString(36);
const cellRooms: string[] = [];
// Every cell the region touches, and the ring around them (watched from inside).
const firstCell = (edge: number): number => Math.floor(edge / CELL_SIZE) - 1;
const lastCell = (edge: number): number => Math.ceil((edge + region.size) / CELL_SIZE);
for (let x = firstCell(region.x0); x <= lastCell(region.x0); x++) {
  for (let z = firstCell(region.z0); z <= lastCell(region.z0); z++) cellRooms.push(cellRoom({ x, z }));
}
console.log(`server: ${server.description}`);
console.log(
  `world benchmark: ${WALKERS} walkers over ${CELLS}×${CELLS} cells of ${CELL_SIZE} m (${(WALKERS / (CELLS * CELLS)).toFixed(1)} per cell)${OFFSET ? `, region moved ${OFFSET} m off the grid` : ''}, ${MOBILITY === 'heading' ? 'straight walks bouncing off the edges' : 'random waypoints'}, 10 Hz${LOCKSTEP ? ' in lockstep' : ''}, sends ${SENDS.map((m) => (m === 'aligned' ? "at the cell's moment" : 'at random moments')).join(' / ')}${DEFLATE ? ', permessage-deflate' : ''}${CLOSE_WATCH ? '' : ', every watcher paced'}${FAR_BY_SEQ ? ', half-rate frames by sequence number' : ''}, ${MEASURE_MS / 1000} s windows; load average ${loadAverage().toFixed(2)}`,
);

async function measure(label: string, round: number, mode: 'cells' | { room: string }, rooms: string[], aligned = true): Promise<Measured> {
  const loadAtStart = loadAverage();
  let before = new Map<string, Counters>();
  let after = new Map<string, Counters>();
  let cpuStart = 0;
  let cpu = 0;
  let rolesStart = server.cpuByRole();
  const roles = { workerd: 0, proxy: 0, node: 0 };
  let busyStart = 0;
  let busy = 0;
  let selfStart = 0;
  let self = 0;
  // Touch every object once before the run, so the first counter reading does not create (and
  // stall the relay on) the empty ones.
  await roomCounters(server.url, rooms);
  const result = await walk({
    origin: server.url,
    walkers: WALKERS,
    region,
    mode,
    measureMs: MEASURE_MS,
    record: DUMP !== undefined,
    lockstep: LOCKSTEP,
    deflate: DEFLATE,
    closeWatch: CLOSE_WATCH,
    aligned,
    sharedFarMoments: !FAR_BY_SEQ,
    mobility: MOBILITY,
    onWindow: async (edge) => {
      if (edge === 'start') {
        cpuStart = server.cpuSeconds();
        rolesStart = server.cpuByRole();
        busyStart = machineBusySeconds();
        selfStart = processCpuSeconds(process.pid);
        before = await roomCounters(server.url, rooms);
      } else {
        cpu = server.cpuSeconds() - cpuStart;
        const rolesEnd = server.cpuByRole();
        for (const role of ['workerd', 'proxy', 'node'] as const) roles[role] = rolesEnd[role] - rolesStart[role];
        busy = machineBusySeconds() - busyStart;
        self = processCpuSeconds(process.pid) - selfStart;
        after = await roomCounters(server.url, rooms);
      }
    },
  });
  if (DUMP) {
    const file = DUMP.replace(/(\.csv)?$/, `-${mode === 'cells' ? 'cells' : 'room'}.csv`);
    writeFileSync(file, 'sentMs,latencyMs,path,nearOnly,sender,receiver,senderHop,receiverHop\n' + result.rows.join('\n') + '\n');
    console.log(`dumped ${result.rows.length} near deliveries to ${file} (sentMs counts from epoch ms ${result.windowStartEpochMs})`);
  }
  // Counters are read outside the latency window (see walk()); rates are over the readings' span.
  const seconds = result.counterSpanMs / 1000;
  const inbound = rooms.map((r) => ((after.get(r)?.received ?? 0) - (before.get(r)?.received ?? 0)) / seconds).filter((v) => v > 0);
  const sends = rooms.map((r) => ((after.get(r)?.sends ?? 0) - (before.get(r)?.sends ?? 0)) / seconds);
  return {
    ...result,
    label,
    round,
    load: [loadAtStart, loadAverage()],
    // The readings span the lead, the window and the drain (CPU keeps counting through the drain).
    cores: ((span) => ({
      workerd: roles.workerd / span,
      proxy: roles.proxy / span,
      node: roles.node / span,
      walkers: self / span,
      others: Math.max(0, busy - cpu - self) / span,
    }))((result.counterSpanMs + 1500) / 1000),
    objects: inbound.length,
    maxInbound: Math.max(0, ...inbound),
    meanInbound: inbound.length ? inbound.reduce((a, b) => a + b, 0) / inbound.length : 0,
    maxSends: Math.max(0, ...sends),
    // CPU over the latency window's length, at the rate measured over the readings' span.
    relayCpu: (cpu * MEASURE_MS) / result.counterSpanMs,
  };
}

const rows: Measured[] = [];
try {
  for (let round = 1; round <= REPEAT; round++) {
    for (const sends of SENDS) {
      rows.push(
        await measure(
          `cells (${CELL_SIZE} m), ${sends === 'aligned' ? 'sends at the cell’s moment' : 'sends at random moments'}`,
          round,
          'cells',
          cellRooms,
          sends === 'aligned',
        ),
      );
      await new Promise((r) => setTimeout(r, 2000));
    }
    if (NO_ROOM) continue;
    await new Promise((r) => setTimeout(r, 2000));
    const room = `bench-world-${run}-${round}`;
    if (WALKERS <= 320) rows.push(await measure('one room', round, { room }, [room]));
    else console.log(`(one room skipped: ${WALKERS} walkers exceed a room's capacity of 320)`);
    await new Promise((r) => setTimeout(r, 2000));
  }
} finally {
  await server.stop();
}

const ratio = (value: number, base: number | undefined): string => (base ? `× ${(value / base).toFixed(2)}` : '');
console.log(
  '\n| layout | load avg | objects busy | inbound/s per object (max · mean) | sends/s per object (max) | near delivered | p50 | p99 | msgs/s into clients | relay cores | µs CPU per near frame | hops |',
);
console.log('|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
for (const r of rows) {
  // Ratios against the one-room row of the same round.
  const baseline = rows.find((b) => b.label === 'one room' && b.round === r.round);
  const cpuPerFrame = r.delivered ? (r.relayCpu / r.delivered) * 1e6 : Number.NaN;
  const baseCpu = baseline && baseline.delivered ? (baseline.relayCpu / baseline.delivered) * 1e6 : undefined;
  console.log(
    `| ${r.label}${REPEAT > 1 ? ` #${r.round}` : ''} | ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)} | ${r.objects} | ${r.maxInbound.toFixed(0)} · ${r.meanInbound.toFixed(0)} ${r === baseline ? '' : ratio(r.maxInbound, baseline?.maxInbound)} | ${r.maxSends.toFixed(0)} ${r === baseline ? '' : ratio(r.maxSends, baseline?.maxSends)} | ${(r.ratio * 100).toFixed(1)}% | ${r.p50} ms | ${r.p99} ms | ${r.messagesPerSecond.toFixed(0)} ${r === baseline ? '' : ratio(r.messagesPerSecond, baseline?.messagesPerSecond)} | ${(r.relayCpu / (r.windowMs / 1000)).toFixed(2)} | ${cpuPerFrame.toFixed(1)} ${r === baseline ? '' : ratio(cpuPerFrame, baseCpu)} | ${r.hops} |` +
      (r.failed || r.unsent ? ` (${r.failed} walkers failed to join, ${r.unsent} frames unsent)` : '') +
      ` (generator lag ≤ ${r.generatorLagMs} ms; cores: workerd ${r.cores.workerd.toFixed(2)}, wrangler proxy ${server.path === 'wrangler' ? r.cores.proxy.toFixed(2) : '—'}, ${server.path === 'wrangler' ? "wrangler's node" : 'miniflare host'} ${r.cores.node.toFixed(2)}, walkers ${r.cores.walkers.toFixed(2)}, rest of the machine ${r.cores.others.toFixed(2)})`,
  );
}
for (let round = 1; round <= REPEAT; round++) {
  const a = rows.find((r) => r.round === round && r.label.endsWith('moment'));
  const b = rows.find((r) => r.round === round && r.label.endsWith('random moments'));
  if (!a || !b) continue;
  console.log(
    `\nround ${round}: sends at the cell's moment against random moments, same run — messages into clients ${ratio(a.messagesPerSecond, b.messagesPerSecond)}, sends/s per cell (max) ${ratio(a.maxSends, b.maxSends)}, ` +
      `workerd cores ${ratio(a.cores.workerd, b.cores.workerd)}, walkers' cores ${ratio(a.cores.walkers, b.cores.walkers)}, p50 ${a.p50} vs ${b.p50} ms, p99 ${a.p99} vs ${b.p99} ms (${ratio(a.p99, b.p99)}), near delivered ${(a.ratio * 100).toFixed(1)}% vs ${(b.ratio * 100).toFixed(1)}%`,
  );
}
if (REPEAT > 1) {
  // One short window's p99 is set by its few worst moments; all rounds' deliveries pooled give
  // the steadier figure (the per-round values are in the table above).
  for (const label of new Set(rows.map((r) => r.label))) {
    const same = rows.filter((r) => r.label === label);
    const pooled = new Uint32Array(same[0]!.histogram.length);
    for (const r of same) for (let ms = 0; ms < pooled.length; ms++) pooled[ms]! += r.histogram[ms]!;
    const total = same.reduce((n, r) => n + r.delivered, 0);
    const p99s = same.map((r) => r.p99);
    console.log(
      `\n${label}, ${same.length} rounds pooled: ${total} near deliveries, p50 ${histogramQuantile(pooled, total, 0.5)} ms, p99 ${histogramQuantile(pooled, total, 0.99)} ms, p99.9 ${histogramQuantile(pooled, total, 0.999)} ms; ` +
        `per-round p99 ${p99s.join(', ')} ms (under 50 ms in ${p99s.filter((v) => v < 50).length} of ${p99s.length})`,
    );
  }
}
for (const r of rows) {
  console.log(
    `\n${r.label}${REPEAT > 1 ? ` #${r.round}` : ''}: where the latency goes (near deliveries; ${r.duplicates} duplicates; generator event-loop delay p50 ${r.loopDelay.p50.toFixed(0)} · p99 ${r.loopDelay.p99.toFixed(0)} · max ${r.loopDelay.max.toFixed(0)} ms)`,
  );
  console.log(
    `(reconnects ${r.trouble.reconnects}, re-entries ${r.trouble.reentries}, hop/renew errors ${r.trouble.hopErrors}${r.trouble.lastError ? `, last error: ${r.trouble.lastError}` : ''})`,
  );
  console.log(r.breakdown.table());
}

const cells = rows.find((r) => r.label.startsWith('cells'));
if (cells) {
  const perCell = WALKERS / (CELLS * CELLS);
  const messagesPerPlayerHour = 10 * 3600; // frames in; keep-alive pings are answered without waking
  const requests = messagesPerPlayerHour / 20;
  const requestCost = (requests / 1e6) * PRICE_PER_MILLION_REQUESTS;
  const cellHourGbS = 0.125 * 3600; // an active cell never hibernates while players send
  const durationCost = ((cellHourGbS / 1e6) * PRICE_PER_MILLION_GB_S) / perCell;
  // Directory: a renewal every 40 s, a hop per cell crossed (~1 a minute when walking), each an HTTP request + an RPC.
  const directoryCalls = 3600 / 40 + 60;
  const directoryCost = (directoryCalls / 1e6) * (PRICE_PER_MILLION_REQUESTS + WORKER_PRICE_PER_MILLION);
  const total = requestCost + durationCost + directoryCost;
  console.log(
    `\nper-cell inbound at this density: max ${cells.maxInbound.toFixed(0)}/s, ${((cells.maxInbound / SOFT_LIMIT) * 100).toFixed(0)}% of the ~${SOFT_LIMIT}/s soft limit of one object.`,
  );
  console.log(
    `projected cost per player-hour at ${perCell.toFixed(0)} players per cell: requests $${requestCost.toFixed(6)} + cell duration $${durationCost.toFixed(6)} + directory $${directoryCost.toFixed(6)} = $${total.toFixed(6)} (≈ ${(total * 100).toFixed(3)} ¢).`,
  );
}
console.log(`load average at end ${loadAverage().toFixed(2)}`);
