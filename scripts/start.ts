/**
 * `npm start`: builds the pages (vite build) and serves the world, the focused pages and the rooms
 * with `wrangler dev` (workerd). `PORT=9000 npm start` or `npm start -- --port 9000` picks the port;
 * `--no-build` serves dist/ as it is; `--ip 0.0.0.0` serves the local network (see docs/security.md).
 *
 * What listens on the port is the front (scripts/front.ts): it gives the Worker each connection's
 * real address, so no client can pick its own. wrangler listens on a private loopback port behind
 * it, supervised (scripts/supervisor.ts): a workerd crash is logged and the Worker restarted, and
 * no wrangler or workerd outlives this process — Ctrl-C, SIGTERM, SIGHUP, the end of the command
 * that started it, or `kill -9` of it or its process group. Tests and benchmarks start their
 * servers through this same script (tests/harness/server.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { resolve } from 'node:path';
import { startFront } from './front.ts';
import { parseStartOptions, wranglerArgs, wranglerEnv } from './start-options.ts';
import { alive, watchedAncestors, WorkerSupervisor } from './supervisor.ts';

const parsed = parseStartOptions(process.argv.slice(2), process.env);
if (!parsed.ok) {
  console.error(parsed.problem);
  process.exit(2);
}
const options = parsed.options;
const root = resolve(import.meta.dirname, '..');

if (options.build) {
  const result = spawnSync(process.execPath, [resolve(root, 'node_modules/vite/bin/vite.js'), 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
} else {
  mkdirSync(resolve(root, options.assets ?? 'dist'), { recursive: true });
}

const supervisor = new WorkerSupervisor({
  root,
  wranglerArgs: wranglerArgs(options),
  env: wranglerEnv(process.env),
  log: (line) => console.log(line),
  stdio: 'inherit',
});

let front: Awaited<ReturnType<typeof startFront>> | null = null;
let stopping = false;
async function shutdown(why: string, code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    if (why) console.log(`Cairn: stopping (${why})`);
    front?.close();
    front?.closeAllConnections();
    await supervisor.stop();
  }
  process.exit(code);
}
supervisor.onFatal = (message) => {
  console.error(`Cairn: ${message}`);
  void shutdown('', 1);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal, 0));
process.on('uncaughtException', (error) => {
  console.error(error);
  void shutdown('an internal error', 1);
});

// The command that started this (npm, its shell, tsx) ending ends the server too.
const ancestors = watchedAncestors();
setInterval(() => {
  const gone = ancestors.find((pid) => !alive(pid));
  if (gone !== undefined) void shutdown(`process ${gone}, which started this server, ended`, 0);
}, 500).unref();

try {
  front = await startFront({ ip: options.ip, port: options.port, upstream: () => supervisor.upstream(), log: (line) => console.log(line) });
} catch (error) {
  console.error(`Cairn: cannot listen on ${options.ip}:${options.port}: ${(error as Error).message}`);
  await shutdown('', 1);
}
try {
  await supervisor.start();
} catch (error) {
  console.error(`Cairn: ${(error as Error).message}`);
  await shutdown('', 1);
}

const shown = options.ip === '0.0.0.0' || options.ip === '::' ? '127.0.0.1' : options.ip;
console.log(`Cairn: http://${shown}:${options.port}/ (the gallery: /gallery.html)`);
if (options.ip === '0.0.0.0' || options.ip === '::') {
  const lan = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === 'IPv4')
    .map((a) => `http://${a!.address}:${options.port}/`);
  if (lan.length) console.log(`Cairn: on this network: ${lan.join(', ')} (each address its own client, with production budgets)`);
}
