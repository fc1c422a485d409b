import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ROOT } from './server.ts';

/**
 * Saves a picture a browser test took for the docs (`docs/<name>`). A plain `npm test` writes it
 * under `test-results/pictures/` so a test run leaves the working tree clean; `npm run
 * docs:pictures` (CAIRN_DOCS=1) runs the browser tests and refreshes the pictures in `docs/`.
 * Returns the path written.
 */
export function saveDocPicture(name: string, png: Uint8Array): string {
  const path = process.env.CAIRN_DOCS === '1' ? resolve(ROOT, 'docs', name) : resolve(ROOT, 'test-results/pictures', name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, png);
  return path;
}

/** Saves what a failing check saw, under `test-results/failures/` (never in docs/). Returns the path written. */
export function saveFailurePicture(name: string, png: Uint8Array): string {
  const path = resolve(ROOT, 'test-results/failures', name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, png);
  return path;
}
