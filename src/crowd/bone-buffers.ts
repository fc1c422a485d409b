/**
 * GPU storage for bone matrices, in the two forms the devices need (see bone-path.ts):
 * - 'storage': a read-only storage buffer of vec4 rows (WebGPU);
 * - 'texture': an RGBA32F texture read with textureLoad (WebGL2, WebGPU compatibility mode).
 * Both hold the same bytes in the same order — per row (an avatar slot, or a baked frame), every
 * bone's three affine rows — and give the shader one `fetch(row, texel)` to read them. Live bones
 * upload only the slots written this frame: buffer update ranges on 'storage', the texture layers
 * holding them on 'texture' (three r187 uploads array-texture layers selectively, not rectangles).
 */
import {
  DataArrayTexture,
  DataTexture,
  DataUtils,
  FloatType,
  HalfFloatType,
  NearestFilter,
  RGBAFormat,
  StorageBufferAttribute,
} from 'three/webgpu';
import type { BakePrecision } from './bake.ts';
import { int, ivec2, storage, textureLoad } from 'three/tsl';
import type { BonePath } from './bone-path.ts';
import { FLOATS_PER_BONE } from './virtual-skeleton.ts';

/** A TSL node (kept loose: three's TSL typings do not compose well across helpers). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TslNode = any;

/** Reads texel `texel` (bone × 3 + affine row) of row `row`; both are TSL int nodes. */
export type BoneFetch = (row: TslNode, texel: TslNode) => TslNode;

const TEXELS_PER_BONE = FLOATS_PER_BONE / 4;

/** Avatar slots per texture layer on the texture path: the upload granularity. */
export const LIVE_ROWS_PER_LAYER = 8;

/**
 * The live bone buffer: `capacity` slots × bones × 3 texels. It wraps an array it does not own
 * (the live slot table's channel) and is rebuilt when that table reallocates.
 */
export class LiveBoneBuffer {
  readonly path: BonePath;
  readonly boneCount: number;
  private array: Float32Array;
  private attribute: StorageBufferAttribute | null = null;
  private texture: DataArrayTexture | null = null;
  /** A new GPU resource uploads everything once, whatever changed. */
  private fresh = true;
  /** TSL accessor; replaced (with the GPU resource) on {@link wrap}. */
  fetch!: BoneFetch;

  constructor(path: BonePath, boneCount: number, array: Float32Array, capacity: number) {
    this.path = path;
    this.boneCount = boneCount;
    this.array = array;
    this.wrap(array, capacity);
  }

  /** Floats per avatar slot. */
  get slotFloats(): number {
    return this.boneCount * FLOATS_PER_BONE;
  }

  /** Points the buffer at a (re)allocated array; the shader nodes must be rebuilt afterwards. */
  wrap(array: Float32Array, capacity: number): void {
    const texelsPerRow = this.boneCount * TEXELS_PER_BONE;
    if (array.length !== capacity * texelsPerRow * 4)
      throw new RangeError(`LiveBoneBuffer: array of ${array.length} floats does not hold ${capacity} slots of ${this.boneCount} bones`);
    this.dispose();
    this.array = array;
    this.fresh = true;
    if (this.path === 'storage') {
      const attribute = new StorageBufferAttribute(array, 4);
      attribute.name = 'crowdLiveBones';
      this.attribute = attribute;
      const node = storage(attribute, 'vec4', attribute.count).toReadOnly();
      this.fetch = (row, texel) => node.element(int(row).mul(texelsPerRow).add(texel));
    } else {
      if (capacity % LIVE_ROWS_PER_LAYER !== 0)
        throw new RangeError(`LiveBoneBuffer: capacity ${capacity} is not a multiple of ${LIVE_ROWS_PER_LAYER}`);
      const texture = new DataArrayTexture(array, texelsPerRow, LIVE_ROWS_PER_LAYER, capacity / LIVE_ROWS_PER_LAYER);
      configureDataTexture(texture);
      texture.name = 'crowdLiveBones';
      texture.needsUpdate = true;
      this.texture = texture;
      this.fetch = (row, texel) => {
        const slot = int(row);
        return textureLoad(texture, ivec2(texel, slot.mod(LIVE_ROWS_PER_LAYER))).depth(slot.div(LIVE_ROWS_PER_LAYER));
      };
    }
  }

  /**
   * Schedules the upload of the given slots (sorted ascending, all below the occupied count);
   * returns the bytes that will move. Adjacent slots merge into one range. The storage path
   * sends exactly those slots; the texture path sends the layers that contain them (three r187
   * updates array textures per layer, not per texel rectangle).
   */
  upload(slots: ArrayLike<number>, count: number): number {
    const floatsPerSlot = this.slotFloats;
    if (this.fresh) {
      // First upload after (re)allocation: the whole buffer, so no slot is left stale.
      this.fresh = false;
      if (this.attribute) this.attribute.clearUpdateRanges();
      else this.texture!.clearLayerUpdates();
      (this.attribute ?? this.texture!).needsUpdate = true;
      return this.array.byteLength;
    }
    if (count <= 0 || slots.length === 0) return 0;
    if (this.attribute) {
      this.attribute.clearUpdateRanges();
      let bytes = 0;
      let start = slots[0]!;
      let end = start + 1;
      const flush = (): void => {
        this.attribute!.addUpdateRange(start * floatsPerSlot, (end - start) * floatsPerSlot);
        bytes += (end - start) * floatsPerSlot * 4;
      };
      for (let i = 1; i < slots.length; i++) {
        const slot = slots[i]!;
        if (slot === end) end++;
        else {
          flush();
          start = slot;
          end = slot + 1;
        }
      }
      flush();
      this.attribute.needsUpdate = true;
      return bytes;
    }
    const texture = this.texture!;
    let layers = 0;
    let lastLayer = -1;
    for (let i = 0; i < slots.length; i++) {
      const layer = Math.floor(slots[i]! / LIVE_ROWS_PER_LAYER);
      if (layer === lastLayer) continue;
      texture.addLayerUpdate(layer);
      lastLayer = layer;
      layers++;
    }
    texture.needsUpdate = true;
    return layers * LIVE_ROWS_PER_LAYER * floatsPerSlot * 4;
  }

  /** Bytes held on the GPU. */
  get bytes(): number {
    return this.array.byteLength;
  }

  dispose(): void {
    this.texture?.dispose();
    this.texture = null;
    this.attribute = null;
  }
}

/**
 * The baked-pose table: written once, read by every GPU-animated avatar. Half precision is always
 * a texture (RGBA16F: a storage buffer of 16-bit floats needs the optional shader-f16 feature);
 * full precision follows the bone path.
 */
export class BakedBoneBuffer {
  readonly path: BonePath;
  readonly precision: BakePrecision;
  readonly fetch: BoneFetch;
  readonly bytes: number;
  private readonly texture: DataTexture | null = null;

  constructor(path: BonePath, boneCount: number, data: Float32Array, rows: number, precision: BakePrecision = 'float') {
    this.path = path;
    this.precision = precision;
    const texelsPerRow = boneCount * TEXELS_PER_BONE;
    if (data.length !== rows * texelsPerRow * 4)
      throw new RangeError(`BakedBoneBuffer: ${data.length} floats is not ${rows} rows of ${boneCount} bones`);
    if (path === 'storage' && precision === 'float') {
      this.bytes = data.byteLength;
      const attribute = new StorageBufferAttribute(data, 4);
      attribute.name = 'crowdBakedBones';
      const node = storage(attribute, 'vec4', attribute.count).toReadOnly();
      this.fetch = (row, texel) => node.element(int(row).mul(texelsPerRow).add(texel));
    } else {
      let texture: DataTexture;
      if (precision === 'half') {
        const half = new Uint16Array(data.length);
        for (let i = 0; i < data.length; i++) half[i] = DataUtils.toHalfFloat(data[i]!);
        texture = new DataTexture(half, texelsPerRow, rows);
        configureDataTexture(texture);
        texture.type = HalfFloatType;
        this.bytes = half.byteLength;
      } else {
        texture = new DataTexture(data, texelsPerRow, rows);
        configureDataTexture(texture);
        this.bytes = data.byteLength;
      }
      texture.name = 'crowdBakedBones';
      texture.needsUpdate = true;
      this.texture = texture;
      this.fetch = (row, texel) => textureLoad(texture, ivec2(texel, int(row)));
    }
  }

  dispose(): void {
    this.texture?.dispose();
  }
}

function configureDataTexture(texture: DataTexture | DataArrayTexture): void {
  texture.format = RGBAFormat;
  texture.type = FloatType;
  texture.magFilter = NearestFilter;
  texture.minFilter = NearestFilter;
  texture.generateMipmaps = false;
  texture.flipY = false;
}

/**
 * What a GPU crossfade reads besides the baked matrices: every baked frame's local transforms
 * (two texels per chain node: rotation, then translation and scale; half floats by default) and
 * the rig — inverse bind matrices (row 0, three texels per bone) and, in row 1, each chain node's
 * parent (x) and each bone's chain node (y). Always textures: tiny, written once, read with
 * textureLoad on both backends.
 */
export class BakedLocalTables {
  readonly bytes: number;
  /** Texel `k` (0: rotation, 1: translation + scale) of chain node `node` in baked row `row`. */
  readonly local: (row: TslNode, node: TslNode, k: number) => TslNode;
  /** Row `r` of bone `bone`'s inverse bind matrix (vec4). */
  readonly inverseBind: (bone: TslNode, r: number) => TslNode;
  /** vec4(parent of chain node i, chain node of bone i, 0, 0). */
  readonly links: (i: TslNode) => TslNode;
  private readonly textures: DataTexture[];

  constructor(baked: {
    locals: Float32Array;
    nodes: number;
    plan: { rows: number };
    parents: Int32Array;
    boneNodes: Int32Array;
    inverseBinds: Float32Array;
    precision: BakePrecision;
  }) {
    const { nodes } = baked;
    const rows = baked.plan.rows;
    let localTexture: DataTexture;
    if (baked.precision === 'half') {
      const half = new Uint16Array(baked.locals.length);
      for (let i = 0; i < half.length; i++) half[i] = DataUtils.toHalfFloat(baked.locals[i]!);
      localTexture = new DataTexture(half, nodes * 2, rows);
      configureDataTexture(localTexture);
      localTexture.type = HalfFloatType;
      this.bytes = half.byteLength;
    } else {
      localTexture = new DataTexture(baked.locals, nodes * 2, rows);
      configureDataTexture(localTexture);
      this.bytes = baked.locals.byteLength;
    }
    localTexture.name = 'crowdBakedLocals';
    localTexture.needsUpdate = true;
    const bones = baked.boneNodes.length;
    const width = Math.max(bones * 3, nodes, bones);
    const rig = new Float32Array(width * 2 * 4);
    rig.set(baked.inverseBinds);
    for (let i = 0; i < width; i++) {
      rig[(width + i) * 4] = i < nodes ? baked.parents[i]! : -1;
      rig[(width + i) * 4 + 1] = i < bones ? baked.boneNodes[i]! : -1;
    }
    const rigTexture = new DataTexture(rig, width, 2);
    configureDataTexture(rigTexture);
    rigTexture.name = 'crowdRig';
    rigTexture.needsUpdate = true;
    this.bytes += rig.byteLength;
    this.textures = [localTexture, rigTexture];
    this.local = (row, node, k) => textureLoad(localTexture, ivec2(int(node).mul(2).add(k), int(row)));
    this.inverseBind = (bone, r) => textureLoad(rigTexture, ivec2(int(bone).mul(3).add(r), int(0)));
    this.links = (i) => textureLoad(rigTexture, ivec2(int(i), int(1)));
  }

  dispose(): void {
    for (const texture of this.textures) texture.dispose();
  }
}
