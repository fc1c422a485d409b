/**
 * `npm run dev`: Vite with hot reload for the pages on http://127.0.0.1:5173, and the Worker
 * (rooms, /api) on 127.0.0.1:8788 behind Vite's proxy, started as `npm start` starts it
 * (scripts/start.ts without the build): behind the front, so no request picks its own address, and
 * supervised, so a workerd crash is restarted and nothing outlives this. Ctrl-C stops both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const workerPort = process.env.CAIRN_WORKER_PORT ?? '8788';
mkdirSync('dist', { recursive: true });

const children: ChildProcess[] = [
  spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', '--no-build', '--port', workerPort], {
    stdio: 'inherit',
    detached: true,
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
