/**
 * The one body builder for Cairn's procedural characters (the mannequin and the CC4-style
 * character): the tube kit's shared parts — palette, tessellation, bone lookup, radius profiles,
 * vector helpers, geometry output — and {@link createBody}, which turns a skeleton definition and
 * its pieces into a skinned character. Each rig keeps only its layout (where tubes go, on which
 * bones): src/rig/humanoid-body.ts and src/anim/rigs/cc4-body.ts.
 */
import {
  BufferGeometry,
  Float32BufferAttribute,
  Group,
  MeshStandardMaterial,
  SkinnedMesh,
  Uint16BufferAttribute,
  type Bone,
  type Skeleton,
} from 'three';
import { buildSkeleton, type SkeletonDef } from './skeleton-def.ts';
import type { MeshAccumulator, TubeBreakpoint, Vec3 } from './tube.ts';

/** Colours of a procedural character (linear RGB 0..1). */
export interface BodyPalette {
  /** Skin (linear RGB). */
  skin: Vec3;
  /** Hair. */
  hair: Vec3;
  /** Shirt. */
  shirt: Vec3;
  /** Trousers. */
  pants: Vec3;
  /** Shoes. */
  shoes: Vec3;
  /** Eyes. */
  eyes: Vec3;
}

/** Tessellation of the tubes: 'high' for the player and close-ups, 'low' for crowds. */
export type HumanoidDetail = 'high' | 'low';

/** Rings and sides per tessellation level. */
export const BODY_DETAIL = {
  /** For the player and close-ups. */
  high: {
    /** Vertices around a limb or torso ring. */
    sides: 12,
    /** Rings along a limb segment. */
    rings: 6,
    /** Vertices around a finger ring. */
    fingerSides: 6,
    /** Rings along a finger segment. */
    fingerRings: 3,
    /** Rings of the head ellipsoid. */
    headRings: 12,
    /** Vertices around the head. */
    headSides: 16,
  },
  /** For crowds. */
  low: {
    /** Vertices around a limb or torso ring. */
    sides: 7,
    /** Rings along a limb segment. */
    rings: 3,
    /** Vertices around a finger ring. */
    fingerSides: 4,
    /** Rings along a finger segment. */
    fingerRings: 1,
    /** Rings of the head ellipsoid. */
    headRings: 7,
    /** Vertices around the head. */
    headSides: 9,
  },
} as const;
/** Rings and sides of one tessellation level ({@link BODY_DETAIL}). */
export type BodyDetail = (typeof BODY_DETAIL)[HumanoidDetail];

/** One named geometry piece of the character; each becomes one SkinnedMesh with one material. */
export interface BodyPiece {
  /** Which piece: skin, head (with face morphs) or clothing. */
  name: 'body' | 'head' | 'clothing';
  /** Its skinned geometry. */
  geometry: BufferGeometry;
}

/** Bone indices and bind positions by name; errors name the rig. */
export class RigLookup {
  private readonly index = new Map<string, number>();
  private readonly heads = new Map<string, Vec3>();

  private readonly label: string;

  constructor(def: SkeletonDef, label: string) {
    this.label = label;
    def.bones.forEach((bone, i) => {
      this.index.set(bone.name, i);
      this.heads.set(bone.name, bone.head);
    });
  }

  /** The index of bone `name`; throws naming the rig when it has none. */
  bone(name: string): number {
    const i = this.index.get(name);
    if (i === undefined) throw new Error(`${this.label}: the rig has no bone "${name}"`);
    return i;
  }

  /** The bind-pose head position of bone `name`; throws naming the rig when it has none. */
  head(name: string): Vec3 {
    const p = this.heads.get(name);
    if (!p) throw new Error(`${this.label}: the rig has no bone "${name}"`);
    return p;
  }

  /** Breakpoints from (bone name, t) pairs. */
  weights(...pairs: Array<[string, number]>): TubeBreakpoint[] {
    return pairs.map(([name, t]) => ({ bone: this.bone(name), t }));
  }
}

/** Piecewise-smooth profile through (t, [ru, rv]) stops, optionally inflated (for clothing). */
export function profile(stops: Array<[number, number, number]>, inflate = 0): (t: number) => readonly [number, number] {
  return (t) => {
    if (t <= stops[0]![0]) return [stops[0]![1] + inflate, stops[0]![2] + inflate];
    for (let i = 0; i < stops.length - 1; i++) {
      const [t0, a0, b0] = stops[i]!;
      const [t1, a1, b1] = stops[i + 1]!;
      if (t <= t1) {
        const f = (t - t0) / (t1 - t0);
        const s = f * f * (3 - 2 * f);
        return [a0 + (a1 - a0) * s + inflate, b0 + (b1 - b0) * s + inflate];
      }
    }
    const last = stops[stops.length - 1]!;
    return [last[1] + inflate, last[2] + inflate];
  };
}

/** a − b. */
export const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
/** a + k·b (k defaults to 1). */
export const add = (a: Vec3, b: Vec3, k = 1): Vec3 => [a[0] + b[0] * k, a[1] + b[1] * k, a[2] + b[2] * k];
/** The vector's length. */
export const length = (v: Vec3): number => Math.hypot(v[0], v[1], v[2]);
/** The unit vector along v (v itself when it is zero). */
export const unit = (v: Vec3): Vec3 => {
  const l = length(v) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
};
/** Linear interpolation between two points. */
export const lerp3 = (a: Vec3, b: Vec3, t: number): Vec3 => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
/** Parameter of point p projected on the segment a→b (0 at a, 1 at b). */
export const along = (p: Vec3, a: Vec3, b: Vec3): number => {
  const ab = sub(b, a);
  const ap = sub(p, a);
  return (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / length(ab) ** 2;
};

/** Converts accumulated arrays into an indexed BufferGeometry with skinning attributes. */
export function toGeometry(out: MeshAccumulator): BufferGeometry {
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute(out.positions, 3));
  geometry.setAttribute('normal', new Float32BufferAttribute(out.normals, 3));
  geometry.setAttribute('color', new Float32BufferAttribute(out.colors, 3));
  geometry.setAttribute('skinIndex', new Uint16BufferAttribute(out.skinIndices, 4));
  geometry.setAttribute('skinWeight', new Float32BufferAttribute(out.skinWeights, 4));
  geometry.setIndex(out.indices);
  geometry.computeBoundingBox();
  geometry.computeBoundingSphere();
  return geometry;
}

/** How {@link createBody} dresses the pieces. */
export interface BodyOptions {
  /** The character's object name. */
  name: string;
  /** Prefix of mesh names (`''` → `body`, `'cc4-'` → `cc4-body`). */
  meshPrefix: string;
  /** Prefix of material names. */
  materialPrefix: string;
  /** Roughness of the clothing piece and of the others. */
  roughness: {
    /** Of the clothing piece. */
    clothing: number;
    /** Of the body and head. */
    other: number;
  };
  /** Cast shadows from every piece. */
  castShadow: boolean;
  /** Label for error messages ("humanoid", "CC4 character"). */
  label: string;
}

/** A procedural character: skeleton, skinned pieces, and a release. */
export interface Body {
  /** The character's root object (the skeleton's root bone inside). */
  object: Group;
  /** The skeleton definition it was built from. */
  def: SkeletonDef;
  /** The three.js skeleton every piece is bound to. */
  skeleton: Skeleton;
  /** Its bones, in the definition's order. */
  bones: Bone[];
  /** The bone named `name`; throws when there is none. */
  bone(name: string): Bone;
  /** The skinned pieces. */
  meshes: SkinnedMesh[];
  /** Frees the geometries and materials and removes the character from its parent. */
  dispose(): void;
}

/** Builds the skeleton of `def` and binds `pieces` to it as vertex-coloured skinned meshes. */
export function createBody(def: SkeletonDef, pieces: readonly BodyPiece[], options: BodyOptions): Body {
  const built = buildSkeleton(def);
  const object = new Group();
  object.name = options.name;
  object.add(built.root);
  const meshes = pieces.map((piece) => {
    const material = new MeshStandardMaterial({
      vertexColors: true,
      roughness: piece.name === 'clothing' ? options.roughness.clothing : options.roughness.other,
      metalness: 0,
    });
    material.name = `${options.materialPrefix}${piece.name}`;
    const mesh = new SkinnedMesh(piece.geometry, material);
    mesh.name = `${options.meshPrefix}${piece.name}`;
    mesh.castShadow = options.castShadow;
    mesh.receiveShadow = true;
    // Skinned bounds follow the bind pose; animation (and root motion) leaves them.
    mesh.frustumCulled = false;
    object.add(mesh);
    mesh.bind(built.skeleton);
    return mesh;
  });
  return {
    object,
    def,
    skeleton: built.skeleton,
    bones: built.bones,
    bone(name) {
      const bone = built.byName.get(name);
      if (!bone) throw new Error(`${options.label} has no bone "${name}"`);
      return bone;
    },
    meshes,
    dispose() {
      for (const mesh of meshes) {
        mesh.geometry.dispose();
        (mesh.material as MeshStandardMaterial).dispose();
      }
      object.removeFromParent();
    },
  };
}
