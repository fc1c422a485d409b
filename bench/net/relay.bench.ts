/**
 * `npm run bench:relay`: N simulated peers (Node WebSocket clients at 10 Hz) against the local
 * relay, for 50, 100, 200 and 300 peers, side by side in one run with a minimal Node `ws`
 * broadcast relay: delivery ratio, p50/p99 latency, relay CPU per delivered frame.
 *
 * Rows per peer count, in interleaved order: the Node `ws` relay (the peer), Cairn's RelayRoom
 * forwarding each frame (`?mode=direct`, what a naive Durable Object relay does) and Cairn's
 * RelayRoom coalescing (`?mode=coalesce`, what `auto` picks from 8 peers). Relay CPU is read from
 * /proc for the relay's processes only (for Cairn: wrangler's Node proxy and both workerd
 * processes); the generator shares the same two cores, so figures are pessimistic for everyone
 * alike. Each row: 2 s warm-up, 8 s measured, 1.5 s drain. Whole run ≈ 3–4 minutes.
 * `-- --quick` measures 50 and 200 peers only, 5 s each.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { startServer } from '../../tests/harness/server.ts';
import { groupCpuSeconds, loadAverage, wranglerGroup } from './lib/proc-cpu.ts';
import { runLoad, type LoadResult } from './lib/peer-load.ts';

const quick = process.argv.includes('--quick');
const PEER_COUNTS = quick ? [50, 200] : [50, 100, 200, 300];
const MEASURE_MS = quick ? 5000 : 8000;

interface Row extends LoadResult {
  relay: string;
  relayCpu: number;
}

/** Starts the Node `ws` relay in its own process group (tsx runs it in a child process; the group holds both). */
async function startNodeRelay(): Promise<{ port: number; pgid: number; stop(): void }> {
  const child = spawn(
    process.execPath,
    [resolve(import.meta.dirname, '../../node_modules/tsx/dist/cli.mjs'), resolve(import.meta.dirname, 'lib/ws-broadcast-relay.ts')],
    { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  const port = await new Promise<number>((done, fail) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /port (\d+)/.exec(chunk.toString());
      if (match) done(Number(match[1]));
    });
    child.once('exit', (code) => fail(new Error(`ws relay exited with ${code}`)));
  });
  return {
    port,
    pgid: child.pid!,
    stop: () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    },
  };
}

function format(row: Row, baseline: Row): string {
  const perFrameUs = row.delivered > 0 ? (row.relayCpu / row.delivered) * 1e6 : Number.NaN;
  const basePerFrame = baseline.delivered > 0 ? (baseline.relayCpu / baseline.delivered) * 1e6 : Number.NaN;
  const cells = [
    row.relay.padEnd(24),
    String(row.peers).padStart(5),
    `${(row.ratio * 100).toFixed(1)}%`.padStart(8),
    `${row.p50} ms`.padStart(8),
    `${row.p99} ms`.padStart(9),
    `${perFrameUs.toFixed(1)} µs`.padStart(10),
    `× ${(perFrameUs / basePerFrame).toFixed(2)}`.padStart(7),
    `${(row.relayCpu / (row.windowMs / 1000)).toFixed(2)}`.padStart(6),
    String(Math.round(row.messages / (row.windowMs / 1000))).padStart(8),
  ];
  return `| ${cells.join(' | ')} |`;
}

const server = await startServer();
const group = wranglerGroup(server.port);
const nodeRelay = await startNodeRelay();
// Interrupted (Ctrl-C, a timeout): stop the relays too, or wrangler outlives the run in its own group.
const stopOnSignal = (): void => {
  nodeRelay.stop();
  void server.stop().finally(() => process.exit(130));
};
process.once('SIGINT', stopOnSignal);
process.once('SIGTERM', stopOnSignal);
const rows: Row[] = [];
const run = Date.now().toString(36);
console.log(
  `relay benchmark: ${PEER_COUNTS.join(', ')} peers at 10 Hz, ${MEASURE_MS / 1000} s windows; load average at start ${loadAverage().toFixed(2)} on ${(await import('node:os')).cpus().length} cores`,
);
console.log('| relay                    | peers | delivered |   p50   |   p99    | CPU/frame | vs ws | cores | msgs/s  |');
console.log('|--------------------------|------:|----------:|--------:|---------:|----------:|------:|------:|--------:|');
try {
  for (const peers of PEER_COUNTS) {
    const candidates: Array<{ relay: string; url: (i: number) => string; cpu: () => number }> = [
      { relay: 'Node ws broadcast relay', url: () => `ws://127.0.0.1:${nodeRelay.port}/`, cpu: () => groupCpuSeconds(nodeRelay.pgid) },
      {
        relay: 'RelayRoom direct',
        url: () => `ws://127.0.0.1:${server.port}/rooms/avatar/bench-direct-${peers}-${run}?mode=direct`,
        cpu: () => groupCpuSeconds(group),
      },
      {
        relay: 'RelayRoom coalesce 40ms',
        url: () => `ws://127.0.0.1:${server.port}/rooms/avatar/bench-coalesce-${peers}-${run}?mode=coalesce`,
        cpu: () => groupCpuSeconds(group),
      },
    ];
    const batch: Row[] = [];
    for (const candidate of candidates) {
      let cpuStart = 0;
      let cpuUsed = 0;
      const result = await runLoad({
        peers,
        url: candidate.url,
        measureMs: MEASURE_MS,
        onWindow: (edge) => {
          if (edge === 'start') cpuStart = candidate.cpu();
          else cpuUsed = candidate.cpu() - cpuStart;
        },
      });
      const row: Row = { ...result, relay: candidate.relay, relayCpu: cpuUsed };
      batch.push(row);
      rows.push(row);
      console.log(format(row, batch[0]!) + (result.failures ? ` (${result.failures} sockets failed)` : ''));
      // Let the relay finish closing sockets before the next row.
      await new Promise((r) => setTimeout(r, 1500));
    }
  }
} finally {
  nodeRelay.stop();
  await server.stop();
}
console.log(
  `\nCPU/frame: relay CPU seconds in the window ÷ frames delivered; "vs ws": ratio to the Node ws relay at the same peer count (lower is better). cores: relay CPU seconds per second. msgs/s: WebSocket messages the peers received per second (sends the relay made). Load average at end ${loadAverage().toFixed(2)}.`,
);
