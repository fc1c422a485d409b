/**
 * Bundle bytes, gzip (level 9), as a three.js developer's bundler makes them from the package:
 * 1. each module entry (`cairn-world/<m>` from lib/, everything it exports kept by a namespace
 *    import) built alone by Vite (Rolldown), with three external (Cairn's own bytes plus valibot
 *    and meshoptimizer's simplifier) and with three bundled (what a page that uses only that module
 *    pays, three's used parts included); the naive path in the same run is every entry at once;
 *    files loaded by URL (worklets, the Worker) are counted apart, since a page fetches them only
 *    when it uses them;
 * 2. the world page's first-load JavaScript (the entry and every chunk it imports statically, from
 *    the manifest of the pages' build) as built, against the same build without the `three` →
 *    `three/webgpu` alias of vite.config.ts (three's addons then pull three.module.js, and with it
 *    the classic WebGLRenderer, into the shared chunk); each line says how many copies of three's
 *    core and of the WebGLRenderer it ships.
 * lib/ is built first when stale (`npm run build:lib`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type InlineConfig } from 'vite';
import { recordTable } from '../lib/record.ts';

const root = resolve(import.meta.dirname, '../..');
const MODULES = ['core', 'world', 'rig', 'avatar', 'anim', 'crowd', 'net', 'voice', 'scatter', 'assets', 'audio', 'ambient'];
/** Files a page fetches by URL only when it uses them. */
const BY_URL = /(meter-worklet|rnnoise-worklet|scatter-worker)/;
/** Text found once in each copy of three's core, and in the classic WebGLRenderer only. */
const CORE_MARK = /Multiple instances of Three\.js being imported/g;
const WEBGL_RENDERER_MARK = /WebGLRenderer: Unable to use reversed depth buffer/g;

execFileSync('npm', ['run', 'build:lib', '--silent'], { cwd: root, stdio: 'inherit' });

const gz = (bytes: Buffer): number => gzipSync(bytes, { level: 9 }).length;
const kB = (bytes: number): string => (bytes / 1000).toFixed(1);

interface Built {
  js: number;
  byUrl: number;
  cores: number;
}

/** Builds `code` as one page's script and sums the output's gzip bytes. */
async function bundle(code: string, threeExternal: boolean): Promise<Built> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bundle-'));
  try {
    const entry = join(dir, 'entry.js');
    writeFileSync(entry, code);
    const config: InlineConfig = {
      configFile: false,
      logLevel: 'silent',
      root: dir,
      resolve: { alias: [{ find: /^cairn-world\/([a-z]+)$/, replacement: `${root}/lib/$1/index.js` }] },
      build: {
        outDir: join(dir, 'out'),
        target: 'es2022',
        modulePreload: false,
        rollupOptions: { input: entry, external: threeExternal ? [/^three(\/.*)?$/] : [], output: { entryFileNames: '[name].js' } },
      },
    };
    await build(config);
    let js = 0;
    let byUrl = 0;
    let cores = 0;
    const out = join(dir, 'out/assets');
    const files = [
      ...readdirSync(join(dir, 'out'))
        .filter((f) => f.endsWith('.js'))
        .map((f) => join(dir, 'out', f)),
    ];
    try {
      files.push(
        ...readdirSync(out)
          .filter((f) => f.endsWith('.js'))
          .map((f) => join(out, f)),
      );
    } catch {
      // no chunks beside the entry
    }
    for (const file of files) {
      const bytes = readFileSync(file);
      if (BY_URL.test(file)) byUrl += gz(bytes);
      else js += gz(bytes);
      cores += bytes.toString('utf8').match(CORE_MARK)?.length ?? 0;
    }
    return { js, byUrl, cores };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const entryCode = (modules: string[]): string =>
  modules.map((m, i) => `import * as m${i} from 'cairn-world/${m}';`).join('\n') +
  `\nconsole.log(${modules.map((_, i) => `m${i}`).join(', ')});\n`;

console.log('\n## Module entries, gzip bytes (three external / three bundled)');
const rows: string[][] = [];
const all = { external: await bundle(entryCode(MODULES), true), bundled: await bundle(entryCode(MODULES), false) };
for (const m of MODULES) {
  const external = await bundle(entryCode([m]), true);
  const bundled = await bundle(entryCode([m]), false);
  rows.push([
    `cairn-world/${m}`,
    kB(external.js),
    kB(bundled.js),
    external.byUrl ? kB(external.byUrl) : '–',
    `× ${(external.js / all.external.js).toPrecision(2)}`,
  ]);
  console.log(
    `${m.padEnd(8)} ${kB(external.js).padStart(8)} kB  ${kB(bundled.js).padStart(8)} kB  by URL ${external.byUrl ? kB(external.byUrl) : '–'} kB`,
  );
}
rows.push(['every entry (naive: the whole package)', kB(all.external.js), kB(all.bundled.js), kB(all.external.byUrl), '× 1 (baseline)']);
console.log(`all      ${kB(all.external.js).padStart(8)} kB  ${kB(all.bundled.js).padStart(8)} kB  by URL ${kB(all.external.byUrl)} kB`);
recordTable({
  title: 'Module entries alone (namespace import, Vite 8 / Rolldown, minified), gzip kB',
  columns: ['entry', 'three external', 'three bundled', 'worklets / Worker (by URL)', 'vs every entry (three external)'],
  rows,
});

/** The world page's first-load JavaScript from a pages build with or without the alias. */
async function worldPage(alias: boolean): Promise<{ js: number; raw: number; cores: number; webgl: number; chunks: number }> {
  const outDir = mkdtempSync(join(tmpdir(), 'cairn-pages-'));
  try {
    const { default: base } = (await import(join(root, 'vite.config.ts'))) as { default: InlineConfig };
    const aliases = (base.resolve!.alias as Array<{ find: RegExp; replacement: string }>).filter(
      (a) => alias || String(a.find) !== '/^three$/',
    );
    await build({
      ...base,
      configFile: false,
      logLevel: 'silent',
      resolve: { ...base.resolve, alias: aliases },
      build: { ...base.build, outDir, manifest: true, emptyOutDir: true },
    });
    const manifest = JSON.parse(readFileSync(join(outDir, '.vite/manifest.json'), 'utf8')) as Record<
      string,
      { file: string; isEntry?: boolean; imports?: string[] }
    >;
    const entry = Object.keys(manifest).find((k) => manifest[k]!.isEntry && k.endsWith('index.html'))!;
    const seen = new Set<string>();
    const walk = (key: string): void => {
      if (seen.has(key)) return;
      seen.add(key);
      for (const next of manifest[key]!.imports ?? []) walk(next);
    };
    walk(entry);
    let js = 0;
    let raw = 0;
    let cores = 0;
    let webgl = 0;
    for (const key of seen) {
      const bytes = readFileSync(join(outDir, manifest[key]!.file));
      js += gz(bytes);
      raw += bytes.length;
      cores += bytes.toString('utf8').match(CORE_MARK)?.length ?? 0;
      webgl += bytes.toString('utf8').match(WEBGL_RENDERER_MARK)?.length ?? 0;
    }
    return { js, raw, cores, webgl, chunks: seen.size };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

console.log("\n## The world page's first-load JavaScript");
const naive = await worldPage(false);
const fixed = await worldPage(true);
const pageRows = [
  ['pages built without the three → three/webgpu alias (naive)', naive],
  ['pages as built (vite.config.ts)', fixed],
] as const;
for (const [name, r] of pageRows)
  console.log(`${name}: ${kB(r.js)} kB gzip (${kB(r.raw)} kB raw) in ${r.chunks} files; three cores ${r.cores}, WebGLRenderer ${r.webgl}`);
recordTable({
  title: "The world page's first-load JavaScript (app/index.html: entry + static imports), gzip kB",
  columns: ['build', 'gzip', 'raw', 'files', "copies of three's core", 'WebGLRenderer', 'vs naive'],
  rows: pageRows.map(([name, r]) => [
    name,
    kB(r.js),
    kB(r.raw),
    String(r.chunks),
    String(r.cores),
    r.webgl ? 'shipped' : 'none',
    `× ${(r.js / naive.js).toPrecision(3)}${r === naive ? ' (baseline)' : ''}`,
  ]),
});
if (fixed.cores !== 1 || fixed.webgl !== 0)
  throw new Error(`the world page ships ${fixed.cores} three cores and ${fixed.webgl} WebGLRenderer`);
