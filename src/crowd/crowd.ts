/**
 * Crowd: many animated characters sharing one template, drawn by a BatchSkinnedRenderer. Every
 * avatar is animated on the GPU — clip, phase, speed and a two-clip crossfade in a 48-byte record,
 * sampled from the baked clips and advanced by one crowd-clock uniform, so a state change uploads
 * one record and a steady avatar uploads nothing. Only avatars under procedural control (look-at,
 * IK, a held item: {@link CrowdAgent.setControl}) and near enough to show it run the live path: a
 * {@link ClipSampler} writes their bones each frame, at a rate that falls with distance. Avatars
 * outside the view frustum are not drawn. Which is which is decided here, with hysteresis:
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
import { withDefaults } from '../core/options.ts';
import { AnimState, type AnimSample, type PlayOptions } from './anim-state.ts';
import { bakeClips, type BakedClips, type BakePrecision } from './bake.ts';
import { BatchSkinnedRenderer } from './batch-skinned-renderer.ts';
import { chooseBonePath, type BonePath, type BonePathChoice, type BonePathDevice } from './bone-path.ts';
import { ClipSampler } from './clip-sampler.ts';
import { ANIM_FLOATS, POSE_FLOATS, writeAnimRecord } from './instance-layout.ts';
import {
  liveUpdateInterval,
  planLive,
  resolveLod,
  updateDue,
  type LodCandidate,
  type LodOptions,
  type ResolvedLodOptions,
} from './lod-policy.ts';
import { SlotTable, type SlotRef } from './slot-table.ts';
import { templateCullSphere, type CrowdTemplate } from './template.ts';
import { VariantTable, type CrowdVariantsOptions } from './variant-table.ts';

/** Options of a {@link Crowd}. */
export interface CrowdOptions {
  /** The character every avatar of this crowd draws (one template per crowd; {@link MixedCrowd} mixes several). */
  template: CrowdTemplate;
  /** The device, to pick the bone path (storage buffer or texture). Default WebGPU. */
  device?: BonePathDevice;
  /** Force a bone path where the device allows it. Default 'auto'. */
  path?: BonePath | 'auto';
  /** Live distances, live budget and update rates for controlled avatars. See {@link LodOptions}. */
  lod?: LodOptions;
  /** Initial avatar capacity (grows by doubling). Default 64. */
  capacity?: number;
  /** Frames per second for baked clips. Default 30. */
  bakeFps?: number;
  /** Most rows of the baked table (the device's texture height limit). Default 8192. */
  maxBakedRows?: number;
  /** Baked table storage. Default 'half' (16-bit floats). */
  bakePrecision?: BakePrecision;
  /** Most GPU bytes for the baked table; the bake rate drops to fit. Default 8 MiB. */
  maxBakedBytes?: number;
  /** Shadows from crowd avatars. Default true. */
  castShadow?: boolean;
  /** Per-avatar colours (0..1 RGB); index 0 keeps the file's colours. Default: none. */
  palette?: ReadonlyArray<readonly [number, number, number]>;
  /** Materials the palette recolours, by name. Default /cloth|shirt|top|jacket|dress|outfit|torso/i. */
  paletteMaterials?: RegExp;
  /**
   * Per-avatar variants of the template (colours by region, build): {@link Crowd.variants} defines
   * them, {@link CrowdAgent.setVariant} wears one; any mix costs no extra draw call. Default none.
   */
  variants?: CrowdVariantsOptions;
}

/** The options after {@link CROWD_DEFAULTS}, with the LOD's own defaults filled in. */
type ResolvedCrowdOptions = Required<Omit<CrowdOptions, 'lod' | 'palette' | 'paletteMaterials' | 'variants'>> &
  Pick<CrowdOptions, 'palette' | 'paletteMaterials' | 'variants'> & { lod: ResolvedLodOptions };

/**
 * Defaults of {@link CrowdOptions} (the template has none; palette, palette materials and variants
 * fall to the batched renderer's and {@link VariantTable}'s own).
 */
export const CROWD_DEFAULTS: Required<Omit<CrowdOptions, 'template' | 'palette' | 'paletteMaterials' | 'variants'>> = {
  device: { backend: 'WebGPU' },
  path: 'auto',
  lod: {},
  capacity: 64,
  bakeFps: 30,
  maxBakedRows: 8192,
  bakePrecision: 'half',
  maxBakedBytes: 8 * 1024 * 1024,
  castShadow: true,
};

function resolveCrowdOptions(options: CrowdOptions): ResolvedCrowdOptions {
  const resolved = withDefaults(CROWD_DEFAULTS, options);
  return {
    ...resolved,
    template: options.template,
    lod: resolveLod(resolved.lod),
    palette: options.palette,
    paletteMaterials: options.paletteMaterials,
    variants: options.variants,
  };
}

/** Where and how a new avatar starts ({@link Crowd.add}). */
export interface AddAgentOptions {
  /** East position of the feet (m). Default 0. */
  x?: number;
  /** Height of the feet (m). Default 0. */
  y?: number;
  /** South position of the feet (m). Default 0. */
  z?: number;
  /** Radians; forward = (sin facing, 0, cos facing). */
  facing?: number;
  /** Clip name; a name the template lacks falls back to its closest match or first clip. */
  clip?: string;
  /** Playback rate. Default 1. */
  speed?: number;
  /** Start time within the clip, seconds. Default 0. */
  time?: number;
  /** Palette entry (0: the file's colours). Default 0. */
  palette?: number;
  /** Variant entry (see {@link Crowd.variants}; 0: the template as authored). Default 0. */
  variant?: number;
}

/** How an avatar is animated: on the GPU from its record, or live (procedural control). */
export type AgentMode = 'live' | 'gpu';

/** Which path an avatar took at the last update: GPU-animated, live, or not drawn. */
export type AgentPath = 'gpu' | 'live' | 'culled';

/** Why an avatar takes its path (the keys of {@link CrowdStats.reasons} are `path: why`). */
export const PATH_REASONS = {
  /** No procedural control: GPU-animated from its record. */
  gpu: 'no procedural control',
  /** Under procedural control but farther than the LOD's live radius: GPU-animated. */
  far: 'control beyond the live radius',
  /** Under procedural control and near, but every live slot is taken: GPU-animated. */
  budget: 'live budget full',
  /** Outside the view frustum and not live: neither drawn nor sampled. */
  culled: 'outside the view',
} as const;

/**
 * Procedural control of one avatar: what makes it live. `apply` runs after its clips are sampled
 * and before its bones are written, and may edit the sampler's local transforms
 * (`sampler.quaternion` etc., nodes by `sampler.clips.nodeIndex(name)`).
 */
export interface LiveControl {
  /** Shown in the HUD and `cairn.stats.crowd.reasons` ('look-at', 'ik', 'held item', 'player'…). */
  reason: string;
  /** Edits the sampled pose before the bones are written. Default none (the avatar is live, its pose the clip's). */
  apply?: (sampler: ClipSampler, agent: CrowdAgent) => void;
}

/** Live figures, published by pages under `cairn.stats.crowd`. */
export interface CrowdStats {
  /** The template's name. */
  template: string;
  /** The bone path in use. */
  path: BonePath;
  /** Why that bone path, in words. */
  pathReason: string;
  /** Geometry pieces of the template (one draw call each per pass). */
  pieces: number;
  /** Bones per avatar. */
  bones: number;
  /** Draw calls per render pass (main view, each shadow map): one per piece. */
  drawCallsPerPass: number;
  /** Avatars in the crowd. */
  agents: number;
  /** Drawn this frame (inside the view frustum). */
  visible: number;
  /** Live avatars (procedural control, bones written on the CPU); includes live ones outside the frustum. */
  live: number;
  /** Drawn and animated on the GPU from their records. */
  gpu: number;
  /** Outside the view frustum and not live: not drawn, not sampled (gpu + live + culled = agents). */
  culled: number;
  /** Avatars per `path: why` (e.g. `gpu: no procedural control`, `live: look-at`, `culled: outside the view`). */
  reasons: Record<string, number>;
  /** Live poses sampled this frame. */
  liveUpdates: number;
  /** Main-thread ms in `update()` this frame, and its EMA. */
  animMs: number;
  /** EMA of {@link animMs}. */
  animMsAvg: number;
  /** Bytes scheduled for upload this frame: live bones + pose records + animation records. */
  uploadBytes: number;
  /** Live bone matrices uploaded this frame (bytes). */
  liveBytes: number;
  /** Pose (16 B) and animation (48 B) records rewritten this frame. */
  instanceBytes: number;
  /** Pose records rewritten this frame (bytes, 16 each). */
  poseBytes: number;
  /** Animation records rewritten this frame (bytes, 48 each). */
  animBytes: number;
  /** GPU memory held by the crowd's buffers, and the baked table's share. */
  gpuBytes: number;
  /** GPU bytes of the baked clip table. */
  bakedBytes: number;
  /** Storage of the baked table: `half` (16-bit) or `float` (32-bit). */
  bakedPrecision: BakePrecision;
  /** Live avatars the live bone buffer holds before it grows. */
  liveCapacity: number;
  /** Avatars the instance records hold before they grow. */
  instanceCapacity: number;
  /** Rows of the baked clip table (one row per baked frame). */
  bakedRows: number;
  /** Frames per second the clips were baked at (lower than asked when the table had to fit its byte or row limit). */
  bakedFps: number;
  /** Clips of the template (baked). */
  clips: number;
  /** Slot-table reallocations and GPU rebuilds so far. */
  grows: number;
}

/** A handle on one crowd avatar. Stays valid (and keeps its identity) however others come and go. */
export class CrowdAgent {
  /** The avatar's id, unique in its crowd. */
  readonly id: number;
  /** @internal */ ref!: SlotRef<CrowdAgent>;
  /** @internal */ liveRef: SlotRef<CrowdAgent> | null = null;
  /** @internal */ sampler: ClipSampler | null = null;
  /** @internal */ readonly anim: AnimState;
  /** @internal */ dwell = Number.POSITIVE_INFINITY;
  /** @internal */ forceUpdate = false;
  /** @internal */ visible = false;
  /** @internal */ distance = 0;
  /** @internal Index in the drawn records, or -1. */ drawIndex = -1;
  /** @internal The pose changed since its record was written. */ poseDirty = true;
  /** @internal AnimState version and live slot the animation record was written with (-2: rewrite). */ recordVersion = -2;
  /** @internal */ recordSlot = -1;
  /** @internal */ controlState: LiveControl | null = null;
  /** @internal */ paletteIndex = 0;
  /** @internal */ variantIndex = 0;
  /** @internal */ pathState: AgentPath = 'culled';
  /** @internal */ why: string = PATH_REASONS.culled;
  private crowd: Crowd | null;

  /** @internal */
  constructor(crowd: Crowd, id: number, anim: AnimState) {
    this.crowd = crowd;
    this.id = id;
    this.anim = anim;
  }

  /** True once the avatar has been taken out of its crowd; its position then reads NaN. */
  get removed(): boolean {
    return this.crowd === null;
  }

  /** East position of the feet (m). */
  get x(): number {
    return this.read(0);
  }

  /** Height of the feet (m). */
  get y(): number {
    return this.read(1);
  }

  /** South position of the feet (m). */
  get z(): number {
    return this.read(2);
  }

  /** Facing in radians; forward = (sin facing, 0, cos facing). */
  get facing(): number {
    return this.read(3);
  }

  /** 'live' or 'gpu' (as of the last update). */
  get mode(): AgentMode {
    return this.liveRef ? 'live' : 'gpu';
  }

  /** 'gpu', 'live' or 'culled' at the last update, and {@link reason} why. */
  get path(): AgentPath {
    return this.pathState;
  }

  /** Why the avatar took its {@link path} (one of {@link PATH_REASONS}, or a live control's reason). */
  get reason(): string {
    return this.why;
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

  /** The procedural control making this avatar live when near, or null. */
  get control(): LiveControl | null {
    return this.controlState;
  }

  /** Palette entry this avatar wears (0: the file's colours). */
  get palette(): number {
    return this.paletteIndex;
  }

  /** Places the avatar (feet position, facing in radians). Cheap: call every frame; no change, no upload. */
  setTransform(x: number, y: number, z: number, facing: number): void {
    const crowd = this.crowd;
    if (!crowd) return;
    const data = crowd.poses();
    const o = this.ref.slot * 4;
    if (data[o] === x && data[o + 1] === y && data[o + 2] === z && data[o + 3] === facing) return;
    data[o] = x;
    data[o + 1] = y;
    data[o + 2] = z;
    data[o + 3] = facing;
    this.poseDirty = true;
  }

  /** Plays a clip by name with a crossfade; asking for the playing clip only updates its speed. */
  play(clip: string, options: PlayOptions = {}): void {
    const crowd = this.crowd;
    if (!crowd) return;
    this.anim.play(crowd.template.resolveClip(clip), options);
  }

  /**
   * Puts the avatar under procedural control (it goes live while visible and within the live
   * radius, budget permitting), or back to pure GPU animation with null.
   */
  setControl(control: LiveControl | null): void {
    this.controlState = control;
    this.dwell = Number.POSITIVE_INFINITY;
  }

  /** Wears palette entry `index` (clamped to the crowd's palette; 0: the file's colours). */
  setPalette(index: number): void {
    const crowd = this.crowd;
    if (!crowd) return;
    const next = Math.max(0, Math.min(crowd.renderer.palette.length - 1, Math.round(index)));
    if (next === this.paletteIndex) return;
    this.paletteIndex = next;
    this.recordVersion = -2;
  }

  /** Variant entry this avatar wears (0: the template as authored). */
  get variant(): number {
    return this.variantIndex;
  }

  /** Wears variant entry `index` (from {@link Crowd.variants}; out of range: 0). */
  setVariant(index: number): void {
    const crowd = this.crowd;
    if (!crowd) return;
    const capacity = crowd.variants?.capacity ?? 1;
    const next = index >= 0 && index < capacity ? Math.round(index) : 0;
    if (next === this.variantIndex) return;
    this.variantIndex = next;
    this.recordVersion = -2;
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

/** Seconds of crowd clock after which record phases are rebased (keeps float32 time precise). */
const EPOCH_SPAN = 256;

/** Many animated characters sharing one {@link CrowdTemplate}, animated on the GPU, live where controlled, culled outside the view (see the file's comment); `object` goes into your scene, `update(dt, camera)` into your loop. */
export class Crowd {
  /** The character every avatar draws. */
  readonly template: CrowdTemplate;
  /** The batched renderer that draws the avatars: one draw call per piece, bone buffers, records. */
  readonly renderer: BatchSkinnedRenderer<CrowdAgent>;
  /** The template's clips baked into one table the GPU samples. */
  readonly baked: BakedClips;
  /** The bone path picked for the device, and why. */
  readonly pathChoice: BonePathChoice;
  /** Live figures, refreshed every {@link update}. */
  readonly stats: CrowdStats;
  /** The template's variants (colours by region and build), when the crowd was made with `variants`; else null. */
  readonly variants: VariantTable | null;
  private readonly lod: ResolvedLodOptions;
  /** Every avatar; channel `pose` holds x, y, z, facing. */
  private readonly agents: SlotTable<CrowdAgent>;
  /** Drawn avatars in record order: `drawn[k].drawIndex === k`. */
  private readonly drawn: CrowdAgent[] = [];
  private readonly pool: ClipSampler[] = [];
  private readonly cullSphere: { center: Vector3; radius: number };
  private readonly frustum = new Frustum();
  private readonly projScreen = new Matrix4();
  private readonly sphere = new Sphere();
  private readonly cameraPosition = new Vector3();
  private candidates: LodCandidate[] = [];
  private controlled: CrowdAgent[] = [];
  private wanted = new Uint8Array(0);
  private readonly sample: AnimSample = { clip: 0, time: 0, previousClip: -1, previousTime: 0, weight: 1 };
  /** Live slots written this frame (live poses, and slots refilled by swap-remove). */
  private readonly dirty = new Set<number>();
  private dirtyList: number[] = [];
  private readonly liveReasons = new Map<string, number>();
  /** Crowd clock (seconds, double) and the epoch the GPU's float clock counts from. */
  private clock = 0;
  private epoch = 0;
  private nextId = 1;
  private frame = 0;
  private disposed = false;

  constructor(options: CrowdOptions) {
    const resolved = resolveCrowdOptions(options);
    this.template = resolved.template;
    this.lod = resolved.lod;
    this.pathChoice = chooseBonePath(resolved.device, resolved.path);
    this.variants = resolved.variants ? new VariantTable(resolved.variants) : null;
    this.baked = bakeClips(this.template, {
      fps: resolved.bakeFps,
      maxRows: resolved.maxBakedRows,
      precision: resolved.bakePrecision,
      maxBytes: resolved.maxBakedBytes,
    });
    this.renderer = new BatchSkinnedRenderer<CrowdAgent>({
      template: this.template,
      baked: this.baked,
      path: this.pathChoice.path,
      liveCapacity: Math.min(32, Math.max(8, this.lod.maxLive)),
      maxLiveCapacity: Math.max(8, this.lod.maxLive),
      instanceCapacity: resolved.capacity,
      castShadow: resolved.castShadow,
      receiveShadow: true,
      palette: resolved.palette,
      paletteMaterials: resolved.paletteMaterials,
      ...(this.variants ? { variants: this.variants } : {}),
    });
    this.agents = new SlotTable<CrowdAgent>({ channels: { pose: 4 }, capacity: resolved.capacity });
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
      gpu: 0,
      culled: 0,
      reasons: {},
      liveUpdates: 0,
      animMs: 0,
      animMsAvg: 0,
      uploadBytes: 0,
      liveBytes: 0,
      instanceBytes: 0,
      poseBytes: 0,
      animBytes: 0,
      gpuBytes: this.renderer.gpuBytes,
      bakedBytes: this.renderer.bakedBytes,
      bakedPrecision: this.baked.precision,
      liveCapacity: this.renderer.live.capacity,
      instanceCapacity: this.renderer.instanceCapacity,
      bakedRows: this.baked.plan.rows,
      bakedFps: this.baked.plan.fps,
      clips: this.template.clips.length,
      grows: 0,
    };
  }

  /** Add this to the scene. */
  get object(): Object3D {
    return this.renderer.object;
  }

  /** Avatars in the crowd. */
  get count(): number {
    return this.agents.count;
  }

  /** Crowd clock: seconds of `update(dt)` so far. */
  get time(): number {
    return this.clock;
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
    agent.poseDirty = true;
    if (options.palette) agent.setPalette(options.palette);
    if (options.variant) agent.setVariant(options.variant);
    return agent;
  }

  /** @internal — use `agent.remove()`. */
  removeAgent(agent: CrowdAgent): void {
    if (agent.ref.slot < 0) return;
    this.demote(agent);
    this.undraw(agent);
    this.agents.remove(agent.ref);
  }

  /** @internal The pose channel (x, y, z, facing per slot). */
  poses(): Float32Array {
    return this.agents.channels.pose!;
  }

  /**
   * Advances the crowd clock and every avatar by `dt` seconds, culls against `camera`, decides
   * which controlled avatars are live, samples the live poses that are due, rewrites the records
   * that changed and schedules their upload. Call once per frame before rendering.
   */
  update(dt: number, camera: Camera): void {
    const start = performance.now();
    const stats = this.stats;
    this.frame++;
    this.clock += dt;
    let rebase = false;
    if (this.clock - this.epoch > EPOCH_SPAN) {
      this.epoch = this.clock;
      rebase = true;
    }
    const gpuClock = this.clock - this.epoch;
    camera.updateMatrixWorld();
    this.projScreen.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    this.frustum.setFromProjectionMatrix(this.projScreen, camera.coordinateSystem);
    this.cameraPosition.setFromMatrixPosition(camera.matrixWorld);

    const n = this.agents.count;
    const refs = this.agents.members();
    const poses = this.agents.channels.pose!;
    const clips = this.template.clips;
    const { center, radius } = this.cullSphere;
    const controlled = this.controlled;
    controlled.length = 0;
    let visible = 0;
    for (let i = 0; i < n; i++) {
      const agent = refs[i]!.owner;
      agent.anim.advance(dt, clips);
      agent.dwell += dt;
      const o = i * 4;
      this.sphere.center.set(poses[o]! + center.x, poses[o + 1]! + center.y, poses[o + 2]! + center.z);
      this.sphere.radius = radius;
      agent.visible = this.frustum.intersectsSphere(this.sphere);
      agent.distance = this.cameraPosition.distanceTo(this.sphere.center);
      if (agent.visible) {
        visible++;
        if (agent.drawIndex < 0) this.draw(agent);
      } else if (agent.drawIndex >= 0) this.undraw(agent);
      if (agent.controlState || agent.liveRef) controlled.push(agent);
    }

    // Live only for controlled avatars near enough to show it (hysteresis, budget: lod-policy.ts).
    const m = controlled.length;
    if (this.candidates.length < m) {
      for (let i = this.candidates.length; i < m; i++) this.candidates.push({ distance: 0, visible: false, live: false, dwell: 0 });
      this.wanted = new Uint8Array(this.candidates.length);
    }
    for (let i = 0; i < m; i++) {
      const agent = controlled[i]!;
      const c = this.candidates[i]!;
      c.distance = agent.distance;
      c.visible = agent.visible;
      c.live = agent.liveRef !== null;
      c.dwell = agent.dwell;
    }
    planLive(this.candidates, this.lod, this.wanted, m);
    for (let i = 0; i < m; i++) {
      const agent = controlled[i]!;
      if ((!this.wanted[i] || !agent.controlState) && agent.liveRef) this.demote(agent);
    }
    for (let i = 0; i < m; i++) {
      const agent = controlled[i]!;
      if (this.wanted[i] && agent.controlState && !agent.liveRef) this.promote(agent);
    }

    // Live poses that are due this frame.
    let liveUpdates = 0;
    const liveRefs = this.renderer.live.members();
    for (let k = 0; k < liveRefs.length; k++) {
      const agent = liveRefs[k]!.owner;
      const interval = liveUpdateInterval(agent.distance, agent.visible, this.lod);
      if (!agent.forceUpdate && !updateDue(this.frame, agent.id, interval)) continue;
      agent.forceUpdate = false;
      const sampler = agent.sampler!;
      sampler.pose(agent.anim.sample(this.sample));
      agent.controlState?.apply?.(sampler, agent);
      sampler.writePose(this.renderer.live.channels.bones!, this.renderer.liveOffset(liveRefs[k]!.slot));
      this.dirty.add(liveRefs[k]!.slot);
      liveUpdates++;
    }

    // Rewrite the records that changed; everything else is already on the GPU.
    const records = this.renderer;
    const poseOut = records.poses;
    const animOut = records.anims;
    const layouts = this.baked.plan.clips;
    for (let k = 0; k < this.drawn.length; k++) {
      const agent = this.drawn[k]!;
      if (agent.poseDirty) {
        const p = agent.ref.slot * 4;
        const o = k * POSE_FLOATS;
        poseOut[o] = poses[p]!;
        poseOut[o + 1] = poses[p + 1]!;
        poseOut[o + 2] = poses[p + 2]!;
        poseOut[o + 3] = poses[p + 3]!;
        agent.poseDirty = false;
        records.markPose(k);
      }
      const slot = agent.liveRef ? agent.liveRef.slot : -1;
      if (rebase || agent.recordVersion !== agent.anim.version || agent.recordSlot !== slot) {
        writeAnimRecord(animOut, k * ANIM_FLOATS, agent.anim, gpuClock, layouts, slot, agent.paletteIndex, agent.variantIndex);
        agent.recordVersion = agent.anim.version;
        agent.recordSlot = slot;
        records.markAnim(k);
      }
    }
    records.setClock(gpuClock);
    // Slots past the end (freed by swap-remove) need no upload: the shader never reads them.
    const dirty = this.dirtyList;
    dirty.length = 0;
    for (const slot of this.dirty) if (slot < this.renderer.live.count) dirty.push(slot);
    dirty.sort((a, b) => a - b);
    this.dirty.clear();
    const committed = this.renderer.commit(this.drawn.length, dirty);

    // Paths and reasons, for the HUD and tests (counted, no per-avatar strings).
    const liveReasons = this.liveReasons;
    liveReasons.clear();
    let liveVisible = 0;
    let plain = 0;
    let far = 0;
    let budget = 0;
    let culled = 0;
    for (let i = 0; i < n; i++) {
      const agent = refs[i]!.owner;
      if (agent.liveRef) {
        agent.pathState = 'live';
        agent.why = agent.controlState?.reason ?? 'control';
        liveReasons.set(agent.why, (liveReasons.get(agent.why) ?? 0) + 1);
        if (agent.visible) liveVisible++;
      } else if (!agent.visible) {
        agent.pathState = 'culled';
        agent.why = PATH_REASONS.culled;
        culled++;
      } else {
        agent.pathState = 'gpu';
        if (!agent.controlState) {
          agent.why = PATH_REASONS.gpu;
          plain++;
        } else if (agent.distance < this.lod.liveEnter) {
          agent.why = PATH_REASONS.budget;
          budget++;
        } else {
          agent.why = PATH_REASONS.far;
          far++;
        }
      }
    }
    const reasons: Record<string, number> = {};
    if (plain) reasons[`gpu: ${PATH_REASONS.gpu}`] = plain;
    if (far) reasons[`gpu: ${PATH_REASONS.far}`] = far;
    if (budget) reasons[`gpu: ${PATH_REASONS.budget}`] = budget;
    for (const [why, count] of liveReasons) reasons[`live: ${why}`] = count;
    if (culled) reasons[`culled: ${PATH_REASONS.culled}`] = culled;
    const ms = performance.now() - start;
    stats.agents = n;
    stats.visible = visible;
    stats.live = this.renderer.live.count;
    stats.gpu = visible - liveVisible;
    stats.culled = culled;
    stats.reasons = reasons;
    stats.liveUpdates = liveUpdates;
    stats.animMs = ms;
    stats.animMsAvg = stats.animMsAvg === 0 ? ms : stats.animMsAvg + 0.1 * (ms - stats.animMsAvg);
    stats.liveBytes = committed.liveBytes;
    stats.poseBytes = committed.poseBytes;
    stats.animBytes = committed.animBytes;
    stats.instanceBytes = committed.poseBytes + committed.animBytes;
    stats.uploadBytes = committed.liveBytes + stats.instanceBytes;
    stats.gpuBytes = this.renderer.gpuBytes;
    stats.liveCapacity = this.renderer.live.capacity;
    stats.instanceCapacity = this.renderer.instanceCapacity;
    stats.grows = this.renderer.live.grows + this.agents.grows + this.renderer.rebuilds;
  }

  /** Removes every avatar. */
  clear(): void {
    for (const agent of this.agentList()) agent.remove();
  }

  /** Removes every avatar and frees the crowd's GPU buffers. Calling it again does nothing. */
  dispose(): void {
    if (this.disposed) return;
    this.clear();
    this.pool.length = 0;
    this.renderer.dispose();
    this.disposed = true;
  }

  /** Appends an avatar to the drawn records (its records are written this frame). */
  private draw(agent: CrowdAgent): void {
    const k = this.drawn.length;
    this.renderer.reserveInstances(k + 1, k);
    this.drawn.push(agent);
    agent.drawIndex = k;
    agent.poseDirty = true;
    agent.recordVersion = -2;
  }

  /** Takes an avatar out of the drawn records; the last drawn one moves into its place. */
  private undraw(agent: CrowdAgent): void {
    const k = agent.drawIndex;
    if (k < 0) return;
    const last = this.drawn.pop()!;
    if (last !== agent) {
      this.drawn[k] = last;
      this.renderer.moveInstance(last.drawIndex, k);
      last.drawIndex = k;
    }
    agent.drawIndex = -1;
  }

  /** Gives an avatar a live slot and a pooled ClipSampler; no-op when the live buffer is full. */
  private promote(agent: CrowdAgent): void {
    let ref: SlotRef<CrowdAgent>;
    try {
      ref = this.renderer.addLive(agent);
    } catch (error) {
      if (error instanceof RangeError) return;
      throw error;
    }
    agent.liveRef = ref;
    agent.sampler = this.pool.pop() ?? new ClipSampler(this.template);
    agent.forceUpdate = true;
    agent.dwell = 0;
  }

  private demote(agent: CrowdAgent): void {
    if (!agent.liveRef) return;
    // The last live avatar moves into the freed slot, bone data included: that slot must upload.
    const moved = this.renderer.removeLive(agent.liveRef);
    if (moved) this.dirty.add(moved.slot);
    agent.liveRef = null;
    if (agent.sampler) this.pool.push(agent.sampler);
    agent.sampler = null;
    agent.dwell = 0;
  }
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** The crowd renderer now in use (replaced when the character model changes). */
    crowd: Crowd;
  }
}
