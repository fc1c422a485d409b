import { AnimationMixer, Vector3, type BufferGeometry } from 'three';
import { GLTFExporter } from 'three/addons/exporters/GLTFExporter.js';
import { describe, expect, it } from 'vitest';
import { HUMANOID_CLIPS } from '../../../src/rig/clips.ts';
import { FACE_MORPHS } from '../../../src/rig/face-morphs.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';
import { parseRig, RigLoadError, rigFormatOf } from '../../../src/rig/load.ts';
import { installFileReaderPolyfill } from '../../../src/rig/node/file-reader-polyfill.ts';

const humanoid = createHumanoid();

function checkSkinning(geometry: BufferGeometry, boneCount: number): void {
  const index = geometry.getAttribute('skinIndex');
  const weight = geometry.getAttribute('skinWeight');
  for (let v = 0; v < index.count; v++) {
    let sum = 0;
    for (let k = 0; k < 4; k++) {
      const w = weight.getComponent(v, k);
      expect(w).toBeGreaterThanOrEqual(0);
      if (w > 0) expect(index.getComponent(v, k)).toBeLessThan(boneCount);
      sum += w;
    }
    expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
  }
}

describe('procedural humanoid', () => {
  it('is three skinned pieces sharing one 64-bone skeleton', () => {
    expect(humanoid.meshes.map((m) => m.name)).toEqual(['body', 'head', 'clothing']);
    for (const mesh of humanoid.meshes) {
      expect(mesh.isSkinnedMesh).toBe(true);
      expect(mesh.skeleton).toBe(humanoid.skeleton);
      checkSkinning(mesh.geometry, humanoid.bones.length);
    }
  });

  it('blends weights across joints (smooth, not rigid)', () => {
    const body = humanoid.meshes[0]!.geometry;
    const weight = body.getAttribute('skinWeight');
    let blended = 0;
    for (let v = 0; v < weight.count; v++) if (weight.getX(v) > 0.05 && weight.getX(v) < 0.95) blended++;
    expect(blended / weight.count).toBeGreaterThan(0.2);
  });

  it('winds every triangle outward (normals agree with winding)', () => {
    for (const mesh of humanoid.meshes) {
      const g = mesh.geometry;
      const p = g.getAttribute('position');
      const n = g.getAttribute('normal');
      const idx = g.getIndex()!;
      let agree = 0;
      const a = new Vector3(),
        b = new Vector3(),
        c = new Vector3(),
        face = new Vector3(),
        avg = new Vector3();
      for (let i = 0; i < idx.count; i += 3) {
        const [ia, ib, ic] = [idx.getX(i), idx.getX(i + 1), idx.getX(i + 2)];
        a.fromBufferAttribute(p, ia);
        b.fromBufferAttribute(p, ib);
        c.fromBufferAttribute(p, ic);
        face.subVectors(b, a).cross(c.clone().sub(a));
        if (face.lengthSq() < 1e-14) {
          agree++; // degenerate pole triangle
          continue;
        }
        avg.fromBufferAttribute(n, ia).add(new Vector3().fromBufferAttribute(n, ib)).add(new Vector3().fromBufferAttribute(n, ic));
        if (face.dot(avg) > 0) agree++;
      }
      expect(agree / (idx.count / 3), mesh.name).toBeGreaterThan(0.99);
    }
  });

  it('stands about 1.8 m tall, feet on the floor, facing +Z', () => {
    let minY = Infinity;
    let maxY = -Infinity;
    for (const mesh of humanoid.meshes) {
      const box = mesh.geometry.boundingBox!;
      minY = Math.min(minY, box.min.y);
      maxY = Math.max(maxY, box.max.y);
    }
    expect(minY).toBeGreaterThan(-0.02);
    expect(minY).toBeLessThan(0.03);
    expect(maxY).toBeGreaterThan(1.75);
    expect(maxY).toBeLessThan(1.9);
  });

  it('carries facial morph targets on the head piece only', () => {
    const head = humanoid.meshes[1]!;
    expect(head.geometry.morphAttributes.position).toHaveLength(FACE_MORPHS.length);
    expect(Object.keys(head.morphTargetDictionary ?? {})).toEqual([...FACE_MORPHS]);
    for (const target of head.geometry.morphAttributes.position!) {
      let moved = 0;
      for (let i = 0; i < target.count; i++) if (Math.hypot(target.getX(i), target.getY(i), target.getZ(i)) > 1e-4) moved++;
      expect(moved, target.name).toBeGreaterThan(4);
    }
    expect(humanoid.meshes[0]!.geometry.morphAttributes.position).toBeUndefined();
  });

  it('has idle, walk, run, jump, wave and dance clips that drive existing bones', () => {
    expect(humanoid.clips.map((c) => c.name)).toEqual([...HUMANOID_CLIPS]);
    const names = new Set(humanoid.bones.map((b) => b.name));
    for (const clip of humanoid.clips) {
      expect(clip.validate()).toBe(true);
      for (const track of clip.tracks) expect(names.has(track.name.split('.')[0]!), track.name).toBe(true);
    }
  });

  it('animates: the walk moves the feet and keeps the lower foot on the floor', () => {
    const h = createHumanoid({ detail: 'low' });
    const mixer = new AnimationMixer(h.object);
    mixer.clipAction(h.clip('walk')).play();
    const foot = { l: h.bone('foot_l'), r: h.bone('foot_r') };
    const p = new Vector3();
    const zs: number[] = [];
    for (let f = 0; f < 66; f++) {
      mixer.update(1 / 60);
      h.object.updateMatrixWorld(true);
      const yl = p.setFromMatrixPosition(foot.l.matrixWorld).y;
      zs.push(p.z);
      const yr = p.setFromMatrixPosition(foot.r.matrixWorld).y;
      expect(Math.abs(Math.min(yl, yr) - 0.085)).toBeLessThan(0.012);
    }
    expect(Math.max(...zs) - Math.min(...zs)).toBeGreaterThan(0.3);
  });
});

describe('rig loading', () => {
  it('picks the loader by extension and refuses others', () => {
    expect(rigFormatOf('a/b/hero.GLB?x=1')).toBe('gltf');
    expect(rigFormatOf('hero.fbx')).toBe('fbx');
    expect(() => rigFormatOf('hero.obj')).toThrow(RigLoadError);
  });

  it('round-trips the humanoid through GLB: pieces, bones and clips survive', async () => {
    installFileReaderPolyfill();
    const h = createHumanoid({ detail: 'low' });
    const glb = (await new GLTFExporter().parseAsync(h.object, { binary: true, animations: h.clips })) as ArrayBuffer;
    const rig = await parseRig(glb, 'humanoid.glb');
    expect(rig.skinnedMeshes).toHaveLength(3);
    expect(rig.bones.map((b) => b.name).sort()).toEqual(h.bones.map((b) => b.name).sort());
    expect(rig.clips.map((c) => c.name)).toEqual([...HUMANOID_CLIPS]);
  });

  it('names the problem for garbage and for models without a skeleton', async () => {
    await expect(parseRig(new TextEncoder().encode('not a model').buffer as ArrayBuffer, 'junk.glb')).rejects.toThrow(
      /junk\.glb: it is not a glTF\/GLB file \(it starts with "not a model"\)/,
    );
    await expect(parseRig(new TextEncoder().encode('<!doctype html><p>hi').buffer as ArrayBuffer, 'page.glb')).rejects.toThrow(
      /page\.glb: .*an HTML page/,
    );
    const gltf = JSON.stringify({ asset: { version: '2.0' }, scenes: [{ nodes: [0] }], scene: 0, nodes: [{ name: 'empty' }] });
    await expect(parseRig(new TextEncoder().encode(gltf).buffer as ArrayBuffer, 'static.gltf')).rejects.toThrow(
      /static\.gltf: has no mesh and no skeleton: nothing to draw or animate/,
    );
    await expect(parseRig(new Uint8Array(64).buffer, 'broken.fbx')).rejects.toThrow(/broken\.fbx: it is not a FBX file/);
  });
});
