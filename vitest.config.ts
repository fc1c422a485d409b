import { defineConfig } from 'vitest/config';

/**
 * Four suites, run in this order by `npm test`:
 * - unit: pure logic in Node, fast;
 * - server: the real Worker in workerd (wrangler dev), over HTTP and WebSockets;
 * - browser: Debian's Chromium with WebGPU on SwiftShader against the real server and built pages;
 * - engines: a smoke run of every page in WebKitGTK and Firefox ESR (docs/browsers.md);
 * - consumer: the packed tarball installed into a fresh Vite app and an import-map page, rendered in Chromium.
 * The server, browser and engines suites each share one server per run (globalSetup). Server files
 * run four at a time: they mostly wait (timers, sockets, hibernation), so four take a third of the
 * time one at a time does, on two cores. Browser and engines files run one at a time: software
 * rendering uses both cores.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
          // A hang guard, not a speed check: some unit tests bake clips or meshes and take seconds
          // on a loaded two-core machine.
          testTimeout: 30_000,
          // Both cores (Vitest's default leaves one free): 72 s instead of about 105 s on two.
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'server',
          include: ['tests/server/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/harness/setup-server.ts'],
          // Each file names its own rooms and client addresses, so files share the server safely.
          maxWorkers: 4,
          testTimeout: 30_000,
          hookTimeout: 90_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['tests/browser/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/harness/setup-browser.ts'],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'engines',
          include: ['tests/engines/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/harness/setup-engines.ts'],
          fileParallelism: false,
          // Hang guards: WebKit draws the world at a frame every few seconds in software GL.
          testTimeout: 240_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // The package as a three.js developer installs it: `npm pack`, a Vite app and an import-map
          // page in a temp folder, each rendering in Chromium (tests/consumer/consumer.test.ts).
          name: 'consumer',
          include: ['tests/consumer/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 400_000,
          hookTimeout: 400_000,
        },
      },
    ],
  },
});
