/**
 * `npm run release`: the artefact of a release is the `npm pack` tarball, tested before it is kept.
 * 1. builds lib/ (`npm run build:lib`, skipped when current);
 * 2. packs it (`npm pack`) into a temp folder;
 * 3. runs the consumer suite against that very tarball (CAIRN_TARBALL; tests/consumer): a fresh
 *    Vite + TypeScript app and an import-map page render with the newest and the oldest three in the
 *    peer range, and the pure parts run in plain Node;
 * 4. moves it to the repository root as `<name>-<version>.tgz` and prints its size.
 * Publishing is `npm publish <that file>`, by hand.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
const file = `${pkg.name}-${pkg.version}.tgz`;
const scratch = mkdtempSync(join(tmpdir(), 'cairn-release-'));
try {
  execFileSync('npm', ['run', 'build:lib', '--silent'], { cwd: root, stdio: 'inherit' });
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', scratch, '--loglevel=error'], { cwd: root, stdio: 'inherit' });
  const tarball = join(scratch, file);
  execFileSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'consumer'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, CAIRN_TARBALL: tarball },
  });
  renameSync(tarball, join(root, file));
  console.log(`${file}: ${(statSync(join(root, file)).size / 1e6).toFixed(2)} MB, tested; publish with: npm publish ${file}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
