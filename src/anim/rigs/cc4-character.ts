import { Group, MeshStandardMaterial, SkinnedMesh, type Bone, type Skeleton } from 'three';
import type { HumanoidDetail } from '../../rig/humanoid-body.ts';
import { buildSkeleton, type SkeletonDef } from '../../rig/skeleton-def.ts';
import { CC4_RIG } from './cc4.ts';
import { buildCc4Pieces, CC4_PALETTE, type Cc4Palette } from './cc4-body.ts';

export interface Cc4CharacterOptions {
  /** Colours; defaults to {@link CC4_PALETTE}. */
  palette?: Partial<Cc4Palette>;
  /** Tessellation; 'high' (default) or 'low'. */
  detail?: HumanoidDetail;
  /** Cast shadows from every piece. Default true. */
  castShadow?: boolean;
}

/** The CC4-style character: 213 bones shared by three skinned pieces (body, head, clothing). */
export interface Cc4Character {
  /** Add this to the scene; it holds the root bone and the skinned pieces. */
  object: Group;
  def: SkeletonDef;
  skeleton: Skeleton;
  bones: Bone[];
  /** A bone by name; throws naming the bone when it does not exist. */
  bone(name: string): Bone;
  meshes: SkinnedMesh[];
  dispose(): void;
}

/**
 * Builds the CC4-style character in its A-pose bind. It carries no clips of its own: its animation
 * comes from retargeting a library authored on another rig (see `retargetLibrary`).
 */
export function createCc4Character(options: Cc4CharacterOptions = {}): Cc4Character {
  const palette = { ...CC4_PALETTE, ...options.palette };
  const built = buildSkeleton(CC4_RIG);
  const object = new Group();
  object.name = CC4_RIG.name;
  object.add(built.root);
  const meshes = buildCc4Pieces(palette, options.detail ?? 'high').map((piece) => {
    const material = new MeshStandardMaterial({ vertexColors: true, roughness: piece.name === 'clothing' ? 0.85 : 0.65, metalness: 0 });
    material.name = `cc4-${piece.name}`;
    const mesh = new SkinnedMesh(piece.geometry, material);
    mesh.name = `cc4-${piece.name}`;
    mesh.castShadow = options.castShadow ?? true;
    mesh.receiveShadow = true;
    // Skinned bounds follow the bind pose; animation (and root motion) leaves them.
    mesh.frustumCulled = false;
    object.add(mesh);
    mesh.bind(built.skeleton);
    return mesh;
  });
  return {
    object,
    def: CC4_RIG,
    skeleton: built.skeleton,
    bones: built.bones,
    bone(name) {
      const bone = built.byName.get(name);
      if (!bone) throw new Error(`CC4 character has no bone "${name}"`);
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
