/**
 * Keeps the local Worker running for `npm start`: runs `wrangler dev` (which runs workerd) on a
 * private loopback port behind the front (scripts/front.ts), notices when workerd dies, says so
 * and starts it again, and makes sure neither wrangler nor workerd outlives the server.
 *
 * - **A workerd crash** (found: after `kill -9` of workerd, wrangler keeps running, `/api/health`
 *   hangs and `/` answers 500 until someone restarts it). The supervisor knows workerd's processes
 *   (those in wrangler's process group) and checks them four times a second; when one is gone and
 *   no new one took its place within {@link RELOAD_GRACE_MS} (wrangler replaces workerd itself when
 *   it reloads after a source change), it logs the crash, kills wrangler's group and starts a new
 *   one. Requests wait at the front meanwhile. A Worker that stops answering without dying (three
 *   health probes in a row time out) is restarted the same way; wrangler exiting on its own too.
 *   More than {@link MAX_RESTARTS} restarts in a minute: it gives up (`npm start` exits 1).
 * - **No orphans.** wrangler runs in its own process group, so a signal to it reaches workerd too.
 *   A reaper — a tiny process in a group of its own, reading a pipe from this one — kills that
 *   group when the pipe closes, which the kernel does however this process ends, `kill -9` of it
 *   or of its whole group included.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePort } from './free-port.ts';

/** A vanished workerd has this long to be replaced by wrangler itself (a reload) before it counts as a crash (ms). */
export const RELOAD_GRACE_MS = 1500;
/** How often workerd's processes are checked (ms). */
const WATCH_MS = 250;
/** Liveness probes: every this many ms, each given as long; three failures in a row restart the Worker. */
const PROBE_MS = 10_000;
const PROBE_FAILURES = 3;
/** Restarts allowed within a minute before the supervisor gives up. */
export const MAX_RESTARTS = 5;
/** Tries at starting wrangler (each on a fresh port) before a start or restart fails. */
export const START_ATTEMPTS = 3;
/** How long wrangler has to answer /api/health after (re)starting (ms). */
const START_TIMEOUT_MS = 90_000;

export interface SupervisorOptions {
  /** The repository root (where wrangler.toml is). */
  root: string;
  /** Arguments for `wrangler dev` besides `--ip` and `--port` (the supervisor picks those). */
  wranglerArgs: string[];
  /** wrangler's environment. */
  env: Record<string, string | undefined>;
  /** Where the supervisor's own lines go. */
  log: (line: string) => void;
  /** wrangler's output: inherited (npm start) or ignored. */
  stdio: 'inherit' | 'ignore';
}

/** A process as the system lists it. */
interface Listed {
  pid: number;
  pgid: number;
  name: string;
}

/** Every process with its group and name (Linux: /proc; elsewhere `ps`). */
export function listProcesses(): Listed[] {
  if (process.platform === 'linux') {
    const out: Listed[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // pid (name) state ppid pgrp …; the name may hold spaces and parentheses.
        const close = stat.lastIndexOf(')');
        const fields = stat.slice(close + 2).split(' ');
        if (fields[0] === 'Z') continue; // a zombie is gone
        out.push({ pid: Number(entry), pgid: Number(fields[2]), name: stat.slice(stat.indexOf('(') + 1, close) });
      } catch {
        // ended while listed
      }
    }
    return out;
  }
  const ps = spawnSync('ps', ['-A', '-o', 'pid=,pgid=,comm='], { encoding: 'utf8' });
  return ps.stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), pgid: Number(m[2]), name: m[3]!.split('/').pop()! }));
}

/** A process's parent and group, or null when it is gone. */
export function processInfo(pid: number): { ppid: number; pgid: number } | null {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return { ppid: Number(fields[1]), pgid: Number(fields[2]) };
    } catch {
      return null;
    }
  }
  const ps = spawnSync('ps', ['-o', 'ppid=,pgid=', '-p', String(pid)], { encoding: 'utf8' });
  const m = /^\s*(\d+)\s+(\d+)/.exec(ps.stdout);
  return m ? { ppid: Number(m[1]), pgid: Number(m[2]) } : null;
}

/**
 * The processes whose end means this server should end: its parent, and every further ancestor
 * in its own process group — `npm start` runs npm → sh → tsx → this, all in one group, and a
 * signal that ends npm (SIGHUP, which npm does not pass on) leaves the rest running otherwise.
 * The shell that ran the command is in another group, so `nohup npm start &` keeps running.
 */
export function watchedAncestors(): number[] {
  const self = processInfo(process.pid);
  if (!self) return [process.ppid];
  const out = [process.ppid];
  let pid = process.ppid;
  for (let depth = 0; depth < 16; depth++) {
    const info = processInfo(pid);
    if (!info || info.pgid !== self.pgid || info.ppid <= 1) break;
    pid = info.ppid;
    const parent = processInfo(pid);
    if (!parent || parent.pgid !== self.pgid) break;
    out.push(pid);
  }
  return out;
}

/** The workerd processes of process group `pgid`. */
export function workerdOf(pgid: number): number[] {
  return listProcesses()
    .filter((p) => p.pgid === pgid && p.name.startsWith('workerd'))
    .map((p) => p.pid);
}

/** True while `pid` runs (not a zombie). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Answers true when `port`'s /api/health answers 200 within `timeoutMs`. */
async function healthy(port: number, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * The reaper's code: it learns process groups (one number a line) on stdin and kills them all
 * with SIGKILL when stdin ends, that is when the supervisor's process has ended, however.
 */
const REAPER = `
const groups = new Set();
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  const lines = buffered.split('\\n');
  buffered = lines.pop();
  for (const line of lines) {
    const n = Number(line.slice(1));
    if (line[0] === '+' && n > 0) groups.add(n);
    if (line[0] === '-') groups.delete(n);
  }
});
const reap = () => {
  for (const group of groups) { try { process.kill(-group, 'SIGKILL'); } catch {} }
  process.exit(0);
};
process.stdin.on('end', reap);
process.stdin.on('close', reap);
process.stdin.on('error', reap);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});
`;

/** One generation of wrangler: its process, its port, and whether it answered yet. */
interface Generation {
  child: ChildProcess;
  port: number;
  exited: Promise<void>;
  hasExited: boolean;
  /** It answered /api/health once: from then on, its exit is a crash. */
  answered: boolean;
}

export class WorkerSupervisor {
  private readonly options: SupervisorOptions;
  private current: Generation | null = null;
  /** The Worker's port once it answers; replaced by a pending one while it (re)starts. */
  private ready: Promise<number>;
  private settle: { resolve: (port: number) => void; reject: (error: Error) => void } | null = null;
  private readonly reaper: ChildProcess;
  private watchTimer: ReturnType<typeof setInterval> | null = null;
  private probeTimer: ReturnType<typeof setInterval> | null = null;
  private workerd: number[] = [];
  private checking = false;
  private restarting = false;
  private stopping = false;
  private probeFailures = 0;
  private readonly restarts: number[] = [];
  /** Called when the supervisor gives up (too many restarts): `npm start` exits non-zero. */
  onFatal: (message: string) => void = () => undefined;

  constructor(options: SupervisorOptions) {
    this.options = options;
    this.ready = this.pending();
    this.reaper = spawn(process.execPath, ['-e', REAPER], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    this.reaper.unref();
    this.reaper.stdin?.on('error', () => undefined);
  }

  /** The Worker's loopback port once it answers (waits while it starts or restarts). */
  upstream(): Promise<number> {
    return this.ready;
  }

  /** wrangler's process group now (its pid), or null. */
  get group(): number | null {
    return this.current?.child.pid ?? null;
  }

  /** Starts wrangler; resolves with its port once it answers /api/health. */
  async start(): Promise<number> {
    const port = await this.launch();
    this.watchTimer = setInterval(() => void this.check(), WATCH_MS);
    this.probeTimer = setInterval(() => void this.probe(), PROBE_MS);
    return port;
  }

  /** Stops wrangler and workerd: SIGTERM to the group, SIGKILL after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    this.stopping = true;
    if (this.watchTimer) clearInterval(this.watchTimer);
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.settle?.reject(new Error('the server is stopping'));
    const generation = this.current;
    if (generation) await this.end(generation, 'SIGTERM', graceMs);
    this.reaper.stdin?.end();
  }

  /** Makes requests wait for the next {@link adopt} (one pending answer, however many ask for it). */
  private hold(): void {
    if (!this.settle) this.ready = this.pending();
  }

  private pending(): Promise<number> {
    const promise = new Promise<number>((resolvePort, reject) => (this.settle = { resolve: resolvePort, reject }));
    promise.catch(() => undefined);
    return promise;
  }

  /** Spawns wrangler on a fresh port (not waiting for it). */
  private async spawnGeneration(): Promise<Generation> {
    const port = await freePort();
    const { root, wranglerArgs, env, stdio } = this.options;
    const child = spawn(
      process.execPath,
      [resolve(root, 'node_modules/wrangler/bin/wrangler.js'), 'dev', '--ip', '127.0.0.1', '--port', String(port), ...wranglerArgs],
      { cwd: root, stdio: ['ignore', stdio, stdio], detached: true, env },
    );
    const generation: Generation = { child, port, hasExited: false, answered: false, exited: Promise.resolve() };
    generation.exited = new Promise((done) =>
      child.once('exit', (code, signal) => {
        generation.hasExited = true;
        if (child.pid) this.reaper.stdin?.write(`-${child.pid}\n`);
        done();
        if (generation.answered && this.current === generation && !this.stopping && !this.restarting)
          void this.restart(`wrangler exited (${signal ?? `code ${code}`})`);
      }),
    );
    if (child.pid) this.reaper.stdin?.write(`+${child.pid}\n`);
    return generation;
  }

  /** Waits for a generation to answer /api/health; throws when it exits or takes too long. */
  private async answered(generation: Generation): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await healthy(generation.port, 2000))) {
      if (generation.hasExited) throw new Error('wrangler dev exited before it answered /api/health');
      if (this.stopping) throw new Error('the server is stopping');
      if (Date.now() > deadline) throw new Error(`wrangler dev did not answer /api/health within ${START_TIMEOUT_MS / 1000} s`);
      await sleep(100);
    }
  }

  /** Makes an answering generation the current one: requests go to it from now on. */
  private adopt(generation: Generation): number {
    generation.answered = true;
    this.current = generation;
    this.workerd = generation.child.pid ? workerdOf(generation.child.pid) : [];
    this.probeFailures = 0;
    this.settle?.resolve(generation.port);
    this.settle = null;
    this.ready = Promise.resolve(generation.port);
    return generation.port;
  }

  /** Spawns wrangler and waits for it to answer. */
  private async launch(): Promise<number> {
    return this.adopt(await this.startGeneration());
  }

  /**
   * Makes `first` (or a new generation) current and waits for it to answer. A wrangler that exits
   * before answering is replaced on another port, up to {@link START_ATTEMPTS} tries: the port a
   * generation is given is free when chosen, but another process (a dying workerd's wrangler
   * starting its own runtime) can take it before wrangler binds it ("Address already in use").
   */
  private async startGeneration(first?: Promise<Generation>): Promise<Generation> {
    for (let attempt = 1; ; attempt++) {
      const generation = await (attempt === 1 && first ? first : this.spawnGeneration());
      this.current = generation;
      try {
        await this.answered(generation);
        return generation;
      } catch (error) {
        if (!generation.hasExited || this.stopping || attempt >= START_ATTEMPTS) throw error;
        this.options.log(`Cairn: wrangler dev exited before it answered (port ${generation.port}); starting it on another port…`);
        await this.end(generation, 'SIGKILL', 0);
      }
    }
  }

  /**
   * Is every workerd still there? One that is gone without a new one beside it (wrangler's reload
   * starts its new workerd as the old one ends) is a crash unless a new one appears within the
   * grace. The replacement wrangler starts at once, beside the grace: a crash costs one wrangler
   * start, not the grace and then a start; after a late reload the replacement is dropped.
   */
  private async check(): Promise<void> {
    const generation = this.current;
    if (this.checking || this.restarting || this.stopping || !generation?.child.pid) return;
    const gone = this.workerd.filter((pid) => !alive(pid));
    if (gone.length === 0) return;
    // wrangler's own reload (a source or asset changed) replaces workerd with a new process at once.
    const replaced = (): boolean => workerdOf(generation.child.pid!).some((pid) => !this.workerd.includes(pid));
    if (replaced()) {
      this.workerd = workerdOf(generation.child.pid);
      return;
    }
    this.checking = true;
    // New requests wait (at the front) until the Worker answers again, old or new.
    this.hold();
    const standby = this.spawnGeneration();
    try {
      const deadline = Date.now() + RELOAD_GRACE_MS;
      while (Date.now() < deadline) {
        await sleep(100);
        if (replaced()) {
          await this.end(await standby, 'SIGKILL', 0);
          this.adopt(generation);
          return;
        }
      }
      if (this.current === generation && !this.stopping)
        await this.restart(`workerd (pid ${gone.join(', ')}) is gone and wrangler did not replace it`, standby);
      else await this.end(await standby, 'SIGKILL', 0);
    } finally {
      this.checking = false;
    }
  }

  /** The backstop: a Worker that stops answering without dying is restarted too. */
  private async probe(): Promise<void> {
    const generation = this.current;
    if (!generation || this.restarting || this.stopping || this.checking) return;
    if (await healthy(generation.port, PROBE_MS)) {
      this.probeFailures = 0;
      return;
    }
    if (++this.probeFailures >= PROBE_FAILURES && this.current === generation && !this.restarting && !this.stopping)
      await this.restart(`/api/health did not answer ${PROBE_FAILURES} times in a row`);
  }

  /** Logs why, kills the current wrangler group and makes a new one (`standby`, when already starting) current. */
  private async restart(why: string, standby?: Promise<Generation>): Promise<void> {
    if (this.restarting || this.stopping) {
      if (standby) await this.end(await standby, 'SIGKILL', 0);
      return;
    }
    this.restarting = true;
    const began = Date.now();
    this.restarts.push(began);
    while (this.restarts.length && began - this.restarts[0]! > 60_000) this.restarts.shift();
    this.options.log(`Cairn: the local Worker crashed: ${why}. Restarting it (restart ${this.restarts.length} this minute)…`);
    if (this.restarts.length > MAX_RESTARTS) {
      this.restarting = false;
      if (standby) await this.end(await standby, 'SIGKILL', 0);
      this.onFatal(`the local Worker crashed ${this.restarts.length} times within a minute; giving up`);
      return;
    }
    this.hold();
    try {
      const old = this.current;
      if (old) await this.end(old, 'SIGKILL', 0);
      this.adopt(await this.startGeneration(standby));
      this.options.log(`Cairn: the local Worker is back (${((Date.now() - began) / 1000).toFixed(1)} s).`);
    } catch (error) {
      this.restarting = false;
      if (!this.stopping) this.onFatal(`the local Worker could not be restarted: ${(error as Error).message}`);
      return;
    }
    this.restarting = false;
  }

  /** Signals a generation's whole process group, then SIGKILL after `graceMs`, and waits for wrangler to exit. */
  private async end(generation: Generation, signal: NodeJS.Signals, graceMs: number): Promise<void> {
    const pid = generation.child.pid;
    if (!pid) return;
    const kill = (sig: NodeJS.Signals): void => {
      try {
        process.kill(-pid, sig);
      } catch {
        // already gone
      }
    };
    kill(signal);
    if (!generation.hasExited && graceMs > 0) await Promise.race([generation.exited, sleep(graceMs)]);
    // wrangler may be gone while workerd lingers: the group goes in any case.
    kill('SIGKILL');
    await Promise.race([generation.exited, sleep(2000)]);
  }
}
