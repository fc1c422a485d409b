import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { ROOT } from './server.ts';

/** Builds the pages into dist/ with Vite, as `npm start` does. Throws with Vite's output on failure. */
export function buildPages(): void {
  const vite = resolve(ROOT, 'node_modules/vite/bin/vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
}
