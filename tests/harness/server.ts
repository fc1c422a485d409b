import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../scripts/free-port.ts';

export const ROOT = resolve(import.meta.dirname, '../..');

export interface RunningServer {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  /** Everything the server printed, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

export interface StartServerOptions {
  /** Port to listen on; a free one when omitted, so parallel runs never collide. */
  port?: number;
  /** ms to wait for /api/health. */
  timeoutMs?: number;
  /** Built pages to serve. Default dist/. Test runs build into their own folder (see build.ts). */
  assetsDir?: string;
  /**
   * Durable Object storage folder. Default: a fresh temporary folder per server, so runs never
   * share room state; pass one to keep state across a restart (eviction tests).
   */
  persistDir?: string;
  /** Address to listen on. Default 127.0.0.1; `0.0.0.0` serves the machine's other addresses too (as `npm start -- --ip 0.0.0.0`). */
  ip?: string;
  /**
   * Honour `X-Test-Client-IP` (the Worker's `TRUST_TEST_IP_HEADER`), so tests can play many
   * addresses. Default true; false runs the Worker exactly as `npm start` does.
   */
  trustTestAddresses?: boolean;
}

/** Process groups of servers not stopped yet; killed if this process ends first. */
const unstopped = new Set<number>();
let exitHooksInstalled = false;

/**
 * Kills every unstopped process group (servers, and the X server and browser drivers of the
 * engines suite) when this process exits or is ended by a signal (a benchmark under `timeout`,
 * Ctrl-C): otherwise its `wrangler dev` and workerd keep running, holding ports and memory
 * (found: three left from benchmarks killed by `timeout`). A signal with no other listener is
 * raised again after the kill, so the process still ends as it would have.
 */
export function killOnExit(pgid: number): void {
  if (!exitHooksInstalled) {
    exitHooksInstalled = true;
    const killAll = (): void => {
      for (const group of unstopped) {
        try {
          process.kill(-group, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      unstopped.clear();
    };
    process.once('exit', killAll);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      if (process.listenerCount(signal) > 0) continue; // someone else owns it (vitest): 'exit' still runs
      process.once(signal, () => {
        killAll();
        process.kill(process.pid, signal);
      });
    }
  }
  unstopped.add(pgid);
}

/** Takes a group off the {@link killOnExit} list once it has ended or been stopped. */
export function forgetGroup(pgid: number): void {
  unstopped.delete(pgid);
}
/**
 * Starts the real Worker in workerd the way `npm start` does — through scripts/start.ts, so the
 * front that gives the Worker each connection's real address, and the supervisor that restarts
 * a crashed workerd, are what every test and benchmark talks to — serving `assetsDir` and the
 * rooms on a free port.
 *
 * start.ts runs in its own process group (`detached`) and stop() signals the group; start.ts
 * then stops wrangler and workerd (in a group of their own). If this process ends without stop()
 * (killed by `timeout`, Ctrl-C), the group is killed then, and start.ts also ends by itself when
 * this process, its parent, is gone.
 */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const inspectorPort = await freePort();
  const assets = options.assetsDir ?? resolve(ROOT, 'dist');
  const ownPersist = options.persistDir === undefined;
  const persist = options.persistDir ?? mkdtempSync(join(tmpdir(), 'cairn-state-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      resolve(ROOT, 'scripts/start.ts'),
      '--no-build',
      '--ip',
      options.ip ?? '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspectorPort),
      '--assets',
      assets,
      '--persist-to',
      persist,
      '--log-level',
      'warn',
      // Tests play many client addresses with X-Test-Client-IP (server/identity/client.ts).
      ...(options.trustTestAddresses === false ? [] : ['--var', 'TRUST_TEST_IP_HEADER:1']),
      // Tests keep apart by using far cells of a world bigger than the 512 m map.
      '--var',
      'WORLD_HALF_EXTENT_M:4160',
    ],
    {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: '1' },
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited = false;
  child.on('exit', () => {
    exited = true;
    unstopped.delete(child.pid!);
  });
  if (child.pid !== undefined) killOnExit(child.pid);

  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (exited || child.pid === undefined) return;
    const gone = new Promise<void>((done) => child.once('exit', () => done()));
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return;
    }
    // start.ts gives wrangler 5 s to stop before it kills it; past that, the group goes.
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 8000);
    await gone;
    clearTimeout(timer);
    if (ownPersist) rmSync(persist, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (exited) throw new Error(`the server (scripts/start.ts) exited before it was ready:\n${output}`);
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return { url, port, log: () => output, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`the server did not answer /api/health within ${options.timeoutMs ?? 60_000} ms:\n${output}`);
}
