import type { TestProject } from 'vitest/node';
import { startServer } from './server.ts';

/** Server suite: one real workerd server for the run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startServer();
  project.provide('serverUrl', server.url);
  return () => server.stop();
}
