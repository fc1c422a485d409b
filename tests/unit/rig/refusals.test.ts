/**
 * Every refusal named by its cause, in the same words, wherever the file is brought: the commands
 * (`npm run retarget`, `npm run lod`), the crowd's loader, the world's avatar, and the import layer
 * the retarget page reads dropped files with. The traps are real files broken the way downloads
 * break (tests/fixtures/import: see its README and make-traps.ts), and a real Mesh2Motion rig with
 * no mesh.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { CommandIO } from '../../../src/anim/node/cli.ts';
import { retargetCommand } from '../../../src/anim/node/retarget-command.ts';
import { loadCrowdTemplateFromFile } from '../../../src/crowd/load-template.ts';
import { parseRig, refusalOf } from '../../../src/rig/load.ts';
import { runLodCommand } from '../../../src/scatter/lod-command.ts';
import { loadAvatarModel } from '../../../src/avatar/avatar-model.ts';

vi.setConfig({ testTimeout: 60_000 });

const FIXTURES = join(import.meta.dirname, '../../fixtures/import');
const dir = mkdtempSync(join(tmpdir(), 'cairn-refusals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A .gltf copied without the .bin beside it.
mkdirSync(join(dir, 'alone'));
copyFileSync(join(FIXTURES, 'external/mannequin-external.gltf'), join(dir, 'alone', 'mannequin-external.gltf'));

function capture(): CommandIO & { text(): string } {
  const lines: string[] = [];
  return { out: (l) => lines.push(l), err: (l) => lines.push(l), text: () => lines.join('\n') };
}

/** [what, file, the cause's words, the places that refuse it]. */
const TRAPS: Array<[string, string, string, { crowd: boolean; retarget: boolean; lod: boolean }]> = [
  [
    'an HTML page saved as .glb',
    join(FIXTURES, 'html-page.glb'),
    "it is an HTML page, not a model: the link or the download saved a web page (a sign-in or error page) under the model's name",
    { crowd: true, retarget: true, lod: true },
  ],
  [
    'a GLB cut short',
    join(FIXTURES, 'truncated-zombie.glb'),
    'the file is cut short: it holds 98,304 bytes of the 162,820 its header declares; download or copy it again',
    { crowd: true, retarget: true, lod: true },
  ],
  [
    'one plain mesh of two primitives',
    join(FIXTURES, 'plain-two-primitives.glb'),
    'has no skeleton: 1 mesh (2 primitives) and no bones or animated nodes; a character needs a skinned mesh',
    // A prop: `npm run lod` bakes it.
    { crowd: true, retarget: true, lod: false },
  ],
  [
    'a rig with no mesh',
    join(FIXTURES, 'm2m-rig-human.glb'),
    'has a skeleton (66 bones) but no mesh: nothing to draw; it can serve as a clip source',
    // The commands take a skeleton as a clip source or a bare target; only drawing it is refused.
    { crowd: true, retarget: false, lod: true },
  ],
];

describe('refusals, in one vocabulary', () => {
  it.each(TRAPS)('%s', async (_what, path, words, where) => {
    const name = basename(path);
    const file = new File([readFileSync(path)], name);
    const expected = `${name}: ${words}`;
    // The crowd and the world's avatar.
    if (where.crowd) {
      await expect(loadCrowdTemplateFromFile(file)).rejects.toThrow(expected);
      await expect(loadAvatarModel(file)).rejects.toThrow(expected);
    }
    // The retarget page reads a dropped file through parseRig and shows refusalOf's message.
    const page = await parseRig(await file.arrayBuffer(), name).then(
      () => null,
      (error: unknown) => refusalOf(error, name).message,
    );
    if (where.retarget) expect(page).toBe(expected);
    // npm run lod: the same words, said once.
    if (where.lod) {
      const lod = capture();
      expect(await runLodCommand([path], lod)).toBe(2);
      expect(lod.text()).toBe(`lod: ${expected}`);
    }
    // npm run retarget: the file named as given, the same words.
    if (where.retarget) {
      const cli = capture();
      expect(await retargetCommand(['builtin:mannequin', path], cli)).toBe(2);
      expect(cli.text()).toBe(`${path}: ${words}`);
    }
  });

  it('names a .gltf whose .bin is missing, everywhere the same', async () => {
    const path = join(dir, 'alone', 'mannequin-external.gltf');
    const words = /^a file it refers to is missing: .*mannequin-external\.bin; keep the \.bin files beside the \.gltf \(or use a \.glb\)$/;
    const lod = capture();
    expect(await runLodCommand([path], lod)).toBe(2);
    expect(lod.text().replace('lod: mannequin-external.gltf: ', '')).toMatch(words);
    const cli = capture();
    expect(await retargetCommand(['builtin:mannequin', path], cli)).toBe(2);
    expect(cli.text().replace(`${path}: `, '')).toMatch(words);
    // The browser's loader names the .bin it could not fetch (here: Node's fetch has no file to read).
    const error = await parseRig(readFileSync(path).buffer as ArrayBuffer, 'mannequin-external.gltf').catch((e: unknown) => e);
    expect(refusalOf(error, 'mannequin-external.gltf').message).toMatch(
      /^mannequin-external\.gltf: a file it refers to is missing: .*mannequin-external\.bin/,
    );
  });

  it('loads a character whose texture is missing, and says so (the command-line tools as the world and the crowd do)', async () => {
    // Kenney's character names its texture as an external PNG; copied alone, the PNG is not beside it.
    const path = join(dir, 'kenney-alone.glb');
    copyFileSync(join(FIXTURES, 'kenney-character-male-a.glb'), path);
    const cli = capture();
    await retargetCommand([path, 'builtin:cc4'], cli);
    expect(cli.text()).not.toMatch(/a file it refers to is missing/);
    expect(cli.text()).toMatch(/^ {2}! texture "Textures\/colormap\.png" is missing: drawn without it$/m);
    const lod = capture();
    expect(await runLodCommand([path], lod)).toBe(0);
    expect(lod.text()).toMatch(/^! texture "Textures\/colormap\.png" is missing: drawn without it$/m);
  });
});
