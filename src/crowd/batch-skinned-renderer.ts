/**
 * BatchSkinnedRenderer draws a whole crowd with one instanced draw per geometry piece of the
 * template (per pass), whatever the crowd's size. All pieces read one live bone buffer (slots
 * filled by ClipSamplers for the few procedurally controlled avatars), one baked-pose table, a
 * clip table and a crowd-clock uniform, and two per-instance record buffers (instance-layout.ts)
 * kept in draw order: records are rewritten only when an avatar moves, changes clip or enters or
 * leaves the drawn range, and only those records upload (merged into a few ranges).
 *
 * Live slots come from a {@link SlotTable}: O(1) add and swap-remove with a back-reference, so the
 * occupied range stays [0, live) and a moved avatar keeps its identity; when full, the table
 * grows by reallocation and the GPU resources are rebuilt around the new arrays (rare: doubling).
 */
import { DynamicDrawUsage, Group, InstancedInterleavedBuffer, Mesh, Vector4, type Material, type NodeMaterial } from 'three/webgpu';
import { uniform, uniformArray } from 'three/tsl';
import { withDefaults } from '../core/options.ts';
import { BakedBoneBuffer, BakedLocalTables, LIVE_ROWS_PER_LAYER, LiveBoneBuffer, type TslNode } from './bone-buffers.ts';
import type { BonePath } from './bone-path.ts';
import type { BakedClips } from './bake.ts';
import { createCrowdMaterial, crowdSkinningNode, paletteColorNode, variantColorNode } from './crowd-material.ts';
import { ANIM_FLOATS, mergeRanges, POSE_FLOATS } from './instance-layout.ts';
import { SlotTable, type SlotRef } from './slot-table.ts';
import type { CrowdTemplate } from './template.ts';
import { REGION_TOLERANCE, type VariantTable } from './variant-table.ts';
import { FLOATS_PER_BONE } from './virtual-skeleton.ts';

export interface BatchSkinnedRendererOptions {
  template: CrowdTemplate;
  baked: BakedClips;
  path: BonePath;
  /** Initial live slots. Default 32 (grows by doubling). */
  liveCapacity?: number;
  /** Most live slots ever (the live budget). Default 256. */
  maxLiveCapacity?: number;
  /** Initial drawn-instance capacity. Default 64 (grows by doubling). */
  instanceCapacity?: number;
  /** Cast shadows from the skinned pose. Default: as the template's pieces do. */
  castShadow?: boolean;
  receiveShadow?: boolean;
  /** Per-avatar colours, 0..1 RGB; entry 0 is "the file's own colours". Default: one entry. */
  palette?: ReadonlyArray<readonly [number, number, number]>;
  /** Which of the file's materials the palette recolours. Default {@link DEFAULT_PALETTE_MATERIALS}. */
  paletteMaterials?: RegExp;
  /** Per-avatar variants (colours by region and build); uploaded when the table changes. Default none. */
  variants?: VariantTable;
}

/** Materials recoloured by the palette unless told otherwise: clothing, by name. */
export const DEFAULT_PALETTE_MATERIALS = /cloth|shirt|top|jacket|dress|outfit|torso/i;

/**
 * Defaults of {@link BatchSkinnedRendererOptions} (the template, bake and path have none; shadows
 * follow the template's pieces and variants are off unless given).
 */
export const BATCH_SKINNED_RENDERER_DEFAULTS: Required<
  Omit<BatchSkinnedRendererOptions, 'template' | 'baked' | 'path' | 'castShadow' | 'receiveShadow' | 'variants'>
> = {
  liveCapacity: 32,
  maxLiveCapacity: 256,
  instanceCapacity: 64,
  palette: [[1, 1, 1]],
  paletteMaterials: DEFAULT_PALETTE_MATERIALS,
};

/** What one frame's commit moved to the GPU. */
export interface CommitResult {
  liveBytes: number;
  /** Pose records (16 B each) and animation records (48 B each) rewritten this frame. */
  poseBytes: number;
  animBytes: number;
}

/** A per-instance buffer with dirty records and range uploads. */
class RecordBuffer {
  buffer: InstancedInterleavedBuffer;
  private dirty: Uint8Array;
  private list: number[] = [];
  private ranges: number[] = [];
  /** A new GPU buffer uploads whole on its first commit. */
  private fresh = true;

  readonly stride: number;

  constructor(stride: number, capacity: number) {
    this.stride = stride;
    this.buffer = RecordBuffer.create(stride, capacity);
    this.dirty = new Uint8Array(capacity);
  }

  static create(stride: number, capacity: number): InstancedInterleavedBuffer {
    const buffer = new InstancedInterleavedBuffer(new Float32Array(capacity * stride), stride, 1);
    buffer.setUsage(DynamicDrawUsage);
    return buffer;
  }

  get array(): Float32Array {
    return this.buffer.array as Float32Array;
  }

  get capacity(): number {
    return this.buffer.count;
  }

  grow(capacity: number, keep: number): void {
    const next = RecordBuffer.create(this.stride, capacity);
    (next.array as Float32Array).set(this.array.subarray(0, keep * this.stride));
    this.buffer = next;
    this.dirty = new Uint8Array(capacity);
    this.list.length = 0;
    this.fresh = true;
  }

  mark(index: number): void {
    if (this.dirty[index]) return;
    this.dirty[index] = 1;
    this.list.push(index);
  }

  /** Schedules the dirty records below `count`; returns the bytes that will move. */
  commit(count: number): number {
    const list = this.list;
    for (const index of list) this.dirty[index] = 0;
    if (this.fresh) {
      list.length = 0;
      if (count === 0) return 0;
      this.fresh = false;
      this.buffer.clearUpdateRanges();
      this.buffer.needsUpdate = true;
      return this.array.byteLength;
    }
    let n = 0;
    for (const index of list) if (index < count) list[n++] = index;
    list.length = n;
    if (n === 0) return 0;
    list.sort((a, b) => a - b);
    mergeRanges(list, n, 4, 16, this.ranges);
    list.length = 0;
    this.buffer.clearUpdateRanges();
    let floats = 0;
    for (let i = 0; i < this.ranges.length; i += 2) {
      const start = this.ranges[i]! * this.stride;
      const length = (this.ranges[i + 1]! - this.ranges[i]!) * this.stride;
      this.buffer.addUpdateRange(start, length);
      floats += length;
    }
    this.buffer.needsUpdate = true;
    return floats * 4;
  }
}

export class BatchSkinnedRenderer<Owner = unknown> {
  /** Add this to the scene: it holds one Mesh per template piece. */
  readonly object = new Group();
  readonly meshes: Mesh[] = [];
  readonly path: BonePath;
  readonly template: CrowdTemplate;
  /** Live slots; `live.channels.bones` is the shared Float32Array ClipSamplers write into. */
  readonly live: SlotTable<Owner>;
  /** Seconds since the crowd's epoch: the only per-frame input of GPU animation. */
  readonly clock: TslNode = uniform(0);
  /** Palette entries (RGB, w unused); entry 0 means "the file's colours". */
  readonly palette: Vector4[];
  private readonly paletteNode: TslNode;
  private readonly paletteMaterials: RegExp;
  private readonly variants: VariantTable | null;
  private readonly variantValues: Vector4[] = [];
  private readonly variantNode: TslNode | null = null;
  private variantVersion = -1;
  private readonly clipTable: TslNode;
  private readonly liveBuffer: LiveBoneBuffer;
  private readonly bakedBuffer: BakedBoneBuffer;
  private readonly localTables: BakedLocalTables;
  private readonly rootScale: number;
  private readonly depth: number;
  private readonly poseRecords: RecordBuffer;
  private readonly animRecords: RecordBuffer;
  private materials: NodeMaterial[][] = [];
  private drawn = 0;
  /** Times the GPU resources were rebuilt after growth. */
  rebuilds = 0;

  constructor(options: BatchSkinnedRendererOptions) {
    const { template, baked, path } = options;
    const resolved = withDefaults(BATCH_SKINNED_RENDERER_DEFAULTS, options);
    this.template = template;
    this.path = path;
    this.object.name = 'crowd';
    const slotFloats = template.boneCount * FLOATS_PER_BONE;
    const step = path === 'texture' ? LIVE_ROWS_PER_LAYER : 1;
    this.live = new SlotTable<Owner>({
      channels: { bones: slotFloats },
      capacity: resolved.liveCapacity,
      capacityStep: step,
      maxCapacity: resolved.maxLiveCapacity,
    });
    this.live.on('grow', ({ capacity }) => {
      this.liveBuffer.wrap(this.live.channels.bones!, capacity);
      this.rebuild();
    });
    this.liveBuffer = new LiveBoneBuffer(path, template.boneCount, this.live.channels.bones!, this.live.capacity);
    this.bakedBuffer = new BakedBoneBuffer(path, template.boneCount, baked.data, baked.plan.rows, baked.precision);
    this.localTables = new BakedLocalTables(baked);
    this.rootScale = baked.rootScale;
    this.depth = chainDepth(baked.parents);
    this.clipTable = uniformArray(
      baked.plan.clips.map((clip) => new Vector4(clip.startRow, clip.frames, clip.duration, clip.loop ? 1 : 0)),
      'vec4',
    );
    const palette = resolved.palette.length > 0 ? resolved.palette : BATCH_SKINNED_RENDERER_DEFAULTS.palette;
    this.palette = palette.map(([r, g, b]) => new Vector4(r, g, b, 1));
    this.paletteNode = uniformArray(this.palette, 'vec4');
    this.paletteMaterials = resolved.paletteMaterials;
    this.variants = options.variants ?? null;
    if (this.variants) {
      const count = this.variants.capacity * this.variants.stride;
      for (let i = 0; i < count; i++) this.variantValues.push(new Vector4());
      this.syncVariants();
      this.variantNode = uniformArray(this.variantValues, 'vec4');
    }
    const capacity = resolved.instanceCapacity;
    this.poseRecords = new RecordBuffer(POSE_FLOATS, capacity);
    this.animRecords = new RecordBuffer(ANIM_FLOATS, capacity);

    for (const piece of template.pieces) {
      const mesh = new Mesh(piece.geometry);
      mesh.name = `crowd-${piece.name}`;
      // Avatars are culled one by one on the CPU; the batch's bounds would be meaningless.
      mesh.frustumCulled = false;
      mesh.castShadow = options.castShadow ?? piece.castShadow;
      mesh.receiveShadow = options.receiveShadow ?? piece.receiveShadow;
      mesh.count = 0;
      mesh.visible = false;
      this.meshes.push(mesh);
      this.object.add(mesh);
    }
    this.rebuild();
  }

  /** Pose records (4 floats each, draw order); call {@link markPose} after writing one. */
  get poses(): Float32Array {
    return this.poseRecords.array;
  }

  /** Animation records (12 floats each, draw order); call {@link markAnim} after writing one. */
  get anims(): Float32Array {
    return this.animRecords.array;
  }

  markPose(index: number): void {
    this.poseRecords.mark(index);
  }

  markAnim(index: number): void {
    this.animRecords.mark(index);
  }

  /** Copies instance `from`'s records to `to` (a swap-remove in the drawn range) and marks them. */
  moveInstance(from: number, to: number): void {
    this.poses.copyWithin(to * POSE_FLOATS, from * POSE_FLOATS, (from + 1) * POSE_FLOATS);
    this.anims.copyWithin(to * ANIM_FLOATS, from * ANIM_FLOATS, (from + 1) * ANIM_FLOATS);
    this.poseRecords.mark(to);
    this.animRecords.mark(to);
  }

  get instanceCapacity(): number {
    return this.poseRecords.capacity;
  }

  /** Instances drawn by the last commit. */
  get drawCount(): number {
    return this.drawn;
  }

  /** Draw calls per pass: one per piece (per material group), whatever the crowd size. */
  get drawCallsPerPass(): number {
    return this.template.pieces.reduce((sum, piece) => sum + Math.max(1, piece.geometry.groups.length), 0);
  }

  /** Makes room for `count` drawn instances, keeping the first `keep` records (reallocates, rebuilds). */
  reserveInstances(count: number, keep = 0): void {
    if (count <= this.poseRecords.capacity) return;
    let capacity = this.poseRecords.capacity;
    while (capacity < count) capacity *= 2;
    this.poseRecords.grow(capacity, keep);
    this.animRecords.grow(capacity, keep);
    this.rebuild();
  }

  /** Takes a live slot for `owner`; grows the live buffer if needed. Throws RangeError at the budget. */
  addLive(owner: Owner): SlotRef<Owner> {
    return this.live.add(owner);
  }

  /** Frees a live slot (the last slot's avatar moves into it; its ref follows). */
  removeLive(ref: SlotRef<Owner>): SlotRef<Owner> | null {
    return this.live.remove(ref);
  }

  /** Float offset of a live slot in `live.channels.bones`. */
  liveOffset(slot: number): number {
    return slot * this.template.boneCount * FLOATS_PER_BONE;
  }

  /** Sets the crowd clock (seconds since the crowd's epoch) the shader animates from. */
  setClock(seconds: number): void {
    this.clock.value = seconds;
  }

  /**
   * Draws instances [0, count) this frame and schedules uploads: the records marked since the
   * last commit and the live slots written this frame (`dirtySlots`, sorted ascending).
   */
  commit(count: number, dirtySlots: ArrayLike<number>): CommitResult {
    if (count > this.poseRecords.capacity)
      throw new RangeError(`commit: ${count} instances but capacity is ${this.poseRecords.capacity}; call reserveInstances first`);
    this.drawn = count;
    this.syncVariants();
    for (const mesh of this.meshes) {
      mesh.count = count;
      // No instances, no draw call.
      mesh.visible = count > 0;
    }
    const poseBytes = this.poseRecords.commit(count);
    const animBytes = this.animRecords.commit(count);
    const liveBytes = this.liveBuffer.upload(dirtySlots, this.live.count);
    return { liveBytes, poseBytes, animBytes };
  }

  /** Copies the variant table into the uniform's values when it changed (a new look defined: rare). */
  private syncVariants(): void {
    const table = this.variants;
    if (!table || table.version === this.variantVersion) return;
    this.variantVersion = table.version;
    const data = table.data;
    this.variantValues.forEach((value, i) => value.set(data[i * 4]!, data[i * 4 + 1]!, data[i * 4 + 2]!, data[i * 4 + 3]!));
  }

  /** Bytes of GPU memory the crowd's buffers hold. */
  get gpuBytes(): number {
    return this.liveBuffer.bytes + this.bakedBytes + this.poseRecords.array.byteLength + this.animRecords.array.byteLength;
  }

  /** Bytes of the baked tables (matrices, local transforms, rig) on the GPU. */
  get bakedBytes(): number {
    return this.bakedBuffer.bytes + this.localTables.bytes;
  }

  dispose(): void {
    this.object.removeFromParent();
    for (const set of this.materials) for (const material of set) material.dispose();
    this.liveBuffer.dispose();
    this.bakedBuffer.dispose();
    this.localTables.dispose();
  }

  /** (Re)builds the skinning node and the materials around the current buffers. */
  private rebuild(): void {
    if (this.meshes.length === 0) return;
    const node = crowdSkinningNode({
      pose: this.poseRecords.buffer,
      anim: this.animRecords.buffer,
      live: this.liveBuffer.fetch,
      baked: this.bakedBuffer.fetch,
      clock: this.clock,
      clips: this.clipTable,
      locals: this.localTables,
      rootScale: this.rootScale,
      depth: this.depth,
      ...(this.variants && this.variantNode ? { variants: { table: this.variantNode, stride: this.variants.stride } } : {}),
    });
    const anim = this.animRecords.buffer;
    const tinted = this.palette.length > 1;
    const colorNode = (m: Material): ((vertexColors: boolean) => TslNode) | undefined => {
      const paletted = tinted && this.paletteMaterials.test(m.name);
      const table = this.variants;
      const variantNode = this.variantNode;
      if (table && variantNode && (m as { vertexColors?: boolean }).vertexColors)
        return () =>
          variantColorNode(anim, variantNode, table.regions, table.stride, REGION_TOLERANCE, paletted ? this.paletteNode : undefined);
      return paletted ? (vertexColors: boolean) => paletteColorNode(anim, this.paletteNode, vertexColors) : undefined;
    };
    const old = this.materials;
    this.materials = this.template.pieces.map((piece) =>
      (Array.isArray(piece.material) ? piece.material : [piece.material]).map((m: Material) => createCrowdMaterial(m, node, colorNode(m))),
    );
    this.meshes.forEach((mesh, i) => {
      const set = this.materials[i]!;
      mesh.material = Array.isArray(this.template.pieces[i]!.material) ? set : set[0]!;
    });
    for (const set of old) for (const material of set) material.dispose();
    if (old.length) this.rebuilds++;
  }
}

/** Longest chain of parents (nodes from a bone to the root, inclusive). */
function chainDepth(parents: Int32Array): number {
  let longest = 1;
  for (let i = 0; i < parents.length; i++) {
    let depth = 0;
    for (let n = i; n >= 0 && depth <= parents.length; n = parents[n]!) depth++;
    longest = Math.max(longest, depth);
  }
  return longest;
}
