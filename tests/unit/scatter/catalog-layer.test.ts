import { BoxGeometry, Group, Mesh, MeshStandardMaterial, SphereGeometry } from 'three';
import { GLTFExporter } from 'three/addons/exporters/GLTFExporter.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installFileReaderPolyfill } from '../../../src/rig/node/file-reader-polyfill.ts';
import { generateTerrain, LANDMARKS } from '../../../src/world/terrain/generate.ts';
import { CatalogError, PropCatalog } from '../../../src/scatter/catalog.ts';
import { parseGltfProp, piecesFromObject } from '../../../src/scatter/gltf-prop.ts';
import { simplifierReady } from '../../../src/scatter/lod-bake.ts';
import { ScatterLayer } from '../../../src/scatter/scatter-layer.ts';

const terrain = generateTerrain();
const layers: ScatterLayer[] = [];

beforeAll(() => simplifierReady());
afterEach(() => {
  for (const layer of layers.splice(0)) layer.dispose();
});

function layer(options: Partial<ConstructorParameters<typeof ScatterLayer>[0]> = {}): ScatterLayer {
  const created = new ScatterLayer({ ground: terrain, seed: 7, ...options });
  layers.push(created);
  return created;
}

function rock(): Group {
  const group = new Group();
  const body = new Mesh(new SphereGeometry(1, 12, 8), new MeshStandardMaterial({ name: 'granite' }));
  body.position.y = 0.5;
  const cap = new Mesh(new BoxGeometry(0.6, 0.3, 0.6, 3, 2, 3), new MeshStandardMaterial({ name: 'moss' }));
  cap.position.set(0.2, 1.4, 0);
  group.add(body, cap);
  return group;
}

// Generous timeout: these run real meshoptimizer/three work on a shared two-core machine.
describe('prop catalog', { timeout: 30_000 }, () => {
  it('registers by category, resolves once (cached in-flight promise) and bakes three levels per piece', async () => {
    const catalog = new PropCatalog();
    let builds = 0;
    catalog.register({ id: 'rock-a', category: 'rock', pieces: () => (builds++, piecesFromObject(rock())) });
    catalog.register({ id: 'rock-b', category: 'rock', object3D: rock() });
    expect(catalog.propsIn('rock')).toEqual(['rock-a', 'rock-b']);
    expect(catalog.propsIn('tree')).toEqual([]);
    const [a, b] = await Promise.all([catalog.resolve('rock-a'), catalog.resolve('rock-a')]);
    expect(a).toBe(b);
    expect(builds).toBe(1);
    expect(catalog.state('rock-a')).toBe('ready');
    expect(catalog.get('rock-a')).toBe(a);
    expect(a.parts.map((p) => p.levels.length)).toEqual([3, 3]);
    for (const part of a.parts) expect(part.triangles[2]).toBeLessThan(part.triangles[1]!);
    catalog.dispose();
  });

  it('rejects bad registrations with a clear message', () => {
    const catalog = new PropCatalog();
    catalog.register({ id: 'x', category: 'rock', object3D: rock() });
    expect(() => catalog.register({ id: 'x', category: 'rock', object3D: rock() })).toThrow(/already registered/);
    expect(() => catalog.register({ id: '', category: 'rock', object3D: rock() })).toThrow(CatalogError);
    expect(() => catalog.register({ id: 'y', category: ' ', object3D: rock() })).toThrow(/non-empty category/);
    expect(() => catalog.register({ id: 'z', category: 'rock' } as never)).toThrow(/pieces, object3D, url or load/);
    catalog.register({ id: 'x', category: 'boulder', object3D: rock(), replace: true });
    expect(catalog.propsIn('rock')).toEqual([]);
    expect(catalog.propsIn('boulder')).toEqual(['x']);
  });

  it('reports a prop that fails to load by name and keeps the others working', async () => {
    const catalog = new PropCatalog();
    const failures: string[] = [];
    catalog.on('failed', ({ id, error }) => failures.push(`${id}: ${error.message}`));
    catalog.register({ id: 'broken', category: 'rock', load: () => Promise.reject(new Error('HTTP 404 Not Found')) });
    catalog.register({ id: 'fine', category: 'rock', object3D: rock() });
    const result = await catalog.preload(['broken', 'fine']);
    expect(result.ready).toEqual(['fine']);
    expect(result.failed.map((f) => f.id)).toEqual(['broken']);
    expect(failures).toEqual(['broken: prop "broken" failed: HTTP 404 Not Found']);
    expect(catalog.failures().get('broken')?.message).toMatch(/404/);
    await expect(catalog.resolve('nothing')).rejects.toThrow(/no prop "nothing"/);
  });

  it('registers a GLB prop (exported by three, parsed back) with its materials as separate pieces', async () => {
    installFileReaderPolyfill();
    const glb = (await new GLTFExporter().parseAsync(rock(), { binary: true })) as ArrayBuffer;
    const pieces = await parseGltfProp(glb, 'rock.glb');
    expect(pieces.map((p) => p.material.name).sort()).toEqual(['granite', 'moss']);
    const catalog = new PropCatalog();
    catalog.register({ id: 'glb-rock', category: 'rock', load: () => parseGltfProp(glb, 'rock.glb') });
    const resolved = await catalog.resolve('glb-rock');
    expect(resolved.parts).toHaveLength(2);
    // The transform of each mesh is baked in: the cap sits 1.4 m up.
    const capPart = resolved.parts.find((p) => p.material.name === 'moss')!;
    capPart.levels[0]!.computeBoundingBox();
    expect(capPart.levels[0]!.boundingBox!.min.y).toBeCloseTo(1.25, 3);
    catalog.dispose();
  });
});

// Generous timeout: these run real meshoptimizer/three work on a shared two-core machine.
describe('scatter layer (Node: placement → buckets → LOD, no renderer)', { timeout: 30_000 }, () => {
  it('after the background bake, a stroke fills buckets synchronously: one InstancedMesh per (prop, part, level)', async () => {
    const scatter = layer();
    await scatter.choosePreset('mixed-forest');
    expect(scatter.stats.bake).toMatchObject({ state: 'ready', done: scatter.stats.bake.total });
    const change = scatter.paint(LANDMARKS.spawn.x, LANDMARKS.spawn.z, 20);
    expect(change.added.length).toBeGreaterThan(30);
    expect(scatter.stats.rendered).toBe(change.added.length); // nothing waited
    expect(scatter.stats.pending).toBe(0);
    const meshes = scatter.object.children as Mesh[];
    const live = meshes.filter((m) => m.visible);
    expect(live.length).toBe(scatter.stats.liveBuckets);
    const names = new Set(live.map((m) => m.name));
    expect(names.size).toBe(live.length); // one mesh per (prop, part, level)
    for (const name of names) expect(name).toMatch(/^proc:[a-z-]+\/[a-z ]+\/LOD[0-2]$/);
    const instancesInBuckets = scatter.buckets.buckets.reduce((sum, b) => sum + b.count, 0);
    const partsPerInstance = change.added.reduce((sum, p) => sum + scatter.catalog.get(p.propId)!.parts.length, 0);
    expect(instancesInBuckets).toBe(partsPerInstance);
  });

  it('queues instances whose prop is still baking and draws them when it is ready, without changing placement', async () => {
    const eager = layer();
    await eager.choosePreset('meadow');
    eager.paint(0, 0, 15);
    const lazy = layer();
    void lazy.choosePreset('meadow');
    lazy.paint(0, 0, 15); // before the bake finished
    expect(lazy.stats.pending).toBeGreaterThan(0);
    await lazy.whenIdle();
    lazy.update({ x: 0, y: 50, z: 0 }, 0);
    expect(lazy.stats.pending).toBe(0);
    expect(lazy.stats.rendered).toBe(eager.stats.rendered);
    expect(lazy.session.snapshot()).toEqual(eager.session.snapshot());
  });

  it('moves instances between LOD buckets as the camera moves, keeping every instance drawn once', async () => {
    const scatter = layer();
    await scatter.choosePreset('mixed-forest');
    for (let x = -60; x <= 60; x += 15) scatter.paint(x, 0, 10);
    const total = scatter.stats.rendered;
    scatter.update({ x: -60, y: 20, z: 0 }, 0);
    const near = [...scatter.stats.perLevel];
    scatter.update({ x: 200, y: 20, z: 0 }, 1);
    const far = [...scatter.stats.perLevel];
    expect(near[0]).toBeGreaterThan(0);
    expect(far).toEqual([0, 0, total]);
    for (const counts of [near, far]) expect(counts.reduce((a, b) => a + b, 0)).toBe(total);
    scatter.buckets.validate();
    // Level-2 buckets hold everything; their triangle counts are the 15 % levels.
    const lod2 = (scatter.object.children as Mesh[]).filter((m) => m.visible && m.name.endsWith('LOD2'));
    expect(lod2.length).toBe(scatter.stats.liveBuckets);
  });

  it('erases, reports a failing prop by name and skips it while the stroke places the rest, and replays exactly', async () => {
    const catalog = new PropCatalog();
    catalog.register({ id: 'good-rock', category: 'rock', object3D: rock() });
    catalog.register({ id: 'bad-rock', category: 'rock', load: () => Promise.reject(new Error('corrupt GLB')) });
    catalog.register({ id: 'grass-box', category: 'grass', object3D: rock() });
    const problems: string[] = [];
    const scatter = layer({
      catalog,
      presetData: [
        {
          source: 'stones.json',
          data: {
            id: 'stones',
            name: 'Stones',
            densityPerM2: 0.4,
            scaleJitter: [1, 1],
            yawJitter: 1,
            picks: [
              { category: 'rock', weight: 1, slopeMin: 0, slopeMax: 90, altMin: 0, altMax: 200, minSpacing: 1, alignToSlope: true },
              { category: 'grass', weight: 1, slopeMin: 0, slopeMax: 90, altMin: 0, altMax: 200, minSpacing: 0.5, alignToSlope: true },
            ],
          },
        },
        { source: 'broken.json', data: { id: 'broken', name: 'Broken', densityPerM2: 'high' } },
      ],
    });
    scatter.on('problem', ({ title }) => problems.push(title));
    expect(scatter.presets.has('broken')).toBe(false);
    expect(Object.keys(scatter.stats.invalidPresets)).toEqual(['Broken']);
    await scatter.choosePreset('stones');
    expect(problems).toEqual(['Prop "bad-rock" could not be used']);
    scatter.paint(0, 0, 12);
    scatter.paint(10, 5, 12);
    scatter.erase(0, 0, 5);
    await scatter.whenIdle();
    scatter.update({ x: 0, y: 10, z: 0 }, 0);
    const s = scatter.stats;
    expect(s.skipped).toBeGreaterThan(0);
    expect(s.rendered).toBeGreaterThan(0);
    expect(s.rendered + s.skipped).toBe(s.instances);
    expect(s.failedProps['bad-rock']).toMatch(/corrupt GLB/);
    const snapshot = scatter.snapshot();
    expect(snapshot.filter((p) => Math.hypot(p.x, p.z) <= 5)).toEqual([]);
    expect(snapshot.filter((p) => p.propId === 'bad-rock').every((p) => !p.rendered)).toBe(true);

    const recording = scatter.recording();
    await scatter.replay(recording);
    expect(scatter.snapshot()).toEqual(snapshot);
  });
});

// Generous timeout: these run real meshoptimizer/three work on a shared two-core machine.
describe('scatter layer reset while props are baking', { timeout: 30_000 }, () => {
  it('draws the new session once the bake lands, even if it started for the old one', async () => {
    const scatter = layer();
    void scatter.choosePreset('meadow');
    scatter.paint(0, 0, 12); // queued: the props are still baking
    expect(scatter.stats.pending).toBeGreaterThan(0);
    scatter.reset(99);
    void scatter.choosePreset('meadow');
    const { added } = scatter.paint(5, 5, 12);
    await scatter.whenIdle();
    scatter.update({ x: 0, y: 30, z: 0 }, 0);
    expect(scatter.stats.pending).toBe(0);
    expect(scatter.stats.rendered).toBe(added.length);
    expect(scatter.stats.instances).toBe(added.length);
  });
});

describe('props registered after a preset was chosen', { timeout: 30_000 }, () => {
  it('are baked in the background at once when the chosen preset uses their category', async () => {
    const scatter = layer();
    await scatter.choosePreset('cliff-scree');
    scatter.catalog.register({ id: 'handed-over-rock', category: 'rock', object3D: rock() });
    scatter.catalog.register({ id: 'unused-crate', category: 'crate', object3D: rock() });
    expect(scatter.catalog.state('handed-over-rock')).toBe('loading');
    expect(scatter.catalog.state('unused-crate')).toBe('registered');
    await scatter.catalog.resolve('handed-over-rock');
    expect(scatter.catalog.state('handed-over-rock')).toBe('ready');
  });
});
