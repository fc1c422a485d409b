import { DynamicDrawUsage, Group, InstancedBufferAttribute, InstancedMesh, Sphere, type BufferGeometry, type Material } from 'three';
import type { Bucket, BucketSet } from './instance-buckets.ts';

/**
 * The three.js half of instance buckets: one InstancedMesh per bucket, drawing the bucket's own
 * Float32Array (no copy). When a bucket grows, a new InstancedMesh over the new array is swapped
 * into the object and the old one is disposed (which releases its instance-matrix GPU buffer).
 * Empty buckets are hidden, so they cost no draw call.
 */

export interface BucketLook {
  geometry: BufferGeometry;
  material: Material;
  castShadow: boolean;
  name: string;
}

export class BucketMeshes {
  /** The scene handle: every bucket's InstancedMesh. */
  readonly object = new Group();
  /** InstancedMeshes swapped in because a bucket grew. */
  swaps = 0;
  private readonly meshes: Array<InstancedMesh | undefined> = [];
  private readonly looks: Array<BucketLook | undefined> = [];
  private readonly synced: number[] = [];
  private readonly radius: number[] = [];

  private readonly buckets: BucketSet;

  constructor(buckets: BucketSet) {
    this.buckets = buckets;
    this.object.name = 'scatter';
  }

  /**
   * Declares how a bucket is drawn (once per bucket, right after creating it) and creates its
   * mesh now, hidden, so the first stroke that fills it builds nothing.
   */
  attach(bucketId: number, look: BucketLook): void {
    this.looks[bucketId] = look;
    if (!look.geometry.boundingSphere) look.geometry.computeBoundingSphere();
    const sphere = look.geometry.boundingSphere!;
    this.radius[bucketId] = sphere.radius + sphere.center.length();
    this.synced[bucketId] = -1;
    this.createMesh(this.buckets.buckets[bucketId]!, look).visible = false;
  }

  /** The mesh drawing a bucket. */
  meshOf(bucketId: number): InstancedMesh | undefined {
    return this.meshes[bucketId];
  }

  /** Swaps in a mesh over a bucket's new arrays (the BucketSet's `grow` event). */
  readonly regrow = (bucket: Bucket): void => {
    const old = this.meshes[bucket.id];
    const look = this.looks[bucket.id];
    if (!old || !look) return;
    // Swap a mesh over the new array into the object first, then release the old attribute.
    const mesh = this.createMesh(bucket, look);
    mesh.count = bucket.count;
    this.object.remove(old);
    old.dispose();
    this.swaps++;
    this.synced[bucket.id] = -1;
  };

  /**
   * Pushes bucket changes to the meshes: count, visibility, the dirty slot range of the matrix
   * buffer, and a fresh bounding sphere. Cheap when nothing changed (a version compare per bucket).
   */
  sync(): void {
    const buckets = this.buckets.buckets;
    for (let id = 0; id < buckets.length; id++) {
      const bucket = buckets[id]!;
      if (this.synced[id] === bucket.version) continue;
      const look = this.looks[id];
      if (!look) continue;
      const mesh = this.meshes[id] ?? this.createMesh(bucket, look);
      mesh.count = bucket.count;
      mesh.visible = bucket.count > 0;
      if (bucket.dirtyTo > bucket.dirtyFrom) {
        const attribute = mesh.instanceMatrix;
        attribute.clearUpdateRanges();
        attribute.addUpdateRange(bucket.dirtyFrom * 16, (bucket.dirtyTo - bucket.dirtyFrom) * 16);
        attribute.needsUpdate = true;
      }
      this.buckets.clearDirty(id);
      if (bucket.count > 0) this.fitBounds(mesh, bucket, this.radius[id]!);
      this.synced[id] = bucket.version;
    }
  }

  /** Buckets with at least one instance. */
  liveBuckets(): number {
    let live = 0;
    for (const bucket of this.buckets.buckets) if (bucket.count > 0 && this.looks[bucket.id]) live++;
    return live;
  }

  /** Live buckets whose mesh casts shadows (each costs one more draw in the shadow pass). */
  shadowBuckets(): number {
    let count = 0;
    for (const bucket of this.buckets.buckets) if (bucket.count > 0 && this.looks[bucket.id]?.castShadow) count++;
    return count;
  }

  dispose(): void {
    for (const mesh of this.meshes) {
      if (!mesh) continue;
      this.object.remove(mesh);
      mesh.dispose();
    }
    this.meshes.length = 0;
    this.object.removeFromParent();
  }

  private createMesh(bucket: Bucket, look: BucketLook): InstancedMesh {
    const mesh = new InstancedMesh(look.geometry, look.material, 0);
    mesh.instanceMatrix = new InstancedBufferAttribute(bucket.matrices, 16);
    mesh.instanceMatrix.setUsage(DynamicDrawUsage);
    mesh.name = look.name;
    mesh.castShadow = look.castShadow;
    mesh.receiveShadow = true;
    mesh.boundingSphere = new Sphere();
    this.meshes[bucket.id] = mesh;
    this.object.add(mesh);
    return mesh;
  }

  /** A sphere around every instance: their origins' box, grown by the largest scaled radius. */
  private fitBounds(mesh: InstancedMesh, bucket: Bucket, radius: number): void {
    const m = bucket.matrices;
    let minX = Infinity;
    let minY = Infinity;
    let minZ = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    let maxZ = -Infinity;
    let maxScale2 = 0;
    for (let slot = 0; slot < bucket.count; slot++) {
      const o = slot * 16;
      const x = m[o + 12]!;
      const y = m[o + 13]!;
      const z = m[o + 14]!;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      if (z < minZ) minZ = z;
      if (z > maxZ) maxZ = z;
      const s2 = m[o]! * m[o]! + m[o + 1]! * m[o + 1]! + m[o + 2]! * m[o + 2]!;
      if (s2 > maxScale2) maxScale2 = s2;
    }
    const sphere = mesh.boundingSphere ?? (mesh.boundingSphere = new Sphere());
    sphere.center.set((minX + maxX) / 2, (minY + maxY) / 2, (minZ + maxZ) / 2);
    sphere.radius = Math.hypot(maxX - minX, maxY - minY, maxZ - minZ) / 2 + radius * Math.sqrt(maxScale2);
  }
}
