import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from './server.ts';

/**
 * Builds the pages with Vite, as `npm start` does, into `outDir` (default: a fresh temporary
 * folder, so parallel test runs never overwrite each other's build). Returns the folder.
 * Throws with Vite's output on failure.
 */
export function buildPages(outDir = mkdtempSync(join(tmpdir(), 'cairn-dist-'))): string {
  const vite = resolve(ROOT, 'node_modules/vite/bin/vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir'], {
    cwd: ROOT,
    encoding: 'utf8',
    // Vitest sets NODE_ENV=test, which would make Vite build development bundles (import.meta.env.DEV).
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
  return outDir;
}
