/**
 * BatchSkinnedRenderer draws a whole crowd with one instanced draw per geometry piece of the
 * template (per pass), whatever the crowd's size. All pieces read one live bone buffer
 * (`liveCapacity × bones` matrices, filled by VirtualSkeletons), one baked-pose table, and one
 * per-instance record buffer (instance-layout.ts). Each frame uploads only the live slots that
 * changed and the drawn records.
 *
 * Live slots come from a {@link SlotTable}: O(1) add and swap-remove with a back-reference, so the
 * occupied range stays [0, live) and a moved avatar keeps its identity; when full, the table
 * grows by reallocation and the GPU resources are rebuilt around the new arrays (rare: doubling).
 */
import { DynamicDrawUsage, Group, InstancedInterleavedBuffer, Mesh, type NodeMaterial } from 'three/webgpu';
import { BakedBoneBuffer, LIVE_ROWS_PER_LAYER, LiveBoneBuffer } from './bone-buffers.ts';
import type { BonePath } from './bone-path.ts';
import type { BakedClips } from './bake.ts';
import { createCrowdMaterial, crowdSkinningNode } from './crowd-material.ts';
import { INSTANCE_FLOATS } from './instance-layout.ts';
import { SlotTable, type SlotRef } from './slot-table.ts';
import type { CrowdTemplate } from './template.ts';
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
}

/** What one frame's commit moved to the GPU. */
export interface CommitResult {
  liveBytes: number;
  instanceBytes: number;
}

export class BatchSkinnedRenderer<Owner = unknown> {
  /** Add this to the scene: it holds one Mesh per template piece. */
  readonly object = new Group();
  readonly meshes: Mesh[] = [];
  readonly path: BonePath;
  readonly template: CrowdTemplate;
  /** Live slots; `live.channels.bones` is the shared Float32Array VirtualSkeletons write into. */
  readonly live: SlotTable<Owner>;
  private readonly liveBuffer: LiveBoneBuffer;
  private readonly bakedBuffer: BakedBoneBuffer;
  private instanceBuffer: InstancedInterleavedBuffer;
  private materials: NodeMaterial[][] = [];
  private drawn = 0;
  /** Times the GPU resources were rebuilt after growth. */
  rebuilds = 0;

  constructor(options: BatchSkinnedRendererOptions) {
    const { template, baked, path } = options;
    this.template = template;
    this.path = path;
    this.object.name = 'crowd';
    const slotFloats = template.boneCount * FLOATS_PER_BONE;
    const step = path === 'texture' ? LIVE_ROWS_PER_LAYER : 1;
    this.live = new SlotTable<Owner>({
      channels: { bones: slotFloats },
      capacity: options.liveCapacity ?? 32,
      capacityStep: step,
      maxCapacity: options.maxLiveCapacity ?? 256,
      onGrow: (capacity) => {
        this.liveBuffer.wrap(this.live.channels.bones!, capacity);
        this.rebuild();
      },
    });
    this.liveBuffer = new LiveBoneBuffer(path, template.boneCount, this.live.channels.bones!, this.live.capacity);
    this.bakedBuffer = new BakedBoneBuffer(path, template.boneCount, baked.data, baked.plan.rows);
    this.instanceBuffer = createInstanceBuffer(options.instanceCapacity ?? 64);

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

  /** The per-instance records (12 floats each) to fill before {@link commit}. */
  get instances(): Float32Array {
    return this.instanceBuffer.array as Float32Array;
  }

  get instanceCapacity(): number {
    return this.instanceBuffer.count;
  }

  /** Instances drawn by the last commit. */
  get drawCount(): number {
    return this.drawn;
  }

  /** Draw calls per pass: one per piece (per material group), whatever the crowd size. */
  get drawCallsPerPass(): number {
    return this.template.pieces.reduce((sum, piece) => sum + Math.max(1, piece.geometry.groups.length), 0);
  }

  /** Makes room for `count` drawn instances (reallocating, keeping the first `keep` records). */
  reserveInstances(count: number, keep = 0): void {
    if (count <= this.instanceBuffer.count) return;
    let capacity = this.instanceBuffer.count;
    while (capacity < count) capacity *= 2;
    const next = createInstanceBuffer(capacity);
    (next.array as Float32Array).set((this.instanceBuffer.array as Float32Array).subarray(0, keep * INSTANCE_FLOATS));
    this.instanceBuffer = next;
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

  /**
   * Draws `count` instances (records [0, count)) this frame and schedules uploads: the live slots
   * written this frame (`dirtySlots`, sorted ascending) and the instance records.
   */
  commit(count: number, dirtySlots: ArrayLike<number>): CommitResult {
    if (count > this.instanceBuffer.count) throw new RangeError(`commit: ${count} instances but capacity is ${this.instanceBuffer.count}; call reserveInstances first`);
    this.drawn = count;
    for (const mesh of this.meshes) {
      mesh.count = count;
      // No instances, no draw call.
      mesh.visible = count > 0;
    }
    let instanceBytes = 0;
    if (count > 0) {
      this.instanceBuffer.clearUpdateRanges();
      this.instanceBuffer.addUpdateRange(0, count * INSTANCE_FLOATS);
      this.instanceBuffer.needsUpdate = true;
      instanceBytes = count * INSTANCE_FLOATS * 4;
    }
    const liveBytes = this.liveBuffer.upload(dirtySlots, this.live.count);
    return { liveBytes, instanceBytes };
  }

  /** Bytes of GPU memory the crowd's buffers hold. */
  get gpuBytes(): number {
    return this.liveBuffer.bytes + this.bakedBuffer.bytes + (this.instanceBuffer.array as Float32Array).byteLength;
  }

  dispose(): void {
    this.object.removeFromParent();
    for (const set of this.materials) for (const material of set) material.dispose();
    this.liveBuffer.dispose();
    this.bakedBuffer.dispose();
  }

  /** (Re)builds the skinning node and the materials around the current buffers. */
  private rebuild(): void {
    if (this.meshes.length === 0) return;
    const node = crowdSkinningNode({ instances: this.instanceBuffer, live: this.liveBuffer.fetch, baked: this.bakedBuffer.fetch });
    const old = this.materials;
    this.materials = this.template.pieces.map((piece) => (Array.isArray(piece.material) ? piece.material : [piece.material]).map((m) => createCrowdMaterial(m, node)));
    this.meshes.forEach((mesh, i) => {
      const set = this.materials[i]!;
      mesh.material = Array.isArray(this.template.pieces[i]!.material) ? set : set[0]!;
    });
    for (const set of old) for (const material of set) material.dispose();
    if (old.length) this.rebuilds++;
  }
}

function createInstanceBuffer(capacity: number): InstancedInterleavedBuffer {
  const buffer = new InstancedInterleavedBuffer(new Float32Array(capacity * INSTANCE_FLOATS), INSTANCE_FLOATS, 1);
  buffer.setUsage(DynamicDrawUsage);
  return buffer;
}
