import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { docsExamples } from './tests/docs/vite-plugin.ts';

const appDir = resolve(import.meta.dirname, 'app');
const srcDir = resolve(import.meta.dirname, 'src');

/** Every app/*.html is a page: the world (index.html) and one focused page per module. */
const pages = Object.fromEntries(
  readdirSync(appDir)
    .filter((file) => file.endsWith('.html'))
    .map((file) => [file.replace(/\.html$/, ''), resolve(appDir, file)]),
);

/** Where `npm run dev` finds the Worker for /rooms and /api (started by scripts/dev.ts). */
const workerPort = Number(process.env.CAIRN_WORKER_PORT ?? 8788);

export default defineConfig({
  root: appDir,
  publicDir: resolve(import.meta.dirname, 'public'),
  resolve: {
    alias: [
      // The package's public entry points (`cairn-world/crowd`, …; `cairn/crowd` too) as the docs' examples import them.
      { find: /^cairn(?:-world)?\/([a-z]+)$/, replacement: `${srcDir}/$1/index.ts` },
      // The pages render with WebGPURenderer only. three's addons and the docs' examples import 'three',
      // whose build (three.module.js) is three.core.js plus the classic WebGLRenderer; three.webgpu.js
      // is three.core.js plus WebGPURenderer, so mapping one onto the other (as three's own WebGPU
      // examples do in their import map) leaves one copy of three's core and no unused renderer.
      { find: /^three$/, replacement: 'three/webgpu' },
    ],
  },
  // docs-examples.html runs every ```ts block of README.md, DEVELOPERS.md and docs/*.md (tests/browser/docs-examples.test.ts).
  plugins: [docsExamples(import.meta.dirname)],
  build: {
    outDir: resolve(import.meta.dirname, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    rollupOptions: { input: pages },
  },
  server: {
    host: '127.0.0.1',
    proxy: {
      '/rooms': { target: `http://127.0.0.1:${workerPort}`, ws: true },
      '/api': { target: `http://127.0.0.1:${workerPort}` },
    },
  },
});
