/**
 * Runs the Cairn Worker (server/index.ts → AvatarRoom cells, the directory) in the real workerd
 * runtime *without* `wrangler dev`'s proxy workerd and Node process in the data path.
 *
 * Under `wrangler dev` every socket goes client → wrangler's proxy workerd (a dev-only hop that
 * lets wrangler swap the Worker on reload; Cloudflare has none) → the user workerd. On a 2-core
 * machine that hop and wrangler's Node process take cores the relay and the walkers need. Here:
 *
 * 1. the Worker is bundled by `wrangler deploy --dry-run --outdir` — the very bundle a deploy
 *    uploads (works offline);
 * 2. a detached child (direct-workerd-host.ts, its own process group) hands that bundle to
 *    Miniflare — the library wrangler itself drives workerd with — with the Worker options
 *    wrangler derives from wrangler.toml (`unstable_getMiniflareWorkerOptions`): the same
 *    bindings, compatibility date, SQLite Durable Object classes and asset router as under
 *    `wrangler dev`, assets from an empty folder;
 * 3. clients connect straight to that one workerd (Miniflare's entry worker → the asset router →
 *    the Worker → the objects, all inside the one process).
 *
 * The child's Node process only spawned workerd and waits; the benchmark shows its CPU as its own
 * role, so a claim that it is idle is measured, not assumed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

export interface DirectWorkerd {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  /** Process group of the Miniflare host and its workerd (for CPU readings by role). */
  pgid: number;
  /** Everything the bundler and the host printed, for failure messages. */
  log(): string;
  /** Stops the host and workerd (the whole process group) and removes the temporary folders. */
  stop(): Promise<void>;
}

export interface DirectWorkerdOptions {
  /** ms to wait for /api/health after the bundle is built. Default 60,000. */
  timeoutMs?: number;
}

/** Bundles the Worker exactly as `wrangler deploy` would; returns the module's path. */
function bundleWorker(outdir: string, assets: string): string {
  const wrangler = resolve(ROOT, 'node_modules/wrangler/bin/wrangler.js');
  const result = spawnSync(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', outdir, '--assets', assets], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_LOG: 'warn', NO_COLOR: '1', CI: '1' },
    timeout: 120_000,
  });
  const bundle = join(outdir, 'index.js');
  if (result.status !== 0 || !existsSync(bundle)) {
    throw new Error(`wrangler deploy --dry-run could not bundle the Worker (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return bundle;
}

/**
 * Starts the Worker in one workerd through Miniflare on a free loopback port. Throws with the
 * host's output when it does not answer /api/health in time (and leaves nothing running).
 */
export async function startDirectWorkerd(options: DirectWorkerdOptions = {}): Promise<DirectWorkerd> {
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-direct-'));
  const assets = join(scratch, 'assets');
  const persist = join(scratch, 'state');
  mkdirSync(assets);
  mkdirSync(persist);
  let bundle: string;
  try {
    bundle = bundleWorker(join(scratch, 'bundle'), assets);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }

  const host = resolve(import.meta.dirname, 'direct-workerd-host.ts');
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', host, bundle, persist, assets], {
    cwd: ROOT,
    // Its own process group: stop() signals the group, so workerd (Miniflare's child) goes too.
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let output = '';
  // Set by the host's `READY <url>` line (an object, so the wait loop below sees the callback's write).
  const ready: { url: string | null } = { url: null };
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    ready.url ??= /^READY (\S+)$/m.exec(output)?.[1] ?? null;
  });
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited = false;
  const gone = new Promise<void>((done) => child.once('exit', () => ((exited = true), done())));

  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is gone
    }
  };
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (!exited) {
        // Closing its stdin asks the host to dispose Miniflare, which kills and reaps workerd (no
        // zombie left behind); the whole group is killed if it has not gone 3 s later.
        child.stdin?.end();
        const timer = setTimeout(() => signalGroup('SIGKILL'), 3000);
        await gone;
        clearTimeout(timer);
      }
      // Whatever is left in the group (a workerd whose host died first) goes now.
      signalGroup('SIGKILL');
      rmSync(scratch, { recursive: true, force: true });
    })());

  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited) {
      await stop();
      throw new Error(`the Miniflare host exited before it was ready:\n${output}`);
    }
    const url = ready.url;
    if (url !== null) {
      try {
        const response = await fetch(`${url}/api/health`);
        if (response.ok) {
          const port = Number(new URL(url).port);
          return { url, port, pgid: child.pid!, log: () => output, stop };
        }
      } catch {
        // not listening yet
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`the direct workerd did not answer /api/health within ${timeoutMs} ms:\n${output}`);
}
