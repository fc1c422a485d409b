/**
 * One import path for characters, props and mocap: glTF/GLB, FBX (skinned or skeleton-only) and BVH,
 * in the browser and in Node alike (Node reads files through src/rig/node/model-file.ts, which hands
 * self-contained bytes to this module). Every model comes back the same way: a wrapper object whose
 * frame is metres, +Y up, with the file's scene under it; the bones; the clips; and a report of what
 * the file held and what was changed, so a partial import is visible.
 */
import {
  AnimationClip,
  Bone,
  Box3,
  Group,
  LoadingManager,
  Matrix4,
  Mesh,
  Object3D,
  PropertyBinding,
  Quaternion,
  Skeleton,
  SkinnedMesh,
  Uint16BufferAttribute,
  Float32BufferAttribute,
  Vector3,
  type BufferGeometry,
  type Material,
} from 'three';
import { BVHLoader } from 'three/addons/loaders/BVHLoader.js';
import { FBXLoader } from 'three/addons/loaders/FBXLoader.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import type { ProgressListener } from '../../core/progress.ts';
import { describeLoss, RigLoadError, type ImportLoss } from './errors.ts';

/** The file types Cairn reads. */
export type RigFormat = 'gltf' | 'fbx' | 'bvh';

/** What importing found and changed. */
export interface ImportReport {
  /** Metres per file unit applied by the wrapper (1 for metres, 0.01 for centimetres). */
  metresPerUnit: number;
  /**
   * The unit that was detected or given: metres, centimetres, millimetres, inches (`in`, Biovision
   * mocap) or the CMU mocap database's unit (`cmu`, 1/0.45 inch ≈ 5.64 cm).
   */
  units: 'm' | 'cm' | 'mm' | 'in' | 'cmu' | 'given';
  /**
   * The uniform scale the file's own nodes above a mocap skeleton apply (1 when none, and for models
   * with meshes). Mocap units are judged on the skeleton's own bone lengths, inside this scale;
   * `metresPerUnit` includes it (the unit's metres ÷ this).
   */
  rootScale: number;
  /** The file's up axis after the loader ('z' when the import turned a Z-up file upright). */
  upAxis: 'y' | 'z';
  /** No mesh at all: a skeleton with clips (mocap). */
  skeletonOnly: boolean;
  /** Plain meshes under bones that became skinned pieces with rigid weights. */
  rigidPieces: string[];
  /** Meshes neither skinned nor under a bone: shown where they are, not animated with the skeleton. */
  unattachedMeshes: string[];
  /** Morph target names (all pieces, de-duplicated). */
  morphTargets: string[];
  /** Vertices of every mesh in the file. */
  sourceVertices: number;
  /** Vertices of the skinned pieces (the file's own and the rigid ones): what a crowd can draw. */
  skinnedVertices: number;
  /** Bind-pose height of the whole character (meshes and bones), metres. */
  height: number;
  /** Things a person should know, one sentence each (every loss among them, in {@link describeLoss}'s words). */
  notes: string[];
  /** What the import could not carry (a texture that did not load), for code; each is also a note. */
  losses: ImportLoss[];
}

/** A character loaded from a file: its scene, skinned pieces, bones, clips and the import report. */
export interface LoadedRig {
  /** The wrapper: metres, +Y up; the file's scene is its only child. */
  object: Object3D;
  /** The skinned pieces (the file's own, and rigid meshes skinned to their bone). */
  skinnedMeshes: SkinnedMesh[];
  /** The bones. */
  bones: Bone[];
  /** The clips. */
  clips: AnimationClip[];
  /** The file type it was read as. */
  format: RigFormat;
  /** What importing found and changed. */
  report: ImportReport;
}

/** Options of {@link parseRig} and {@link loadRig}. */
export interface ImportOptions {
  /** Resolves external files (a .gltf's .bin and images). Default: a new LoadingManager. */
  manager?: LoadingManager;
  /** Base URL external files are resolved against. Default '' (none: a lone .gltf must embed them). */
  basePath?: string;
  /** Metres per file unit; default: detected from the bind-pose height. */
  metresPerUnit?: number;
  /** Turn plain meshes under bones into rigid skinned pieces. Default true. */
  skinRigidParts?: boolean;
  /** Refuse models with nothing to animate. Default true (false for props). */
  requireSkeleton?: boolean;
}

interface ResolvedImportOptions {
  manager: LoadingManager | undefined;
  basePath: string;
  metresPerUnit: number | undefined;
  skinRigidParts: boolean;
  requireSkeleton: boolean;
}

/** The one place import defaults live. */
export function resolveImportOptions(options: ImportOptions = {}): ResolvedImportOptions {
  return {
    manager: options.manager,
    basePath: options.basePath ?? '',
    metresPerUnit: options.metresPerUnit,
    skinRigidParts: options.skinRigidParts ?? true,
    requireSkeleton: options.requireSkeleton ?? true,
  };
}

/** Picks the loader from a file name or URL; throws {@link RigLoadError} ('unsupported') for anything else. */
export function rigFormatOf(name: string): RigFormat {
  const clean = name.split(/[?#]/)[0]!.toLowerCase();
  if (clean.endsWith('.glb') || clean.endsWith('.gltf')) return 'gltf';
  if (clean.endsWith('.fbx')) return 'fbx';
  if (clean.endsWith('.bvh')) return 'bvh';
  if (clean.startsWith('data:')) throw RigLoadError.because('unsupported', name.slice(0, 40), { what: 'a data: URL has no file type' });
  throw RigLoadError.because('unsupported', name);
}

/** The format the bytes themselves say, or null when they look like none (checked before parsing). */
export function sniffFormat(data: ArrayBuffer): RigFormat | null {
  const head = new TextDecoder().decode(new Uint8Array(data, 0, Math.min(64, data.byteLength)));
  if (head.startsWith('glTF')) return 'gltf';
  if (head.startsWith('Kaydara FBX Binary')) return 'fbx';
  const text = head.trimStart();
  if (text.startsWith('{')) return 'gltf';
  if (text.startsWith('HIERARCHY')) return 'bvh';
  if (text.startsWith(';') || text.startsWith('FBXHeaderExtension')) return 'fbx';
  return null;
}

const FORMAT_WORDS: Record<RigFormat, string> = { gltf: 'glTF/GLB', fbx: 'FBX', bvh: 'BVH' };

/**
 * Checks a model's bytes before any parser sees them and throws {@link RigLoadError} naming the
 * cause: an empty file, a web page saved under a model's name, bytes of another format, a GLB or
 * .gltf cut short. Pure (no DOM), so the command-line tools run the same checks on files they read.
 */
export function inspectModelBytes(data: ArrayBuffer, name: string): void {
  const format = rigFormatOf(name);
  if (data.byteLength === 0) throw RigLoadError.because('truncated', name, { what: 'it is empty (0 bytes)' });
  const head = new TextDecoder().decode(new Uint8Array(data, 0, Math.min(256, data.byteLength))).trimStart();
  if (/^(<!doctype html|<html|<head|<body|<\?xml[^>]*>\s*<html)/i.test(head)) throw RigLoadError.because('html-page', name);
  const sniffed = sniffFormat(data);
  if (sniffed !== format) {
    const what = sniffed
      ? `the bytes are ${FORMAT_WORDS[sniffed]}: rename the file`
      : `it starts with ${JSON.stringify(head.replace(/[^\x20-\x7e]/g, '.').slice(0, 12))}`;
    throw RigLoadError.because('not-a-model', name, { format: FORMAT_WORDS[format], what });
  }
  if (format !== 'gltf') return;
  const view = new DataView(data);
  if (data.byteLength >= 4 && view.getUint32(0, true) === GLB_MAGIC) {
    if (data.byteLength < 20) throw RigLoadError.because('truncated', name, { bytes: data.byteLength, declared: 20 });
    const declared = view.getUint32(8, true);
    if (declared > data.byteLength) throw RigLoadError.because('truncated', name, { bytes: data.byteLength, declared });
    const jsonLength = view.getUint32(12, true);
    if (20 + jsonLength > data.byteLength)
      throw RigLoadError.because('truncated', name, { bytes: data.byteLength, declared: 20 + jsonLength });
    return;
  }
  try {
    JSON.parse(new TextDecoder().decode(data));
  } catch (error) {
    const message = (error as Error).message;
    if (/end of (JSON )?input|Unterminated/i.test(message))
      throw RigLoadError.because('truncated', name, { what: 'its glTF JSON ends mid-way' });
    throw RigLoadError.because('not-a-model', name, { format: 'glTF', what: `its JSON does not parse: ${message}` });
  }
}

/** "glTF" as a little-endian uint32: a GLB's first four bytes. */
const GLB_MAGIC = 0x46546c67;

/** Parser errors that mean the data ended before what it declared (a buffer or an FBX cut short). */
const CUT_SHORT = /Invalid typed array length|out of bounds|Offset is outside the bounds|beyond the end|RangeError/i;

/** What the glTF JSON says the file holds: meshes and their primitives (one three.js Mesh per primitive). */
function gltfCounts(json: unknown): { meshes: number; primitives: number } {
  const meshes = ((json as { meshes?: Array<{ primitives?: unknown[] }> } | null)?.meshes ?? []).filter(Boolean);
  return { meshes: meshes.length, primitives: meshes.reduce((sum, mesh) => sum + (mesh.primitives?.length ?? 0), 0) };
}

/**
 * Parses a model from bytes (a dropped File, a fetched buffer, or bytes Node prepared). glTF/GLB goes
 * through GLTFLoader, FBX through FBXLoader, BVH through BVHLoader. Throws {@link RigLoadError}
 * naming the file and the cause when the bytes are not a model or the model has no skeleton. A
 * texture that cannot be loaded does not refuse the model: it is drawn without it, and the report
 * says so ({@link ImportReport.losses}).
 */
export async function parseRig(data: ArrayBuffer, name: string, options: ImportOptions = {}): Promise<LoadedRig> {
  const resolved = resolveImportOptions(options);
  const format = rigFormatOf(name);
  inspectModelBytes(data, name);
  let scene: Object3D;
  let clips: AnimationClip[];
  let counts: { meshes: number; primitives: number } | null = null;
  // Images that fail load as no texture in three's loaders: the manager hears of each one.
  const manager = resolved.manager ?? new LoadingManager();
  const failedFiles: string[] = [];
  const previousOnError = manager.onError;
  manager.onError = (url: string): void => {
    failedFiles.push(url);
    previousOnError?.(url);
  };
  try {
    if (format === 'gltf') {
      // meshopt decodes in three itself; Draco and KTX2 need decoder files a page must serve.
      const gltf = await new GLTFLoader(manager).setMeshoptDecoder(MeshoptDecoder).parseAsync(data, resolved.basePath);
      scene = gltf.scene;
      clips = gltf.animations;
      counts = gltfCounts(gltf.parser.json);
    } else if (format === 'fbx') {
      scene = new FBXLoader(manager).parse(indentAsciiFbx(data), resolved.basePath);
      restoreBindPose(scene);
      clips = scene.animations;
      scene.animations = [];
    } else {
      const bvh = new BVHLoader().parse(new TextDecoder().decode(data));
      scene = new Group();
      scene.name = 'bvh';
      scene.add(bvh.skeleton.bones[0]!);
      // BVH "End Site" markers become bones named ENDSITE: they carry no motion and no name to map.
      for (const bone of bvh.skeleton.bones) if (bone.name === 'ENDSITE') bone.removeFromParent();
      bvh.clip.name = baseName(name);
      clips = [bvh.clip];
    }
  } catch (error) {
    const message = (error as Error).message;
    if (/DRACOLoader|KTX2Loader/.test(message))
      throw RigLoadError.because('not-a-model', name, {
        format: 'glTF/GLB',
        what: `it uses ${/DRACO/.test(message) ? 'Draco mesh' : 'KTX2 texture'} compression, which Cairn's import does not decode; export it without (meshopt works)`,
      });
    // A buffer that did not load: the manager heard its URL (or, where fetch cannot even form the
    // request, the error names it).
    const failed =
      failedFiles.find((file) => !/\.(png|jpe?g|webp|ktx2|gif|bmp|tga)([?#]|$)/i.test(file)) ??
      /Failed to (?:parse URL from|load|fetch) (\S+)/.exec(message)?.[1];
    if (failed || /fetch|Failed to load|404|ENOENT/i.test(message))
      throw RigLoadError.because('missing-resource', name, { file: failed ? decodeURIComponent(failed) : message });
    if (CUT_SHORT.test(message))
      throw RigLoadError.because('truncated', name, {
        what: 'a buffer ends before the data it should hold (the file, or its .bin, is cut short)',
      });
    throw RigLoadError.because('not-a-model', name, { format: FORMAT_WORDS[format], what: `its parser says: ${message}` });
  } finally {
    manager.onError = previousOnError;
  }
  const rig = finishImport(scene, clips, format, name, resolved, counts);
  // Named as the model names it (relative to the model), not as the loader resolved it.
  const asNamed = (file: string): string =>
    decodeURIComponent(resolved.basePath && file.startsWith(resolved.basePath) ? file.slice(resolved.basePath.length) : file);
  const missing = [...new Set(failedFiles)].map((file) => (/^(blob|data):/.test(file) ? 'an embedded image' : asNamed(file)));
  for (const file of missing) {
    const loss: ImportLoss = { kind: 'missing-texture', file };
    rig.report.losses.push(loss);
    rig.report.notes.push(describeLoss(loss));
  }
  keepTracksOffTheWrapper(rig, name);
  return rig;
}

/** Fetches and parses a model from a URL; a refusal names the cause (CORS, 404, not a model). */
export async function loadRig(url: string, options: ImportOptions = {}): Promise<LoadedRig> {
  rigFormatOf(url);
  const data = await fetchModelBytes(url);
  const basePath = url.slice(0, url.lastIndexOf('/') + 1);
  return parseRig(data, url, { ...options, basePath: options.basePath ?? basePath });
}

/**
 * Fetches a model's bytes; {@link RigLoadError} says why it failed in words a person can act on.
 * `onProgress` hears the bytes received (`done`) of the response's Content-Length (`total`, null
 * when the server sends none).
 */
export async function fetchModelBytes(url: string, onProgress?: ProgressListener): Promise<ArrayBuffer> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    const crossOrigin = typeof location !== 'undefined' && /^https?:/i.test(url) && new URL(url, location.href).origin !== location.origin;
    const what = (error as Error).message;
    throw RigLoadError.because(
      crossOrigin ? 'cors' : 'unreadable',
      url,
      crossOrigin ? { origin: new URL(url).origin, what } : { what: `the server cannot be reached: ${what}` },
    );
  }
  if (response.status === 404) throw RigLoadError.because('not-found', url, { status: 'HTTP 404' });
  if (!response.ok) throw RigLoadError.because('http', url, { status: `HTTP ${response.status} ${response.statusText}`.trim() });
  return readWithProgress(response, onProgress);
}

async function readWithProgress(response: Response, onProgress?: ProgressListener): Promise<ArrayBuffer> {
  const total = Number(response.headers.get('content-length')) || null;
  if (!response.body || !onProgress) {
    onProgress?.({ done: 0, total });
    const buffer = await response.arrayBuffer();
    onProgress?.({ done: buffer.byteLength, total: buffer.byteLength });
    return buffer;
  }
  onProgress({ done: 0, total });
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    onProgress({ done: received, total });
  }
  // The end, said once more where the server gave no (or a wrong) length.
  if (total !== received) onProgress({ done: received, total: received });
  const out = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out.buffer;
}

function baseName(name: string): string {
  return decodeURIComponent(name.split(/[?#]/)[0]!.split(/[\\/]/).pop() ?? name).replace(/\.[^.]+$/, '') || 'model';
}

/** The CMU motion capture database's length unit in metres (its ASF files: 1/0.45 inch). */
const CMU_UNIT = 0.0254 / 0.45;

const UNIT_WORDS: Partial<Record<ImportReport['units'], string>> = {
  cm: 'centimetres',
  mm: 'millimetres',
  in: 'inches',
  cmu: 'CMU mocap units (1/0.45 inch)',
};

/**
 * The unit a model's height (in its file's units) says, by rule of thumb: over 400 units is
 * millimetres; mocap (no mesh) 12–40 units tall is the CMU database's unit and 40–100 is inches;
 * anything else over 12 is centimetres; 12 or less is metres.
 */
export function detectUnits(
  height: number,
  mocap: boolean,
): {
  /** The unit the file reads as. */
  unit: ImportReport['units'];
  /** Metres per file unit. */
  metres: number;
} {
  if (!(height > 0)) return { unit: 'm', metres: 1 };
  if (height > 400) return { unit: 'mm', metres: 0.001 };
  if (mocap && height > 12 && height <= 40) return { unit: 'cmu', metres: CMU_UNIT };
  if (mocap && height > 40 && height <= 100) return { unit: 'in', metres: 0.0254 };
  if (height > 12) return { unit: 'cm', metres: 0.01 };
  return { unit: 'm', metres: 1 };
}

/**
 * The uniform scale the nodes above a skeleton apply, with the nearest such node's name, when every
 * root bone hangs under the same uniform scale other than 1; null otherwise (no bones, no scale, or
 * a non-uniform one, which is no unit).
 */
function skeletonWrapper(object: Object3D): { scale: number; name: string } | null {
  object.updateMatrixWorld(true);
  const inverse = object.matrixWorld.clone().invert();
  const roots = collect<Bone>(object, (n) => (n as Bone).isBone === true && !(n.parent as Bone | null)?.isBone);
  let found: { scale: number; name: string } | null = null;
  const scale = new Vector3();
  for (const root of roots) {
    const parent = root.parent;
    if (!parent) return null;
    parent.matrixWorld.clone().premultiply(inverse).decompose(new Vector3(), new Quaternion(), scale);
    const s = scale.x;
    if (!(s > 0) || Math.abs(scale.y - s) > 1e-4 * s || Math.abs(scale.z - s) > 1e-4 * s) return null;
    if (found && Math.abs(found.scale - s) > 1e-4 * s) return null;
    // The node that carries the scale: the nearest ancestor with a scale of its own.
    let carrier: Object3D = parent;
    for (let p: Object3D | null = parent; p && p !== object; p = p.parent)
      if (Math.abs(p.scale.x - 1) > 1e-6) {
        carrier = p;
        break;
      }
    found ??= { scale: s, name: carrier.name || '(unnamed)' };
  }
  return found && Math.abs(found.scale - 1) > 1e-4 ? found : null;
}

/** Wraps, measures and completes a parsed scene; shared by every format. */
function finishImport(
  scene: Object3D,
  clips: AnimationClip[],
  format: RigFormat,
  source: string,
  options: ResolvedImportOptions,
  counts: { meshes: number; primitives: number } | null = null,
): LoadedRig {
  const notes: string[] = [];
  const units = new Group();
  units.name = 'units';
  units.add(scene);
  const object = new Group();
  // A model exported as one named object (as Cairn's built-ins are) keeps that name; else the file's.
  object.name = format === 'gltf' && scene.children.length === 1 && scene.children[0]!.name ? scene.children[0]!.name : baseName(source);
  object.add(units);
  object.animations = clips;

  // Up axis: FBXLoader turns Z-up files upright itself; a BVH or glTF lying down is turned here.
  object.updateMatrixWorld(true);
  const raw = measure(object);
  let upAxis: ImportReport['upAxis'] = 'y';
  const size = raw.getSize(new Vector3());
  if (size.z > 1.8 * size.y && size.z > 1.8 * size.x) {
    units.rotation.x = -Math.PI / 2;
    upAxis = 'z';
    notes.push('the model lies along Z: turned Z-up to Y-up');
  }
  // Units: the character's height decides unless the caller says.
  // Measured from the floor (y = 0) when the model stands above it: mocap has no feet mesh, and its
  // hips-to-head span alone would read centimetres as metres.
  const rawHeight = upAxis === 'z' ? Math.max(size.z, raw.max.z) : Math.max(size.y, raw.max.y);
  // Mocap (bones, no mesh) records a person, whose joints span about 1.5 m: read as centimetres, a
  // skeleton 12–100 units tall would be a doll, so it is in a mocap unit: the CMU database's
  // (1/0.45 inch; its BVH releases stand ~23 units from toe to head joint) or inches (Biovision).
  // Those units show in the skeleton's own bone lengths, so mocap is judged inside any uniform scale
  // the file's nodes above the skeleton apply: CMU's FBX release wraps bones in CMU units in a node
  // scaled by 100, which judged from outside (2,550 units) would read as millimetres.
  const mocap = collect<Mesh>(object, (n) => (n as Mesh).isMesh === true).length === 0;
  const wrapper = mocap ? skeletonWrapper(object) : null;
  const detected =
    options.metresPerUnit === undefined
      ? detectUnits(rawHeight / (wrapper?.scale ?? 1), mocap)
      : { unit: 'given' as const, metres: options.metresPerUnit };
  const unitName: ImportReport['units'] = detected.unit;
  const rootScale = options.metresPerUnit === undefined ? (wrapper?.scale ?? 1) : 1;
  const metresPerUnit = detected.metres / rootScale;
  if (metresPerUnit !== 1) {
    units.scale.setScalar(metresPerUnit);
    const unitWords = UNIT_WORDS[unitName] ?? `units of ${detected.metres} m`;
    const scaled = `scaled by ${+metresPerUnit.toPrecision(4)}`;
    if (rootScale === 1) notes.push(`authored in ${unitWords} (${rawHeight.toFixed(0)} units tall): ${scaled}`);
    else {
      const outside = detectUnits(rawHeight, mocap).unit;
      notes.push(
        `skeleton authored in ${unitWords} (${(rawHeight / rootScale).toFixed(1)} units tall in its own bone lengths) under node ` +
          `${JSON.stringify(wrapper!.name)}, which scales it by ${+rootScale.toPrecision(4)}; mocap units are judged inside that scale` +
          `${outside === unitName ? '' : ` (${rawHeight.toFixed(0)} units overall would read as ${UNIT_WORDS[outside] ?? 'metres'})`}: ${scaled}`,
      );
    }
  }
  if (metresPerUnit !== 1 || upAxis !== 'y') rebind(object, units);
  object.updateMatrixWorld(true);

  // Bones: the skins' bones, else every Bone, else the hierarchy the clips animate (mocap as nodes).
  let skinnedMeshes = collect<SkinnedMesh>(object, (n) => (n as SkinnedMesh).isSkinnedMesh === true);
  let bones = [...new Set(skinnedMeshes.flatMap((mesh) => mesh.skeleton.bones.filter(Boolean)))];
  const allBones = collect<Bone>(object, (n) => (n as Bone).isBone === true);
  for (const bone of allBones) if (!bones.includes(bone)) bones.push(bone);
  if (bones.length === 0) bones = promoteAnimatedNodes(scene, clips);
  const meshes = collect<Mesh>(object, (n) => (n as Mesh).isMesh === true);
  const sourceVertices = meshes.reduce((sum, mesh) => sum + vertexCount(mesh.geometry), 0);
  if (bones.length === 0 && options.requireSkeleton) {
    // glTF counts meshes as the file does (one mesh of two primitives is one mesh); three.js makes a Mesh per primitive.
    throw RigLoadError.because('no-skeleton', source, { meshes: counts?.meshes ?? meshes.length, primitives: counts?.primitives });
  }

  const rigidPieces: string[] = [];
  const unattachedMeshes: string[] = [];
  const rigid: RigidPart[] = [];
  for (const mesh of meshes) {
    if ((mesh as SkinnedMesh).isSkinnedMesh) continue;
    const bone = nearestBone(mesh);
    if (!bone || bones.length === 0) unattachedMeshes.push(mesh.name || '(unnamed)');
    else if (options.skinRigidParts) {
      rigid.push(rigidPart(object, mesh, bone, bones));
      rigidPieces.push(mesh.name || `${bone.name}_part`);
    }
  }
  const rigidMeshes = skinRigidParts(object, rigid, bones);
  if (rigidPieces.length)
    notes.push(
      `${rigidPieces.length} rigid part(s) under bones became ${rigidMeshes} skinned piece(s) with rigid weights: ${rigidPieces.join(', ')}`,
    );
  if (unattachedMeshes.length)
    notes.push(`${unattachedMeshes.length} mesh(es) are under no bone and do not move with the skeleton: ${unattachedMeshes.join(', ')}`);
  skinnedMeshes = collect<SkinnedMesh>(object, (n) => (n as SkinnedMesh).isSkinnedMesh === true);
  const skinnedVertices = skinnedMeshes.reduce((sum, mesh) => sum + vertexCount(mesh.geometry), 0);
  const morphTargets = [...new Set(meshes.flatMap((mesh) => Object.keys(mesh.morphTargetDictionary ?? {})))];
  if (morphTargets.length)
    notes.push(`${morphTargets.length} morph target(s): ${morphTargets.slice(0, 12).join(', ')}${morphTargets.length > 12 ? ', …' : ''}`);
  const skeletonOnly = meshes.length === 0;
  if (skeletonOnly) notes.push(`skeleton only (${bones.length} bones, ${clips.length} clip(s)): a clip source, not a character to draw`);
  const height = measure(object).getSize(new Vector3()).y;
  return {
    object,
    skinnedMeshes,
    bones,
    clips,
    format,
    report: {
      metresPerUnit,
      units: unitName,
      rootScale,
      upAxis,
      skeletonOnly,
      rigidPieces,
      unattachedMeshes,
      morphTargets,
      sourceVertices,
      skinnedVertices,
      height,
      notes,
      losses: [],
    },
  };
}

/**
 * Carries the skins' bind data through the unit/up-axis turn: bind matrices gain it and inverse bind
 * matrices lose it, so skinning code that reads them (three's, the crowd's) agrees with the bones,
 * which now move in metres, +Y up.
 */
function rebind(object: Object3D, units: Object3D): void {
  object.updateMatrixWorld(true);
  const turn = new Matrix4().compose(units.position, units.quaternion, units.scale);
  const inverse = turn.clone().invert();
  const skeletons = new Set<Skeleton>();
  object.traverse((node) => {
    const mesh = node as SkinnedMesh;
    if (!mesh.isSkinnedMesh) return;
    mesh.bindMatrix.premultiply(turn);
    mesh.bindMatrixInverse.copy(mesh.bindMatrix).invert();
    skeletons.add(mesh.skeleton);
  });
  for (const skeleton of skeletons) for (const boneInverse of skeleton.boneInverses) boneInverse.multiply(inverse);
}

function collect<T extends Object3D>(root: Object3D, test: (node: Object3D) => boolean): T[] {
  const out: T[] = [];
  root.traverse((node) => {
    if (test(node)) out.push(node as T);
  });
  return out;
}

function vertexCount(geometry: BufferGeometry): number {
  return geometry.getAttribute('position')?.count ?? 0;
}

/** Bind-pose bounds of meshes and bones in the wrapper's frame. */
function measure(object: Object3D): Box3 {
  const box = new Box3();
  const point = new Vector3();
  const inverse = object.matrixWorld.clone().invert();
  object.traverse((node) => {
    const mesh = node as Mesh;
    if (mesh.isMesh && mesh.geometry.getAttribute('position')) {
      mesh.geometry.computeBoundingBox();
      const local = mesh.geometry.boundingBox!.clone();
      // Skinned geometry sits in bind space (bindMatrix); plain meshes where they hang.
      const matrix = (mesh as SkinnedMesh).isSkinnedMesh
        ? (mesh as SkinnedMesh).bindMatrix.clone().premultiply(inverse)
        : mesh.matrixWorld.clone().premultiply(inverse);
      box.union(local.applyMatrix4(matrix));
    } else if ((node as Bone).isBone) {
      box.expandByPoint(point.setFromMatrixPosition(node.matrixWorld).applyMatrix4(inverse));
    }
  });
  return box;
}

function nearestBone(node: Object3D): Bone | null {
  for (let p = node.parent; p; p = p.parent) if ((p as Bone).isBone) return p as Bone;
  return null;
}

/** A plain mesh under a bone, its geometry baked into the wrapper's frame and bound rigidly to that bone. */
interface RigidPart {
  source: Mesh;
  geometry: BufferGeometry;
  bone: Bone;
}

/**
 * Takes a plain mesh hanging under a bone out of the scene: its geometry is baked into the
 * wrapper's frame with every vertex bound (weight 1) to that bone, and the node stays as an empty
 * placeholder for its children (named "NAME (placeholder)", so the mesh's name is the piece's).
 */
function rigidPart(object: Object3D, mesh: Mesh, bone: Bone, bones: readonly Bone[]): RigidPart {
  const inverse = object.matrixWorld.clone().invert();
  const geometry = mesh.geometry.clone();
  geometry.applyMatrix4(mesh.matrixWorld.clone().premultiply(inverse));
  const count = vertexCount(geometry);
  const boneIndex = bones.indexOf(bone);
  const indices = new Uint16Array(count * 4);
  const weights = new Float32Array(count * 4);
  for (let i = 0; i < count; i++) {
    indices[i * 4] = boneIndex;
    weights[i * 4] = 1;
  }
  geometry.setAttribute('skinIndex', new Uint16BufferAttribute(indices, 4));
  geometry.setAttribute('skinWeight', new Float32BufferAttribute(weights, 4));
  const placeholder = new Object3D();
  // Not the mesh's own name: clip tracks that name the mesh (its morph weights: a robot's face) must
  // find the skinned piece that now draws it, not the empty node left where it hung.
  placeholder.name = mesh.name ? `${mesh.name} (placeholder)` : '';
  placeholder.position.copy(mesh.position);
  placeholder.quaternion.copy(mesh.quaternion);
  placeholder.scale.copy(mesh.scale);
  const parent = mesh.parent!;
  parent.add(placeholder);
  for (const child of [...mesh.children]) placeholder.add(child);
  parent.remove(mesh);
  return { source: mesh, geometry, bone };
}

/**
 * Adds the rigid parts to the model as skinned pieces, merging parts that share a material and an
 * attribute layout into one piece (a robot of a dozen parts in one material is one draw call in a
 * crowd, not a dozen). Parts with morph targets or several materials stay on their own. Returns
 * the number of pieces added.
 */
function skinRigidParts(object: Object3D, parts: readonly RigidPart[], bones: readonly Bone[]): number {
  if (parts.length === 0) return 0;
  const groups = new Map<string, RigidPart[]>();
  for (const part of parts) {
    const { geometry, source } = part;
    const alone = Array.isArray(source.material) || Object.keys(geometry.morphAttributes).length > 0;
    const layout = Object.entries(geometry.attributes)
      .map(([name, a]) => `${name}:${a.itemSize}:${(a.array as { constructor: { name: string } }).constructor.name}:${a.normalized}`)
      .sort();
    const key = alone
      ? `alone:${source.uuid}`
      : `${(source.material as Material).uuid}|${geometry.index ? 'indexed' : 'plain'}|${layout.join(',')}`;
    groups.set(key, [...(groups.get(key) ?? []), part]);
  }
  const skeleton = new Skeleton([...bones]);
  let pieces = 0;
  const addPiece = (geometry: BufferGeometry, group: readonly RigidPart[]): void => {
    const first = group[0]!.source;
    const skinned = new SkinnedMesh(geometry, first.material);
    skinned.name =
      group.length === 1
        ? first.name || `${group[0]!.bone.name}_part`
        : `rigid parts (${group.map((p) => p.source.name || p.bone.name).join(', ')})`;
    skinned.castShadow = first.castShadow;
    skinned.receiveShadow = first.receiveShadow;
    if (group.length === 1) {
      skinned.morphTargetDictionary = first.morphTargetDictionary;
      skinned.morphTargetInfluences = first.morphTargetInfluences;
    }
    skinned.userData = { rigidBones: group.map((p) => p.bone.name) };
    object.add(skinned);
    skinned.updateMatrixWorld(true);
    skinned.bind(skeleton, skinned.matrixWorld);
    pieces++;
  };
  for (const group of groups.values()) {
    const merged =
      group.length > 1
        ? mergeGeometries(
            group.map((p) => p.geometry),
            false,
          )
        : null;
    if (merged) {
      addPiece(merged, group);
      for (const part of group) part.geometry.dispose();
    } else {
      // One part, or parts three cannot merge: each its own piece.
      for (const part of group) addPiece(part.geometry, [part]);
    }
  }
  return pieces;
}

/**
 * A file with no skin and no Bone objects (a bones-only glTF exported as plain nodes): the nodes its
 * clips animate, and the nodes between them, become Bones in place so the retargeter can read them.
 */
function promoteAnimatedNodes(scene: Object3D, clips: readonly AnimationClip[]): Bone[] {
  const animated = new Set<Object3D>();
  for (const clip of clips) {
    for (const track of clip.tracks) {
      const parsed = PropertyBinding.parseTrackName(track.name);
      const node = PropertyBinding.findNode(scene, parsed.nodeName) as Object3D | undefined;
      if (node && !(node as Mesh).isMesh) animated.add(node);
    }
  }
  if (animated.size < 2) return [];
  // Animated nodes are bones, and so is every node between an animated node and its nearest animated ancestor.
  const chosen = new Set<Object3D>(animated);
  for (const node of animated) {
    const path: Object3D[] = [];
    for (let p = node.parent; p && p !== scene; p = p.parent) {
      if (animated.has(p)) {
        for (const between of path) chosen.add(between);
        break;
      }
      path.push(p);
    }
  }
  const replaced = new Map<Object3D, Bone>();
  const ordered = [...chosen].sort((a, b) => depthOf(a) - depthOf(b));
  for (const node of ordered) {
    const bone = new Bone();
    bone.name = node.name;
    bone.userData = node.userData;
    bone.position.copy(node.position);
    bone.quaternion.copy(node.quaternion);
    bone.scale.copy(node.scale);
    const parent = node.parent!;
    parent.add(bone);
    for (const child of [...node.children]) bone.add(child);
    parent.remove(node);
    replaced.set(node, bone);
  }
  scene.updateMatrixWorld(true);
  return ordered.map((node) => replaced.get(node)!);
}

function depthOf(node: Object3D): number {
  let depth = 0;
  for (let p = node.parent; p; p = p.parent) depth++;
  return depth;
}

/**
 * An FBX file's node transforms are the scene as it was saved (Blender writes the current frame of
 * whatever action was active), while its BindPose holds the pose the mesh was skinned in. The bind
 * pose is the rest pose a retargeter, a crowd and a height measurement need, so every skinned bone
 * is put back into it (bones outside every skin keep their place under their parent). The clips
 * animate every channel, so they play as authored.
 */
function restoreBindPose(scene: Object3D): void {
  scene.updateMatrixWorld(true);
  const bindWorld = new Map<Bone, Matrix4>();
  scene.traverse((node) => {
    const mesh = node as SkinnedMesh;
    if (!mesh.isSkinnedMesh) return;
    mesh.skeleton.bones.forEach((bone, i) => {
      const inverse = mesh.skeleton.boneInverses[i];
      if (bone && inverse && !bindWorld.has(bone)) bindWorld.set(bone, inverse.clone().invert());
    });
  });
  if (bindWorld.size === 0) return;
  const parentInverse = new Matrix4();
  const local = new Matrix4();
  // Parents first, so each bone's local transform is taken against its parent's bind pose.
  for (const bone of [...bindWorld.keys()].sort((a, b) => depthOf(a) - depthOf(b))) {
    bone.parent!.updateWorldMatrix(true, false);
    parentInverse.copy(bone.parent!.matrixWorld).invert();
    local.multiplyMatrices(parentInverse, bindWorld.get(bone)!);
    local.decompose(bone.position, bone.quaternion, bone.scale);
    bone.updateMatrixWorld(true);
  }
  // A bind matrix with shear (exporters leave a little) has no exact position/rotation/scale: the
  // skins are rebound to the bones' rest pose as decomposed, so rest pose and bind pose agree exactly.
  // A skin bound in another pose (a second mesh skinned later) keeps its own bind matrices.
  const bind = new Matrix4();
  scene.traverse((node) => {
    const mesh = node as SkinnedMesh;
    if (!mesh.isSkinnedMesh) return;
    mesh.skeleton.bones.forEach((bone, i) => {
      if (!bone || !bindWorld.has(bone)) return;
      bind.copy(mesh.skeleton.boneInverses[i]!).invert();
      const size = Math.max(1, ...bind.elements.map(Math.abs));
      if (bind.elements.every((v, k) => Math.abs(v - bone.matrixWorld.elements[k]!) < 1e-3 * size))
        mesh.skeleton.boneInverses[i]!.copy(bone.matrixWorld).invert();
    });
  });
}

/**
 * The tracks of `clip` that would bind to nothing under `root` (their node is not there, or it lacks
 * the property: morph weights on a node without morph targets). three.js's mixer logs an error for
 * each such track every time its clip plays; callers drop them and say so.
 */
export function unboundTracks(root: Object3D, clip: AnimationClip): string[] {
  const out: string[] = [];
  for (const track of clip.tracks) {
    let parsed;
    try {
      parsed = PropertyBinding.parseTrackName(track.name);
    } catch {
      out.push(track.name);
      continue;
    }
    const node = PropertyBinding.findNode(root, parsed.nodeName) as (Object3D & { morphTargetInfluences?: number[] }) | null | undefined;
    if (!node) out.push(track.name);
    else if (parsed.propertyName === 'morphTargetInfluences' && !node.morphTargetInfluences?.length) out.push(track.name);
    else if (parsed.propertyName !== 'morphTargetInfluences' && !(parsed.propertyName in node)) out.push(track.name);
  }
  return out;
}

/**
 * three.js binds a track to the mixer's root before it searches below it, so a wrapper named like a
 * node the clips animate (Zombie.fbx holding Blender's armature "Zombie") would take that node's
 * transform (the armature's ×107 scale, in metres) whenever the file's own clips play. Such a
 * wrapper is named after the whole file name instead.
 */
function keepTracksOffTheWrapper(rig: LoadedRig, source: string): void {
  const animated = new Set<string>();
  for (const clip of rig.clips)
    for (const track of clip.tracks) {
      try {
        animated.add(PropertyBinding.parseTrackName(track.name).nodeName);
      } catch {
        // A track three cannot parse binds to nothing.
      }
    }
  if (!animated.has(rig.object.name)) return;
  const file = decodeURIComponent(source.split(/[?#]/)[0]!.split(/[\\/]/).pop() ?? source);
  rig.object.name = animated.has(file) ? `${file} (file)` : file;
}

/**
 * three's ASCII FBX parser reads nesting from exact tab indentation as well as the braces, so a file
 * whose exporter indents a closing brace one tab too deep (Kenney's kits) loses its structure: every
 * line of an ASCII FBX is re-indented by brace depth (lines continuing a long array stay as they are).
 * Binary FBX passes through.
 */
function indentAsciiFbx(data: ArrayBuffer): ArrayBuffer {
  if (
    sniffFormat(data) !== 'fbx' ||
    new TextDecoder().decode(new Uint8Array(data, 0, Math.min(18, data.byteLength))) === 'Kaydara FBX Binary'
  )
    return data;
  let depth = 0;
  let continued = false;
  const lines = new TextDecoder().decode(data).split(/\r?\n/);
  const out = lines.map((line) => {
    const text = line.trim();
    if (text === '' || text.startsWith(';')) return line;
    const closes = text.startsWith('}');
    if (closes) depth = Math.max(0, depth - 1);
    const indented = continued && !closes ? text : '\t'.repeat(depth) + text;
    if (text.endsWith('{')) depth++;
    continued = text.endsWith(',') && !closes;
    return indented;
  });
  return new TextEncoder().encode(out.join('\n')).buffer as ArrayBuffer;
}
