/**
 * Cairn as a three.js developer installs it: `npm pack` the package, then in a temp folder
 * (a) a Vite + TypeScript app with the `npm create vite` vanilla-ts template's own tsconfig (copied
 *     verbatim from create-vite 9.3.0) and its own compiler (TypeScript 7), its own `three` and its
 *     own WebGPURenderer scene, installs the tarball, type-checks and builds (`npm run build`, the
 *     template's `tsc && vite build`) and renders a crowd of 200, a painted forest, a forest placed
 *     in the ambient scatter's Worker and a sound metered by the mix bus's worklet in Chromium;
 * (b) the same scene, its types stripped, on a page with an import map and no bundler (three from
 *     its own build, Cairn from the tarball's lib/);
 * (c) both once more with the oldest three in the peer range;
 * and the pure parts import and run in plain Node (tests/consumer/node-check.mjs).
 * Each render is checked by pixels (against the clear colour, and with each part hidden in turn)
 * and by the parts' own stats, and the console must never say "Multiple instances of Three.js".
 *
 * CAIRN_TARBALL=path/to.tgz tests that tarball instead of packing one (scripts/release.ts).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { PNG } from 'pngjs';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium, MEDIA_ARGS, openPage } from '../harness/browser.ts';
import type {} from './app/src/consumer-handle.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const APP = join(import.meta.dirname, 'app');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  peerDependencies: Record<string, string>;
};
/** The newest and oldest three the peer range promises (`>=OLDEST <NEXT`); the newest is the one the repo builds with. */
const NEWEST_THREE = (JSON.parse(readFileSync(join(ROOT, 'node_modules/three/package.json'), 'utf8')) as { version: string }).version;
const OLDEST_THREE = /^>=(\d+\.\d+\.\d+)/.exec(pkg.peerDependencies.three!)![1]!;
const CLEAR = [0x20, 0x30, 0x40] as const;

const work = mkdtempSync(join(tmpdir(), 'cairn-consumer-'));
const app = join(work, 'app');
let tarball = '';
let server: Server;
let origin = '';
let browser: Browser;
const timings: Record<string, number> = {};

function run(command: string, args: string[], cwd: string, label: string): string {
  const started = performance.now();
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${label} failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}\n${e.message}`, { cause: error });
  } finally {
    timings[label] = Math.round(performance.now() - started);
  }
}

const npm = (args: string[], label: string): string =>
  run('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], app, label);

/**
 * Points the import map's valibot entry at the file the installed valibot's `exports` names, as a
 * developer writing the map reads it off the package.
 */
function mapValibot(): void {
  const manifest = JSON.parse(readFileSync(join(app, 'node_modules/valibot/package.json'), 'utf8')) as {
    exports: { '.': { import: { default: string } } };
  };
  const entry = `/node_modules/valibot/${manifest.exports['.'].import.default.replace(/^\.\//, '')}`;
  const page = join(app, 'importmap.html');
  writeFileSync(page, readFileSync(page, 'utf8').replace('"VALIBOT_ENTRY"', JSON.stringify(entry)));
}

/** Installs a three (and its types) and builds the app as the template does: `tsc && vite build`. */
function installAndBuild(three: string): void {
  npm(['install', `three@${three}`, `@types/three@${three}`, '--save-exact'], `npm install three@${three}`);
  rmSync(join(app, 'dist'), { recursive: true, force: true });
  npm(['run', 'build'], `npm run build (three ${three})`);
  // The page without a bundler runs the same scene with its types stripped, nothing else changed.
  for (const file of ['main.ts', 'scene.ts']) {
    const source = readFileSync(join(app, 'src', file), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: {
        target: ts.ScriptTarget.ES2023,
        module: ts.ModuleKind.ESNext,
        rewriteRelativeImportExtensions: true,
        verbatimModuleSyntax: true,
      },
    });
    writeFileSync(join(app, 'plain', file.replace(/\.ts$/, '.js')), outputText);
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
};

/** Serves the Vite build at / and the app folder (node_modules, plain/, importmap.html) beside it. */
function serve(): Promise<string> {
  server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    const fromApp = path.startsWith('/node_modules/') || path.startsWith('/plain/') || path === '/importmap.html';
    const file = join(fromApp ? app : join(app, 'dist'), path === '/' ? 'index.html' : path);
    if (!file.startsWith(app)) return void response.writeHead(403).end();
    try {
      const body = readFileSync(file);
      response
        .writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' })
        .end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
  );
}

interface Rendered {
  revision: string;
  backend: string;
  stats: {
    crowd: { agents: number; visible: number; gpu: number };
    forest: number;
    ambient: { mode: string; placed: number; instances: number; lastError: string | null };
  };
  sound: { source: string; maxPeak: number; momentaryMax: number };
  /** Pixels unlike the clear colour with everything shown, and pixels that change when each part is hidden. */
  covered: number;
  changed: { crowd: number; forest: number; ambient: number };
  console: string[];
}

function decode(png: Buffer): PNG {
  return PNG.sync.read(png);
}

function differing(a: PNG, b: PNG): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (Math.abs(a.data[i]! - b.data[i]!) + Math.abs(a.data[i + 1]! - b.data[i + 1]!) + Math.abs(a.data[i + 2]! - b.data[i + 2]!) > 24) n++;
  }
  return n;
}

function notClear(a: PNG): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (Math.abs(a.data[i]! - CLEAR[0]) + Math.abs(a.data[i + 1]! - CLEAR[1]) + Math.abs(a.data[i + 2]! - CLEAR[2]) > 24) n++;
  }
  return n;
}

async function render(path: string): Promise<Rendered> {
  const page = await openPage(browser, { width: 320, height: 240 });
  const messages: string[] = [];
  // A module that fails to load never lets the scene start: the first failure ends the wait.
  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined);
  page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => {
    messages.push(`pageerror: ${error.message}`);
    fail(new Error(`${path}: ${error.message}`));
  });
  // Every request must succeed (the browser's own favicon probe aside): a worklet or Worker that
  // did not resolve shows here first.
  page.on('response', (response) => {
    if (response.status() < 400 || response.url().endsWith('/favicon.ico')) return;
    messages.push(`http ${response.status()}: ${response.url()}`);
    fail(new Error(`${path}: http ${response.status()} for ${response.url()}`));
  });
  try {
    await page.goto(`${origin}${path}`);
    await Promise.race([
      page.waitForFunction(() => window.consumer !== undefined || window.consumerError !== undefined, undefined, { timeout: 150_000 }),
      failed,
    ]);
    const error = await page.evaluate(() => window.consumerError);
    if (error) throw new Error(`${path}: ${error}\n${messages.join('\n')}`);
    const canvas = page.locator('#view');
    const shot = async (): Promise<PNG> => decode(await canvas.screenshot());
    const all = await shot();
    const changed = { crowd: 0, forest: 0, ambient: 0 };
    for (const part of ['crowd', 'forest', 'ambient'] as const) {
      await page.evaluate((p) => window.consumer!.show(p, false), part);
      changed[part] = differing(all, await shot());
      await page.evaluate((p) => window.consumer!.show(p, true), part);
    }
    const sound = await page.evaluate(() => window.consumer!.sound());
    const { revision, backend } = await page.evaluate(() => ({ revision: window.consumer!.revision, backend: window.consumer!.backend }));
    const stats = await page.evaluate(() => window.consumer!.stats());
    const result = { revision, backend, stats, sound, covered: notClear(all), changed, console: messages };
    console.log(`[consumer] ${path} three r${revision}: ${JSON.stringify({ ...result, console: messages.length })}`);
    return result;
  } finally {
    await page.close();
  }
}

function expectRendered(result: Rendered, three: string): void {
  expect(result.revision).toBe(three.split('.')[1]);
  expect(result.backend).toBe('WebGPU');
  expect(result.console.filter((m) => /Multiple instances of Three\.js/i.test(m))).toEqual([]);
  expect(result.console.filter((m) => /^(pageerror|http|error)/.test(m) && !/^error: Failed to load resource/.test(m))).toEqual([]);
  expect(result.stats.crowd).toMatchObject({ agents: 200 });
  expect(result.stats.crowd.visible).toBeGreaterThan(0);
  expect(result.stats.forest).toBeGreaterThan(10);
  expect(result.stats.ambient).toMatchObject({ mode: 'worker', lastError: null });
  expect(result.stats.ambient.placed).toBeGreaterThan(0);
  expect(result.stats.ambient.instances).toBeGreaterThan(0);
  // Pixels, not only stats: each part changes the picture when it is hidden.
  expect(result.covered).toBeGreaterThan(2000);
  expect(result.changed.crowd).toBeGreaterThan(200);
  expect(result.changed.forest).toBeGreaterThan(200);
  expect(result.changed.ambient).toBeGreaterThan(50);
  // The mix bus's loudness worklet loaded (from the package's own file) and heard the sound.
  expect(result.sound.source).toBe('worklet');
  expect(result.sound.maxPeak).toBeGreaterThan(0.01);
  expect(result.sound.momentaryMax).toBeGreaterThan(-60);
}

/** Copies of three's core in the built app: the warning's text is in three.core.js once per copy. */
function coresInBuild(): number {
  const dir = join(app, 'dist/assets');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .reduce((n, f) => n + (readFileSync(join(dir, f), 'utf8').match(/Multiple instances of Three\.js being imported/g)?.length ?? 0), 0);
}

beforeAll(async () => {
  const started = performance.now();
  if (process.env.CAIRN_TARBALL) {
    tarball = resolve(process.env.CAIRN_TARBALL);
  } else {
    // What `npm pack` does (prepack builds lib/, skipped when it is current), with the build's own output kept apart.
    run('npm', ['run', 'build:lib', '--silent'], ROOT, 'build:lib');
    run('npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--loglevel=error'], ROOT, 'npm pack');
    tarball = join(work, `${pkg.name}-${pkg.version}.tgz`);
  }
  cpSync(APP, app, { recursive: true });
  mkdirSync(join(app, 'plain'));
  copyFileSync(join(ROOT, 'tests/fixtures/import/skeleton-only.glb'), join(app, 'skeleton-only.glb'));
  const manifest = readFileSync(join(app, 'package.json'), 'utf8')
    .replace('CAIRN_TARBALL', tarball)
    .replaceAll('THREE_VERSION', NEWEST_THREE);
  writeFileSync(join(app, 'package.json'), manifest);
  npm(['install'], 'npm install');
  mapValibot();
  installAndBuild(NEWEST_THREE);
  origin = await serve();
  browser = await launchChromium({ args: MEDIA_ARGS });
  timings.setup = Math.round(performance.now() - started);
}, 400_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
  rmSync(work, { recursive: true, force: true });
  console.log(`[consumer] ms per step: ${JSON.stringify(timings)}`);
});

describe(`${pkg.name} installed from its tarball`, () => {
  test('the tarball holds the built modules and no tests or sources', () => {
    const listing = run('tar', ['tzf', tarball], work, 'tar').split('\n').filter(Boolean);
    expect(listing).toContain('package/lib/crowd/index.js');
    expect(listing).toContain('package/lib/crowd/index.d.ts');
    expect(listing).toContain('package/lib/ambient/scatter-worker.js');
    expect(listing).toContain('package/lib/audio/meter/meter-worklet.js');
    expect(listing).toContain('package/lib/voice/denoise/rnnoise-worklet.js');
    expect(listing.filter((f) => /^package\/(tests|src|app|bench|server)\//.test(f))).toEqual([]);
    // Declarations name `.js` files, so any consumer resolution finds them.
    const declarations = run('tar', ['xzOf', tarball, 'package/lib/ambient/index.d.ts'], work, 'tar');
    expect(declarations).toContain(`declare module "../world/services.js"`);
    expect(declarations).not.toMatch(/from ["']\.[^"']*\.ts["']/);
  });

  test('the pure parts import and run in plain Node', () => {
    const script = readFileSync(join(import.meta.dirname, 'node-check.mjs'), 'utf8');
    const out = JSON.parse(run(process.execPath, ['--input-type=module', '-e', script], app, 'node check').trim().split('\n').pop()!);
    expect(out.scatter.placed).toBeGreaterThan(10);
    expect(out.scatter.replaySame).toBe(true);
    expect(out.import).toEqual({ bvh: { format: 'bvh', units: 'cm', bones: 2 }, glb: { format: 'gltf', bones: expect.any(Number) } });
    expect(out.import.glb.bones).toBeGreaterThan(10);
    expect(out.retarget).toEqual({ clips: 2, ok: true, parityOk: true, parityClips: 2 });
    expect(out.audio.recipes).toBeGreaterThan(5);
    expect(out.audio.strikeLayers).toBeGreaterThan(0);
    expect(out.audio.lufs).toBeGreaterThan(-20);
    expect(out.entries).toBe(true);
  });

  test(`a Vite + TypeScript app type-checks, builds and renders with three ${NEWEST_THREE} (one copy)`, async () => {
    expect(coresInBuild()).toBe(1);
    expectRendered(await render('/'), NEWEST_THREE);
  });

  test(`a page with an import map and no bundler renders the same with three ${NEWEST_THREE}`, async () => {
    expectRendered(await render('/importmap.html'), NEWEST_THREE);
  });

  test(`both again with the oldest three in the peer range (${OLDEST_THREE})`, async () => {
    installAndBuild(OLDEST_THREE);
    expect(coresInBuild()).toBe(1);
    expectRendered(await render('/'), OLDEST_THREE);
    expectRendered(await render('/importmap.html'), OLDEST_THREE);
  });
});
