/**
 * The humanoid up close: no skin through the clothes in any clip (the sleeve used to leave a pink
 * gap on top of the shoulder), and a face that looks level (the skull used to curve back to the
 * neck with no chin, so from a low camera the head looked thrown back at the sky).
 */
import {
  AnimationMixer,
  BufferGeometry,
  DoubleSide,
  Float32BufferAttribute,
  Mesh,
  MeshBasicMaterial,
  Quaternion,
  Raycaster,
  Vector3,
  type SkinnedMesh,
} from 'three';
import { describe, expect, it } from 'vitest';
import { createHumanoid } from '../../../src/rig/humanoid.ts';
import type { HumanoidDetail } from '../../../src/rig/body-kit.ts';

/** The posed (CPU-skinned) positions of a piece, as a plain mesh a ray can hit, with its normals. */
function posed(mesh: SkinnedMesh): Mesh {
  const source = mesh.geometry.getAttribute('position');
  const positions = new Float32Array(source.count * 3);
  const v = new Vector3();
  for (let i = 0; i < source.count; i++) {
    mesh.getVertexPosition(i, v);
    positions.set([v.x, v.y, v.z], i * 3);
  }
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute(positions, 3));
  geometry.setIndex(mesh.geometry.getIndex());
  geometry.computeVertexNormals();
  const out = new Mesh(geometry, new MeshBasicMaterial({ side: DoubleSide }));
  out.updateMatrixWorld(true);
  return out;
}

/**
 * Skin vertices meant to be under the clothes (torso, upper arm up to the sleeve, legs above the
 * ankle, in the bind pose) that no clothing surface covers within 10 cm along their outward normal.
 */
function uncoveredSkin(detail: HumanoidDetail, clip: string, time: number): string[] {
  const humanoid = createHumanoid({ detail });
  const mixer = new AnimationMixer(humanoid.object);
  const action = mixer.clipAction(humanoid.clip(clip));
  action.play();
  action.time = time;
  mixer.update(0);
  humanoid.object.updateMatrixWorld(true);
  humanoid.skeleton.update();
  const body = humanoid.meshes.find((m) => m.name === 'body')!;
  const skin = posed(body);
  const clothes = posed(humanoid.meshes.find((m) => m.name === 'clothing')!);
  const bind = body.geometry.getAttribute('position');
  const p = skin.geometry.getAttribute('position');
  const n = skin.geometry.getAttribute('normal');
  const ray = new Raycaster();
  ray.far = 0.1;
  const misses: string[] = [];
  for (let i = 0; i < bind.count; i++) {
    const x = Math.abs(bind.getX(i));
    const y = bind.getY(i);
    const torso = x < 0.12 && y > 0.93 && y < 1.46;
    const upperArm = x >= 0.12 && x < 0.28 && y > 1.3;
    const leg = x < 0.2 && y > 0.16 && y < 0.84;
    if (!torso && !upperArm && !leg) continue;
    const normal = new Vector3().fromBufferAttribute(n, i).normalize();
    ray.set(new Vector3().fromBufferAttribute(p, i).addScaledVector(normal, -0.002), normal);
    if (ray.intersectObject(clothes, false).length === 0)
      misses.push(`(${bind.getX(i).toFixed(3)}, ${y.toFixed(3)}, ${bind.getZ(i).toFixed(3)})`);
  }
  return misses;
}

describe('the humanoid up close', () => {
  for (const detail of ['high', 'low'] as const) {
    it(`shows no skin through its clothes, at the sleeve or anywhere, in every clip (${detail} detail)`, () => {
      for (const [clip, time] of [
        ['idle', 0.5],
        ['walk', 0.3],
        ['run', 0.2],
        ['wave', 1],
        ['dance', 0.8],
      ] as const) {
        expect(uncoveredSkin(detail, clip, time), `${clip} at ${time} s`).toEqual([]);
      }
    });
  }

  it('has a chin in front of the neck, so its face is level and not turned up', () => {
    for (const detail of ['high', 'low'] as const) {
      const head = createHumanoid({ detail }).meshes.find((m) => m.name === 'head')!.geometry;
      const p = head.getAttribute('position');
      const c = head.getAttribute('color');
      let eyeY = 0;
      let eyeZ = 0;
      let eyes = 0;
      let bottom = Infinity;
      for (let i = 0; i < p.count; i++) {
        // The eyes are the head's only near-black vertices.
        if (c.getX(i) < 0.1) {
          eyeY += p.getY(i);
          eyeZ += p.getZ(i);
          eyes++;
        }
        bottom = Math.min(bottom, p.getY(i));
      }
      eyeY /= eyes;
      eyeZ /= eyes;
      // The chin: the front-most point of the lowest 2.5 cm of the head near its midline.
      let chinZ = -Infinity;
      let chinY = 0;
      for (let i = 0; i < p.count; i++) {
        if (p.getY(i) > bottom + 0.025 || Math.abs(p.getX(i)) > 0.03) continue;
        if (p.getZ(i) > chinZ) {
          chinZ = p.getZ(i);
          chinY = p.getY(i);
        }
      }
      // The eye-to-chin line leans back (the face turned up) by this many degrees.
      const faceTilt = (Math.atan2(eyeZ - chinZ, eyeY - chinY) * 180) / Math.PI;
      expect(faceTilt, detail).toBeLessThan(3);
      // …and the chin is in front of the neck (which joins the head at z ≈ 0, 5 cm thick).
      expect(chinZ, detail).toBeGreaterThan(0.08);
    }
  });

  it('holds its head level in every clip (the bone, not only the face)', () => {
    const humanoid = createHumanoid({ detail: 'low' });
    const mixer = new AnimationMixer(humanoid.object);
    for (const clip of humanoid.clips) {
      mixer.stopAllAction();
      const action = mixer.clipAction(clip);
      action.play();
      for (let k = 0; k < 10; k++) {
        action.time = (clip.duration * k) / 10;
        mixer.update(0);
        humanoid.object.updateMatrixWorld(true);
        const forward = new Vector3(0, 0, 1).applyQuaternion(humanoid.bone('head').getWorldQuaternion(new Quaternion()));
        // Up is positive: never more than 10° back (the jump and the dance look down a little).
        expect((Math.asin(forward.y) * 180) / Math.PI, `${clip.name} at ${action.time.toFixed(2)} s`).toBeLessThan(10);
      }
    }
  });
});
