/**
 * A crowd template: one character (the procedural humanoid, or any loaded skinned glTF/FBX)
 * prepared once for batched drawing. It fixes the crowd's bone order (the union of every piece's
 * skeleton), prepares each piece's geometry (see geometry-prep.ts), keeps only the clip tracks a
 * bones-only clone can play, and measures the bind-pose bounds. Checks happen here, before
 * anything is built, so a bad model fails with a clear message and touches nothing running.
 * Uses three's scene-graph and math classes; no renderer.
 */
import { withDefaults } from '../core/options.ts';
import {
  AnimationClip,
  Box3,
  Matrix4,
  PropertyBinding,
  Vector3,
  type Bone,
  type BufferGeometry,
  type Material,
  type Object3D,
  type SkinnedMesh,
} from 'three';
import { CLIP_STATES, matchClipStates, type ClipState } from '../rig/clip-names.ts';
import { describeLoss, type ImportFailure, type ImportLoss } from '../rig/import/errors.ts';
import type { ClipTiming } from './anim-state.ts';
import { prepareCrowdGeometry } from './geometry-prep.ts';

/** Raised for characters the crowd cannot use; the message is meant for the person who chose the file. */
export class CrowdTemplateError extends Error {
  /** The error's name, for telling it apart from other errors. */
  override name = 'CrowdTemplateError';
  /** The import layer's cause when the file itself was refused (src/rig/import/errors.ts); null for the crowd's own limits. */
  readonly reason: ImportFailure | null;

  constructor(message: string, reason: ImportFailure | null = null) {
    super(message);
    this.reason = reason;
  }
}

/** Anything with a scene graph and clips: `createHumanoid()`, `loadRig()`/`parseRig()` results, a GLTF. */
export interface CrowdTemplateSource {
  /** The scene graph: skinned meshes and their bones. */
  object: Object3D;
  /** The clips (`createHumanoid()`, `loadRig()` results). */
  clips?: AnimationClip[];
  /** GLTFLoader results call them animations. */
  animations?: AnimationClip[];
  /** What importing found (`parseRig`/`loadRig` results carry it): the file's vertex count, its morph targets. */
  report?: {
    /** Vertices of every mesh in the file (skinned or not). */
    sourceVertices: number;
    /** Morph target names in the file. */
    morphTargets?: string[];
    /** What importing changed, one sentence each. */
    notes?: string[];
    /** What importing could not carry (a missing texture, tracks, morphs). */
    losses?: ImportLoss[];
  };
}

/** Options of a {@link CrowdTemplate}. */
export interface CrowdTemplateOptions {
  /** Most bones the crowd's bone buffers are sized for. Default 256. */
  maxBones?: number;
  /**
   * Scale the character uniformly so its bind pose is this tall (metres). Default: keep the
   * file's units. Useful for models authored in centimetres.
   */
  targetHeight?: number;
  /** A name for messages and the HUD. Default: the root object's name. */
  name?: string;
  /**
   * Which clip plays each animation state (`idle`, `walk`, `dance` …), by clip name. Default: read
   * from the clips' names (src/rig/clip-names.ts: Mixamo, Blender, Unreal, Quaternius and VRoid
   * naming). A state named here wins over what the names say.
   */
  clipStates?: Partial<Record<ClipState, string>>;
}

/** Defaults of {@link CrowdTemplateOptions}: 256 bones, the file's units, the root's name, states read from clip names. */
export const CROWD_TEMPLATE_DEFAULTS: Required<Omit<CrowdTemplateOptions, 'targetHeight'>> = {
  maxBones: 256,
  name: '',
  clipStates: {},
};

/** One geometry piece: one draw call per crowd. */
export interface CrowdPiece {
  /** The mesh's name in the file. */
  name: string;
  /** The piece's geometry, prepared for the crowd (at most four influences per vertex, in crowd bone order). */
  geometry: BufferGeometry;
  /** The file's material(s); the renderer builds node materials from them. */
  material: Material | Material[];
  /** Crowd avatars cast shadows from this piece (the file's mesh setting). */
  castShadow: boolean;
  /** Crowd avatars receive shadows on this piece (the file's mesh setting). */
  receiveShadow: boolean;
}

/** What preparing the model changed, for the page to tell the user. */
export interface CrowdTemplateReport {
  /** Geometry pieces (one draw call each per pass). */
  pieces: number;
  /** Crowd bones. */
  bones: number;
  /** Vertices drawn. */
  vertices: number;
  /** Triangles drawn. */
  triangles: number;
  /** Clip names, in order. */
  clips: string[];
  /** Morph targets removed (summed over position, normal and colour). */
  morphTargetsRemoved: number;
  /** Vertices that had more than four influences (the four strongest kept). */
  clampedVertices: number;
  /** Vertices with no weights, bound rigidly to a fallback bone. */
  unweightedVertices: number;
  /** Clip tracks dropped: they animate nothing a crowd avatar has (morphs, objects outside the bones). */
  droppedTracks: number;
  /** Uniform scale applied to reach `targetHeight` (1: the file's units). */
  scale: number;
  /** Vertices of every mesh in the file (skinned or not). */
  sourceVertices: number;
  /** Vertices the crowd draws; below {@link sourceVertices} when parts of the file are left out. */
  drawnVertices: number;
  /** Morph target names the crowd sets aside (crowd avatars do not run morphs). */
  morphTargets: string[];
  /** What importing and preparing changed, one sentence each, for the page's notice. */
  notes: string[];
  /** What could not be carried (a missing texture, tracks or morphs the crowd does not run), one sentence each (also in {@link notes}). */
  losses: string[];
  /** State → the clip that plays it (`play('idle')` plays this clip); states no clip reads as are absent. */
  clipStates: Partial<Record<ClipState, string>>;
}

/** One clip of a template: its name, duration, whether it loops, and the clip. */
export interface CrowdClip extends ClipTiming {
  /** The clip's name (`clip<i>` for an unnamed one). */
  name: string;
  /** The clip, with only the tracks that drive the crowd's bones. */
  clip: AnimationClip;
}

/** One character prepared once for batched drawing: the crowd's bone order, its pieces' geometry, its clips and bounds (see the file's comment). */
export class CrowdTemplate {
  /** A name for messages and the HUD. */
  readonly name: string;
  /** The source scene graph (the template's scene handle); virtual skeletons clone it. */
  readonly object: Object3D;
  /** Crowd bone order: index i is row i of every bone buffer. */
  readonly bones: Bone[];
  /** Inverse bind matrix per crowd bone. */
  readonly boneInverses: Matrix4[];
  /** The geometry pieces, each one draw call per crowd. */
  readonly pieces: CrowdPiece[];
  /** The clips ('bind', the bind pose, when the file has none). */
  readonly clips: CrowdClip[];
  /** State → clip index ({@link CrowdTemplateReport.clipStates} by index). */
  readonly stateClips: Partial<Record<ClipState, number>>;
  /** Uniform scale applied in front of every bone matrix (from `targetHeight`). */
  readonly rootMatrix: Matrix4;
  /** Bind-pose bounds after scaling, model space (feet near y = 0, facing +Z). */
  readonly bounds: Box3;
  /** What preparing the model changed, for the page to tell the user. */
  readonly report: CrowdTemplateReport;

  constructor(source: CrowdTemplateSource, options: CrowdTemplateOptions = {}) {
    const resolved = withDefaults<CrowdTemplateOptions & typeof CROWD_TEMPLATE_DEFAULTS>(CROWD_TEMPLATE_DEFAULTS, options);
    const maxBones = resolved.maxBones;
    const root = source.object;
    if (!root || typeof (root as Object3D).traverse !== 'function')
      throw new CrowdTemplateError('this is not a model: it has no scene graph');
    this.object = root;
    this.name = resolved.name || root.name || 'character';
    root.updateMatrixWorld(true);

    const skinned: SkinnedMesh[] = [];
    root.traverse((node) => {
      if ((node as SkinnedMesh).isSkinnedMesh) skinned.push(node as SkinnedMesh);
    });
    if (skinned.length === 0) throw new CrowdTemplateError(`"${this.name}" has no skinned mesh: a crowd character needs a skeleton`);
    // Every vertex the file holds, so a partial import (pieces left out) shows in the report.
    let fileVertices = 0;
    const morphNames = new Set<string>(source.report?.morphTargets ?? []);
    root.traverse((node) => {
      const mesh = node as SkinnedMesh;
      if (!mesh.isMesh) return;
      fileVertices += mesh.geometry.getAttribute('position')?.count ?? 0;
      for (const morph of Object.keys(mesh.morphTargetDictionary ?? {})) morphNames.add(morph);
    });

    // The union of every piece's bones; the same bone bound with another inverse gets its own row.
    const bones: Bone[] = [];
    const inverses: Matrix4[] = [];
    const remaps: Int32Array[] = [];
    for (const mesh of skinned) {
      const skeleton = mesh.skeleton;
      if (!skeleton || skeleton.bones.length === 0)
        throw new CrowdTemplateError(`"${this.name}": piece "${mesh.name || '(unnamed)'}" has an empty skeleton`);
      const remap = new Int32Array(skeleton.bones.length).fill(-1);
      skeleton.bones.forEach((bone, i) => {
        if (!bone) return;
        const inverse = skeleton.boneInverses[i] ?? new Matrix4();
        let index = -1;
        for (let j = 0; j < bones.length; j++) {
          if (bones[j] === bone && matricesClose(inverses[j]!, inverse)) {
            index = j;
            break;
          }
        }
        if (index < 0) {
          index = bones.length;
          bones.push(bone);
          inverses.push(inverse.clone());
        }
        remap[i] = index;
      });
      remaps.push(remap);
    }
    if (bones.length > maxBones) {
      throw new CrowdTemplateError(`"${this.name}" has ${bones.length} bones; this crowd's bone buffers are sized for at most ${maxBones}`);
    }
    for (const bone of bones) {
      if (!isDescendant(bone, root))
        throw new CrowdTemplateError(`"${this.name}": bone "${bone.name}" is not inside the model's scene graph`);
    }
    this.bones = bones;
    this.boneInverses = inverses;

    let morphTargetsRemoved = 0;
    let clampedVertices = 0;
    let unweightedVertices = 0;
    let vertices = 0;
    let triangles = 0;
    this.pieces = skinned.map((mesh, i) => {
      let prepared;
      try {
        prepared = prepareCrowdGeometry(mesh, remaps[i]!, remaps[i]![0] ?? 0);
      } catch (error) {
        throw new CrowdTemplateError(`"${this.name}": ${(error as Error).message}`);
      }
      morphTargetsRemoved += prepared.morphTargetsRemoved;
      clampedVertices += prepared.clampedVertices;
      unweightedVertices += prepared.unweightedVertices;
      const geometry = prepared.geometry;
      vertices += geometry.getAttribute('position').count;
      triangles += (geometry.index ? geometry.index.count : geometry.getAttribute('position').count) / 3;
      return {
        name: mesh.name || `piece${i}`,
        geometry,
        material: mesh.material,
        castShadow: mesh.castShadow,
        receiveShadow: mesh.receiveShadow,
      };
    });

    const bounds = new Box3();
    for (const piece of this.pieces) bounds.union(piece.geometry.boundingBox!);
    const height = bounds.max.y - bounds.min.y;
    if (!(height > 0) || !Number.isFinite(height)) throw new CrowdTemplateError(`"${this.name}" has no extent in its bind pose`);
    let scale = 1;
    if (resolved.targetHeight !== undefined) {
      if (!(resolved.targetHeight > 0)) throw new CrowdTemplateError(`targetHeight must be positive, got ${resolved.targetHeight}`);
      scale = resolved.targetHeight / height;
    }
    this.rootMatrix = new Matrix4().makeScale(scale, scale, scale);
    this.bounds = bounds.clone().applyMatrix4(this.rootMatrix);

    const sourceClips = source.clips ?? source.animations ?? [];
    let droppedTracks = 0;
    const droppedMorphTracks: string[] = [];
    const droppedOther: string[] = [];
    const clips: CrowdClip[] = [];
    for (const clip of sourceClips) {
      const tracks = clip.tracks.filter((track) => {
        const keep = playableOnBones(root, track.name);
        if (!keep) {
          droppedTracks++;
          (/\.morphTargetInfluences/.test(track.name) ? droppedMorphTracks : droppedOther).push(`${clip.name}: ${track.name}`);
        }
        return keep;
      });
      const playable = new AnimationClip(clip.name, clip.duration, tracks, clip.blendMode);
      playable.userData = { ...clip.userData };
      const loop = (clip.userData as { loop?: boolean } | undefined)?.loop !== false;
      clips.push({ name: clip.name || `clip${clips.length}`, duration: Math.max(0, clip.duration), loop, clip: playable });
    }
    if (clips.length === 0) {
      // A model without animation still stands in the crowd, in its bind pose.
      clips.push({ name: 'bind', duration: 0, loop: true, clip: new AnimationClip('bind', 0, []) });
    }
    this.clips = clips;
    const names = clips.map((c) => c.name);
    const matched: Partial<Record<ClipState, string>> = { ...matchClipStates(names), ...resolved.clipStates };
    const stateClips: Partial<Record<ClipState, number>> = {};
    const clipStates: Partial<Record<ClipState, string>> = {};
    for (const state of CLIP_STATES) {
      const index = matched[state] === undefined ? -1 : names.indexOf(matched[state]);
      if (index < 0) continue;
      stateClips[state] = index;
      clipStates[state] = names[index]!;
    }
    this.stateClips = stateClips;
    // What the crowd does not carry, in the import layer's words (src/rig/import/errors.ts).
    const losses = [...(source.report?.losses ?? []).map(describeLoss)];
    if (droppedMorphTracks.length)
      losses.push(
        describeLoss({
          kind: 'dropped-tracks',
          count: droppedMorphTracks.length,
          why: 'they drive morph targets, which crowd avatars do not run',
          examples: droppedMorphTracks,
        }),
      );
    if (droppedOther.length)
      losses.push(
        describeLoss({
          kind: 'dropped-tracks',
          count: droppedOther.length,
          why: 'they animate nothing a crowd avatar has',
          examples: droppedOther,
        }),
      );
    if (morphTargetsRemoved > 0 && morphNames.size)
      losses.push(describeLoss({ kind: 'dropped-morphs', names: [...morphNames], why: 'crowd avatars do not run morph targets' }));
    const notes = [...(source.report?.notes ?? [])];
    for (const loss of losses) if (!notes.includes(loss)) notes.push(loss);
    this.report = {
      pieces: this.pieces.length,
      bones: bones.length,
      vertices,
      triangles: Math.round(triangles),
      clips: clips.map((c) => c.name),
      morphTargetsRemoved,
      clampedVertices,
      unweightedVertices,
      droppedTracks,
      scale,
      sourceVertices: source.report?.sourceVertices ?? fileVertices,
      drawnVertices: vertices,
      morphTargets: [...morphNames],
      notes,
      losses,
      clipStates,
    };
  }

  /** Crowd bones ({@link bones}' length). */
  get boneCount(): number {
    return this.bones.length;
  }

  /**
   * Index of a clip by exact name, else the clip of the state the name reads as (`idle`, `walk_fwd`
   * → walk; see {@link CrowdTemplateReport.clipStates}), else -1.
   */
  clipIndex(name: string): number {
    const exact = this.clips.findIndex((c) => c.name === name);
    if (exact >= 0) return exact;
    const state = (Object.keys(matchClipStates([name])) as ClipState[])[0];
    return state === undefined ? -1 : (this.stateClips[state] ?? -1);
  }

  /** Like {@link clipIndex} but falls back to the first clip (a name the model lacks still plays something). */
  resolveClip(name: string): number {
    const index = this.clipIndex(name);
    return index >= 0 ? index : 0;
  }

  /** Frees the prepared geometries (not the source model). */
  dispose(): void {
    for (const piece of this.pieces) piece.geometry.dispose();
  }
}

function matricesClose(a: Matrix4, b: Matrix4): boolean {
  for (let i = 0; i < 16; i++) if (Math.abs(a.elements[i]! - b.elements[i]!) > 1e-5) return false;
  return true;
}

function isDescendant(node: Object3D, root: Object3D): boolean {
  for (let n: Object3D | null = node; n; n = n.parent) if (n === root) return true;
  return false;
}

/** True for transform tracks whose target is a bone or plain node (not a mesh) under `root`. */
function playableOnBones(root: Object3D, trackName: string): boolean {
  let parsed;
  try {
    parsed = PropertyBinding.parseTrackName(trackName);
  } catch {
    return false;
  }
  if (!['position', 'quaternion', 'scale'].includes(parsed.propertyName)) return false;
  const node = PropertyBinding.findNode(root, parsed.nodeName) as Object3D | null | undefined;
  if (!node || (node as { isMesh?: boolean }).isMesh) return false;
  return true;
}

/** Bind-pose height of a template (metres), for placing labels and cull spheres. */
export function templateHeight(template: CrowdTemplate): number {
  return template.bounds.max.y - Math.min(0, template.bounds.min.y);
}

/** Centre and radius of a sphere that holds the character in any reasonable pose. */
export function templateCullSphere(template: CrowdTemplate): {
  /** Centre of the bind-pose bounds, model space. */
  center: Vector3;
  /** Radius (m): 1.25 × half the bounds' largest extent, for swinging arms and legs. */
  radius: number;
} {
  const center = template.bounds.getCenter(new Vector3());
  const size = template.bounds.getSize(new Vector3());
  // Arms and legs swing beyond the bind box; half the largest extent plus a margin covers them.
  const radius = 0.5 * Math.max(size.x, size.y, size.z) * 1.25;
  return { center, radius };
}
