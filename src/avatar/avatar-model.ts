/**
 * A character file as the world's player: loaded through the one import layer (src/rig/import/),
 * given clips for every player state (its own where their names match, Cairn's library retargeted
 * onto it for the rest), measured (height, how much of the file is drawn) and lifted so its feet
 * stand where the player stands. The retargeter is imported on demand, so a world whose avatar
 * brings its own clips (or the built-in humanoid) never downloads it.
 */
import {
  AnimationClip,
  Box3,
  Matrix3,
  PropertyBinding,
  Vector3,
  type Bone,
  type BufferGeometry,
  type Material,
  type Mesh,
  type Object3D,
  type SkinnedMesh,
  type Texture,
} from 'three';
import {
  describeLoss,
  fetchModelBytes,
  parseRig,
  refusalOf,
  rigFormatOf,
  RigLoadError,
  unboundTracks,
  type LoadedRig,
} from '../rig/load.ts';
import { withDefaults } from '../core/options.ts';
import { isPlaceholderClipName } from '../rig/clip-names.ts';
import { assignAvatarClips, planAvatarClips, PLAYER_CLIP_STATES, type AvatarClipAssignment, type PlayerClipState } from './avatar-clips.ts';
import { AVATAR_HEIGHT_DEFAULTS, avatarScale, type AvatarHeightOptions } from './avatar-height.ts';
import { AvatarLoadError, avatarFileName } from './avatar-report.ts';

/** Options of {@link loadAvatarModel} and {@link prepareAvatarModel}: its clips and its height. */
export interface AvatarModelOptions extends AvatarHeightOptions {
  /**
   * More file clip names to recognise per state, tried before the built-in ones
   * (`{ walk: ['Locomotion_Walk_F'] }`). Default none.
   */
  clipNames?: Partial<Record<PlayerClipState, readonly string[]>>;
  /** Retarget Cairn's library for states the file has no clip for. Default true. */
  library?: boolean;
}

const AVATAR_MODEL_DEFAULTS: Required<AvatarModelOptions> = { clipNames: {}, library: true, ...AVATAR_HEIGHT_DEFAULTS };

/** What a loaded character is, for the notice and `cairn.stats.avatar`. */
export interface AvatarReport {
  /** The file's name (the last part of the URL). */
  name: string;
  /** Bind-pose height as drawn, metres: the file's times {@link scale}. */
  height: number;
  /** Bind-pose height as the import layer reads the file (units fixed by its rule of thumb), metres. */
  fileHeight: number;
  /** Uniform scale of the wrapper under the height policy (1: the file's height kept). */
  scale: number;
  bones: number;
  /** Clips in the file. */
  fileClips: number;
  /** Their names as the file has them. */
  fileClipNames: string[];
  /** Library clips retargeted onto the rig. */
  retargeted: string[];
  /** Vertices of every mesh in the file. */
  sourceVertices: number;
  /** Vertices the player draws. */
  drawnVertices: number;
  /** Import notes and retargeting problems, one sentence each (the losses among them). */
  notes: string[];
  /** What could not be carried (a missing texture, clip tracks nothing plays), one sentence each. */
  losses: string[];
}

/** A character ready to be the player. */
export interface AvatarModel {
  /**
   * The import wrapper (metres, +Y up), scaled uniformly by `report.scale`; whoever places it adds
   * {@link groundOffset} to its height.
   */
  object: Object3D;
  /** The clips the player plays (file clips it uses, then retargeted library clips). */
  clips: AnimationClip[];
  /** Which clip plays each state and where it comes from. */
  assignment: AvatarClipAssignment;
  /** Metres to raise the model so its lowest point (as the file poses it) stands at the player's feet. */
  groundOffset: number;
  report: AvatarReport;
  /** Releases its geometries, materials and textures and takes it out of the scene. */
  dispose(): void;
}

/**
 * Loads a character from a URL (or a chosen File) through the import layer and prepares it.
 * Throws {@link AvatarLoadError} naming the file and the cause: unsupported type, CORS, 404, not a
 * model, no skeleton, or a skeleton-only file (mocap has nothing to draw).
 */
export async function loadAvatarModel(source: string | File, options: AvatarModelOptions = {}): Promise<AvatarModel> {
  const where = typeof source === 'string' ? source : source.name;
  const name = avatarFileName(where);
  // Messages name the file the way the user knows it, not the full URL; the cause stays.
  const refusal = (error: unknown): AvatarLoadError => {
    const { message, reason } = refusalOf(error, name);
    return new AvatarLoadError(message, reason);
  };
  let rig: LoadedRig;
  try {
    rigFormatOf(where);
    const bytes = typeof source === 'string' ? await fetchModelBytes(source) : await source.arrayBuffer();
    const basePath = typeof source === 'string' && source.includes('/') ? source.slice(0, source.lastIndexOf('/') + 1) : '';
    rig = await parseRig(bytes, where, { basePath });
  } catch (error) {
    throw refusal(error);
  }
  return prepareAvatarModel(rig, name, options);
}

/**
 * Makes a loaded rig the player's character: refuses skeleton-only files, plans its clips, retargets
 * the library for the states its file lacks, measures it and lifts it onto its feet.
 */
export async function prepareAvatarModel(rig: LoadedRig, name: string, options: AvatarModelOptions = {}): Promise<AvatarModel> {
  const resolved = withDefaults(AVATAR_MODEL_DEFAULTS, options);
  if (rig.report.skeletonOnly) {
    const refusal = RigLoadError.because('no-mesh', name, { bones: rig.bones.length });
    throw new AvatarLoadError(refusal.message, refusal.reason);
  }
  const notes = [...rig.report.notes];
  const losses = rig.report.losses.map(describeLoss);
  // The height policy scales the wrapper, never the bones: clips (the file's and those retargeted
  // onto the rig in its own frame, which ignores the wrapper) play unchanged; only their figures in
  // metres (ground speed, swim offset) follow the scale.
  const { scale, note: scaleNote } = avatarScale(rig.report.height, rig.report.units, resolved);
  if (scaleNote) notes.push(scaleNote);
  // One clip under an exporter's placeholder name (Mixamo's "mixamo.com", "Take 001"): the file's
  // name says what it is ("Walking.fbx").
  const only = rig.clips.length === 1 ? rig.clips[0]! : null;
  if (only && isPlaceholderClipName(only.name)) {
    const fileName = name.replace(/\.[^.]+$/, '');
    notes.push(`its one clip "${only.name}" is taken by the file's name: "${fileName}"`);
    only.name = fileName;
  }
  const plan = planAvatarClips(
    rig.clips.map((clip) => clip.name),
    resolved.clipNames,
  );
  let library: AnimationClip[] = [];
  if (plan.libraryClips.length > 0 && resolved.library) {
    // Loaded on demand: a character whose file covers every state never downloads the retargeter.
    const { libraryForRig } = await import('../anim/retarget/library-for-rig.ts');
    const result = await libraryForRig(rig.object, rig.bones, name, { clips: plan.libraryClips });
    library = result.clips;
    notes.push(...result.problems);
  }
  const assignment = assignAvatarClips(
    plan,
    library.map((clip) => clip.name),
  );
  const clips: AnimationClip[] = [];
  const added = new Set<string>();
  const dropped: string[] = [];
  for (const state of PLAYER_CLIP_STATES) {
    const clipName = assignment.clips[state];
    if (clipName === undefined || added.has(clipName)) continue;
    // The file's clip wins a name shared with a library clip (the plan takes file names first).
    const fromLibrary = assignment.sources[state] === 'library';
    const found = fromLibrary ? library.find((c) => c.name === clipName) : rig.clips.find((c) => c.name === clipName);
    if (!found) continue;
    // The controller moves the player: a file clip that travels (root motion) plays in place.
    const { clip: moved, travel: fileTravel } = fromLibrary ? { clip: found, travel: 0 } : withoutTravel(found, rig.object, rig.bones);
    // Tracks that animate nothing in the model would make three's mixer log an error on every play.
    const unbound = unboundTracks(rig.object, moved);
    if (unbound.length) dropped.push(...unbound.map((track) => `${clipName}: ${track}`));
    const clip = unbound.length ? withoutTracks(moved, new Set(unbound)) : moved;
    const travel = fileTravel * scale;
    if (travel > 0)
      notes.push(
        `${clipName}: its root travels ${travel.toFixed(2)} m over the clip; played in place at ${(travel / clip.duration).toFixed(2)} m/s`,
      );
    clips.push(scaledClip(clip, scale));
    added.add(clipName);
  }
  if (assignment.borrowed.length)
    notes.push(
      `no clip for ${assignment.borrowed.join(', ')} in the file or the library: ${assignment.borrowed.map((s) => `${s} plays ${assignment.clips[s]}`).join(', ')}`,
    );
  if (dropped.length) {
    const loss = describeLoss({
      kind: 'dropped-tracks',
      count: dropped.length,
      why: 'they animate nothing in the model',
      examples: dropped,
    });
    losses.push(loss);
    notes.push(loss);
  }
  if (clips.length === 0) notes.push('no clips in the file and none retargeted: it stands in its bind pose');

  const object = rig.object;
  object.scale.multiplyScalar(scale);
  let drawnVertices = 0;
  object.traverse((node) => {
    const mesh = node as Mesh;
    if (!mesh.isMesh) return;
    mesh.castShadow = true;
    // One character, always near the camera: its posed bounds change with every clip.
    mesh.frustumCulled = false;
    if (mesh.visible) drawnVertices += mesh.geometry.getAttribute('position')?.count ?? 0;
  });
  // Measured after scaling: the offset is in the frame the wrapper is placed in.
  const groundOffset = -restPoseBottom(object);
  return {
    object,
    clips,
    assignment,
    groundOffset,
    dispose: () => disposeCharacter(object),
    report: {
      name,
      height: rig.report.height * scale,
      fileHeight: rig.report.height,
      scale,
      bones: rig.bones.length,
      fileClips: rig.clips.length,
      fileClipNames: rig.clips.map((clip) => clip.name),
      retargeted: library.filter((clip) => added.has(clip.name)).map((clip) => clip.name),
      sourceVertices: rig.report.sourceVertices,
      drawnVertices,
      notes,
      losses,
    },
  };
}

/** A copy of a clip without the named tracks (its duration, blend mode and userData kept). */
function withoutTracks(clip: AnimationClip, drop: ReadonlySet<string>): AnimationClip {
  const result = new AnimationClip(
    clip.name,
    clip.duration,
    clip.tracks.filter((track) => !drop.has(track.name)),
    clip.blendMode,
  );
  result.userData = { ...(clip.userData as Record<string, unknown>) };
  return result;
}

/**
 * A clip as it plays on a character scaled by `scale`: its figures in metres (`userData.speed`, the
 * ground speed its playback follows, and `userData.rigOffset`, a swim's lift) scaled, its tracks
 * shared (bone rotations and positions live under the scaled wrapper). The clip itself is left as is.
 */
function scaledClip(clip: AnimationClip, scale: number): AnimationClip {
  const data = clip.userData as { speed?: unknown; rigOffset?: unknown };
  if (scale === 1 || (typeof data.speed !== 'number' && typeof data.rigOffset !== 'number')) return clip;
  const result = new AnimationClip(clip.name, clip.duration, clip.tracks, clip.blendMode);
  const scaled: Record<string, unknown> = { ...(clip.userData as Record<string, unknown>) };
  if (typeof data.speed === 'number') scaled.speed = data.speed * scale;
  if (typeof data.rigOffset === 'number') scaled.rigOffset = data.rigOffset * scale;
  result.userData = scaled;
  return result;
}

/** Horizontal travel (metres) over a clip below which it counts as in place: sway, a weight shift. */
const IN_PLACE_TRAVEL = 0.05;

/**
 * A file clip without its travel: the root-most animated bone's horizontal drift from the first key
 * to the last is taken out, spread evenly over the clip, so bob and sway stay and the net motion
 * goes. The clip's `userData.speed` becomes the travel's speed, so playback follows ground speed.
 * Returns the clip unchanged (travel 0) when it travels less than {@link IN_PLACE_TRAVEL}.
 */
export function withoutTravel(clip: AnimationClip, object: Object3D, bones: readonly Bone[]): { clip: AnimationClip; travel: number } {
  let chosen: { index: number; node: Object3D; depth: number } | null = null;
  for (const [index, track] of clip.tracks.entries()) {
    const parsed = PropertyBinding.parseTrackName(track.name);
    if (parsed.propertyName !== 'position' || track.times.length < 2) continue;
    const node = PropertyBinding.findNode(object, parsed.nodeName) as Object3D | undefined;
    if (!node || !bones.includes(node as Bone)) continue;
    let depth = 0;
    for (let p = node.parent; p; p = p.parent) depth++;
    if (!chosen || depth < chosen.depth) chosen = { index, node, depth };
  }
  if (!chosen?.node.parent) return { clip, travel: 0 };
  const track = clip.tracks[chosen.index]!;
  const { times, values } = track;
  const last = times.length - 1;
  // The drift in the character's frame (metres, +Y up): the parent's turn and scale carry the bone's axes.
  object.updateMatrixWorld(true);
  const linear = new Matrix3().setFromMatrix4(object.matrixWorld.clone().invert().multiply(chosen.node.parent.matrixWorld));
  const drift = new Vector3()
    .fromArray(values, last * 3)
    .sub(new Vector3().fromArray(values, 0))
    .applyMatrix3(linear);
  drift.y = 0;
  const travel = drift.length();
  const span = times[last]! - times[0]!;
  if (travel < IN_PLACE_TRAVEL || span <= 0) return { clip, travel: 0 };
  const local = drift.applyMatrix3(linear.invert());
  const flat = track.clone();
  const out = flat.values;
  for (let i = 0; i <= last; i++) {
    const f = (times[i]! - times[0]!) / span;
    out[i * 3] = values[i * 3]! - local.x * f;
    out[i * 3 + 1] = values[i * 3 + 1]! - local.y * f;
    out[i * 3 + 2] = values[i * 3 + 2]! - local.z * f;
  }
  const result = new AnimationClip(
    clip.name,
    clip.duration,
    clip.tracks.map((t, i) => (i === chosen.index ? flat : t)),
    clip.blendMode,
  );
  result.userData = { ...(clip.userData as Record<string, unknown>), speed: travel / span, rootTravel: travel };
  return { clip: result, travel };
}

/** The lowest point of the character's meshes as the file poses it, in the wrapper's frame (metres). */
function restPoseBottom(object: Object3D): number {
  object.updateMatrixWorld(true);
  object.traverse((node) => {
    const skinned = node as SkinnedMesh;
    // The bones as the file left them (its rest pose); pose() would drop an armature's own transform.
    if (skinned.isSkinnedMesh) skinned.skeleton.update();
  });
  object.updateMatrixWorld(true);
  // Precise: skinned vertices where the bones put them (bounds of bind geometry can lie).
  const box = new Box3().setFromObject(object, true);
  return box.isEmpty() ? 0 : box.min.y - object.getWorldPosition(new Vector3()).y;
}

/** Releases a loaded character's geometries, materials and textures and takes it out of the scene. */
function disposeCharacter(object: Object3D): void {
  const geometries = new Set<BufferGeometry>();
  const materials = new Set<Material>();
  const textures = new Set<Texture>();
  object.traverse((node) => {
    const mesh = node as Mesh;
    if (!mesh.isMesh) return;
    geometries.add(mesh.geometry);
    for (const material of Array.isArray(mesh.material) ? mesh.material : [mesh.material]) {
      materials.add(material);
      for (const value of Object.values(material)) if ((value as Texture | null)?.isTexture) textures.add(value as Texture);
    }
  });
  object.removeFromParent();
  for (const geometry of geometries) geometry.dispose();
  for (const material of materials) material.dispose();
  for (const texture of textures) texture.dispose();
}
