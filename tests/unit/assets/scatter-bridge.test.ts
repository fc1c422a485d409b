import { MeshoptSimplifier } from 'meshoptimizer/simplifier';
import { Group, Mesh, SphereGeometry } from 'three';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolyHavenModel } from '../../../src/assets/model-loader.ts';
import { ModelSlot } from '../../../src/assets/model-slot.ts';
import { PolyHavenApi } from '../../../src/assets/polyhaven-api.ts';
import { compactDrawnIndices, guessScatterCategory, scatterPropId } from '../../../src/assets/scatter-bridge.ts';
import { PropCatalog } from '../../../src/scatter/catalog.ts';
import { startPolyHavenFixture, type PolyHavenFixture } from '../../harness/polyhaven-fixture.ts';
import { installNodeLoaderPolyfills, useNodePngLoader } from './helpers/node-png-loader.ts';

installNodeLoaderPolyfills();

let fixture: PolyHavenFixture;
beforeAll(async () => {
  fixture = await startPolyHavenFixture();
  await MeshoptSimplifier.ready;
});
afterAll(() => fixture.close());

describe('handing a model to the scatter catalog', { timeout: 30_000 }, () => {
  const categories = ['conifer', 'broadleaf', 'rock', 'pebble', 'bush', 'grass'];

  it('guesses the scatter category from Poly Haven categories, tags and name', () => {
    expect(guessScatterCategory({ categories: ['nature', 'rocks'], tags: ['moss'], name: 'Mossy Rock 01' }, categories)).toBe('rock');
    expect(guessScatterCategory({ categories: ['nature'], tags: ['stone'], name: 'Boulder 01' }, categories)).toBe('rock');
    expect(guessScatterCategory({ categories: ['nature', 'plants'], tags: [], name: 'Fern 02' }, categories)).toBe('bush');
    expect(guessScatterCategory({ categories: ['props', 'containers'], tags: ['wood'], name: 'Wooden Crate 01' }, categories)).toBe('prop');
  });

  it('compacts a simplified index so readers of the whole index see only what is drawn', () => {
    const plain = new SphereGeometry(1, 32, 16);
    const full = plain.index!.count;
    plain.setDrawRange(0, 300);
    compactDrawnIndices(new Mesh(plain));
    expect(plain.index!.count).toBe(300);
    expect(plain.drawRange.count).toBe(Infinity);
    const untouched = new SphereGeometry(1, 8, 4);
    const index = untouched.index;
    compactDrawnIndices(new Mesh(untouched));
    expect(untouched.index).toBe(index);
    expect(full).toBeGreaterThan(300);
  });

  it('a simplified fixture model registers and bakes in scatter’s real PropCatalog at its simplified size', async () => {
    const model = await loadPolyHavenModel(new PolyHavenApi({ baseUrl: fixture.url }), 'mossy_rock_01', {
      configureManager: useNodePngLoader,
    });
    const slot = new ModelSlot({ parent: new Group(), simplify: MeshoptSimplifier.simplify });
    slot.show(model);
    const report = slot.setRatio(0.5)!;
    const released = slot.release()!;
    const holder = new Group();
    holder.add(released.object);
    compactDrawnIndices(released.object);

    const catalog = new PropCatalog({ yieldToFrame: async () => undefined });
    catalog.register({ id: scatterPropId('mossy_rock_01'), category: 'rock', object3D: holder });
    expect(catalog.propsIn('rock')).toEqual(['polyhaven-mossy_rock_01']);
    const resolved = await catalog.resolve('polyhaven-mossy_rock_01');
    expect(resolved.parts).toHaveLength(2); // one per material slot
    const nearTriangles = resolved.parts.reduce((n, part) => n + part.triangles[0]!, 0);
    expect(nearTriangles).toBe(report.trianglesAfter);
    expect(resolved.parts.every((p) => p.triangles.at(-1)! < p.triangles[0]!)).toBe(true);
    catalog.dispose();
  });
});
