import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second for /proc/<pid>/stat times (USER_HZ; 100 on Linux everywhere we run). */
const TICKS_PER_SECOND = 100;

function statOf(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; fields after the closing parenthesis are fixed.
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) used so far by every process in process group `pgid`. */
export function groupCpuSeconds(pgid: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const fields = statOf(pid);
    // After the name: state(0) ppid(1) pgrp(2) … utime(11) stime(12).
    if (!fields || Number(fields[2]) !== pgid) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}

/** CPU seconds used so far by one process. */
export function processCpuSeconds(pid: number): number {
  const fields = statOf(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND : 0;
}

/** The process group of the `wrangler dev` listening on `port` (found by its command line). */
export function wranglerGroup(port: number): number {
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const at = args.indexOf('--port');
      if (args.some((a) => a.endsWith('wrangler.js')) && at >= 0 && args[at + 1] === String(port)) return Number(statOf(pid)![2]);
    } catch {
      // gone
    }
  }
  throw new Error(`no wrangler dev process listening on port ${port}`);
}

/** 1-minute load average, to print beside results measured on a shared machine. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/**
 * CPU seconds so far of each process in group `pgid`, by role: `workerd` (the one running the
 * Worker and every Durable Object: the relay itself), `proxy` and `node`.
 *
 * Under `wrangler dev` (pass its public `proxyPort`) the group is a Node process and two workerd
 * processes — the one listening on the public port is wrangler's proxy in front of the Worker
 * (absent on Cloudflare). For the direct path (direct-workerd.ts, no `proxyPort`) the group is
 * Miniflare's idle Node host and the one workerd, which listens on the public port itself.
 */
export function groupCpuByRole(pgid: number, proxyPort?: number): Record<'workerd' | 'proxy' | 'node', number> {
  const out = { workerd: 0, proxy: 0, node: 0 };
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const fields = statOf(pid);
    if (!fields || Number(fields[2]) !== pgid) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone
    }
    const role = !args[0]?.endsWith('workerd')
      ? 'node'
      : proxyPort !== undefined && args.some((a) => a.includes(`entry=127.0.0.1:${proxyPort}`))
        ? 'proxy'
        : 'workerd';
    out[role] += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  }
  return out;
}

/** CPU seconds the whole machine has been busy (all cores, /proc/stat: everything but idle and iowait). */
export function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return (total - fields[3]! - fields[4]!) / TICKS_PER_SECOND;
}
