/**
 * Instance buckets, the data half of instanced drawing (pure: typed arrays, no three). A bucket
 * is what one InstancedMesh draws — in Cairn one per (prop, part, LOD level) — and holds its live
 * instances' 4×4 matrices packed at the front of one Float32Array.
 *
 * - An *entry* is one instance in one bucket; its id stays valid while it moves between buckets.
 * - Removal is swap-remove: the bucket's last matrix moves into the hole, and the back-reference
 *   array (`owners`, slot → entry) says whose slot to update. O(1) at any bucket size.
 * - A full bucket grows by doubling: allocate, copy the live matrices, swap the arrays (the three
 *   glue then swaps a new InstancedMesh into the scene and disposes the old attribute).
 * - {@link BucketSet.move} copies the matrix straight from the source slot to the destination
 *   slot *before* the swap-remove, with no shared scratch matrix: the classic bug is reading the
 *   moving matrix into a scratch that the swap-remove then overwrites with the last instance, so
 *   about 1/count of moves duplicate one instance and lose another.
 */
import { Emitter } from '../core/emitter.ts';
import { withDefaults } from '../core/options.ts';

/** One bucket's arrays. `matrices.length === capacity * 16`; slots [0, count) are live. */
export interface Bucket {
  readonly id: number;
  matrices: Float32Array;
  /** Back-references: the entry in each slot. */
  owners: Int32Array;
  count: number;
  capacity: number;
  /** Increases on every change (glue compares it to know when to upload). */
  version: number;
  /** Slots written since the glue last synced: [dirtyFrom, dirtyTo). Empty when from ≥ to. */
  dirtyFrom: number;
  dirtyTo: number;
}

export interface BucketSetOptions {
  /** Capacity of a new bucket. Default 16. */
  initialCapacity?: number;
}

/** Defaults of {@link BucketSetOptions}: buckets start with room for 16. */
export const BUCKET_SET_DEFAULTS: Required<BucketSetOptions> = { initialCapacity: 16 };

/** What a {@link BucketSet} emits. */
export interface BucketSetEvents extends Record<string, unknown> {
  /** A bucket's arrays were replaced by larger ones (the old ones are no longer used). */
  grow: { bucket: Bucket; oldCapacity: number };
}

const NONE = -1;

export class BucketSet extends Emitter<BucketSetEvents> {
  readonly buckets: Bucket[] = [];
  /** Array allocations so far (bucket growth and entry-table growth), for tests and stats. */
  allocations = 0;
  private readonly initialCapacity: number;
  // Entry table: entry → bucket and slot; freed entries chain through `entrySlot`.
  private entryBucket = new Int32Array(64).fill(NONE);
  private entrySlot = new Int32Array(64);
  private entryCount = 0;
  private freeHead = NONE;
  private liveEntries = 0;

  constructor(options: BucketSetOptions = {}) {
    super();
    this.initialCapacity = Math.max(1, withDefaults(BUCKET_SET_DEFAULTS, options).initialCapacity);
  }

  /** Live entries across all buckets. */
  get size(): number {
    return this.liveEntries;
  }

  createBucket(capacity = this.initialCapacity): number {
    const id = this.buckets.length;
    this.buckets.push({
      id,
      matrices: new Float32Array(capacity * 16),
      owners: new Int32Array(capacity).fill(NONE),
      count: 0,
      capacity,
      version: 0,
      dirtyFrom: 0,
      dirtyTo: 0,
    });
    this.allocations++;
    return id;
  }

  /** Adds an instance to a bucket, copying 16 floats from `source` at `offset`. Returns its entry. */
  add(bucketId: number, source: ArrayLike<number>, offset = 0): number {
    const bucket = this.buckets[bucketId]!;
    const entry = this.allocateEntry();
    const slot = this.appendSlot(bucket, entry);
    const m = bucket.matrices;
    const o = slot * 16;
    for (let k = 0; k < 16; k++) m[o + k] = source[offset + k]!;
    this.entryBucket[entry] = bucketId;
    this.entrySlot[entry] = slot;
    return entry;
  }

  /** Removes an entry (swap-remove). The entry id may be reused by a later add. */
  remove(entry: number): void {
    const bucketId = this.bucketOf(entry);
    this.removeSlot(this.buckets[bucketId]!, this.entrySlot[entry]!);
    this.entryBucket[entry] = NONE;
    this.entrySlot[entry] = this.freeHead;
    this.freeHead = entry;
    this.liveEntries--;
  }

  /**
   * Moves an entry to another bucket (a LOD change). Allocates nothing unless the destination
   * must grow. The matrix is copied slot to slot, then the source slot is swap-removed.
   */
  move(entry: number, toBucketId: number): void {
    const fromId = this.bucketOf(entry);
    if (fromId === toBucketId) return;
    const from = this.buckets[fromId]!;
    const to = this.buckets[toBucketId]!;
    const slot = this.entrySlot[entry]!;
    const toSlot = this.appendSlot(to, entry);
    // Read from the source slot directly (after any growth of `to`, which never touches `from`).
    const src = from.matrices;
    const dst = to.matrices;
    const s = slot * 16;
    const d = toSlot * 16;
    for (let k = 0; k < 16; k++) dst[d + k] = src[s + k]!;
    this.entryBucket[entry] = toBucketId;
    this.entrySlot[entry] = toSlot;
    this.removeSlot(from, slot);
  }

  /** Overwrites an entry's matrix in place. */
  setMatrix(entry: number, source: ArrayLike<number>, offset = 0): void {
    const bucket = this.buckets[this.bucketOf(entry)]!;
    const slot = this.entrySlot[entry]!;
    const o = slot * 16;
    for (let k = 0; k < 16; k++) bucket.matrices[o + k] = source[offset + k]!;
    this.markDirty(bucket, slot, slot + 1);
  }

  /** Copies an entry's matrix into `out` at `offset`. */
  readMatrix(entry: number, out: Float32Array | number[], offset = 0): void {
    const bucket = this.buckets[this.bucketOf(entry)]!;
    const o = this.entrySlot[entry]! * 16;
    for (let k = 0; k < 16; k++) out[offset + k] = bucket.matrices[o + k]!;
  }

  bucketOf(entry: number): number {
    const bucketId = entry >= 0 && entry < this.entryCount ? this.entryBucket[entry]! : NONE;
    if (bucketId === NONE) throw new RangeError(`BucketSet: entry ${entry} is not live`);
    return bucketId;
  }

  slotOf(entry: number): number {
    this.bucketOf(entry);
    return this.entrySlot[entry]!;
  }

  isLive(entry: number): boolean {
    return entry >= 0 && entry < this.entryCount && this.entryBucket[entry] !== NONE;
  }

  /** Marks a bucket's dirty range as uploaded (the glue calls this after syncing). */
  clearDirty(bucketId: number): void {
    const bucket = this.buckets[bucketId]!;
    bucket.dirtyFrom = 0;
    bucket.dirtyTo = 0;
  }

  /**
   * Checks every invariant (back-references agree with the entry table, counts add up). Throws
   * with the first broken one. For tests and debugging; O(total capacity).
   */
  validate(): void {
    let total = 0;
    for (const bucket of this.buckets) {
      if (bucket.count > bucket.capacity || bucket.matrices.length !== bucket.capacity * 16)
        throw new Error(`bucket ${bucket.id}: count ${bucket.count} / capacity ${bucket.capacity} / ${bucket.matrices.length} floats`);
      for (let slot = 0; slot < bucket.count; slot++) {
        const entry = bucket.owners[slot]!;
        if (this.entryBucket[entry] !== bucket.id || this.entrySlot[entry] !== slot)
          throw new Error(
            `bucket ${bucket.id} slot ${slot}: owner ${entry} points at bucket ${this.entryBucket[entry]} slot ${this.entrySlot[entry]}`,
          );
      }
      total += bucket.count;
    }
    if (total !== this.liveEntries) throw new Error(`buckets hold ${total} instances but ${this.liveEntries} entries are live`);
  }

  /** Releases every bucket's arrays; the set is empty afterwards. */
  dispose(): void {
    this.buckets.length = 0;
    this.entryBucket = new Int32Array(0);
    this.entrySlot = new Int32Array(0);
    this.entryCount = 0;
    this.freeHead = NONE;
    this.liveEntries = 0;
  }

  private appendSlot(bucket: Bucket, entry: number): number {
    if (bucket.count === bucket.capacity) this.grow(bucket);
    const slot = bucket.count++;
    bucket.owners[slot] = entry;
    this.markDirty(bucket, slot, slot + 1);
    return slot;
  }

  private removeSlot(bucket: Bucket, slot: number): void {
    const last = bucket.count - 1;
    if (slot !== last) {
      const m = bucket.matrices;
      const s = last * 16;
      const d = slot * 16;
      for (let k = 0; k < 16; k++) m[d + k] = m[s + k]!;
      const moved = bucket.owners[last]!;
      bucket.owners[slot] = moved;
      this.entrySlot[moved] = slot;
      this.markDirty(bucket, slot, slot + 1);
    }
    bucket.owners[last] = NONE;
    bucket.count = last;
    bucket.version++;
  }

  private grow(bucket: Bucket): void {
    const oldCapacity = bucket.capacity;
    const capacity = oldCapacity * 2;
    const matrices = new Float32Array(capacity * 16);
    matrices.set(bucket.matrices.subarray(0, bucket.count * 16));
    const owners = new Int32Array(capacity).fill(NONE);
    owners.set(bucket.owners.subarray(0, bucket.count));
    bucket.matrices = matrices;
    bucket.owners = owners;
    bucket.capacity = capacity;
    // The whole live range must be uploaded into the new GPU buffer.
    this.markDirty(bucket, 0, bucket.count);
    this.allocations++;
    this.emit('grow', { bucket, oldCapacity });
  }

  private markDirty(bucket: Bucket, from: number, to: number): void {
    if (bucket.dirtyFrom >= bucket.dirtyTo) {
      bucket.dirtyFrom = from;
      bucket.dirtyTo = to;
    } else {
      if (from < bucket.dirtyFrom) bucket.dirtyFrom = from;
      if (to > bucket.dirtyTo) bucket.dirtyTo = to;
    }
    bucket.version++;
  }

  private allocateEntry(): number {
    this.liveEntries++;
    if (this.freeHead !== NONE) {
      const entry = this.freeHead;
      this.freeHead = this.entrySlot[entry]!;
      return entry;
    }
    if (this.entryCount === this.entryBucket.length) {
      const bucketOf = new Int32Array(this.entryBucket.length * 2).fill(NONE);
      bucketOf.set(this.entryBucket);
      const slotOf = new Int32Array(this.entrySlot.length * 2);
      slotOf.set(this.entrySlot);
      this.entryBucket = bucketOf;
      this.entrySlot = slotOf;
      this.allocations++;
    }
    return this.entryCount++;
  }
}
