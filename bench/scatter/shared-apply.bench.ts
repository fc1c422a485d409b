/**
 * Applying a full edits cell on the world page, in real Chromium (SwiftShader) against the real
 * Worker: the sliced path (SharedScatter's per-cell forests, a few milliseconds a slice) against
 * the naive one measured in the same page and run — every stroke's events applied to the layer's
 * session in one main-thread task, as the page did before. Interleaved rounds; figures: time to
 * apply, the longest main-thread task (PerformanceObserver 'longtask' and the code's own slice
 * timer), slices, and bytes of the join.
 *
 * The cell is filled as a griefer would: eight sessions of one address send their bursts of the
 * costliest strokes the cell takes (94 dabs of 10 m, inside cell 0:0 at the spawn) until it keeps
 * no more. Env: SCATTER_BENCH_APPLY_ROUNDS (default 3).
 */
import WebSocket from 'ws';
import { buildPages } from '../../tests/harness/build.ts';
import { launchChromium, waitForCairn } from '../../tests/harness/browser.ts';
import { startServer } from '../../tests/harness/server.ts';
import { recordTable } from '../lib/record.ts';

const ROUNDS = Number(process.env.SCATTER_BENCH_APPLY_ROUNDS ?? 3);
const assets = buildPages();
const server = await startServer({ assetsDir: assets });
const base = server.url;
const ws = (path: string) => base.replace(/^http/, 'ws') + path;
const room = (cell: string, query = '') => `/rooms/edits/${encodeURIComponent(`world:edits:1:${cell}`)}${query}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function fill(): Promise<{ strokes: number; dabs: number; bytes: number }> {
  const ip = '198.51.100.200';
  const sockets = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const response = await fetch(`${base}/api/session`, { method: 'POST', headers: { 'X-Test-Client-IP': ip } });
      const { token } = (await response.json()) as { token: string };
      return new Promise<WebSocket>((resolve) => {
        const socket = new WebSocket(ws(room('0:0', `?session=${token}`)), { headers: { 'X-Test-Client-IP': ip } });
        socket.once('open', () => resolve(socket));
      });
    }),
  );
  let n = 0;
  for (const socket of sockets)
    for (let k = 0; k < 8; k++) {
      const events: object[] = [
        { kind: 'preset', presetId: k % 2 ? 'meadow' : 'mixed-forest' },
        { kind: 'reseed', seed: n },
      ];
      for (let i = 0; i < 94; i++) events.push({ kind: 'paint', x: 12 + ((i * 7 + k * 5) % 40), z: 12 + ((i * 3 + n) % 40), radius: 10 });
      socket.send(JSON.stringify({ type: 'stroke', id: `bench-fill-${n++}`, events }));
    }
  await sleep(5000);
  for (const socket of sockets) socket.close();
  const bytes = await new Promise<Buffer>((resolve) => {
    const socket = new WebSocket(ws(room('0:0', '?format=binary')));
    socket.on('message', (data, isBinary) => {
      if (!isBinary) return;
      resolve(data as Buffer);
      socket.close();
    });
  });
  const { decodeSnapshot } = await import('../../src/scatter/shared-edits.ts');
  const strokes = decodeSnapshot(new Uint8Array(bytes));
  return { strokes: strokes.length, dabs: strokes.reduce((sum, s) => sum + s.events.length - 2, 0), bytes: bytes.byteLength };
}

const cell = await fill();
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 480, height: 270 } });
  await page.addInitScript(() => {
    const w = window as unknown as { longtasks: Array<{ start: number; duration: number }> };
    w.longtasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.longtasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`${base}/?quality=off`);
  await waitForCairn(page, 180_000);
  await page.waitForFunction(
    (n) => {
      const s = (window.cairn as { sharedScatter?: { settled: boolean; stats: { strokes: number } } }).sharedScatter;
      return s !== undefined && s.settled && s.stats.strokes >= n;
    },
    cell.strokes,
    { timeout: 300_000, polling: 250 },
  );

  type Round = { ms: number; longestTask: number; longTasks: number; slices: number; longestSlice: number; instances: number };
  const sliced: Round[] = [];
  const naive: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    sliced.push(
      await page.evaluate(async () => {
        type Shared = {
          recompute(): void;
          settled: boolean;
          stats: { apply: { slices: number; longestSliceMs: number } };
        };
        const w = window as unknown as { longtasks: Array<{ start: number; duration: number }>; cairn: { sharedScatter: Shared } };
        const shared = w.cairn.sharedScatter;
        const slicesBefore = shared.stats.apply.slices;
        shared.stats.apply.longestSliceMs = 0;
        const start = performance.now();
        shared.recompute();
        while (!shared.settled) await new Promise((resolve) => setTimeout(resolve, 5));
        const ms = performance.now() - start;
        await new Promise((resolve) => setTimeout(resolve, 100));
        const tasks = w.longtasks.filter((t) => t.start >= start && t.start <= start + ms);
        const layer = (w.cairn as unknown as { scatter: { layer: { stats: { instances: number } } } }).scatter.layer;
        return {
          ms,
          longestTask: Math.max(0, ...tasks.map((t) => t.duration)),
          longTasks: tasks.length,
          slices: shared.stats.apply.slices - slicesBefore,
          longestSlice: shared.stats.apply.longestSliceMs,
          instances: layer.stats.instances,
        };
      }),
    );
    naive.push(
      await page.evaluate(async () => {
        type Layer = {
          reset(seed?: number): void;
          apply(event: object): unknown;
          session: { instances: { size: number } };
        };
        const w = window as unknown as {
          longtasks: Array<{ start: number; duration: number }>;
          cairn: {
            scatter: { layer: Layer };
            sharedScatter: { storedStrokes(cell: { x: number; z: number }): Array<{ events: object[] }> };
          };
        };
        const layer = w.cairn.scatter.layer;
        const strokes = w.cairn.sharedScatter.storedStrokes({ x: 0, z: 0 });
        await new Promise((resolve) => setTimeout(resolve, 50));
        const start = performance.now();
        // The page before: the cell's strokes replayed into the session in one go, each event drawn as it applies.
        layer.reset();
        for (const stroke of strokes)
          for (const event of stroke.events) {
            try {
              layer.apply(event);
            } catch {
              // as the old page: an event it could not apply was skipped
            }
          }
        const ms = performance.now() - start;
        const instances = layer.session.instances.size;
        await new Promise((resolve) => setTimeout(resolve, 100));
        const tasks = w.longtasks.filter((t) => t.start >= start - 1 && t.start <= start + ms);
        layer.reset();
        return {
          ms,
          longestTask: Math.max(ms, ...tasks.map((t) => t.duration)),
          longTasks: tasks.length,
          slices: 1,
          longestSlice: ms,
          instances,
        };
      }),
    );
  }
  const med = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const row = (name: string, rounds: Round[], baseline: Round[]) => {
    const ms = med(rounds.map((r) => r.ms));
    const task = med(rounds.map((r) => r.longestTask));
    return [
      name,
      `${ms.toFixed(0)} ms`,
      `${task.toFixed(0)} ms`,
      `${med(rounds.map((r) => r.longestSlice)).toFixed(1)} ms`,
      String(med(rounds.map((r) => r.slices))),
      String(med(rounds.map((r) => r.instances))),
      `× ${(ms / med(baseline.map((r) => r.ms))).toFixed(2)} time, × ${(task / med(baseline.map((r) => r.longestTask))).toFixed(3)} longest task`,
    ];
  };
  const table = {
    title: `applying a full edits cell on the world page (${cell.strokes} strokes, ${cell.dabs} dabs of 10 m, ${(cell.bytes / 1024).toFixed(1)} KB binary join), 480×270, medians of ${ROUNDS} rounds`,
    columns: ['path', 'to apply', 'longest task', 'longest slice (own timer)', 'slices', 'instances', 'vs naive'],
    rows: [row('naive: one main-thread replay', naive, naive), row('sliced per-cell forests (8 ms budget)', sliced, naive)],
  };
  console.log(`\n## ${table.title}`);
  console.log(`| ${table.columns.join(' | ')} |\n|${table.columns.map(() => '---').join('|')}|`);
  for (const r of table.rows) console.log(`| ${r.join(' | ')} |`);
  recordTable(table);
} finally {
  await browser.close();
  await server.stop();
}
