/**
 * How much the hip area of a skinned character changes shape in a pose, measured on the CPU: the
 * vertices the pelvis bone moves (any weight on it: the pelvis and the blend into thighs and
 * spine), skinned where the bones put them, against the same vertices in the bind pose after the
 * best rigid fit (Horn's quaternion method). What is left is bending, not motion: a pelvis tilted
 * off its rest pose while the thighs and spine are not bends the blend region by the tilt.
 */
import { AnimationMixer, Matrix4, Quaternion, Vector3, type AnimationClip, type Bone, type Object3D, type SkinnedMesh } from 'three';

/** Distances (metres) of the hip-area vertices from the best rigid fit of their bind positions. */
export interface ShapeChange {
  vertices: number;
  p95: number;
  max: number;
}

/** The hip area's shape change in the pose `clip` has at each of `times` (the worst time's figures). */
export function hipShapeChange(object: Object3D, hips: Bone, clip: AnimationClip, times: readonly number[], minWeight = 0.01): ShapeChange {
  const meshes: SkinnedMesh[] = [];
  object.traverse((node) => {
    if ((node as SkinnedMesh).isSkinnedMesh) meshes.push(node as SkinnedMesh);
  });
  // The hip area: vertices with any weight on the pelvis bone, and their bind positions (world).
  object.updateMatrixWorld(true);
  const area: Array<{ mesh: SkinnedMesh; index: number }> = [];
  for (const mesh of meshes) {
    const bone = mesh.skeleton.bones.indexOf(hips);
    if (bone < 0) continue;
    const skinIndex = mesh.geometry.getAttribute('skinIndex');
    const skinWeight = mesh.geometry.getAttribute('skinWeight');
    for (let i = 0; i < skinIndex.count; i++)
      for (let j = 0; j < 4; j++)
        if (skinIndex.getComponent(i, j) === bone && skinWeight.getComponent(i, j) > minWeight) area.push({ mesh, index: i });
  }
  const skinned = (): Vector3[] => {
    object.updateMatrixWorld(true);
    for (const mesh of meshes) mesh.skeleton.update();
    return area.map(({ mesh, index }) => mesh.getVertexPosition(index, new Vector3()).applyMatrix4(mesh.matrixWorld));
  };
  const rest = skinned();
  const mixer = new AnimationMixer(object);
  const action = mixer.clipAction(clip);
  action.play();
  let worst: ShapeChange = { vertices: area.length, p95: 0, max: 0 };
  for (const time of times) {
    action.time = time;
    mixer.update(0);
    const posed = skinned();
    const fit = rigidFit(rest, posed);
    const distances = rest.map((p, i) => p.clone().applyMatrix4(fit).distanceTo(posed[i]!)).sort((a, b) => a - b);
    const figures = { vertices: area.length, p95: distances[Math.floor(0.95 * (distances.length - 1))] ?? 0, max: distances.at(-1) ?? 0 };
    if (figures.p95 > worst.p95) worst = figures;
  }
  mixer.stopAllAction();
  mixer.uncacheRoot(object);
  object.updateMatrixWorld(true);
  for (const mesh of meshes) mesh.skeleton.pose();
  return worst;
}

/** The rotation and translation that best carry `from` onto `to` (least squares; Horn 1987). */
function rigidFit(from: readonly Vector3[], to: readonly Vector3[]): Matrix4 {
  const a = centroid(from);
  const b = centroid(to);
  // Cross-covariance S[i][j] = Σ (from − a)_i (to − b)_j.
  const S = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (let k = 0; k < from.length; k++) {
    const p = from[k]!.clone().sub(a);
    const q = to[k]!.clone().sub(b);
    const pv = [p.x, p.y, p.z];
    const qv = [q.x, q.y, q.z];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) S[i * 3 + j]! += pv[i]! * qv[j]!;
  }
  const [xx, xy, xz, yx, yy, yz, zx, zy, zz] = S as [number, number, number, number, number, number, number, number, number];
  const N = [
    [xx + yy + zz, yz - zy, zx - xz, xy - yx],
    [yz - zy, xx - yy - zz, xy + yx, zx + xz],
    [zx - xz, xy + yx, -xx + yy - zz, yz + zy],
    [xy - yx, zx + xz, yz + zy, -xx - yy + zz],
  ];
  const [w, x, y, z] = largestEigenvector(N);
  const rotation = new Matrix4().makeRotationFromQuaternion(new Quaternion(x, y, z, w));
  const t = b.clone().sub(a.clone().applyMatrix4(rotation));
  return rotation.setPosition(t);
}

function centroid(points: readonly Vector3[]): Vector3 {
  const c = new Vector3();
  for (const p of points) c.add(p);
  return c.divideScalar(Math.max(1, points.length));
}

/** The eigenvector of a symmetric 4×4 matrix with the largest eigenvalue (Jacobi rotations). */
function largestEigenvector(matrix: number[][]): [number, number, number, number] {
  const a = matrix.map((row) => [...row]);
  const v: number[][] = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < 4; p++) for (let q = p + 1; q < 4; q++) off += a[p]![q]! ** 2;
    if (off < 1e-20) break;
    for (let p = 0; p < 4; p++)
      for (let q = p + 1; q < 4; q++) {
        if (Math.abs(a[p]![q]!) < 1e-30) continue;
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * a[p]![q]!);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < 4; k++) {
          const akp = a[k]![p]!;
          const akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < 4; k++) {
          const apk = a[p]![k]!;
          const aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
        for (let k = 0; k < 4; k++) {
          const vkp = v[k]![p]!;
          const vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
  }
  let best = 0;
  for (let i = 1; i < 4; i++) if (a[i]![i]! > a[best]![best]!) best = i;
  return [v[0]![best]!, v[1]![best]!, v[2]![best]!, v[3]![best]!];
}
