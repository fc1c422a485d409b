/**
 * The fingerprint of everything meter-worklet.js is generated from. build-worklet.ts writes it into
 * the file's first line and a unit test recomputes it, so a change to a source without regenerating
 * the worklet fails the tests with the command to run. Node only.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const here = import.meta.dirname;

/** The generated, self-contained worklet (committed; loaded by URL at run time). */
export const METER_WORKLET_FILE = resolve(here, 'meter-worklet.js');
/** The files the worklet is built from. */
export const METER_WORKLET_SOURCES = [
  resolve(here, 'meter-processor.ts'),
  resolve(here, 'loudness-meter.ts'),
  resolve(here, 'build-worklet.ts'),
  resolve(here, '../../../scripts/bundle-worklet.ts'),
];
export const METER_REGENERATE_COMMAND = 'npx tsx src/audio/meter/build-worklet.ts';

export function meterWorkletSourceHash(): string {
  const hash = createHash('sha256');
  // Line endings are normalised so a Windows checkout hashes the same.
  for (const file of METER_WORKLET_SOURCES) hash.update(readFileSync(file, 'utf8').replace(/\r\n/g, '\n'));
  return hash.digest('hex').slice(0, 32);
}

/** Reads the hash recorded in the generated file's first line, or null. */
export function recordedMeterSourceHash(generated: string): string | null {
  return /^\/\/ cairn-meter-worklet source-hash: ([0-9a-f]{32})/.exec(generated)?.[1] ?? null;
}
