import { Group, MeshStandardMaterial, SkinnedMesh, type AnimationClip, type Bone, type Skeleton } from 'three';
import { createHumanoidClips } from './clips.ts';
import { buildHumanoidPieces, DEFAULT_PALETTE, type HumanoidDetail, type HumanoidPalette } from './humanoid-body.ts';
import { MANNEQUIN } from './mannequin.ts';
import { buildSkeleton, type SkeletonDef } from './skeleton-def.ts';

export interface HumanoidOptions {
  /** Colours; defaults to {@link DEFAULT_PALETTE}. */
  palette?: Partial<HumanoidPalette>;
  /** Tessellation; 'high' (default) for the player, 'low' for crowds. */
  detail?: HumanoidDetail;
  /** Cast shadows from every piece. Default true. */
  castShadow?: boolean;
}

/** A procedural character: one skeleton shared by several skinned geometry pieces, plus its clips. */
export interface Humanoid {
  /** Add this to the scene; it holds the root bone and the skinned pieces. */
  object: Group;
  def: SkeletonDef;
  skeleton: Skeleton;
  bones: Bone[];
  bone(name: string): Bone;
  /** body, head (with facial morph targets), clothing. */
  meshes: SkinnedMesh[];
  clips: AnimationClip[];
  clip(name: string): AnimationClip;
  dispose(): void;
}

let cachedClips: AnimationClip[] | null = null;

/**
 * Builds Cairn's procedural humanoid: the 64-bone mannequin rig, three skinned pieces and the idle,
 * walk, run, jump, wave and dance clips. No model files needed.
 */
export function createHumanoid(options: HumanoidOptions = {}): Humanoid {
  const palette = { ...DEFAULT_PALETTE, ...options.palette };
  const built = buildSkeleton(MANNEQUIN);
  const object = new Group();
  object.name = 'humanoid';
  object.add(built.root);
  const meshes = buildHumanoidPieces(palette, options.detail ?? 'high').map((piece) => {
    const material = new MeshStandardMaterial({ vertexColors: true, roughness: piece.name === 'clothing' ? 0.9 : 0.7, metalness: 0 });
    material.name = `humanoid-${piece.name}`;
    const mesh = new SkinnedMesh(piece.geometry, material);
    mesh.name = piece.name;
    mesh.castShadow = options.castShadow ?? true;
    mesh.receiveShadow = true;
    // Skinned bounds follow the bind pose; animation stays within arm's reach of it.
    mesh.frustumCulled = false;
    object.add(mesh);
    mesh.bind(built.skeleton);
    return mesh;
  });
  // The clips depend only on the rig definition; bake them once per page.
  const clips = (cachedClips ??= createHumanoidClips(MANNEQUIN));
  return {
    object,
    def: MANNEQUIN,
    skeleton: built.skeleton,
    bones: built.bones,
    bone(name) {
      const bone = built.byName.get(name);
      if (!bone) throw new Error(`humanoid has no bone "${name}"`);
      return bone;
    },
    meshes,
    clips,
    clip(name) {
      const clip = clips.find((c) => c.name === name);
      if (!clip) throw new Error(`humanoid has no clip "${name}"; it has: ${clips.map((c) => c.name).join(', ')}`);
      return clip;
    },
    dispose() {
      for (const mesh of meshes) {
        mesh.geometry.dispose();
        (mesh.material as MeshStandardMaterial).dispose();
      }
      object.removeFromParent();
    },
  };
}
