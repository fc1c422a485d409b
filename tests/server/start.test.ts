/**
 * `npm start` as a process (scripts/start.ts, and `npm start` itself): a workerd crash is logged
 * and the Worker is back within 10 s, and no wrangler or workerd outlives the server, whatever
 * ends it. Each test starts its own server on a free port with a fresh storage folder.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.ts';
import { ROOT } from '../harness/server.ts';

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  name: string;
  /** Start time in clock ticks since boot: with the pid, names one process even after pid reuse. */
  start: string;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      if (fields[0] === 'Z') continue;
      out.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        pgid: Number(fields[2]),
        name: stat.slice(stat.indexOf('(') + 1, close),
        start: fields[19]!,
      });
    } catch {
      // gone while listed
    }
  }
  return out;
}

/** `root` and everything under it (by parent), and every member of those processes' groups. */
function family(root: number): Proc[] {
  const all = processes();
  const found = new Map<number, Proc>();
  const visit = (pid: number): void => {
    for (const p of all) {
      if (p.ppid !== pid || found.has(p.pid)) continue;
      found.set(p.pid, p);
      visit(p.pid);
    }
  };
  const self = all.find((p) => p.pid === root);
  if (self) found.set(root, self);
  visit(root);
  const groups = new Set([...found.values()].map((p) => p.pgid));
  for (const p of all) if (groups.has(p.pgid) && p.pgid !== process.pid) found.set(p.pid, p);
  return [...found.values()];
}

const stillRunning = (procs: Proc[]): Proc[] => {
  const now = new Map(processes().map((p) => [p.pid, p]));
  return procs.filter((p) => now.get(p.pid)?.start === p.start);
};

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

async function healthy(port: number, timeoutMs = 2000): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.text();
    return response.ok;
  } catch {
    return false;
  }
}

interface Started {
  child: ChildProcess;
  port: number;
  log: () => string;
  /** The process that runs scripts/start.ts (below npm, sh and tsx for `npm start`). */
  server: () => Proc;
  /** Every process seen under it (with start times), for the clean-up after a failed test. */
  seen: Proc[];
}

const started: Started[] = [];
const folders: string[] = [];

/** Starts `npm start` (`npm: true`) or scripts/start.ts in a process group of its own, and waits for /api/health. */
async function start(npm: boolean): Promise<Started> {
  const port = await freePort();
  const state = mkdtempSync(join(tmpdir(), 'cairn-start-'));
  folders.push(state);
  const args = [
    '--no-build',
    '--port',
    String(port),
    // Apart: wrangler reloads the Worker whenever its assets folder changes, and storage writes would change it.
    '--assets',
    join(state, 'assets'),
    '--persist-to',
    join(state, 'storage'),
    '--inspector-port',
    String(await freePort()),
  ];
  const child = npm
    ? spawn('npm', ['start', '--', ...args], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'scripts/start.ts'), ...args], {
        cwd: ROOT,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const entry: Started = {
    child,
    port,
    seen: [],
    log: () => output,
    server: () => {
      const found = family(child.pid!).find(
        (p) =>
          readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes('scripts/start.ts') &&
          p.name === 'node' &&
          readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes('--import'),
      );
      if (!found) throw new Error(`no scripts/start.ts process under ${child.pid}:\n${output}`);
      return found;
    },
  };
  started.push(entry);
  const deadline = Date.now() + 90_000;
  while (!(await healthy(port))) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start did not answer /api/health in 90 s:\n${output}`);
    await sleep(200);
  }
  entry.seen = family(child.pid!);
  return entry;
}

/** wrangler's workerd processes under a started server. */
function workerd(server: Started): Proc[] {
  const tree = family(server.child.pid!);
  server.seen.push(...tree);
  return tree.filter((p) => p.name === 'workerd');
}

/** Waits until none of `procs` runs; returns those still running after `ms`. */
async function outlived(procs: Proc[], ms: number): Promise<Proc[]> {
  const deadline = Date.now() + ms;
  while (stillRunning(procs).length > 0 && Date.now() < deadline) await sleep(100);
  return stillRunning(procs);
}

afterEach(() => {
  // Whatever a test left (a failure midway): the processes it saw under the server it started.
  for (const server of started.splice(0)) {
    const seen = new Map(server.seen.map((p) => [p.pid, p]));
    if (stillRunning([...seen.values()].filter((p) => p.pid === server.child.pid)).length > 0)
      for (const p of family(server.child.pid!)) seen.set(p.pid, p);
    for (const p of stillRunning([...seen.values()])) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** How long a killed workerd may take to be replaced before the test calls it not recovered. */
const RECOVERY_BOUND_MS = 45_000;

describe('npm start supervises workerd', () => {
  it(
    'logs a kill -9 of workerd and answers /api/health again, twice in a row (how fast is logged, not judged)',
    { timeout: 150_000 },
    async () => {
      const server = await start(false);
      const session = await fetch(`http://127.0.0.1:${server.port}/api/session`, { method: 'POST' });
      expect(session.status).toBe(200);
      await session.text();
      for (let round = 0; round < 2; round++) {
        const victims = workerd(server);
        expect(victims.length).toBeGreaterThan(0);
        const victim = victims[round % victims.length]!;
        process.kill(victim.pid, 'SIGKILL');
        const killedAt = Date.now();
        let back = false;
        // A liveness bound, not a speed target (a restart is one wrangler start: ~6 s on an idle 2-core machine).
        while (!back && Date.now() - killedAt < RECOVERY_BOUND_MS)
          back = await healthy(server.port, Math.max(100, RECOVERY_BOUND_MS - (Date.now() - killedAt)));
        const took = Date.now() - killedAt;
        console.log(`kill -9 of workerd ${victim.pid}: /api/health answered again after ${took} ms`);
        if (!back) console.log(server.log());
        expect(back).toBe(true);
        expect(stillRunning([victim])).toEqual([]);
      }
      expect(server.log().match(/the local Worker crashed: workerd \(pid \d+\) is gone/g)).toHaveLength(2);
      expect(server.log()).toMatch(/the local Worker is back/);
      // The same server goes on: rooms and the directory work.
      const enter = await fetch(`http://127.0.0.1:${server.port}/api/world/enter`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"x":5,"z":5}',
      });
      expect(enter.status).toBe(200);
      await enter.text();
    },
  );
});

describe('no wrangler or workerd outlives npm start', () => {
  // `npm start` first brings the API reference up to date (scripts/docs.ts: TypeDoc, a minute on a
  // fresh checkout, nothing when current): done once here, so each start below waits for the server only.
  beforeAll(() => {
    const docs = spawnSync(process.execPath, ['--import', 'tsx', resolve(ROOT, 'scripts/docs.ts')], { cwd: ROOT, encoding: 'utf8' });
    expect(docs.status, docs.stderr).toBe(0);
  }, 300_000);

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`${signal} to scripts/start.ts stops it and every child`, { timeout: 120_000 }, async () => {
      const server = await start(false);
      const tree = family(server.child.pid!);
      expect(tree.filter((p) => p.name === 'workerd').length).toBeGreaterThan(0);
      process.kill(server.server().pid, signal);
      expect(await outlived(tree, 10_000)).toEqual([]);
      expect(await healthy(server.port, 1000)).toBe(false);
    });
  }

  it('kill -9 of its process group leaves no child (the reaper ends wrangler’s group)', { timeout: 120_000 }, async () => {
    const server = await start(false);
    const tree = family(server.child.pid!);
    expect(tree.some((p) => p.name === 'workerd')).toBe(true);
    process.kill(-server.child.pid!, 'SIGKILL');
    expect(await outlived(tree, 10_000)).toEqual([]);
    expect(await healthy(server.port, 1000)).toBe(false);
  });

  for (const [what, signal, group] of [
    ['SIGHUP to npm (which npm does not pass on)', 'SIGHUP', false],
    ['kill -9 of npm start’s process group', 'SIGKILL', true],
  ] as const) {
    it(`${what} leaves no child`, { timeout: 120_000 }, async () => {
      const server = await start(true);
      const tree = family(server.child.pid!);
      expect(tree.some((p) => p.name === 'workerd')).toBe(true);
      process.kill(group ? -server.child.pid! : server.child.pid!, signal);
      expect(await outlived(tree, 10_000)).toEqual([]);
      expect(await healthy(server.port, 1000)).toBe(false);
    });
  }
});
