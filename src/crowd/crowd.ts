/**
 * Crowd: many animated characters sharing one template, drawn by a BatchSkinnedRenderer. Near,
 * visible avatars animate live (a pooled VirtualSkeleton with its own mixer, at a rate that falls
 * with distance); far ones sample baked frames on the GPU with zero CPU animation work; avatars
 * outside the view frustum are neither drawn nor animated at full rate. Which is which is decided
 * here, with hysteresis, so callers only place avatars and name clips:
 *
 * ```ts
 * const crowd = new Crowd({ template, device: { backend: 'WebGPU' } });
 * scene.add(crowd.object);
 * const agent = crowd.add({ x, y, z, facing, clip: 'walk' });
 * agent.setTransform(x, y, z, facing);
 * agent.play('wave', { fade: 0.3 });
 * crowd.update(dt, camera); // once per frame, before rendering
 * agent.remove();
 * ```
 */
import { Frustum, Matrix4, Sphere, Vector3, type Camera, type Object3D } from 'three';
import { AnimState, type AnimSample, type PlayOptions } from './anim-state.ts';
import { bakeClips, type BakedClips } from './bake.ts';
import { bakedFrame, type BakedFrame } from './baked-layout.ts';
import { BatchSkinnedRenderer } from './batch-skinned-renderer.ts';
import { chooseBonePath, type BonePath, type BonePathChoice, type BonePathDevice } from './bone-path.ts';
import { INSTANCE_FLOATS, InstanceField } from './instance-layout.ts';
import { liveUpdateInterval, planLive, resolveLod, updateDue, type LodCandidate, type LodOptions, type ResolvedLodOptions } from './lod-policy.ts';
import { SlotTable, type SlotRef } from './slot-table.ts';
import { templateCullSphere, type CrowdTemplate } from './template.ts';
import { VirtualSkeleton } from './virtual-skeleton.ts';

export interface CrowdOptions {
  template: CrowdTemplate;
  /** The device, to pick the bone path (storage buffer or texture). Default WebGPU. */
  device?: BonePathDevice;
  /** Force a bone path where the device allows it. Default 'auto'. */
  path?: BonePath | 'auto';
  /** Live/baked distances, live budget and update rates. See {@link LodOptions}. */
  lod?: LodOptions;
  /** Initial avatar capacity (grows by doubling). Default 64. */
  capacity?: number;
  /** Frames per second for baked clips. Default 30. */
  bakeFps?: number;
  /** Most rows of the baked table (the device's texture height limit). Default 8192. */
  maxBakedRows?: number;
  /** Shadows from crowd avatars. Default true. */
  castShadow?: boolean;
}

export interface AddAgentOptions {
  x?: number;
  y?: number;
  z?: number;
  /** Radians; forward = (sin facing, 0, cos facing). */
  facing?: number;
  /** Clip name; a name the template lacks falls back to its closest match or first clip. */
  clip?: string;
  /** Playback rate. Default 1. */
  speed?: number;
  /** Start time within the clip, seconds. Default 0. */
  time?: number;
}

export type AgentMode = 'live' | 'baked';

/** Live figures, published by pages under `cairn.stats.crowd`. */
export interface CrowdStats {
  template: string;
  path: BonePath;
  pathReason: string;
  pieces: number;
  bones: number;
  /** Draw calls per render pass (main view, each shadow map): one per piece. */
  drawCallsPerPass: number;
  agents: number;
  /** Drawn this frame (inside the view frustum). */
  visible: number;
  /** Live avatars (own mixer); includes live ones outside the frustum. */
  live: number;
  /** Drawn from baked frames. */
  baked: number;
  /** Outside the view frustum: not drawn. */
  culled: number;
  /** Live mixers evaluated this frame. */
  liveUpdates: number;
  /** Main-thread ms in `update()` this frame, and its EMA. */
  animMs: number;
  animMsAvg: number;
  /** Bytes scheduled for upload this frame (live bones + instance records). */
  uploadBytes: number;
  liveBytes: number;
  instanceBytes: number;
  /** GPU memory held by the crowd's buffers. */
  gpuBytes: number;
  liveCapacity: number;
  instanceCapacity: number;
  bakedRows: number;
  bakedFps: number;
  /** Slot-table reallocations and GPU rebuilds so far. */
  grows: number;
}

/** A handle on one crowd avatar. Stays valid (and keeps its identity) however others come and go. */
export class CrowdAgent {
  readonly id: number;
  /** @internal */ ref!: SlotRef<CrowdAgent>;
  /** @internal */ liveRef: SlotRef<CrowdAgent> | null = null;
  /** @internal */ skeleton: VirtualSkeleton | null = null;
  /** @internal */ readonly anim: AnimState;
  /** @internal */ dwell = Number.POSITIVE_INFINITY;
  /** @internal */ forceUpdate = false;
  /** @internal */ visible = false;
  /** @internal */ distance = 0;
  private crowd: Crowd | null;

  /** @internal */
  constructor(crowd: Crowd, id: number, anim: AnimState) {
    this.crowd = crowd;
    this.id = id;
    this.anim = anim;
  }

  get removed(): boolean {
    return this.crowd === null;
  }

  get x(): number {
    return this.read(InstanceField.X);
  }

  get y(): number {
    return this.read(InstanceField.Y);
  }

  get z(): number {
    return this.read(InstanceField.Z);
  }

  get facing(): number {
    return this.read(InstanceField.Facing);
  }

  /** 'live' or 'baked' (as of the last update). */
  get mode(): AgentMode {
    return this.liveRef ? 'live' : 'baked';
  }

  /** Inside the view frustum at the last update. */
  get onScreen(): boolean {
    return this.visible;
  }

  /** Name of the clip playing (the target of any crossfade). */
  get clip(): string {
    return this.crowd?.template.clips[this.anim.clip]?.name ?? '';
  }

  /** Seconds into the current clip. */
  get time(): number {
    return this.anim.time;
  }

  /** Places the avatar (feet position, facing in radians). Cheap: call every frame. */
  setTransform(x: number, y: number, z: number, facing: number): void {
    const crowd = this.crowd;
    if (!crowd) return;
    const data = crowd.poses();
    const o = this.ref.slot * 4;
    data[o] = x;
    data[o + 1] = y;
    data[o + 2] = z;
    data[o + 3] = facing;
  }

  /** Plays a clip by name with a crossfade; asking for the playing clip only updates its speed. */
  play(clip: string, options: PlayOptions = {}): void {
    const crowd = this.crowd;
    if (!crowd) return;
    this.anim.play(crowd.template.resolveClip(clip), options);
  }

  /** Takes the avatar out of the crowd. Calling it again does nothing. */
  remove(): void {
    this.crowd?.removeAgent(this);
    this.crowd = null;
  }

  private read(field: number): number {
    const crowd = this.crowd;
    return crowd ? crowd.poses()[this.ref.slot * 4 + field]! : Number.NaN;
  }
}

const EMPTY_SAMPLE: AnimSample = { clip: 0, time: 0, previousClip: -1, previousTime: 0, weight: 1 };

export class Crowd {
  readonly template: CrowdTemplate;
  readonly renderer: BatchSkinnedRenderer<CrowdAgent>;
  readonly baked: BakedClips;
  readonly pathChoice: BonePathChoice;
  readonly stats: CrowdStats;
  private readonly lod: ResolvedLodOptions;
  /** Every avatar; channel `pose` holds x, y, z, facing. */
  private readonly agents: SlotTable<CrowdAgent>;
  private readonly pool: VirtualSkeleton[] = [];
  private readonly cullSphere: { center: Vector3; radius: number };
  private readonly frustum = new Frustum();
  private readonly projScreen = new Matrix4();
  private readonly sphere = new Sphere();
  private readonly cameraPosition = new Vector3();
  private candidates: LodCandidate[] = [];
  private wanted = new Uint8Array(0);
  private readonly sample: AnimSample = { ...EMPTY_SAMPLE };
  private readonly frame0: BakedFrame = { row0: 0, row1: 0, frac: 0 };
  private readonly frame1: BakedFrame = { row0: 0, row1: 0, frac: 0 };
  /** Live slots written this frame (mixer updates, and slots refilled by swap-remove). */
  private readonly dirty = new Set<number>();
  private dirtyList: number[] = [];
  private nextId = 1;
  private frame = 0;
  private disposed = false;

  constructor(options: CrowdOptions) {
    this.template = options.template;
    this.lod = resolveLod(options.lod);
    this.pathChoice = chooseBonePath(options.device ?? { backend: 'WebGPU' }, options.path ?? 'auto');
    this.baked = bakeClips(this.template, { fps: options.bakeFps, maxRows: options.maxBakedRows });
    this.renderer = new BatchSkinnedRenderer<CrowdAgent>({
      template: this.template,
      baked: this.baked,
      path: this.pathChoice.path,
      liveCapacity: Math.min(32, Math.max(8, this.lod.maxLive)),
      maxLiveCapacity: Math.max(8, this.lod.maxLive),
      instanceCapacity: options.capacity ?? 64,
      castShadow: options.castShadow ?? true,
      receiveShadow: true,
    });
    this.agents = new SlotTable<CrowdAgent>({ channels: { pose: 4 }, capacity: options.capacity ?? 64 });
    this.cullSphere = templateCullSphere(this.template);
    this.stats = {
      template: this.template.name,
      path: this.pathChoice.path,
      pathReason: this.pathChoice.reason,
      pieces: this.template.pieces.length,
      bones: this.template.boneCount,
      drawCallsPerPass: this.renderer.drawCallsPerPass,
      agents: 0,
      visible: 0,
      live: 0,
      baked: 0,
      culled: 0,
      liveUpdates: 0,
      animMs: 0,
      animMsAvg: 0,
      uploadBytes: 0,
      liveBytes: 0,
      instanceBytes: 0,
      gpuBytes: this.renderer.gpuBytes,
      liveCapacity: this.renderer.live.capacity,
      instanceCapacity: this.renderer.instanceCapacity,
      bakedRows: this.baked.plan.rows,
      bakedFps: this.baked.plan.fps,
      grows: 0,
    };
  }

  /** Add this to the scene. */
  get object(): Object3D {
    return this.renderer.object;
  }

  get count(): number {
    return this.agents.count;
  }

  /** Every avatar, in slot order (which changes as avatars are removed). */
  agentList(): CrowdAgent[] {
    return this.agents.members().map((ref) => ref.owner);
  }

  /** Adds an avatar. O(1) amortised. */
  add(options: AddAgentOptions = {}): CrowdAgent {
    if (this.disposed) throw new Error('Crowd.add: this crowd has been disposed');
    const clip = this.template.resolveClip(options.clip ?? this.template.clips[0]!.name);
    const timing = this.template.clips[clip]!;
    const anim = new AnimState(clip, Math.min(options.time ?? 0, timing.duration), options.speed ?? 1);
    const agent = new CrowdAgent(this, this.nextId++, anim);
    agent.ref = this.agents.add(agent);
    agent.setTransform(options.x ?? 0, options.y ?? 0, options.z ?? 0, options.facing ?? 0);
    return agent;
  }

  /** @internal — use `agent.remove()`. */
  removeAgent(agent: CrowdAgent): void {
    if (agent.ref.slot < 0) return;
    this.demote(agent);
    this.agents.remove(agent.ref);
  }

  /** @internal The pose channel (x, y, z, facing per slot). */
  poses(): Float32Array {
    return this.agents.channels.pose!;
  }

  /**
   * Advances every avatar by `dt` seconds, decides live/baked/culled against `camera`, runs the
   * live mixers that are due, and packs and uploads this frame's GPU data. Call once per frame
   * before rendering.
   */
  update(dt: number, camera: Camera): void {
    const start = performance.now();
    const stats = this.stats;
    this.frame++;
    camera.updateMatrixWorld();
    this.projScreen.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    this.frustum.setFromProjectionMatrix(this.projScreen, camera.coordinateSystem);
    this.cameraPosition.setFromMatrixPosition(camera.matrixWorld);

    const n = this.agents.count;
    const refs = this.agents.members();
    const poses = this.agents.channels.pose!;
    const clips = this.template.clips;
    if (this.candidates.length < n) {
      for (let i = this.candidates.length; i < n; i++) this.candidates.push({ distance: 0, visible: false, live: false, dwell: 0 });
      this.wanted = new Uint8Array(this.candidates.length);
    }
    const { center, radius } = this.cullSphere;
    let visible = 0;
    for (let i = 0; i < n; i++) {
      const agent = refs[i]!.owner;
      agent.anim.advance(dt, clips);
      agent.dwell += dt;
      const o = i * 4;
      const x = poses[o]!;
      const y = poses[o + 1]!;
      const z = poses[o + 2]!;
      this.sphere.center.set(x + center.x, y + center.y, z + center.z);
      this.sphere.radius = radius;
      agent.visible = this.frustum.intersectsSphere(this.sphere);
      agent.distance = this.cameraPosition.distanceTo(this.sphere.center);
      if (agent.visible) visible++;
      const c = this.candidates[i]!;
      c.distance = agent.distance;
      c.visible = agent.visible;
      c.live = agent.liveRef !== null;
      c.dwell = agent.dwell;
    }

    planLive(this.candidates, this.lod, this.wanted, n);
    // Demote first so promotions reuse the freed slots instead of growing the buffer.
    for (let i = 0; i < n; i++) {
      const agent = refs[i]!.owner;
      if (!this.wanted[i] && agent.liveRef) this.demote(agent);
    }
    for (let i = 0; i < n; i++) {
      const agent = refs[i]!.owner;
      if (this.wanted[i] && !agent.liveRef) this.promote(agent);
    }

    // Live mixers that are due this frame.
    let liveUpdates = 0;
    const liveRefs = this.renderer.live.members();
    for (let k = 0; k < liveRefs.length; k++) {
      const agent = liveRefs[k]!.owner;
      const interval = liveUpdateInterval(agent.distance, agent.visible, this.lod);
      if (!agent.forceUpdate && !updateDue(this.frame, agent.id, interval)) continue;
      agent.forceUpdate = false;
      agent.skeleton!.pose(agent.anim.sample(this.sample));
      agent.skeleton!.writePose(this.renderer.live.channels.bones!, this.renderer.liveOffset(liveRefs[k]!.slot));
      this.dirty.add(liveRefs[k]!.slot);
      liveUpdates++;
    }

    // Pack the drawn instances.
    this.renderer.reserveInstances(visible);
    const records = this.renderer.instances;
    const layouts = this.baked.plan.clips;
    let k = 0;
    for (let i = 0; i < n; i++) {
      const agent = refs[i]!.owner;
      if (!agent.visible) continue;
      const o = k * INSTANCE_FLOATS;
      const p = i * 4;
      records[o] = poses[p]!;
      records[o + 1] = poses[p + 1]!;
      records[o + 2] = poses[p + 2]!;
      records[o + 3] = poses[p + 3]!;
      if (agent.liveRef) {
        records[o + InstanceField.PreviousWeight] = 0;
        records[o + InstanceField.LiveSlot] = agent.liveRef.slot;
      } else {
        const s = agent.anim.sample(this.sample);
        bakedFrame(layouts[s.clip]!, s.time, this.frame0);
        records[o + InstanceField.Row0] = this.frame0.row0;
        records[o + InstanceField.Row1] = this.frame0.row1;
        records[o + InstanceField.Blend] = this.frame0.frac;
        if (s.previousClip >= 0) {
          bakedFrame(layouts[s.previousClip]!, s.previousTime, this.frame1);
          records[o + InstanceField.PreviousWeight] = 1 - s.weight;
          records[o + InstanceField.PreviousRow0] = this.frame1.row0;
          records[o + InstanceField.PreviousRow1] = this.frame1.row1;
          records[o + InstanceField.PreviousBlend] = this.frame1.frac;
        } else {
          records[o + InstanceField.PreviousWeight] = 0;
        }
        records[o + InstanceField.LiveSlot] = -1;
      }
      k++;
    }
    // Slots past the end (freed by swap-remove) need no upload: the shader never reads them.
    const dirty = this.dirtyList;
    dirty.length = 0;
    for (const slot of this.dirty) if (slot < this.renderer.live.count) dirty.push(slot);
    dirty.sort((a, b) => a - b);
    this.dirty.clear();
    const committed = this.renderer.commit(k, dirty);

    const live = this.renderer.live.count;
    let liveVisible = 0;
    for (let j = 0; j < liveRefs.length; j++) if (liveRefs[j]!.owner.visible) liveVisible++;
    const ms = performance.now() - start;
    stats.agents = n;
    stats.visible = visible;
    stats.live = live;
    stats.baked = visible - liveVisible;
    stats.culled = n - visible;
    stats.liveUpdates = liveUpdates;
    stats.animMs = ms;
    stats.animMsAvg = stats.animMsAvg === 0 ? ms : stats.animMsAvg + 0.1 * (ms - stats.animMsAvg);
    stats.liveBytes = committed.liveBytes;
    stats.instanceBytes = committed.instanceBytes;
    stats.uploadBytes = committed.liveBytes + committed.instanceBytes;
    stats.gpuBytes = this.renderer.gpuBytes;
    stats.liveCapacity = this.renderer.live.capacity;
    stats.instanceCapacity = this.renderer.instanceCapacity;
    stats.grows = this.renderer.live.grows + this.agents.grows + this.renderer.rebuilds;
  }

  /** Removes every avatar. */
  clear(): void {
    for (const agent of this.agentList()) agent.remove();
  }

  dispose(): void {
    if (this.disposed) return;
    this.clear();
    for (const skeleton of this.pool) skeleton.dispose();
    this.pool.length = 0;
    this.renderer.dispose();
    this.disposed = true;
  }

  /** Gives an avatar a live slot and a pooled VirtualSkeleton; no-op when the live buffer is full. */
  private promote(agent: CrowdAgent): void {
    let ref: SlotRef<CrowdAgent>;
    try {
      ref = this.renderer.addLive(agent);
    } catch (error) {
      if (error instanceof RangeError) return;
      throw error;
    }
    agent.liveRef = ref;
    agent.skeleton = this.pool.pop() ?? new VirtualSkeleton(this.template);
    agent.forceUpdate = true;
    agent.dwell = 0;
  }

  private demote(agent: CrowdAgent): void {
    if (!agent.liveRef) return;
    // The last live avatar moves into the freed slot, bone data included: that slot must upload.
    const moved = this.renderer.removeLive(agent.liveRef);
    if (moved) this.dirty.add(moved.slot);
    agent.liveRef = null;
    if (agent.skeleton) this.pool.push(agent.skeleton);
    agent.skeleton = null;
    agent.dwell = 0;
  }
}
