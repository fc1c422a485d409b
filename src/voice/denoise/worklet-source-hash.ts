/**
 * The fingerprint of everything rnnoise-worklet.js is generated from. build-worklet.ts writes it
 * into the file's first line and a unit test recomputes it, so a change to a source without
 * regenerating the worklet fails `npm test` with the command to run. Node only.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const here = import.meta.dirname;
const root = resolve(here, '../../..');

/** The generated, self-contained worklet (committed; loaded by URL at run time). */
export const WORKLET_FILE = resolve(here, 'rnnoise-worklet.js');
/** The files the worklet is built from. */
export const WORKLET_SOURCES = [
  resolve(here, 'rnnoise-processor.ts'),
  resolve(here, 'rnnoise-denoiser.ts'),
  resolve(here, 'block-framer.ts'),
  resolve(here, 'build-worklet.ts'),
  resolve(root, 'scripts/bundle-worklet.ts'),
  resolve(root, 'node_modules/@jitsi/rnnoise-wasm/dist/rnnoise-sync.js'),
];
export const REGENERATE_COMMAND = 'npx tsx src/voice/denoise/build-worklet.ts';

export function workletSourceHash(): string {
  const hash = createHash('sha256');
  // Line endings are normalised so a Windows checkout hashes the same.
  for (const file of WORKLET_SOURCES) hash.update(readFileSync(file, 'utf8').replace(/\r\n/g, '\n'));
  return hash.digest('hex').slice(0, 32);
}

/** Reads the hash recorded in the generated file's first line, or null. */
export function recordedSourceHash(generated: string): string | null {
  return /^\/\/ cairn-rnnoise-worklet source-hash: ([0-9a-f]{32})/.exec(generated)?.[1] ?? null;
}
