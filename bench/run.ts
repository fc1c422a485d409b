/**
 * `npm run bench`: runs every bench/**\/*.bench.ts in its own process, one after another (they
 * share two cores; running them together would measure each other). Each prints its own figures
 * as ratios against the peer or naive path measured in the same run.
 * `npm run bench -- crowd relay` runs only files whose path contains one of the words.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const filters = process.argv.slice(2);

function find(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'lib' ? [] : find(path);
    return entry.endsWith('.bench.ts') ? [path] : [];
  });
}

const files = find(resolve(root, 'bench'))
  .sort()
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
let failed = 0;
for (const file of files) {
  const name = relative(root, file);
  console.log(`\n# ${name}`);
  const result = spawnSync(process.execPath, [resolve(root, 'node_modules/tsx/dist/cli.mjs'), file], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.log(`(${name} failed with exit code ${result.status})`);
  }
}
console.log(`\n${files.length - failed}/${files.length} benchmarks ran.`);
process.exit(failed ? 1 : 0);
