import { MeshoptSimplifier } from 'meshoptimizer/simplifier';
import {
  BoxGeometry,
  DataTexture,
  Group,
  Mesh,
  MeshStandardMaterial,
  ShaderMaterial,
  SphereGeometry,
  type BufferGeometry,
  type Material,
  type Object3D,
  type Texture,
} from 'three';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectResources, disposeObject3D } from '../../../src/assets/dispose-object.ts';
import { loadPolyHavenModel } from '../../../src/assets/model-loader.ts';
import { ModelSlot } from '../../../src/assets/model-slot.ts';
import { PolyHavenApi } from '../../../src/assets/polyhaven-api.ts';
import { startPolyHavenFixture, type PolyHavenFixture } from '../../harness/polyhaven-fixture.ts';
import { installNodeLoaderPolyfills, useNodePngLoader } from './helpers/node-png-loader.ts';

installNodeLoaderPolyfills();

/**
 * Counts live resources the way a renderer would: everything under a root is "live" until its
 * dispose event fires (that event is what makes three's renderers free the GPU copy).
 */
class LiveResources {
  private live = new Set<BufferGeometry | Material | Texture>();
  private disposedTwice = 0;
  track(root: Object3D): this {
    const { geometries, materials, textures } = collectResources(root);
    for (const resource of [...geometries, ...materials, ...textures]) {
      this.live.add(resource);
      resource.addEventListener('dispose', () => {
        if (!this.live.delete(resource)) this.disposedTwice++;
      });
    }
    return this;
  }
  count(kind: 'geometry' | 'material' | 'texture'): number {
    return [...this.live].filter((r) =>
      kind === 'geometry'
        ? (r as BufferGeometry).isBufferGeometry
        : kind === 'material'
          ? (r as Material).isMaterial
          : (r as Texture).isTexture,
    ).length;
  }
  get total(): number {
    return this.live.size;
  }
  get doubleDisposals(): number {
    return this.disposedTwice;
  }
}

function texture(): DataTexture {
  const t = new DataTexture(new Uint8Array(4), 1, 1);
  t.needsUpdate = true;
  return t;
}

let fixture: PolyHavenFixture;
beforeAll(async () => {
  fixture = await startPolyHavenFixture();
  await MeshoptSimplifier.ready;
});
afterAll(() => fixture.close());

describe('disposal releases everything', { timeout: 30_000 }, () => {
  it('frees each geometry, material and texture once, including shared ones, material arrays and uniforms', () => {
    const shared = texture();
    const sharedMaterial = new MeshStandardMaterial({ map: shared, normalMap: texture() });
    const root = new Group();
    const sphere = new SphereGeometry();
    root.add(new Mesh(sphere, sharedMaterial), new Mesh(sphere, sharedMaterial));
    root.add(new Mesh(new BoxGeometry(), [sharedMaterial, new MeshStandardMaterial({ roughnessMap: shared, emissiveMap: texture() })]));
    root.add(
      new Mesh(new BoxGeometry(), new ShaderMaterial({ uniforms: { tex: { value: texture() }, list: { value: [texture(), texture()] } } })),
    );
    const parent = new Group();
    parent.add(root);

    const live = new LiveResources().track(root);
    expect([live.count('geometry'), live.count('material'), live.count('texture')]).toEqual([3, 3, 6]);
    const counts = disposeObject3D(root);
    expect(counts).toEqual({ geometries: 3, materials: 3, textures: 6 });
    expect(live.total).toBe(0);
    expect(live.doubleDisposals).toBe(0);
    expect(parent.children).toEqual([]);
  });

  it('showing the next model frees the previous one; clear frees the last', async () => {
    const api = new PolyHavenApi({ baseUrl: fixture.url });
    const parent = new Group();
    const slot = new ModelSlot({ parent, simplify: MeshoptSimplifier.simplify });
    const trackers: LiveResources[] = [];
    for (const id of ['wooden_crate_01', 'wooden_barrel_01', 'mossy_rock_01', 'oil_drum_01']) {
      const model = await loadPolyHavenModel(api, id, { configureManager: useNodePngLoader });
      const live = new LiveResources().track(model.object);
      expect([live.count('geometry'), live.count('material'), live.count('texture')]).toEqual([2, 2, 2]);
      slot.show(model);
      slot.setRatio(0.5); // originals are kept while it is shown
      trackers.push(live);
      // Everything before this one is gone; this one is live.
      expect(trackers.slice(0, -1).map((t) => t.total)).toEqual(trackers.slice(0, -1).map(() => 0));
      expect(live.total).toBe(6);
      expect(parent.children).toEqual([model.object]);
      expect(slot.current!.simplifier!.meshes).toHaveLength(2);
    }
    expect(slot.freed).toEqual({ geometries: 6, materials: 6, textures: 6 });
    slot.clear();
    expect(trackers.map((t) => t.total)).toEqual([0, 0, 0, 0]);
    expect(trackers.map((t) => t.doubleDisposals)).toEqual([0, 0, 0, 0]);
    expect(parent.children).toEqual([]);
  });

  it('release hands a model over without freeing it, keeping its simplification', async () => {
    const api = new PolyHavenApi({ baseUrl: fixture.url });
    const parent = new Group();
    const slot = new ModelSlot({ parent, simplify: MeshoptSimplifier.simplify });
    const model = await loadPolyHavenModel(api, 'mossy_rock_01', { configureManager: useNodePngLoader });
    const live = new LiveResources().track(model.object);
    slot.show(model);
    const report = slot.setRatio(0.3)!;
    const released = slot.release();
    expect(released).toBe(model);
    expect(slot.current).toBeNull();
    slot.clear();
    expect(live.total).toBe(6);
    expect(parent.children).toEqual([model.object]);
    let drawn = 0;
    model.object.traverse((o) => {
      const g = (o as Mesh).geometry;
      if ((o as Mesh).isMesh)
        drawn += g.groups.length ? g.groups.reduce((n, gr) => n + gr.count, 0) / 3 : Math.min(g.drawRange.count, g.index!.count) / 3;
    });
    expect(drawn).toBe(report.trianglesAfter);
  });
});
