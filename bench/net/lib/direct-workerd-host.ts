/**
 * The child process behind {@link startDirectWorkerd} (direct-workerd.ts): runs the bundled
 * Worker in one workerd through Miniflare, with the Worker options wrangler derives from
 * wrangler.toml, and prints one `READY <url>` line when it answers. It runs in its own process
 * group (the launcher spawns it detached), so the launcher stops it and its workerd together.
 *
 * Arguments: `<bundle.js> <persist dir> <assets dir>`; closing its stdin stops it. Kept as its own process, not inside the
 * benchmark's, so the CPU the benchmark attributes to the server is the server's alone, and
 * workerd's process group is not the walkers'.
 */
import { Miniflare, type WorkerOptions } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { dirname, resolve } from 'node:path';

const [bundle, persist, assets] = process.argv.slice(2);
if (!bundle || !persist || !assets) {
  console.error('usage: direct-workerd-host.ts <bundle.js> <persist dir> <assets dir>');
  process.exit(2);
}

const root = resolve(import.meta.dirname, '../../..');
// The same bindings, compatibility date/flags, Durable Object classes (SQLite) and asset router
// that `wrangler dev` gives the user worker; only the assets folder is swapped for an empty one.
const { workerOptions } = unstable_getMiniflareWorkerOptions(resolve(root, 'wrangler.toml'), undefined, {
  overrides: { assets: { directory: assets } },
});

// `CAIRN_WORKERD_INSPECTOR=<port>`: open workerd's V8 inspector there, to profile the relay (Chrome DevTools / CDP).
const inspectorPort = process.env.CAIRN_WORKERD_INSPECTOR ? Number(process.env.CAIRN_WORKERD_INSPECTOR) : undefined;

const mf = new Miniflare({
  host: '127.0.0.1',
  port: 0,
  ...(inspectorPort ? { inspectorPort } : {}),
  // Durable Object storage on disk, like `wrangler dev --persist-to` (not in memory).
  durableObjectsPersist: persist,
  workers: [{ ...(workerOptions as WorkerOptions), name: 'cairn', modules: true, modulesRoot: dirname(bundle), scriptPath: bundle }],
});

// Stop when the launcher closes our stdin (stop(), or the launcher dying): dispose Miniflare, which
// kills workerd and waits for it, so no zombie is left. Not on SIGTERM: Miniflare's exit hook
// answers that with an immediate process.exit, before workerd has been reaped.
process.stdin.resume();
process.stdin.once('end', () => {
  void mf.dispose().finally(() => process.exit(0));
});

try {
  const url = await mf.ready;
  console.log(`READY ${url.origin}`);
} catch (error) {
  console.error(`miniflare failed to start: ${(error as Error).stack ?? String(error)}`);
  await mf.dispose().catch(() => undefined);
  process.exit(1);
}
