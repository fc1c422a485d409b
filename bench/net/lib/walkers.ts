/**
 * Simulated walkers for the world benchmark: each is a real client — Cairn's WorldTransport (one
 * WebSocket per cell of its 3×3, hops through the directory) or a WebSocketTransport into one
 * room — driven by Cairn's LocalPublisher at 10 Hz, walking at 1.6–4.8 m/s inside a region
 * (lib/mobility.ts). Every frame carries the wall-clock send time; receivers measure latency and
 * count deliveries between walkers near each other.
 */
import WebSocket from 'ws';
import { Mulberry32 } from '../../../src/core/rng.ts';
import { FRAME_BYTES, FRAME_OFFSET, FrameFlag, readSenderId, readTimestamp } from '../../../src/net/protocol/frame.ts';
import { cellAt, sameCell } from '../../../src/net/protocol/world.ts';
import { LocalPublisher } from '../../../src/net/peers/local-publisher.ts';
import type { FrameTransport } from '../../../src/net/transport/transport.ts';
import { WebSocketTransport, type WebSocketConstructor } from '../../../src/net/transport/websocket-transport.ts';
import { WorldTransport } from '../../../src/net/world/world-transport.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { histogramQuantile } from './histogram.ts';
import { LatencyBreakdown } from './latency-breakdown.ts';
import { createMover, stepMover, type Mobility, type Mover, type Region } from './mobility.ts';

export interface WalkOptions {
  origin: string;
  walkers: number;
  /** Walkers stay inside this square (m): [x0, x0 + size) × [z0, z0 + size). */
  region: Region;
  /** 'cells': the open world; a room name: everyone in that one relay room. */
  mode: 'cells' | { room: string };
  /** How walkers move (default 'heading': a uniform crowd stays uniform; see Mobility). */
  mobility?: Mobility;
  /** Pairs closer than this (m) when a frame is sent are "near each other". Default 40. */
  nearRadius?: number;
  warmupMs?: number;
  measureMs?: number;
  drainMs?: number;
  seed?: number;
  /** Keep every near delivery as a row (for offline analysis: `world.bench.ts --dump file.csv`). */
  record?: boolean;
  /**
   * Every walker sends on one shared clock (the same 20 ms loop tick, the same sequence parity),
   * so each cell tick carries a burst from everyone at once — the worst case, kept for
   * comparison. Default false: each walker's 10 Hz clock starts at a random phase, as independent
   * clients' clocks do.
   */
  lockstep?: boolean;
  /**
   * Let the walkers' sockets negotiate permessage-deflate (Node `ws` offers it by default, and
   * workerd accepts). Default false: `ws` inflates every message of every socket in the process
   * through one shared queue of 10 zlib jobs, so 45 walkers × 9 sockets queue behind each other
   * in a way no browser (one client per process, inflating in the network service) does.
   */
  deflate?: boolean;
  /** Cells mode: walkers ask close neighbouring cells for every tick (WorldTransport's default). Default true. */
  closeWatch?: boolean;
  /**
   * Cells mode: each walker sends its regular frames at its cell's moment
   * (`WorldTransport.sendPhase`, as NetSession does by default), so a cell's players arrive in one
   * tick. False: at the random phase its clock started with (as before send moments existed).
   * Default true.
   */
  aligned?: boolean;
  /**
   * Cells mode, with `aligned`: each walker sends its half-rate frames for the neighbouring cells
   * on its cell's even-numbered moments (`WorldTransport.sendMoment`, as NetSession does by
   * default), so a cell's players send them in the same periods. False: every second frame by its
   * own sequence number (each walker on its own parity, as before). Default true.
   */
  sharedFarMoments?: boolean;
  /**
   * Called for the relay's counter and CPU readings: 'start' {@link COUNTER_LEAD_MS} before the
   * latency window opens, 'end' after the drain — outside the window, so the readings (HTTP
   * requests into the relay's objects) cannot delay the frames being timed. Awaited before the
   * result is built; {@link WalkResult.counterSpanMs} is the time between the two.
   */
  onWindow?: (edge: 'start' | 'end') => void | Promise<void>;
}

export interface WalkResult {
  walkers: number;
  /** Frames sent in the window. */
  sent: number;
  /** Deliveries expected between near walkers (every frame, or only far-capable ones across cells). */
  expected: number;
  delivered: number;
  ratio: number;
  p50: number;
  p99: number;
  /** Near-delivery latencies in 1 ms buckets (the last bucket holds everything ≥ 10 s): rounds can be pooled. */
  histogram: Uint32Array;
  /** Binary messages the walkers received per second. */
  messagesPerSecond: number;
  /** Cell changes completed in the window. */
  hops: number;
  /** Frames not sent because a walker's transport was not open. */
  unsent: number;
  /** Sockets open at the window start (all walkers). */
  sockets: number;
  windowMs: number;
  /** Wall-clock (epoch) ms when the latency window opened: `sentMs` of the dumped rows counts from here. */
  windowStartEpochMs: number;
  /** ms of sending covered by the 'start' and 'end' counter readings (divide counter deltas by this). */
  counterSpanMs: number;
  /** Walkers whose transport never opened. */
  failed: number;
  /** Longest gap between two ticks of the simulation loop ({@link LOOP_MS} nominal): the generator's own overload. */
  generatorLagMs: number;
  /** The generator's event-loop delay in the window (ms): how late its callbacks ran, receives included. */
  loopDelay: { p50: number; p99: number; max: number };
  /** Socket reconnects, re-entries and failed hops/renewals over the whole run (all walkers), and one sample error. */
  trouble: { reconnects: number; reentries: number; hopErrors: number; lastError: string | null };
  /** Frames a walker received more than once (same sender and sequence number, any socket). */
  duplicates: number;
  /** With `record`: `sentMs,latencyMs,path,nearOnly,sender,receiver,senderHop,receiverHop` per near delivery (sentMs from the window start). */
  rows: string[];
  /** The near deliveries' latency split by path, frame kind, hops, and generator stalls. */
  breakdown: LatencyBreakdown;
}

interface Walker extends Mover {
  index: number;
  transport: FrameTransport;
  publisher: LocalPublisher;
  /** ms after the loop starts before this walker's first frame: its clock's phase. */
  phaseMs: number;
  /** Publication cell when each recent frame was sent, by sequence number mod {@link SEQ_RING}. */
  sentCell: Array<ReturnType<typeof cellAt> | null>;
  /** Wall-clock ms of this walker's recent cell changes. */
  hopTimes: number[];
  /**
   * Duplicate check: seq + 1 of the near frame last received from each sender, by sender index
   * × {@link SEEN_RING} + seq mod {@link SEEN_RING} (a typed array: no garbage, no rehashing).
   */
  seen: Uint32Array;
}

const SEQ_RING = 256;
/** Frames per sender the duplicate check remembers (25 s at 10 Hz, far longer than any window's reordering). */
const SEEN_RING = 256;
/** The breakdown's keys, built once (see LatencyBreakdown.add). */
const PATH_KEY = {
  'one room': 'path: one room',
  unknown: 'path: unknown',
  'same cell': 'path: same cell',
  'neighbour cell': 'path: neighbour cell',
} as const;
const FRAME_KEY = { nearOnly: 'frame: near-only', both: 'frame: also to neighbours' } as const;
const HOP_KEY = { sender: 'hop: sender hopped ≤ 1 s before', receiver: 'hop: receiver hopped ≤ 1 s before', none: 'hop: no hop' } as const;
/** The simulation loop's period (ms): positions move and due frames go out every tick. */
const LOOP_MS = 5;
/** The lockstep generator's loop (ms), as before random phases: everyone sends in the same tick. */
const LOCKSTEP_LOOP_MS = 20;
/** How long before the latency window the 'start' counter reading is taken (ms). */
export const COUNTER_LEAD_MS = 1500;
/** A hop this recent (ms) before a frame was sent counts as "during a hop". */
const HOP_WINDOW_MS = 1000;
/** The generator's event loop counts as stalled when a 5 ms timer fires this late (ms). */
const STALL_MS = 25;

/** Node `ws` without permessage-deflate: what a socket costs without the process-wide zlib queue. */
class PlainWebSocket extends WebSocket {
  constructor(url: string | URL) {
    super(url, { perMessageDeflate: false });
  }
}

const wallMs = (): number => Math.floor(performance.timeOrigin + performance.now());

export async function walk(options: WalkOptions): Promise<WalkResult> {
  const rng = new Mulberry32(options.seed ?? 7);
  const near = options.nearRadius ?? 40;
  const warmupMs = options.warmupMs ?? 3000;
  const measureMs = options.measureMs ?? 10_000;
  const drainMs = options.drainMs ?? 1500;
  const mobility = options.mobility ?? 'heading';
  const walkers: Walker[] = [];
  const byId = new Map<number, Walker>();
  const histogram = new Uint32Array(10_001);
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  let delivered = 0;
  let messages = 0;
  let duplicates = 0;
  const breakdown = new LatencyBreakdown();
  const rows: string[] = [];
  const cellOf = new Map<Walker, ReturnType<typeof cellAt>>();
  // Generator stalls: a 5 ms timer that fires late means every socket's messages waited too.
  let stallEnd = Number.NEGATIVE_INFINITY;
  let stallCheck = wallMs();
  const stallTimer = setInterval(() => {
    const now = wallMs();
    if (now - stallCheck >= STALL_MS) stallEnd = now;
    stallCheck = now;
  }, 5);
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  const hoppedWithin = (w: Walker, from: number, to: number): boolean => {
    for (let i = 0; i < w.hopTimes.length; i++) if (w.hopTimes[i]! >= from && w.hopTimes[i]! <= to) return true;
    return false;
  };
  const STALL_KEY = { stalled: `generator: received right after a ≥ ${STALL_MS} ms stall`, fine: 'generator: no stall' } as const;
  // Reused for every delivery's breakdown keys (see LatencyBreakdown.add).
  const keys: string[] = ['', '', '', ''];

  const receive = (receiver: Walker, bytes: Uint8Array): void => {
    const now = wallMs();
    if (now < windowStart) return;
    messages++;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let o = 0; o + FRAME_BYTES <= bytes.length; o += FRAME_BYTES) {
      if (bytes[o + FRAME_OFFSET.kind] !== 1) continue;
      const sentAt = readTimestamp(bytes, o);
      const since = (sentAt - (windowStart >>> 0)) | 0;
      if (since < 0 || since >= measureMs) continue;
      const sender = byId.get(readSenderId(bytes, o));
      if (!sender || sender === receiver) continue;
      // Near when sent: the frame's position against where the receiver is now (≤ 0.5 m of drift).
      const fx = view.getFloat32(o + FRAME_OFFSET.x, true);
      const fz = view.getFloat32(o + FRAME_OFFSET.z, true);
      if (Math.hypot(fx - receiver.x, fz - receiver.z) >= near) continue;
      const seq = view.getUint32(o + FRAME_OFFSET.seq, true);
      const slot = sender.index * SEEN_RING + (seq % SEEN_RING);
      if (receiver.seen[slot] === seq + 1) {
        duplicates++;
        continue;
      }
      receiver.seen[slot] = seq + 1;
      delivered++;
      const ms = (now - sentAt) >>> 0;
      histogram[Math.min(ms, 10_000)]!++;
      const from = sender.sentCell[seq % SEQ_RING];
      const mine = cellOf.get(receiver);
      const wallSent = now - ms;
      const path =
        options.mode !== 'cells' ? 'one room' : !from || !mine ? 'unknown' : sameCell(from, mine) ? 'same cell' : 'neighbour cell';
      const nearOnly = (bytes[o + FRAME_OFFSET.flags]! & FrameFlag.nearOnly) !== 0;
      const senderHop = hoppedWithin(sender, wallSent - HOP_WINDOW_MS, now);
      const receiverHop = hoppedWithin(receiver, wallSent - HOP_WINDOW_MS, now);
      keys[0] = PATH_KEY[path];
      keys[1] = nearOnly ? FRAME_KEY.nearOnly : FRAME_KEY.both;
      keys[2] = senderHop ? HOP_KEY.sender : receiverHop ? HOP_KEY.receiver : HOP_KEY.none;
      keys[3] = now - stallEnd < 10 ? STALL_KEY.stalled : STALL_KEY.fine;
      breakdown.add(ms, keys);
      if (options.record)
        rows.push(
          `${wallSent - windowStart},${ms},${path},${nearOnly ? 1 : 0},${sender.index},${receiver.index},${senderHop ? 1 : 0},${receiverHop ? 1 : 0}`,
        );
    }
  };

  // Join in batches (handshakes are not what is measured).
  let failed = 0;
  for (let i = 0; i < options.walkers; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, options.walkers - i) }, async (_, k) => {
        const index = i + k;
        const Impl = (options.deflate ? WebSocket : PlainWebSocket) as unknown as WebSocketConstructor;
        const mover = createMover(rng, options.region);
        const transport =
          options.mode === 'cells'
            ? new WorldTransport({
                origin: options.origin,
                start: { x: mover.x, z: mover.z },
                WebSocket: Impl,
                closeWatch: options.closeWatch ?? true,
                backoff: { baseMs: 500, maxMs: 4000 },
              })
            : new WebSocketTransport({
                url: `${options.origin.replace(/^http/, 'ws')}/rooms/avatar/${options.mode.room}?mode=coalesce`,
                WebSocket: Impl,
              });
        // Lined up on its cell's moments, as NetSession does by default.
        const lined = transport instanceof WorldTransport && options.aligned !== false ? transport : null;
        const walker: Walker = {
          index,
          transport,
          // The walkers' clock is Date.now()'s (wallMs), the one sendPhase() and sendMoment() speak.
          publisher: new LocalPublisher({
            farRateDivisor: options.mode === 'cells' ? 2 : 1,
            clock: wallMs,
            ...(lined ? { phase: () => lined.sendPhase() } : {}),
            ...(lined && options.sharedFarMoments !== false ? { moment: (now: number) => lined.sendMoment(now) } : {}),
          }),
          ...mover,
          phaseMs: options.lockstep ? 0 : rng.range(0, 100),
          sentCell: new Array(SEQ_RING).fill(null),
          hopTimes: [],
          seen: new Uint32Array(options.walkers * SEEN_RING),
        };
        transport.events.on('message', (bytes) => receive(walker, bytes));
        const ok = transport instanceof WorldTransport ? await transport.start() : await (transport as WebSocketTransport).opened();
        if (!ok) {
          failed++;
          if (failed <= 3) console.log(`  (walker ${index} could not join: ${transport.stats.lastError})`);
        }
        walkers.push(walker);
      }),
    );
  }
  // Wait until every walker knows its id (and, in cells, publishes).
  const settleBy = Date.now() + 60_000;
  while (Date.now() < settleBy && walkers.some((w) => w.transport.selfId === null || w.transport.state !== 'open'))
    await new Promise((r) => setTimeout(r, 100));
  for (const w of walkers) if (w.transport.selfId !== null) byId.set(w.transport.selfId, w);

  const started = wallMs();
  windowStart = started + warmupMs;
  windowEnd = windowStart + measureMs;
  let sent = 0;
  let expected = 0;
  let unsentAtStart = 0;
  let hopsAtStart = 0;
  let sockets = 0;
  let opened = false;
  let counting = false;
  let counterStart = 0;
  let last = started;
  const edges: Array<void | Promise<void>> = [];
  let lag = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(
      () => {
        const now = wallMs();
        const dt = (now - last) / 1000;
        if (now >= windowStart) lag = Math.max(lag, now - last);
        last = now;
        if (!counting && now >= windowStart - COUNTER_LEAD_MS) {
          counting = true;
          counterStart = now;
          edges.push(options.onWindow?.('start'));
        }
        if (!opened && now >= windowStart) {
          opened = true;
          unsentAtStart = walkers.reduce((n, w) => n + w.transport.stats.unsent, 0);
          hopsAtStart = walkers.reduce((n, w) => n + (w.transport instanceof WorldTransport ? w.transport.world.hops : 0), 0);
          sockets = walkers.reduce((n, w) => n + (w.transport instanceof WorldTransport ? w.transport.world.subscriptions : 1), 0);
          loopDelay.enable();
        }
        if (now >= windowEnd) {
          clearInterval(timer);
          resolve();
          return;
        }
        for (const w of walkers) {
          stepMover(w, mobility, rng, options.region, dt, now);
          if (w.transport instanceof WorldTransport) {
            w.transport.setPosition(w.x, w.z);
            const cell = w.transport.cell;
            const before = cellOf.get(w);
            if (cell && before && !sameCell(before, cell)) w.hopTimes.push(now);
            if (cell) cellOf.set(w, cell);
          }
        }
        for (const w of walkers) {
          if (now - started < w.phaseMs) continue;
          const frame = w.publisher.poll({ x: w.x, y: 0, z: w.z, facing: Math.atan2(w.hx, w.hz), speed: w.speed, state: 'walk' }, now);
          if (!frame) continue;
          w.sentCell[w.publisher.seq % SEQ_RING] = cellOf.get(w) ?? null;
          if (!w.transport.send(frame)) continue;
          if (now < windowStart) continue;
          sent++;
          const nearOnly = (frame[FRAME_OFFSET.flags]! & FrameFlag.nearOnly) !== 0;
          const cell = cellOf.get(w);
          for (const other of walkers) {
            if (other === w || Math.hypot(other.x - w.x, other.z - w.z) >= near) continue;
            if (nearOnly && w.transport instanceof WorldTransport) {
              const theirs = cellOf.get(other);
              if (!cell || !theirs || !sameCell(cell, theirs)) continue;
            }
            expected++;
          }
        }
      },
      options.lockstep ? LOCKSTEP_LOOP_MS : LOOP_MS,
    );
  });
  await new Promise((r) => setTimeout(r, drainMs));
  loopDelay.disable();
  clearInterval(stallTimer);
  // The walkers sent from the 'start' reading to the window's end; the 'end' reading comes after
  // the drain, so it counts everything those frames caused.
  const counterSpanMs = windowEnd - counterStart;
  edges.push(options.onWindow?.('end'));
  await Promise.all(edges);
  const unsent = walkers.reduce((n, w) => n + w.transport.stats.unsent, 0) - unsentAtStart;
  const hops = walkers.reduce((n, w) => n + (w.transport instanceof WorldTransport ? w.transport.world.hops : 0), 0) - hopsAtStart;
  const trouble = { reconnects: 0, reentries: 0, hopErrors: 0, lastError: null as string | null };
  for (const w of walkers) {
    trouble.reconnects += w.transport.stats.reconnects;
    if (w.transport instanceof WorldTransport) {
      trouble.reentries += w.transport.world.reentries;
      trouble.hopErrors += w.transport.world.hopErrors;
      trouble.lastError = w.transport.world.lastHopError ?? w.transport.stats.lastError ?? trouble.lastError;
    } else trouble.lastError = w.transport.stats.lastError ?? trouble.lastError;
  }
  for (const w of walkers) w.transport.dispose();
  return {
    walkers: walkers.length,
    sent,
    expected,
    delivered,
    ratio: expected > 0 ? delivered / expected : 0,
    p50: histogramQuantile(histogram, delivered, 0.5),
    p99: histogramQuantile(histogram, delivered, 0.99),
    histogram,
    messagesPerSecond: messages / ((windowEnd - windowStart + drainMs) / 1000),
    hops,
    unsent,
    sockets,
    windowMs: measureMs,
    windowStartEpochMs: windowStart,
    counterSpanMs,
    failed,
    generatorLagMs: lag,
    loopDelay: { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
    duplicates,
    trouble,
    rows,
    breakdown,
  };
}
