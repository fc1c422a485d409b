/**
 * Bundles an AudioWorklet processor and everything it imports into ONE self-contained ES module
 * and writes it with a generated-file header, so `audioWorklet.addModule(new URL(…,
 * import.meta.url))` works under the dev server, in the built pages and behind any path prefix.
 * Used by src/audio/meter/build-worklet.ts and src/voice/denoise/build-worklet.ts; both list this
 * file among their worklet's sources, so a change here marks both outputs stale.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { build } from 'vite';

export interface BundleWorkletOptions {
  /** The processor's source file. */
  entry: string;
  /** Where the bundle is written (committed beside its sources). */
  file: string;
  /** Comment lines at the top (source hash, provenance, how to regenerate), without `//`. */
  header: string[];
}

/** Builds and writes the bundle; returns its size in bytes. Throws if the bundle still imports anything. */
export async function bundleWorklet(options: BundleWorkletOptions): Promise<number> {
  const name = basename(options.file);
  const outDir = mkdtempSync(join(tmpdir(), 'cairn-worklet-'));
  try {
    await build({
      configFile: false,
      logLevel: 'warn',
      build: {
        outDir,
        emptyOutDir: true,
        minify: false,
        target: 'es2022',
        lib: { entry: options.entry, formats: ['es'], fileName: () => name },
      },
    });
    const bundled = readFileSync(join(outDir, name), 'utf8');
    if (/^\s*import\s/m.test(bundled)) throw new Error(`the bundled ${name} still imports something; it must be self-contained`);
    const text = [...options.header.map((line) => `// ${line}`), '/* eslint-disable */', ''].join('\n') + bundled;
    writeFileSync(options.file, text);
    return text.length;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
