import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { buildPages } from './build.ts';
import { ensureEngines, startXvfb } from './engines.ts';
import { startServer } from './server.ts';

/**
 * Engines suite: the pages built as `npm start` builds them, served by the real Worker, and one X
 * server (Xvfb) for WebKitGTK's MiniBrowser and headful Firefox, all stopped in teardown.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  ensureEngines();
  const assetsDir = buildPages();
  const [server, x] = await Promise.all([startServer({ assetsDir }), startXvfb()]);
  project.provide('serverUrl', server.url);
  project.provide('display', x.display);
  return async () => {
    await Promise.all([server.stop(), x.stop()]);
    rmSync(assetsDir, { recursive: true, force: true });
  };
}
