/**
 * `npm run dev`: Vite with hot reload for the pages on http://127.0.0.1:5173, and the Worker
 * (rooms, /api) in workerd on 127.0.0.1:8788 behind Vite's proxy. Ctrl-C stops both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const workerPort = process.env.CAIRN_WORKER_PORT ?? '8788';
mkdirSync('dist', { recursive: true });

const children: ChildProcess[] = [
  spawn('npx', ['wrangler', 'dev', '--ip', '127.0.0.1', '--port', workerPort, '--show-interactive-dev-session=false'], {
    stdio: 'inherit',
    detached: true,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  }),
  spawn('npx', ['vite'], { stdio: 'inherit', detached: true, env: { ...process.env, CAIRN_WORKER_PORT: workerPort } }),
];

function stop(): void {
  for (const child of children) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const child of children) child.on('exit', stop);
