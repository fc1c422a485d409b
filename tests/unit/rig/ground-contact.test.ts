/**
 * The built-in humanoid's own clips (`HUMANOID_CLIPS`, baked by `bakeClip`) keep its shoes on the
 * floor by the same sole rule as the animation library (src/rig/ground-contact.ts), measured on the
 * skinned mesh: the lowest skinned vertex over a clip against the lowest of the bind pose. The
 * default player avatar, the crowd and the net peers all draw these clips. With the ankle rule
 * alone (the pose functions' own grounding), the low-detail walk put the shoes 66 mm under the floor,
 * the run 103, the jump's crouch 76 and the dance 13.
 */
import { AnimationMixer, Vector3, type AnimationClip, type Object3D, type SkinnedMesh } from 'three';
import { describe, expect, it } from 'vitest';
import { bakeClip, PROCEDURAL_CLIPS } from '../../../src/rig/clips.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';

const v = new Vector3();

/** The lowest skinned vertex (model frame) as the bones place it now. */
function lowestVertex(object: Object3D): number {
  object.updateMatrixWorld(true);
  let low = Infinity;
  object.traverse((node) => {
    const mesh = node as SkinnedMesh;
    if (!mesh.isSkinnedMesh || !mesh.visible) return;
    mesh.skeleton.update();
    const count = mesh.geometry.getAttribute('position').count;
    for (let i = 0; i < count; i++) low = Math.min(low, mesh.getVertexPosition(i, v).applyMatrix4(mesh.matrixWorld).y);
  });
  return low;
}

/** Lowest skinned vertex over a clip (30 samples a second) below the bind pose's lowest, metres. */
function sinkOverClip(object: Object3D, clip: AnimationClip): number {
  const floor = lowestVertex(object);
  const mixer = new AnimationMixer(object);
  const action = mixer.clipAction(clip);
  action.play();
  let low = Infinity;
  const frames = Math.round(clip.duration * 30);
  for (let f = 0; f < frames; f++) {
    action.time = (f / frames) * clip.duration;
    mixer.update(0);
    low = Math.min(low, lowestVertex(object));
  }
  mixer.stopAllAction();
  mixer.uncacheRoot(object);
  return low - floor;
}

describe('ground contact: the built-in humanoid’s own clips', () => {
  const humanoid = createHumanoid({ detail: 'low' });
  const sink = (name: string): number => sinkOverClip(humanoid.object, humanoid.clip(name));

  it.each(['walk', 'run'])('keeps the shoes on the floor in %s (within 3 mm, touching)', (name) => {
    const figure = sink(name);
    expect(figure).toBeGreaterThan(-0.003);
    expect(figure).toBeLessThan(0.003);
  });

  it.each(['idle', 'jump', 'wave', 'dance'])('keeps the shoes out of the floor in %s', (name) => {
    expect(sink(name)).toBeGreaterThan(-0.003);
  });

  it('puts the walk’s shoes under the floor with the ankle rule alone (what the sole rule fixes)', () => {
    const ankleOnly = bakeClip({ ...PROCEDURAL_CLIPS.walk, contact: 'ankle' }, MANNEQUIN);
    expect(sinkOverClip(humanoid.object, ankleOnly)).toBeLessThan(-0.03);
  });
});
