import { MeshoptSimplifier } from 'meshoptimizer/simplifier';
import { Group, type Mesh, type MeshStandardMaterial, type Texture } from 'three';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AssetBrowser, type ModelLoadEvent } from '../../../src/assets/asset-browser.ts';
import { AssetError } from '../../../src/assets/errors.ts';
import { loadPolyHavenModel } from '../../../src/assets/model-loader.ts';
import { ModelSlot } from '../../../src/assets/model-slot.ts';
import { PolyHavenApi } from '../../../src/assets/polyhaven-api.ts';
import { startPolyHavenFixture, type PolyHavenFixture } from '../../harness/polyhaven-fixture.ts';
import { installNodeLoaderPolyfills, useNodePngLoader } from './helpers/node-png-loader.ts';

installNodeLoaderPolyfills();

let fixture: PolyHavenFixture;
let api: PolyHavenApi;
beforeAll(async () => {
  fixture = await startPolyHavenFixture();
  api = new PolyHavenApi({ baseUrl: fixture.url });
  await MeshoptSimplifier.ready;
});
afterAll(() => fixture.close());
beforeEach(() => {
  fixture.apiDown = false;
  fixture.requests.length = 0;
});

const load = (id: string, resolution?: string) => loadPolyHavenModel(api, id, { resolution, configureManager: useNodePngLoader });

function materialsOf(root: import('three').Object3D): MeshStandardMaterial[] {
  const out: MeshStandardMaterial[] = [];
  root.traverse((o) => {
    const m = (o as Mesh).material as MeshStandardMaterial | undefined;
    if ((o as Mesh).isMesh && m) out.push(m);
  });
  return out;
}

describe('loading a multi-file glTF through the include map (real HTTP, fixture on loopback)', { timeout: 30_000 }, () => {
  it('fetches the buffer and both textures from their include URLs, never from gltf folder + relative path', async () => {
    const model = await load('wooden_barrel_01');
    const paths = fixture.requests.map((r) => r.path);
    expect(paths[0]).toBe('/files/wooden_barrel_01');
    expect(paths).toContain('/dl/Models/gltf/1k/wooden_barrel_01/wooden_barrel_01_1k.gltf');
    expect(paths).toContain('/dl/Models/buffers/1k/wooden_barrel_01/wooden_barrel_01.bin');
    expect(paths).toContain('/dl/Models/png/1k/wooden_barrel_01/wooden_barrel_01_staves_diff_1k.png');
    expect(paths).toContain('/dl/Models/png/1k/wooden_barrel_01/wooden_barrel_01_hoops_diff_1k.png');
    expect(fixture.requests.every((r) => r.status === 200)).toBe(true);
    expect(paths.some((p) => p.includes('/gltf/1k/wooden_barrel_01/textures/'))).toBe(false);
    expect(model.mapped.map((m) => m.path).sort()).toEqual([
      'textures/wooden_barrel_01_hoops_diff_1k.png',
      'textures/wooden_barrel_01_staves_diff_1k.png',
      'wooden_barrel_01.bin',
    ]);
    expect(model.failedFiles).toEqual([]);
  });

  it('gives two materials, each with its own texture, and the triangles the file has', async () => {
    const model = await load('mossy_rock_01');
    const materials = materialsOf(model.object);
    expect(materials.map((m) => m.name).sort()).toEqual(['mossy_rock_01_moss', 'mossy_rock_01_stone']);
    for (const m of materials) expect((m.map as Texture).image as { width: number }).toMatchObject({ width: 64 }); // 1k at the fixture's 1/16 scale
    expect(new Set(materials.map((m) => m.map)).size).toBe(2);
    expect(model).toMatchObject({
      resolution: '1k',
      materials: 2,
      textures: 2,
      meshes: 2,
      triangles: fixture.trianglesOf('mossy_rock_01'),
    });
  });

  it('loads the chosen resolution, falling back to the nearest offered', async () => {
    const two = await load('wooden_crate_01', '2k');
    expect(two.resolution).toBe('2k');
    expect(materialsOf(two.object)[0]!.map!.image as { width: number }).toMatchObject({ width: 128 });
    const eight = await load('wooden_crate_01', '8k');
    expect(eight.resolution).toBe('4k');
    expect(fixture.requests.some((r) => r.path.endsWith('_diff_4k.png'))).toBe(true);
  });

  it('404 → not-found; corrupt glTF → corrupt; bad id → nothing requested', async () => {
    await expect(load('missing_lamp')).rejects.toMatchObject({
      kind: 'not-found',
      message: expect.stringMatching(/no asset "missing_lamp"/),
    });
    await expect(load('broken_statue')).rejects.toMatchObject({ kind: 'corrupt', message: expect.stringMatching(/model file is broken/) });
    fixture.requests.length = 0;
    await expect(load('../../assets?t=models')).rejects.toMatchObject({ kind: 'invalid-id' });
    await expect(load('x'.repeat(51))).rejects.toBeInstanceOf(AssetError);
    expect(fixture.requests).toEqual([]);
  });

  it('API down → an http error that can be retried', async () => {
    fixture.apiDown = 503;
    const error = await load('wooden_crate_01').catch((e: AssetError) => e);
    expect(error).toMatchObject({ kind: 'http', status: 503, retryable: true });
  });
});

describe('AssetBrowser: one click, one model', { timeout: 30_000 }, () => {
  function browser() {
    const parent = new Group();
    const slot = new ModelSlot({ parent, simplify: MeshoptSimplifier.simplify });
    return { parent, slot, browser: new AssetBrowser({ api, slot, configureManager: useNodePngLoader }) };
  }

  it('searches the fetched catalog and loads the top hit into the slot', async () => {
    const { parent, browser: b } = browser();
    await b.loadCatalog();
    const result = b.search('rock');
    expect(result.hits.slice(0, 3).map((h) => h.entry.id)).toEqual(['mossy_rock_01', 'rocking_chair_01', 'boulder_01']);
    const model = await b.load(result.hits[0]!.entry.id);
    expect(parent.children).toEqual([model.object]);
    expect(b.stats).toMatchObject({ model: 'mossy_rock_01', modelState: 'loaded', triangles: model.triangles, loads: 1 });
  });

  it('a failed load leaves the previous model in place and reports the error for that card', async () => {
    const { parent, browser: b } = browser();
    const events: ModelLoadEvent[] = [];
    b.on('load', (e) => events.push(e));
    const first = await b.load('wooden_crate_01');
    await expect(b.load('broken_statue')).rejects.toMatchObject({ kind: 'corrupt' });
    await expect(b.load('missing_lamp')).rejects.toMatchObject({ kind: 'not-found' });
    await expect(b.load('../secret')).rejects.toMatchObject({ kind: 'invalid-id' });
    expect(parent.children).toEqual([first.object]);
    expect(b.stats).toMatchObject({ model: 'wooden_crate_01', modelState: 'loaded', loadErrors: 3 });
    expect(events.filter((e) => e.state === 'error').map((e) => e.id)).toEqual(['broken_statue', 'missing_lamp', '../secret']);
    // A card's last word is its outcome: no late progress event after the error.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events.filter((e) => e.id === 'broken_statue').at(-1)!.state).toBe('error');
    expect(fixture.requests.some((r) => r.path.includes('secret'))).toBe(false);
  });

  it('a newer click supersedes an older one still loading; only the newer model is shown', async () => {
    const { parent, browser: b } = browser();
    fixture.downloadDelayMs = 150;
    try {
      const older = b.load('wooden_crate_01');
      const newer = b.load('oil_drum_01');
      await expect(older).rejects.toMatchObject({ kind: 'superseded' });
      const model = await newer;
      expect(parent.children).toEqual([model.object]);
      expect(b.stats.model).toBe('oil_drum_01');
    } finally {
      fixture.downloadDelayMs = 0;
    }
  });
});
