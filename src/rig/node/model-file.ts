/**
 * Model files in Node, read and written with glTF Transform (a library made for glTF files in Node)
 * instead of three's browser loaders under polyfills: GLB, .gltf with external .bin files and
 * data-URI buffers, embedded textures, meshopt compression. three's loaders still build the scene
 * the rest of Cairn works on, but they get self-contained GLB bytes without images (three's
 * GLTFLoader decodes images through browser APIs Node lacks); the glTF Transform document keeps
 * the textures, and {@link writeModelGlb} writes new clips into it, so outputs keep them intact.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { resolveObjectURL } from 'node:buffer';
import { dirname, resolve } from 'node:path';
import { Document, Logger, NodeIO, type Accessor, type Node as GltfNode, type Texture as GltfTexture } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import {
  AnimationClip,
  InterpolateDiscrete,
  Loader,
  LoadingManager,
  Matrix4,
  PropertyBinding,
  Texture,
  type Material,
  type Mesh,
  type Object3D,
  type Skeleton,
  type SkinnedMesh,
} from 'three';
import { clone as cloneSkinned } from 'three/addons/utils/SkeletonUtils.js';
import { GLTFExporter } from 'three/addons/exporters/GLTFExporter.js';
import { describeLoss, RigLoadError } from '../import/errors.ts';
import { inspectModelBytes, parseRig, rigFormatOf, type ImportOptions, type LoadedRig } from '../import/import-model.ts';
import { installFileReaderPolyfill } from './file-reader-polyfill.ts';

/** A model read from disk: the three.js import, and for glTF files the document that keeps everything. */
export interface ModelFile extends LoadedRig {
  /** The path as given. */
  path: string;
  /** The glTF Transform document (glTF/GLB only): textures, materials and extensions as in the file. */
  document: Document | null;
}

let io: Promise<NodeIO> | null = null;

/** One NodeIO for the process, with every extension glTF Transform knows and the meshopt decoder. */
function gltfIO(): Promise<NodeIO> {
  io ??= MeshoptDecoder.ready.then(() =>
    new NodeIO()
      .registerExtensions(ALL_EXTENSIONS)
      .registerDependencies({ 'meshopt.decoder': MeshoptDecoder })
      // An image that cannot be read becomes a texture without an image ({@link readGltfDocument} says
      // so, in the import layer's words), not a refusal of the whole model; a missing buffer still fails.
      .setStrictResources(false)
      .setLogger(new Logger(Logger.Verbosity.ERROR)),
  );
  return io;
}

/** A glTF document read from disk, and the textures it names that could not be read. */
export interface GltfFile {
  document: Document;
  /** Image files the model names that are missing or unreadable: the document's textures without an image. */
  missingTextures: string[];
}

/**
 * Reads a .glb/.gltf into a glTF Transform document (external and data-URI buffers resolved).
 * Throws {@link RigLoadError} naming the file and the cause: no such file, a web page saved under
 * the name, a file cut short, a missing buffer. A missing texture is no refusal: the document keeps
 * the texture without an image, listed in {@link GltfFile.missingTextures}.
 */
export async function readGltfFile(path: string): Promise<GltfFile> {
  const gltf = await gltfIO();
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw RigLoadError.because('not-found', path);
    throw RigLoadError.because('unreadable', path, { what: (error as Error).message });
  }
  inspectModelBytes(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, path);
  let document: Document;
  try {
    document = await gltf.read(path);
  } catch (error) {
    const message = (error as Error).message;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES')
      throw RigLoadError.because('missing-resource', path, { file: (error as NodeJS.ErrnoException).path ?? message });
    if (/draco/i.test(message))
      throw RigLoadError.because('not-a-model', path, {
        format: 'glTF/GLB',
        what: 'it uses Draco compression, which the command-line tools cannot decode; export without Draco (meshopt works)',
      });
    if (/Invalid typed array length|out of bounds|Offset is outside/i.test(message))
      throw RigLoadError.because('truncated', path, {
        what: 'a buffer ends before the data it should hold (the file, or its .bin, is cut short)',
      });
    throw RigLoadError.because('not-a-model', path, { format: 'glTF/GLB', what: `its parser says: ${message}` });
  }
  const missingTextures: string[] = [];
  for (const texture of document.getRoot().listTextures()) {
    if (texture.getImage()) continue;
    missingTextures.push(texture.getURI() || texture.getName() || 'an embedded image');
    // Nothing to carry: the model is drawn, and written, without it.
    texture.dispose();
  }
  return { document, missingTextures };
}

/** {@link readGltfFile}'s document alone (commands that only need the geometry). */
export async function readGltfDocument(path: string): Promise<Document> {
  return (await readGltfFile(path)).document;
}

/**
 * Self-contained GLB bytes for three's GLTFLoader in Node: buffers embedded, images left out (the
 * returned bytes are for skeletons, clips and geometry; the document still has the textures).
 */
export async function gltfBytesForThree(document: Document): Promise<ArrayBuffer> {
  const gltf = await gltfIO();
  const copy = await gltf.readBinary(await gltf.writeBinary(document));
  for (const texture of copy.getRoot().listTextures()) texture.dispose();
  const bytes = await gltf.writeBinary(copy);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/**
 * Reads and imports any model file Cairn reads (.glb, .gltf, .fbx, .bvh). Throws
 * {@link RigLoadError} naming the file and the cause (no such file, not a model, no skeleton, …).
 */
export async function readModelFile(path: string, options: ImportOptions = {}): Promise<ModelFile> {
  const format = rigFormatOf(path);
  if (format === 'gltf') {
    const { document, missingTextures } = await readGltfFile(path);
    const loaded = await parseRig(await gltfBytesForThree(document), path.replace(/\.gltf$/i, '.glb'), options);
    for (const file of missingTextures) {
      const loss = { kind: 'missing-texture', file } as const;
      loaded.report.losses.push(loss);
      loaded.report.notes.push(describeLoss(loss));
    }
    return { ...loaded, path, document };
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw code === 'ENOENT'
      ? RigLoadError.because('not-found', path)
      : RigLoadError.because('unreadable', path, { what: (error as Error).message });
  }
  const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  if (format !== 'fbx') return { ...(await parseRig(data, path, options)), path, document: null };
  const manager = options.manager ?? new LoadingManager();
  manager.addHandler(IMAGE_FILE, new UnreadTextureLoader());
  const loaded = await parseRig(data, path, { ...options, manager });
  const textures = await takeUnreadTextures(loaded.object, dirname(path));
  loaded.report.notes.push(...textures.notes);
  for (const file of textures.missing) loaded.report.losses.push({ kind: 'missing-texture', file });
  return { ...loaded, path, document: null };
}

/** The image files an FBX names as textures (three's FBXLoader asks a manager's handler first). */
const IMAGE_FILE = /\.(png|jpe?g|gif|bmp|webp|tga|tiff?|psd|dds|exr|hdr|ktx2)$/i;

/**
 * Stands in for three's TextureLoader while an FBX is parsed in Node: three decodes images through
 * the DOM, which Node lacks, so one texture (external or embedded) would fail the whole import.
 * Each texture comes back empty, marked with the file it names, for {@link takeUnreadTextures}.
 */
class UnreadTextureLoader extends Loader<Texture> {
  override load(url: string): Texture {
    const texture = new Texture();
    texture.userData = { unreadTexture: url };
    return texture;
  }
}

/** An FBX texture's image file, kept as bytes for the GLB a command writes. */
interface TextureFile {
  /** The material slot it filled (map, normalMap, emissiveMap, aoMap). */
  slot: string;
  name: string;
  image: Uint8Array;
  mimeType: 'image/png' | 'image/jpeg';
}

/** Image files of FBX materials, by material: {@link exportGlb} writes them into the GLB. */
const textureFiles = new WeakMap<Material, TextureFile[]>();

/** The glTF material slots a three.js texture slot becomes. */
const GLTF_SLOTS = ['map', 'normalMap', 'emissiveMap', 'aoMap'] as const;

/**
 * Takes the unread textures off the model's materials (three's renderer needs decoded images),
 * keeps each image file's bytes for written GLBs, and says for each what happened: carried as it
 * is, missing, or in a format glTF cannot carry.
 */
async function takeUnreadTextures(object: Object3D, directory: string): Promise<{ notes: string[]; missing: string[] }> {
  const notes: string[] = [];
  const missing: string[] = [];
  const materials = new Set<Material>();
  object.traverse((node) => {
    if ((node as Mesh).isMesh) for (const material of [(node as Mesh).material].flat()) materials.add(material);
  });
  for (const material of materials) {
    // Every texture slot (map, normalMap, emissiveMap, …): whichever the FBX material filled.
    for (const slot of Object.keys(material)) {
      const value: unknown = Reflect.get(material, slot);
      const url = value instanceof Texture ? (value.userData as { unreadTexture?: string }).unreadTexture : undefined;
      if (url === undefined) continue;
      Reflect.set(material, slot, null);
      material.needsUpdate = true;
      const embedded = /^(blob|data):/.test(url);
      const label = `${embedded ? 'an embedded texture' : `texture "${url}"`} (${slot} of material "${material.name}")`;
      const file = resolve(directory, url);
      if (!embedded && !existsSync(file)) {
        missing.push(url);
        notes.push(describeLoss({ kind: 'missing-texture', file: url }));
        continue;
      }
      const image = embedded ? await embeddedBytes(url) : new Uint8Array(await readFile(file));
      const mimeType = image[0] === 0x89 && image[1] === 0x50 ? 'image/png' : image[0] === 0xff && image[1] === 0xd8 ? 'image/jpeg' : null;
      if (!mimeType || !(GLTF_SLOTS as readonly string[]).includes(slot)) {
        notes.push(
          `${label} is ${mimeType ? `a ${slot}, which glTF has no slot for` : 'neither PNG nor JPEG'}: written GLBs go without it`,
        );
        continue;
      }
      textureFiles.set(material, [
        ...(textureFiles.get(material) ?? []),
        { slot, name: embedded ? `${material.name}_${slot}` : url, image, mimeType },
      ]);
      notes.push(`${label} is carried into written GLBs as it is (the command-line tools do not decode images)`);
    }
  }
  return { notes, missing };
}

/** The bytes behind an embedded texture's blob: or data: URL (FBXLoader makes one per embedded image). */
async function embeddedBytes(url: string): Promise<Uint8Array> {
  if (url.startsWith('data:')) return new Uint8Array(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64'));
  const blob = resolveObjectURL(url);
  if (!blob) return new Uint8Array(0);
  const bytes = new Uint8Array(await blob.arrayBuffer());
  URL.revokeObjectURL(url);
  return bytes;
}

/** What {@link writeModelGlb} writes: a model read from a file (keeps its document) or any three object. */
export interface ModelToWrite {
  object: Object3D;
  document?: Document | null;
}

/**
 * Writes a model with clips as a GLB and returns its size in bytes. A model read from a glTF file is
 * written from its document (textures, materials and extensions as they were; the file's own clips
 * replaced by `clips`); anything else goes through three's GLTFExporter.
 */
export async function writeModelGlb(path: string, model: ModelToWrite, clips: readonly AnimationClip[]): Promise<number> {
  const bytes = model.document ? await glbFromDocument(model.document, clips) : await exportGlb(model.object, clips);
  await writeFile(path, bytes);
  return bytes.byteLength;
}

/**
 * Exports a three.js object with clips as GLB bytes (Node needs the FileReader polyfill; installed
 * here). The object itself is left as it is.
 */
export async function exportGlb(object: Object3D, clips: readonly AnimationClip[]): Promise<Uint8Array> {
  installFileReaderPolyfill();
  object.updateMatrixWorld(true);
  const exported = skinsAtTheRoot(object);
  const bytes = new Uint8Array((await new GLTFExporter().parseAsync(exported, { binary: true, animations: [...clips] })) as ArrayBuffer);
  return withTextureFiles(object, bytes);
}

/**
 * Writes the image files kept from an FBX's materials into GLB bytes three's exporter wrote without
 * them (it cannot encode images in Node), matching materials by name.
 */
async function withTextureFiles(object: Object3D, bytes: Uint8Array): Promise<Uint8Array> {
  const byName = new Map<string, TextureFile[]>();
  object.traverse((node) => {
    if (!(node as Mesh).isMesh) return;
    for (const material of [(node as Mesh).material].flat()) {
      const files = textureFiles.get(material);
      if (files) byName.set(material.name, files);
    }
  });
  if (byName.size === 0) return bytes;
  const gltf = await gltfIO();
  const document = await gltf.readBinary(bytes);
  const images = new Map<TextureFile, GltfTexture>();
  for (const material of document.getRoot().listMaterials()) {
    for (const file of byName.get(material.getName()) ?? []) {
      let texture = images.get(file);
      if (!texture) {
        texture = document.createTexture(file.name).setImage(file.image).setMimeType(file.mimeType);
        images.set(file, texture);
      }
      if (file.slot === 'map') material.setBaseColorTexture(texture);
      else if (file.slot === 'normalMap') material.setNormalTexture(texture);
      else if (file.slot === 'emissiveMap') material.setEmissiveTexture(texture).setEmissiveFactor([1, 1, 1]);
      else material.setOcclusionTexture(texture);
    }
  }
  return gltf.writeBinary(document);
}

/**
 * glTF ignores a skinned mesh's own node transform, while three.js applies it again when it reads
 * the file back, so a skin that hangs under a scaled or turned node (every FBX import: the file's
 * armature node and the unit scale sit above it) comes back at the wrong size. Such skins are
 * exported from a copy in which their geometry is baked into bind space and they hang at the root
 * with no transform; a model whose skins already sit untransformed is exported as it is.
 */
function skinsAtTheRoot(object: Object3D): Object3D {
  const rootInverse = object.matrixWorld.clone().invert();
  const offRoot = (node: Object3D): boolean => {
    const mesh = node as SkinnedMesh;
    if (!mesh.isSkinnedMesh) return false;
    const relative = mesh.matrixWorld.clone().premultiply(rootInverse);
    return !relative.equals(IDENTITY) || !mesh.bindMatrix.equals(IDENTITY);
  };
  let needed = false;
  object.traverse((node) => {
    needed ||= offRoot(node);
  });
  if (!needed) return object;
  const copy = cloneSkinned(object);
  copy.updateMatrixWorld(true);
  const meshes: SkinnedMesh[] = [];
  copy.traverse((node) => {
    if (offRoot(node)) meshes.push(node as SkinnedMesh);
  });
  const copyInverse = copy.matrixWorld.clone().invert();
  const rebound = new Set<Skeleton>();
  for (const mesh of meshes) {
    // The bind matrix carries bind space into world space; the root's frame is what the file keeps.
    mesh.geometry = mesh.geometry.clone().applyMatrix4(mesh.bindMatrix.clone().premultiply(copyInverse));
    // A cloned skeleton shares its inverse bind matrices with the original: new ones, once per skeleton.
    if (!rebound.has(mesh.skeleton)) {
      mesh.skeleton.boneInverses = mesh.skeleton.boneInverses.map((inverse) => inverse.clone().multiply(copy.matrixWorld));
      rebound.add(mesh.skeleton);
    }
    mesh.removeFromParent();
    mesh.position.set(0, 0, 0);
    mesh.quaternion.identity();
    mesh.scale.set(1, 1, 1);
    copy.add(mesh);
    mesh.updateMatrixWorld(true);
    mesh.bindMatrix.copy(mesh.matrixWorld);
    mesh.bindMatrixInverse.copy(mesh.matrixWorld).invert();
  }
  return copy;
}

const IDENTITY = new Matrix4();

const PATHS: Record<string, 'translation' | 'rotation' | 'scale'> = { position: 'translation', quaternion: 'rotation', scale: 'scale' };

/** The document with its animations replaced by `clips` (tracks find nodes by three's sanitized names). */
async function glbFromDocument(source: Document, clips: readonly AnimationClip[]): Promise<Uint8Array> {
  const gltf = await gltfIO();
  const document = await gltf.readBinary(await gltf.writeBinary(source));
  const root = document.getRoot();
  for (const animation of root.listAnimations()) animation.dispose();
  const buffer = root.listBuffers()[0] ?? document.createBuffer();
  const nodes = new Map<string, GltfNode>();
  for (const node of root.listNodes()) {
    const name = PropertyBinding.sanitizeNodeName(node.getName());
    if (!nodes.has(name)) nodes.set(name, node);
  }
  for (const clip of clips) {
    const animation = document.createAnimation(clip.name);
    for (const track of clip.tracks) {
      const parsed = PropertyBinding.parseTrackName(track.name);
      const node = nodes.get(parsed.nodeName) ?? nodes.get(PropertyBinding.sanitizeNodeName(parsed.nodeName));
      const path = PATHS[parsed.propertyName];
      if (!node || !path) continue;
      const input: Accessor = document.createAccessor().setType('SCALAR').setArray(new Float32Array(track.times)).setBuffer(buffer);
      const output: Accessor = document
        .createAccessor()
        .setType(path === 'rotation' ? 'VEC4' : 'VEC3')
        .setArray(new Float32Array(track.values))
        .setBuffer(buffer);
      const sampler = document
        .createAnimationSampler()
        .setInput(input)
        .setOutput(output)
        .setInterpolation(track.getInterpolation() === InterpolateDiscrete ? 'STEP' : 'LINEAR');
      animation
        .addSampler(sampler)
        .addChannel(document.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler));
    }
  }
  return gltf.writeBinary(document);
}
