/**
 * Characters for crowd tests, built in code so every property the crowd must cope with is there
 * on purpose: a chain of `bones` bones standing `height` metres tall, split into `pieces` skinned
 * meshes (one skeleton, or one skeleton per piece), up to 8 influences per vertex (glTF
 * JOINTS_1/WEIGHTS_1), morph targets, and a looping "sway" clip. `exportGlb` writes a real GLB
 * with three's GLTFExporter, so browser tests load real files.
 */
import {
  AnimationClip,
  Bone,
  BoxGeometry,
  Float32BufferAttribute,
  Group,
  Mesh,
  MeshStandardMaterial,
  QuaternionKeyframeTrack,
  Quaternion,
  Skeleton,
  SkinnedMesh,
  Uint16BufferAttribute,
  Vector3,
  type Object3D,
} from 'three';
import { GLTFExporter } from 'three/addons/exporters/GLTFExporter.js';
import { installFileReaderPolyfill } from '../../src/rig/node/file-reader-polyfill.ts';

export interface FixtureOptions {
  /** Bones in the chain. Default 12. */
  bones?: number;
  /** Skinned pieces (vertical slices of the body). Default 1. */
  pieces?: number;
  /** Influences per vertex: 4 or 8 (8 adds JOINTS_1/WEIGHTS_1). Default 4. */
  influences?: 4 | 8;
  /** Add two morph targets to every piece. Default false. */
  morphs?: boolean;
  /** Each piece binds its own Skeleton object over the shared bones. Default false. */
  skeletonPerPiece?: boolean;
  /** Metres. Default 1.8. */
  height?: number;
  /** Colour of the body. Default orange. */
  color?: number;
}

export interface Fixture {
  object: Group;
  clips: AnimationClip[];
  bones: Bone[];
  meshes: SkinnedMesh[];
}

/** A skinned column that sways: tall, narrow, unmistakable on screen. */
export function buildFixtureCharacter(options: FixtureOptions = {}): Fixture {
  const boneCount = options.bones ?? 12;
  const pieceCount = options.pieces ?? 1;
  const influences = options.influences ?? 4;
  const height = options.height ?? 1.8;
  const segment = height / boneCount;
  const root = new Group();
  root.name = 'fixture';
  const bones: Bone[] = [];
  for (let i = 0; i < boneCount; i++) {
    const bone = new Bone();
    bone.name = `seg_${i}`;
    bone.position.set(0, i === 0 ? 0 : segment, 0);
    if (i === 0) root.add(bone);
    else bones[i - 1]!.add(bone);
    bones.push(bone);
  }
  root.updateMatrixWorld(true);
  const shared = new Skeleton(bones);
  const meshes: SkinnedMesh[] = [];
  for (let p = 0; p < pieceCount; p++) {
    const y0 = (p / pieceCount) * height;
    const y1 = ((p + 1) / pieceCount) * height;
    const geometry = new BoxGeometry(0.5, y1 - y0, 0.3, 2, Math.max(2, Math.round(((y1 - y0) / height) * boneCount * 2)), 2);
    geometry.translate(0, (y0 + y1) / 2, 0);
    const position = geometry.getAttribute('position');
    const count = position.count;
    const index0 = new Uint16Array(count * 4);
    const weight0 = new Float32Array(count * 4);
    const index1 = new Uint16Array(count * 4);
    const weight1 = new Float32Array(count * 4);
    for (let v = 0; v < count; v++) {
      const y = position.getY(v);
      // Influence falls off with distance from each bone's segment centre.
      const ranked = bones
        .map((_, b) => ({ b, w: Math.exp(-(((y - (b + 0.5) * segment) / (segment * 0.9)) ** 2)) }))
        .sort((a, c) => c.w - a.w)
        .slice(0, Math.min(influences, boneCount));
      const sum = ranked.reduce((s, r) => s + r.w, 0);
      ranked.forEach((r, k) => {
        if (k < 4) {
          index0[v * 4 + k] = r.b;
          weight0[v * 4 + k] = r.w / sum;
        } else {
          index1[v * 4 + k - 4] = r.b;
          weight1[v * 4 + k - 4] = r.w / sum;
        }
      });
    }
    geometry.setAttribute('skinIndex', new Uint16BufferAttribute(index0, 4));
    geometry.setAttribute('skinWeight', new Float32BufferAttribute(weight0, 4));
    if (influences === 8) {
      geometry.setAttribute('JOINTS_1', new Uint16BufferAttribute(index1, 4));
      geometry.setAttribute('WEIGHTS_1', new Float32BufferAttribute(weight1, 4));
    }
    if (options.morphs) {
      const bulge = new Float32Array(count * 3);
      const squash = new Float32Array(count * 3);
      for (let v = 0; v < count; v++) {
        bulge[v * 3] = position.getX(v) * 0.3;
        squash[v * 3 + 1] = -position.getY(v) * 0.05;
      }
      geometry.morphAttributes.position = [new Float32BufferAttribute(bulge, 3), new Float32BufferAttribute(squash, 3)];
      geometry.morphTargetsRelative = true;
    }
    const material = new MeshStandardMaterial({ color: options.color ?? 0xe07020, roughness: 0.6 });
    const mesh = new SkinnedMesh(geometry, material);
    mesh.name = `piece_${p}`;
    if (options.morphs) mesh.morphTargetInfluences = [0.5, 0];
    root.add(mesh);
    mesh.bind(options.skeletonPerPiece ? new Skeleton(bones) : shared, mesh.matrixWorld);
    meshes.push(mesh);
  }
  return { object: root, clips: [swayClip(bones)], bones, meshes };
}

/** Every segment bends a little about X and Z, out of phase: a 2 s looping sway. */
function swayClip(bones: Bone[]): AnimationClip {
  const frames = 21;
  const times = Float32Array.from({ length: frames }, (_, f) => (f / (frames - 1)) * 2);
  const tracks = bones.map((bone, b) => {
    const values = new Float32Array(frames * 4);
    for (let f = 0; f < frames; f++) {
      const phase = (f / (frames - 1)) * Math.PI * 2;
      const q = new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0.6).normalize(), (b === 0 ? 0 : 0.35) * Math.sin(phase + b * 0.4));
      q.toArray(values, f * 4);
    }
    return new QuaternionKeyframeTrack(`${bone.name}.quaternion`, times, values);
  });
  return new AnimationClip('sway', 2, tracks);
}

/** A plain (unskinned) model: what "a model with no skeleton" looks like. */
export function buildStaticModel(): Group {
  const root = new Group();
  root.name = 'statue';
  const mesh = new Mesh(new BoxGeometry(0.5, 1.8, 0.5), new MeshStandardMaterial({ color: 0x888888 }));
  mesh.position.y = 0.9;
  root.add(mesh);
  return root;
}

/** Exports a scene (and clips) as GLB bytes with three's GLTFExporter. */
export async function exportGlb(object: Object3D, clips: AnimationClip[] = []): Promise<ArrayBuffer> {
  installFileReaderPolyfill();
  const exporter = new GLTFExporter();
  const result = await exporter.parseAsync(object, { binary: true, animations: clips });
  if (!(result instanceof ArrayBuffer)) throw new Error('GLTFExporter did not return binary glTF');
  return result;
}
