/**
 * Simulated walkers for the world benchmark: each is a real client — Cairn's WorldTransport (one
 * WebSocket per cell of its 3×3, hops through the directory) or a WebSocketTransport into one
 * room — driven by Cairn's LocalPublisher at 10 Hz, walking between random waypoints at 1.6–4.8
 * m/s inside a region. Every frame carries the wall-clock send time; receivers measure latency
 * and count deliveries between walkers near each other.
 */
import WebSocket from 'ws';
import { Mulberry32 } from '../../../src/core/rng.ts';
import { FRAME_BYTES, FRAME_OFFSET, FrameFlag, readSenderId, readTimestamp } from '../../../src/net/protocol/frame.ts';
import { cellAt, sameCell } from '../../../src/net/protocol/world.ts';
import { LocalPublisher } from '../../../src/net/peers/local-publisher.ts';
import type { FrameTransport } from '../../../src/net/transport/transport.ts';
import { WebSocketTransport, type WebSocketConstructor } from '../../../src/net/transport/websocket-transport.ts';
import { WorldTransport } from '../../../src/net/world/world-transport.ts';
import { histogramQuantile } from './histogram.ts';

export interface WalkOptions {
  origin: string;
  walkers: number;
  /** Walkers stay inside this square (m): [x0, x0 + size) × [z0, z0 + size). */
  region: { x0: number; z0: number; size: number };
  /** 'cells': the open world; a room name: everyone in that one relay room. */
  mode: 'cells' | { room: string };
  /** Pairs closer than this (m) when a frame is sent are "near each other". Default 40. */
  nearRadius?: number;
  warmupMs?: number;
  measureMs?: number;
  drainMs?: number;
  seed?: number;
  /** Called at the window's edges (CPU and counter readings); awaited before the result is built. */
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
  /** Binary messages the walkers received per second. */
  messagesPerSecond: number;
  /** Cell changes completed in the window. */
  hops: number;
  /** Frames not sent because a walker's transport was not open. */
  unsent: number;
  /** Sockets open at the window start (all walkers). */
  sockets: number;
  windowMs: number;
  /** Walkers whose transport never opened. */
  failed: number;
  /** Longest gap between two ticks of the simulation loop (20 ms nominal): the generator's own overload. */
  generatorLagMs: number;
}

interface Walker {
  index: number;
  transport: FrameTransport;
  publisher: LocalPublisher;
  x: number;
  z: number;
  tx: number;
  tz: number;
  speed: number;
}

const wallMs = (): number => Math.floor(performance.timeOrigin + performance.now());

export async function walk(options: WalkOptions): Promise<WalkResult> {
  const rng = new Mulberry32(options.seed ?? 7);
  const { x0, z0, size } = options.region;
  const near = options.nearRadius ?? 40;
  const warmupMs = options.warmupMs ?? 3000;
  const measureMs = options.measureMs ?? 10_000;
  const drainMs = options.drainMs ?? 1500;
  const point = (): { x: number; z: number } => ({ x: x0 + rng.range(1, size - 1), z: z0 + rng.range(1, size - 1) });
  const walkers: Walker[] = [];
  const byId = new Map<number, Walker>();
  const histogram = new Uint32Array(10_001);
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  let delivered = 0;
  let messages = 0;

  const receive = (receiver: Walker, bytes: Uint8Array): void => {
    const now = wallMs();
    if (now < windowStart) return;
    messages++;
    for (let o = 0; o + FRAME_BYTES <= bytes.length; o += FRAME_BYTES) {
      if (bytes[o + FRAME_OFFSET.kind] !== 1) continue;
      const sentAt = readTimestamp(bytes, o);
      const since = (sentAt - (windowStart >>> 0)) | 0;
      if (since < 0 || since >= measureMs) continue;
      const sender = byId.get(readSenderId(bytes, o));
      if (!sender || sender === receiver) continue;
      // Near when sent: the frame's position against where the receiver is now (≤ 0.5 m of drift).
      const view = new DataView(bytes.buffer, bytes.byteOffset + o, FRAME_BYTES);
      const fx = view.getFloat32(FRAME_OFFSET.x, true);
      const fz = view.getFloat32(FRAME_OFFSET.z, true);
      if (Math.hypot(fx - receiver.x, fz - receiver.z) >= near) continue;
      delivered++;
      histogram[Math.min((now - sentAt) >>> 0, 10_000)]!++;
    }
  };

  // Join in batches (handshakes are not what is measured).
  let failed = 0;
  for (let i = 0; i < options.walkers; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, options.walkers - i) }, async (_, k) => {
        const index = i + k;
        const at = point();
        const target = point();
        const transport =
          options.mode === 'cells'
            ? new WorldTransport({ origin: options.origin, start: at, WebSocket: WebSocket as unknown as WebSocketConstructor, backoff: { baseMs: 500, maxMs: 4000 } })
            : new WebSocketTransport({ url: `${options.origin.replace(/^http/, 'ws')}/rooms/avatar/${options.mode.room}?mode=coalesce`, WebSocket: WebSocket as unknown as WebSocketConstructor });
        const walker: Walker = { index, transport, publisher: new LocalPublisher({ farRateDivisor: options.mode === 'cells' ? 2 : 1, clock: wallMs }), x: at.x, z: at.z, tx: target.x, tz: target.z, speed: rng.range(1.6, 4.8) };
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
  while (Date.now() < settleBy && walkers.some((w) => w.transport.selfId === null || w.transport.state !== 'open')) await new Promise((r) => setTimeout(r, 100));
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
  const cellOf = new Map<Walker, ReturnType<typeof cellAt>>();
  let last = started;
  const edges: Array<void | Promise<void>> = [];
  let lag = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = wallMs();
      const dt = (now - last) / 1000;
      if (now >= windowStart) lag = Math.max(lag, now - last);
      last = now;
      if (!opened && now >= windowStart) {
        opened = true;
        unsentAtStart = walkers.reduce((n, w) => n + w.transport.stats.unsent, 0);
        hopsAtStart = walkers.reduce((n, w) => n + (w.transport instanceof WorldTransport ? w.transport.world.hops : 0), 0);
        sockets = walkers.reduce((n, w) => n + (w.transport instanceof WorldTransport ? w.transport.world.subscriptions : 1), 0);
        edges.push(options.onWindow?.('start'));
      }
      if (now >= windowEnd) {
        clearInterval(timer);
        edges.push(options.onWindow?.('end'));
        resolve();
        return;
      }
      for (const w of walkers) {
        const dx = w.tx - w.x;
        const dz = w.tz - w.z;
        const d = Math.hypot(dx, dz);
        if (d < 1) {
          const next = point();
          w.tx = next.x;
          w.tz = next.z;
        } else {
          const step = Math.min(d, w.speed * dt);
          w.x += (dx / d) * step;
          w.z += (dz / d) * step;
        }
        if (w.transport instanceof WorldTransport) {
          w.transport.setPosition(w.x, w.z);
          const cell = w.transport.cell;
          if (cell) cellOf.set(w, cell);
        }
      }
      for (const w of walkers) {
        const frame = w.publisher.poll({ x: w.x, y: 0, z: w.z, facing: Math.atan2(w.tx - w.x, w.tz - w.z), speed: w.speed, state: 'walk' }, now);
        if (!frame || !w.transport.send(frame)) continue;
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
    }, 20);
  });
  await new Promise((r) => setTimeout(r, drainMs));
  await Promise.all(edges);
  const unsent = walkers.reduce((n, w) => n + w.transport.stats.unsent, 0) - unsentAtStart;
  const hops = walkers.reduce((n, w) => n + (w.transport instanceof WorldTransport ? w.transport.world.hops : 0), 0) - hopsAtStart;
  for (const w of walkers) w.transport.dispose();
  return {
    walkers: walkers.length,
    sent,
    expected,
    delivered,
    ratio: expected > 0 ? delivered / expected : 0,
    p50: histogramQuantile(histogram, delivered, 0.5),
    p99: histogramQuantile(histogram, delivered, 0.99),
    messagesPerSecond: messages / ((windowEnd - windowStart + drainMs) / 1000),
    hops,
    unsent,
    sockets,
    windowMs: measureMs,
    failed,
    generatorLagMs: lag,
  };
}
