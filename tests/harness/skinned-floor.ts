/**
 * Where a skinned character's mesh meets the floor, measured on the CPU: the figure a model placed
 * by its lowest bind-pose vertex (the world's avatar) shows on screen.
 */
import { AnimationMixer, Vector3, type AnimationClip, type Object3D, type SkinnedMesh } from 'three';

const vertex = new Vector3();

/** The lowest skinned vertex (the object's parent frame) as the bones place it now. */
export function lowestSkinnedVertex(object: Object3D): number {
  object.updateMatrixWorld(true);
  let low = Infinity;
  object.traverse((node) => {
    const mesh = node as SkinnedMesh;
    if (!mesh.isSkinnedMesh || !mesh.visible) return;
    mesh.skeleton.update();
    const count = mesh.geometry.getAttribute('position').count;
    for (let i = 0; i < count; i++) low = Math.min(low, mesh.getVertexPosition(i, vertex).applyMatrix4(mesh.matrixWorld).y);
  });
  return low;
}

/**
 * The lowest skinned vertex over a clip (30 samples a second) against the lowest of the pose the
 * object is in when called (its bind pose), metres: negative is under the floor.
 */
export function sinkOverClip(object: Object3D, clip: AnimationClip): number {
  const floor = lowestSkinnedVertex(object);
  const mixer = new AnimationMixer(object);
  const action = mixer.clipAction(clip);
  action.play();
  let low = Infinity;
  const frames = Math.round(clip.duration * 30);
  for (let f = 0; f < frames; f++) {
    action.time = (f / frames) * clip.duration;
    mixer.update(0);
    low = Math.min(low, lowestSkinnedVertex(object));
  }
  mixer.stopAllAction();
  mixer.uncacheRoot(object);
  return low - floor;
}
