import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Group, Mesh } from 'three';
import { GLTFExporter } from 'three/addons/exporters/GLTFExporter.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installFileReaderPolyfill } from '../../../src/rig/node/file-reader-polyfill.ts';
import { runLodCommand } from '../../../src/scatter/lod-command.ts';
import { createPropMaterials } from '../../../src/scatter/props/materials.ts';
import { buildProceduralProp, PROCEDURAL_PROPS } from '../../../src/scatter/props/procedural.ts';

const root = resolve(import.meta.dirname, '../../..');
let dir: string;

async function lod(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runLodCommand(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { status, stdout: out.join('\n'), stderr: err.join('\n') };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-lod-'));
  installFileReaderPolyfill();
  const group = new Group();
  // A flat-shaded (split-vertex) two-piece prop, as an artist's low-poly export would be.
  for (const piece of buildProceduralProp(
    PROCEDURAL_PROPS.find((p) => p.id === 'oak')!,
    createPropMaterials(),
  )) {
    const mesh = new Mesh(piece.geometry, piece.material);
    mesh.name = piece.name!;
    group.add(mesh);
  }
  writeFileSync(join(dir, 'oak.glb'), Buffer.from((await new GLTFExporter().parseAsync(group, { binary: true })) as ArrayBuffer));
  writeFileSync(join(dir, 'broken.glb'), 'this is not a GLB');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run lod -- FILE.glb', () => {
  it('bakes and prints triangles per level for every piece of a GLB', async () => {
    const { status, stdout } = await lod(join(dir, 'oak.glb'), '--json');
    expect(status).toBe(0);
    const report = JSON.parse(stdout) as { ok: boolean; pieces: Array<{ piece: string; triangles: number[] }> };
    expect(report.ok).toBe(true);
    expect(report.pieces.map((p) => p.piece)).toEqual(['trunk', 'canopy']);
    for (const piece of report.pieces) {
      const [full, half, low] = piece.triangles as [number, number, number];
      expect(half).toBeLessThanOrEqual(Math.ceil(full / 2));
      expect(low).toBeLessThan(half);
    }
    const table = await lod(join(dir, 'oak.glb'), '--compare');
    expect(table.stdout).toMatch(/canopy\s+\d+\s+400\s+200\s+60/);
    expect(table.stdout).toMatch(/LockBorder\s+400 → 400 → 400/);
  });

  it('fails loudly (exit 1, piece named) when a level does not shrink', async () => {
    const { status, stderr, stdout } = await lod(join(dir, 'oak.glb'), '--flags', 'LockBorder');
    expect(status).toBe(1);
    expect(stdout).toContain('DID NOT SHRINK');
    expect(stderr).toMatch(/did not shrink at every level: trunk \(136 → 136 → 136\)/);
  });

  it('says clearly what is wrong with the input (exit 2)', async () => {
    const broken = await lod(join(dir, 'broken.glb'));
    expect(broken.status).toBe(2);
    // Worded once, by the import layer (no doubled "could not be parsed").
    expect(broken.stderr).toMatch(/^lod: broken\.glb: it is not a glTF\/GLB file \(/);
    const missing = await lod(join(dir, 'missing.glb'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^lod: missing\.glb: no such file$/m);
    expect((await lod()).stderr).toMatch(/no file given/);
    expect((await lod(join(dir, 'oak.glb'), '--flags', 'Bogus')).stderr).toMatch(/unknown simplifier flag "Bogus"/);
    expect((await lod(join(dir, 'oak.txt'))).stderr).toMatch(/not a \.glb or \.gltf/);
  });

  it('runs as a command (bin/lod.ts) with the exit status', { timeout: 60_000 }, () => {
    const result = spawnSync(
      process.execPath,
      [resolve(root, 'node_modules/tsx/dist/cli.mjs'), resolve(root, 'bin/lod.ts'), join(dir, 'oak.glb'), '--flags', 'LockBorder'],
      { cwd: root, encoding: 'utf8', timeout: 60_000 },
    );
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/oak\.glb: 2 pieces, flags \[LockBorder\]/);
    expect(result.stderr).toMatch(/did not shrink/);
  });
});
