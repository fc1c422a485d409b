/**
 * The server a network benchmark runs against, on one of two paths (`--server wrangler|direct`):
 *
 * - `direct`: the `wrangler deploy` bundle of server/index.ts in one workerd through Miniflare
 *   (direct-workerd.ts): client → workerd (entry → asset router → Worker → Durable Objects).
 *   The same code and runtime as production's data path, which has no dev proxy.
 * - `wrangler`: `wrangler dev` (tests/harness/server.ts): client → wrangler's proxy workerd → the
 *   user workerd, beside wrangler's Node process. What the tests and `npm start` run.
 *
 * Both expose the CPU of their processes by role, for the benchmark's core columns.
 */
import { startServer } from '../../../tests/harness/server.ts';
import { startDirectWorkerd } from './direct-workerd.ts';
import { groupCpuByRole, groupCpuSeconds, wranglerGroup } from './proc-cpu.ts';

export type ServerPath = 'wrangler' | 'direct';
export const SERVER_PATHS: readonly ServerPath[] = ['direct', 'wrangler'];

export interface BenchServer {
  path: ServerPath;
  /** One line for the benchmark's header: what runs and where the sockets go. */
  description: string;
  url: string;
  port: number;
  /** CPU seconds so far of all the server's processes. */
  cpuSeconds(): number;
  /** CPU seconds so far by role (`proxy` stays 0 on the direct path, which has none). */
  cpuByRole(): Record<'workerd' | 'proxy' | 'node', number>;
  stop(): Promise<void>;
}

/** Reads `--server wrangler|direct` from argv (default `fallback`); throws on anything else. */
export function serverPathArg(argv: readonly string[], fallback: ServerPath): ServerPath {
  const at = argv.indexOf('--server');
  if (at < 0) return fallback;
  const value = argv[at + 1];
  if (!SERVER_PATHS.includes(value as ServerPath))
    throw new Error(`--server must be one of ${SERVER_PATHS.join(', ')}; got ${value === undefined ? 'nothing' : `"${value}"`}`);
  return value as ServerPath;
}

export async function startBenchServer(path: ServerPath): Promise<BenchServer> {
  if (path === 'direct') {
    const server = await startDirectWorkerd();
    return {
      path,
      description:
        'direct — the `wrangler deploy --dry-run` bundle of server/index.ts in one workerd via Miniflare (wrangler.toml bindings, SQLite Durable Objects, asset router), no dev proxy: production has none',
      url: server.url,
      port: server.port,
      cpuSeconds: () => groupCpuSeconds(server.pgid),
      cpuByRole: () => groupCpuByRole(server.pgid),
      stop: server.stop,
    };
  }
  const server = await startServer();
  const group = wranglerGroup(server.port);
  return {
    path,
    description: "wrangler dev — client → wrangler's proxy workerd (dev only) → the user workerd, beside wrangler's Node process",
    url: server.url,
    port: server.port,
    cpuSeconds: () => groupCpuSeconds(group),
    cpuByRole: () => groupCpuByRole(group, server.port),
    stop: server.stop,
  };
}
