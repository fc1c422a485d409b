import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { ensureChromium } from './browser.ts';
import { buildPages } from './build.ts';
import { startServer } from './server.ts';

/** Browser suite: build the pages as `npm start` does, then serve them from the real Worker. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  ensureChromium();
  const assetsDir = buildPages();
  const server = await startServer({ assetsDir });
  project.provide('serverUrl', server.url);
  project.provide('assetsDir', assetsDir);
  return async () => {
    await server.stop();
    rmSync(assetsDir, { recursive: true, force: true });
  };
}
