/**
 * Simulated peers for the relay benchmarks: N Node WebSocket clients that each send one 36-byte
 * frame at `hz`, stamped with the wall clock, and count what they receive. Latency is measured
 * from the sender's timestamp to arrival (same machine, same clock); delivery counts only frames
 * sent inside the measuring window, and only if they arrive before the drain ends — a frame
 * seconds late counts as lost, as it would be to a player.
 */
import WebSocket from 'ws';
import { createFrame, encodeFrame, FRAME_BYTES, FRAME_OFFSET, readTimestamp } from '../../../src/net/protocol/frame.ts';
import { histogramQuantile } from './histogram.ts';

export interface LoadOptions {
  /** URL for peer i (lets a benchmark spread peers over rooms or cells). */
  url: (peer: number) => string;
  peers: number;
  /** Frames per second per peer. Default 10. */
  hz?: number;
  /** Sending before the window opens (ms). Default 2000. */
  warmupMs?: number;
  /** The measuring window (ms). Default 8000. */
  measureMs?: number;
  /** Waiting for late frames after the window (ms). Default 1500. */
  drainMs?: number;
  /** Who should receive peer i's frames (default: every other peer). */
  audience?: (peer: number, peers: number) => number[];
  /** Position to write into peer i's frames (for world cells); default the origin. */
  position?: (peer: number, elapsedMs: number) => { x: number; z: number };
  /** Called once every peer is connected, before sending starts. */
  onConnected?: (sockets: WebSocket[]) => void | Promise<void>;
  /** Window start/end callbacks (CPU readings). */
  onWindow?: (edge: 'start' | 'end') => void;
}

export interface LoadResult {
  peers: number;
  /** Frames sent inside the window. */
  sent: number;
  /** Frame deliveries expected (sent × audience size). */
  expected: number;
  /** Frame deliveries that arrived in time. */
  delivered: number;
  ratio: number;
  p50: number;
  p99: number;
  max: number;
  /** Binary messages received inside the window (sends the relay made). */
  messages: number;
  /** CPU seconds this generator process used in the window. */
  generatorCpu: number;
  windowMs: number;
  /** Sockets that failed to connect or closed early. */
  failures: number;
}

const wallMs = (): number => Math.floor(performance.timeOrigin + performance.now());

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const hz = options.hz ?? 10;
  const period = 1000 / hz;
  const warmupMs = options.warmupMs ?? 2000;
  const measureMs = options.measureMs ?? 8000;
  const drainMs = options.drainMs ?? 1500;
  const n = options.peers;
  const histogram = new Uint32Array(10_001); // 1 ms buckets; the last collects ≥ 10 s
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  let delivered = 0;
  let messages = 0;
  let failures = 0;
  const sockets: WebSocket[] = [];

  const onMessage = (data: Buffer, isBinary: boolean): void => {
    if (!isBinary) return;
    const now = wallMs();
    let counted = false;
    for (let o = 0; o + FRAME_BYTES <= data.length; o += FRAME_BYTES) {
      if (data[o + FRAME_OFFSET.kind] !== 1) continue;
      const sentAt = readTimestamp(data, o);
      const sinceStart = (sentAt - (windowStart >>> 0)) | 0;
      if (sinceStart < 0 || sinceStart >= windowEnd - windowStart) continue;
      const latency = (now - sentAt) >>> 0;
      histogram[Math.min(latency, 10_000)]!++;
      delivered++;
      counted = true;
    }
    if (counted) messages++;
  };

  // Connect in small batches: a burst of hundreds of handshakes measures the handshake, not the relay.
  for (let i = 0; i < n; i += 20) {
    const batch = Array.from({ length: Math.min(20, n - i) }, (_, k) => i + k).map(
      (peer) =>
        new Promise<WebSocket>((resolve, reject) => {
          const socket = new WebSocket(options.url(peer), { perMessageDeflate: false });
          socket.binaryType = 'nodebuffer';
          socket.on('message', onMessage as never);
          socket.once('open', () => resolve(socket));
          socket.once('error', reject);
          socket.once('unexpected-response', (_q, r) => reject(new Error(`HTTP ${r.statusCode}`)));
          socket.once('close', (code, reason) => {
            if (windowEnd === Number.POSITIVE_INFINITY || wallMs() < windowEnd + drainMs) {
              failures++;
              if (failures <= 3) console.log(`  (peer ${peer} closed: ${code} ${reason.toString()})`);
            }
          });
        }),
    );
    sockets.push(...(await Promise.all(batch)));
  }
  await options.onConnected?.(sockets);

  const frame = createFrame();
  const next = Array.from({ length: n }, () => 0);
  const seq = new Uint32Array(n);
  const started = wallMs();
  for (let i = 0; i < n; i++) next[i] = started + Math.random() * period; // spread phases
  windowStart = started + warmupMs;
  windowEnd = windowStart + measureMs;
  const audienceSize = (peer: number): number => (options.audience ? options.audience(peer, n).length : n - 1);
  let sent = 0;
  let expected = 0;
  let windowOpen = false;
  let cpuAtStart = process.cpuUsage();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = wallMs();
      if (!windowOpen && now >= windowStart) {
        windowOpen = true;
        cpuAtStart = process.cpuUsage();
        options.onWindow?.('start');
      }
      if (now >= windowEnd) {
        clearInterval(timer);
        options.onWindow?.('end');
        resolve();
        return;
      }
      for (let i = 0; i < n; i++) {
        if (now < next[i]!) continue;
        next[i]! += period;
        if (next[i]! < now) next[i] = now + period; // fell behind: do not burst
        const bytes = Buffer.allocUnsafe(FRAME_BYTES);
        const position = options.position?.(i, now - started) ?? { x: 0, z: 0 };
        frame.seq = ++seq[i]!;
        frame.x = position.x;
        frame.z = position.z;
        frame.timestamp = now % 2 ** 32;
        encodeFrame(frame, bytes);
        sockets[i]!.send(bytes);
        if (now >= windowStart) {
          sent++;
          expected += audienceSize(i);
        }
      }
    }, 2);
  });
  const cpu = process.cpuUsage(cpuAtStart);
  await new Promise((r) => setTimeout(r, drainMs));
  for (const socket of sockets) socket.terminate();
  return {
    peers: n,
    sent,
    expected,
    delivered,
    ratio: expected > 0 ? delivered / expected : 0,
    p50: histogramQuantile(histogram, delivered, 0.5),
    p99: histogramQuantile(histogram, delivered, 0.99),
    max: histogramQuantile(histogram, delivered, 1),
    messages,
    generatorCpu: (cpu.user + cpu.system) / 1e6,
    windowMs: measureMs,
    failures,
  };
}
