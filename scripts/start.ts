/**
 * `npm start`: builds the pages (vite build) and serves the world, the focused pages and the rooms
 * with `wrangler dev` (workerd). `PORT=9000 npm start` or `npm start -- --port 9000` picks the port;
 * `--no-build` serves dist/ as it is. Ctrl-C stops the server and its workerd children.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseStartOptions, wranglerEnv } from './start-options.ts';

const parsed = parseStartOptions(process.argv.slice(2), process.env);
if (!parsed.ok) {
  console.error(parsed.problem);
  process.exit(2);
}
const { port, ip, build } = parsed.options;
const root = resolve(import.meta.dirname, '..');

if (build) {
  const result = spawnSync(process.execPath, [resolve(root, 'node_modules/vite/bin/vite.js'), 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
} else {
  mkdirSync(resolve(root, 'dist'), { recursive: true });
}

const wrangler = spawn(
  process.execPath,
  [
    resolve(root, 'node_modules/wrangler/bin/wrangler.js'),
    'dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--show-interactive-dev-session=false',
  ],
  { cwd: root, stdio: 'inherit', detached: true, env: wranglerEnv(process.env) },
);
console.log(`Cairn: http://${ip === '0.0.0.0' ? '127.0.0.1' : ip}:${port}/ (the gallery: /gallery.html)`);

const stop = (): void => {
  try {
    if (wrangler.pid) process.kill(-wrangler.pid, 'SIGTERM');
  } catch {
    // already gone
  }
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
wrangler.on('exit', (code) => process.exit(code ?? 0));
