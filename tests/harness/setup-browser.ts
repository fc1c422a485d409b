import type { TestProject } from 'vitest/node';
import { ensureChromium } from './browser.ts';
import { buildPages } from './build.ts';
import { startServer } from './server.ts';

/** Browser suite: build the pages as `npm start` does, then serve them from the real Worker. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  ensureChromium();
  buildPages();
  const server = await startServer();
  project.provide('serverUrl', server.url);
  return () => server.stop();
}
