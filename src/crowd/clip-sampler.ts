/**
 * The crowd's own animation sampler: a template's clips flattened once into typed arrays (key
 * times and values per node and property), sampled straight into a bone buffer slot. No
 * AnimationMixer, no Object3D clone, no property bindings: a live avatar is a handful of
 * Float64Arrays (local position, rotation and scale per node, and world matrices), and a pose is
 * one pass over the bones' parent chain.
 *
 * It reproduces what three's mixer does for the crowd's use (one or two clips, explicit times,
 * linear/discrete/glTF cubic-spline keys read at their values): positions and scales blend
 * linearly, rotations by slerp, and a node a clip does not animate contributes its bind value,
 * exactly as three's PropertyMixer mixes with the original state. `tests/unit/crowd/clip-sampler.test.ts`
 * checks it against {@link VirtualSkeleton} (the mixer) for a plain clip and mid-crossfade.
 * Between `pose()` and `writePose()` a caller may edit the local transforms (look-at, IK, a held
 * item): that is what the live path is for. Uses three's math types only to read the template.
 */
import { InterpolateDiscrete, PropertyBinding, type KeyframeTrack, type Object3D } from 'three';
import type { AnimSample } from './anim-state.ts';
import type { CrowdTemplate } from './template.ts';
import { FLOATS_PER_BONE } from './virtual-skeleton.ts';

/** One property track of one node, flattened. */
interface FlatTrack {
  times: Float32Array;
  values: Float32Array;
  /** Offset of key 0's value, and floats between consecutive keys (3 × size for cubic splines). */
  valueOffset: number;
  valueStride: number;
  discrete: boolean;
  /**
   * Rotation tracks: per key interval, slerp's angle, 1 / sin(angle) (0: lerp and normalise, as
   * three does for nearly equal keys) and the hemisphere sign — computed once, so a sample costs
   * two sines instead of a square root, an arctangent and two sines.
   */
  slerp: Float64Array | null;
}

/** Per clip, per chain node: its position, rotation and scale tracks (null: not animated). */
interface FlatClip {
  position: Array<FlatTrack | null>;
  quaternion: Array<FlatTrack | null>;
  scale: Array<FlatTrack | null>;
  /** The same tracks as one list: property (0 position, 1 rotation, 2 scale), node, track. */
  list: Array<{ property: 0 | 1 | 2; node: number; track: FlatTrack }>;
}

/** What every sampler of one template shares: the node chain, bind values, inverse binds, tracks. */
export class FlatClips {
  /** Parent-first nodes the bones depend on (not the root), and each one's parent index (-1: root). */
  readonly nodes: string[];
  /** Parent index of each node in {@link nodes} (-1: the root). */
  readonly parent: Int32Array;
  /** Bind-pose local transforms: 3, 4 and 3 numbers per node. */
  readonly bindPosition: Float64Array;
  /** Bind-pose rotations (4 numbers per node, x y z w). */
  readonly bindQuaternion: Float64Array;
  /** Bind-pose scales (3 numbers per node). */
  readonly bindScale: Float64Array;
  /** Index in the chain of each crowd bone. */
  readonly boneNode: Int32Array;
  /** Root scale and inverse bind matrices, row-major 3×4. */
  readonly rootAffine: Float64Array;
  /** Inverse bind matrix of each crowd bone, row-major 3×4 (12 numbers per bone). */
  readonly inverseAffine: Float64Array;
  /** Each clip's tracks per chain node, in the template's clip order. */
  readonly clips: FlatClip[];
  /** Tracks that name a node outside the bones' chain, or an object path (ignored). */
  readonly ignoredTracks: number;

  constructor(template: CrowdTemplate) {
    const root = template.object;
    const needed = new Set<Object3D>();
    for (const bone of template.bones) for (let n: Object3D | null = bone; n && n !== root; n = n.parent) needed.add(n);
    const chain: Object3D[] = [];
    root.traverse((node) => {
      if (needed.has(node)) chain.push(node);
    });
    const indexOf = new Map(chain.map((node, i) => [node, i]));
    this.nodes = chain.map((node) => node.name);
    this.parent = Int32Array.from(chain, (node) => (node.parent && node.parent !== root ? indexOf.get(node.parent)! : -1));
    this.bindPosition = new Float64Array(chain.length * 3);
    this.bindQuaternion = new Float64Array(chain.length * 4);
    this.bindScale = new Float64Array(chain.length * 3);
    chain.forEach((node, i) => {
      node.position.toArray(this.bindPosition, i * 3);
      node.quaternion.toArray(this.bindQuaternion, i * 4);
      node.scale.toArray(this.bindScale, i * 3);
    });
    this.boneNode = Int32Array.from(template.bones, (bone) => indexOf.get(bone)!);
    this.rootAffine = toAffine([template.rootMatrix.elements]);
    this.inverseAffine = toAffine(template.boneInverses.map((m) => m.elements));

    let ignored = 0;
    this.clips = template.clips.map(({ clip }) => {
      const flat: FlatClip = { position: chain.map(() => null), quaternion: chain.map(() => null), scale: chain.map(() => null), list: [] };
      for (const track of clip.tracks) {
        const parsed = PropertyBinding.parseTrackName(track.name);
        const node = parsed.objectName ? undefined : (PropertyBinding.findNode(root, parsed.nodeName) as Object3D | undefined);
        const index = node ? indexOf.get(node) : undefined;
        const property = parsed.propertyName as 'position' | 'quaternion' | 'scale';
        if (index === undefined || !(property in flat)) {
          ignored++;
          continue;
        }
        flat[property][index] = flatten(track, property === 'quaternion' ? 4 : 3);
      }
      for (const [property, key] of (['position', 'quaternion', 'scale'] as const).entries()) {
        flat[key].forEach((track, node) => {
          if (track) flat.list.push({ property: property as 0 | 1 | 2, node, track });
        });
      }
      return flat;
    });
    this.ignoredTracks = ignored;
  }

  /** Chain index of a node by name (for procedural control), or -1. */
  nodeIndex(name: string): number {
    return this.nodes.indexOf(name);
  }
}

function flatten(track: KeyframeTrack, size: number): FlatTrack {
  const times = Float32Array.from(track.times);
  const values = Float32Array.from(track.values);
  // glTF CUBICSPLINE keys store (in-tangent, value, out-tangent) per key; the value is the middle.
  const cubic = values.length === times.length * size * 3;
  const valueOffset = cubic ? size : 0;
  const valueStride = cubic ? size * 3 : size;
  let slerp: Float64Array | null = null;
  if (size === 4 && times.length > 1) {
    slerp = new Float64Array((times.length - 1) * 3);
    for (let k = 0; k < times.length - 1; k++) {
      const i0 = valueOffset + k * valueStride;
      const i1 = i0 + valueStride;
      const cos =
        values[i0]! * values[i1]! +
        values[i0 + 1]! * values[i1 + 1]! +
        values[i0 + 2]! * values[i1 + 2]! +
        values[i0 + 3]! * values[i1 + 3]!;
      const dir = cos >= 0 ? 1 : -1;
      const sqrSin = 1 - cos * cos;
      if (sqrSin > Number.EPSILON) {
        const sin = Math.sqrt(sqrSin);
        slerp[k * 3] = Math.atan2(sin, cos * dir);
        slerp[k * 3 + 1] = 1 / sin;
      }
      slerp[k * 3 + 2] = dir;
    }
  }
  return { times, values, valueOffset, valueStride, discrete: track.getInterpolation() === InterpolateDiscrete, slerp };
}

const cache = new WeakMap<CrowdTemplate, FlatClips>();

/** The flattened clips of a template, built once and shared by every sampler. */
export function flatClips(template: CrowdTemplate): FlatClips {
  let flat = cache.get(template);
  if (!flat) {
    flat = new FlatClips(template);
    cache.set(template, flat);
  }
  return flat;
}

/**
 * One live avatar's pose: local transforms per chain node, filled by {@link ClipSampler.pose}
 * (editable before {@link ClipSampler.writePose}), and the scratch for world matrices.
 */
export class ClipSampler {
  /** The template's flattened clips this sampler reads. */
  readonly clips: FlatClips;
  /** Local transforms per chain node (see {@link FlatClips.nodes}): 3, 4 and 3 numbers each. */
  readonly position: Float64Array;
  /** Local rotations per chain node, 4 numbers each (x y z w). */
  readonly quaternion: Float64Array;
  /** Local scales per chain node, 3 numbers each. */
  readonly scale: Float64Array;
  private readonly world: Float64Array;
  /** Both clips' samples during a crossfade. */
  private readonly blendA: { position: Float64Array; quaternion: Float64Array; scale: Float64Array };
  private readonly blendB: { position: Float64Array; quaternion: Float64Array; scale: Float64Array };
  /** Last key interval per track of the current and previous clip, and which clips they are for. */
  private readonly hintsA: Int32Array;
  private readonly hintsB: Int32Array;
  private hintClip = -1;
  private hintPrevious = -1;

  constructor(template: CrowdTemplate) {
    this.clips = flatClips(template);
    const n = this.clips.nodes.length;
    this.position = new Float64Array(n * 3);
    this.quaternion = new Float64Array(n * 4);
    this.scale = new Float64Array(n * 3);
    this.world = new Float64Array(n * 12);
    const set = (): { position: Float64Array; quaternion: Float64Array; scale: Float64Array } => ({
      position: new Float64Array(n * 3),
      quaternion: new Float64Array(n * 4),
      scale: new Float64Array(n * 3),
    });
    this.blendA = set();
    this.blendB = set();
    const tracks = Math.max(0, ...this.clips.clips.map((clip) => clip.list.length));
    this.hintsA = new Int32Array(tracks);
    this.hintsB = new Int32Array(tracks);
  }

  /**
   * Samples the blend of up to two clips at explicit times into the local transforms. Every node
   * starts from its bind value (so what a procedural control edited last frame does not linger);
   * only animated properties are sampled, each from the key interval it used last time when
   * time has not left it (the usual case, frame to frame), else by binary search.
   */
  pose(sample: AnimSample): void {
    const flat = this.clips;
    const current = flat.clips[sample.clip];
    const previous = sample.previousClip >= 0 && sample.weight < 1 ? flat.clips[sample.previousClip] : undefined;
    if (sample.clip !== this.hintClip) {
      this.hintsA.fill(0);
      this.hintClip = sample.clip;
    }
    if (!previous) {
      this.position.set(flat.bindPosition);
      this.quaternion.set(flat.bindQuaternion);
      this.scale.set(flat.bindScale);
      if (current) this.sampleClip(current, sample.time, this.position, this.quaternion, this.scale, this.hintsA);
      return;
    }
    if (sample.previousClip !== this.hintPrevious) {
      this.hintsB.fill(0);
      this.hintPrevious = sample.previousClip;
    }
    const w = sample.weight;
    const a = this.blendA;
    const b = this.blendB;
    a.position.set(flat.bindPosition);
    a.quaternion.set(flat.bindQuaternion);
    a.scale.set(flat.bindScale);
    b.position.set(flat.bindPosition);
    b.quaternion.set(flat.bindQuaternion);
    b.scale.set(flat.bindScale);
    if (current) this.sampleClip(current, sample.time, a.position, a.quaternion, a.scale, this.hintsA);
    this.sampleClip(previous, sample.previousTime, b.position, b.quaternion, b.scale, this.hintsB);
    // previous → current by the weight: lerp positions and scales, slerp rotations.
    for (let i = 0; i < this.position.length; i++) this.position[i] = b.position[i]! + (a.position[i]! - b.position[i]!) * w;
    for (let i = 0; i < this.scale.length; i++) this.scale[i] = b.scale[i]! + (a.scale[i]! - b.scale[i]!) * w;
    for (let n = 0; n < this.quaternion.length; n += 4) slerp(b.quaternion, n, a.quaternion, n, w, this.quaternion, n);
  }

  private sampleClip(
    clip: FlatClip,
    time: number,
    position: Float64Array,
    quaternion: Float64Array,
    scale: Float64Array,
    hints: Int32Array,
  ): void {
    const list = clip.list;
    for (let k = 0; k < list.length; k++) {
      const entry = list[k]!;
      if (entry.property === 1) sampleTrack(entry.track, time, 4, quaternion, entry.node * 4, hints, k);
      else sampleTrack(entry.track, time, 3, entry.property === 0 ? position : scale, entry.node * 3, hints, k);
    }
  }

  /**
   * Writes every crowd bone's skinning matrix (`world × boneInverse`, with the template's root
   * scale in front) as 3 rows × 4 floats at `target[offset…]`. Returns the floats written.
   * Affine-only arithmetic, inlined, no allocation: this runs for every live avatar every frame.
   */
  writePose(target: Float32Array, offset: number): number {
    const flat = this.clips;
    const world = this.world;
    const parent = flat.parent;
    const root = flat.rootAffine;
    const pos = this.position;
    const quat = this.quaternion;
    const scl = this.scale;
    for (let i = 0; i < parent.length; i++) {
      const qx = quat[i * 4]!;
      const qy = quat[i * 4 + 1]!;
      const qz = quat[i * 4 + 2]!;
      const qw = quat[i * 4 + 3]!;
      const sx = scl[i * 3]!;
      const sy = scl[i * 3 + 1]!;
      const sz = scl[i * 3 + 2]!;
      const x2 = qx + qx;
      const y2 = qy + qy;
      const z2 = qz + qz;
      const xx = qx * x2;
      const xy = qx * y2;
      const xz = qx * z2;
      const yy = qy * y2;
      const yz = qy * z2;
      const zz = qz * z2;
      const wx = qw * x2;
      const wy = qw * y2;
      const wz = qw * z2;
      const l00 = (1 - (yy + zz)) * sx;
      const l01 = (xy - wz) * sy;
      const l02 = (xz + wy) * sz;
      const l10 = (xy + wz) * sx;
      const l11 = (1 - (xx + zz)) * sy;
      const l12 = (yz - wx) * sz;
      const l20 = (xz - wy) * sx;
      const l21 = (yz + wx) * sy;
      const l22 = (1 - (xx + yy)) * sz;
      const px = pos[i * 3]!;
      const py = pos[i * 3 + 1]!;
      const pz = pos[i * 3 + 2]!;
      const parentIndex = parent[i]!;
      const m = parentIndex < 0 ? root : world;
      const mo = parentIndex < 0 ? 0 : parentIndex * 12;
      const o = i * 12;
      for (let r = 0; r < 3; r++) {
        const a0 = m[mo + r * 4]!;
        const a1 = m[mo + r * 4 + 1]!;
        const a2 = m[mo + r * 4 + 2]!;
        const a3 = m[mo + r * 4 + 3]!;
        world[o + r * 4] = a0 * l00 + a1 * l10 + a2 * l20;
        world[o + r * 4 + 1] = a0 * l01 + a1 * l11 + a2 * l21;
        world[o + r * 4 + 2] = a0 * l02 + a1 * l12 + a2 * l22;
        world[o + r * 4 + 3] = a0 * px + a1 * py + a2 * pz + a3;
      }
    }
    const inverse = flat.inverseAffine;
    const bones = flat.boneNode;
    let out = offset;
    for (let bone = 0; bone < bones.length; bone++) {
      const wo = bones[bone]! * 12;
      const io = bone * 12;
      for (let r = 0; r < 3; r++) {
        const a0 = world[wo + r * 4]!;
        const a1 = world[wo + r * 4 + 1]!;
        const a2 = world[wo + r * 4 + 2]!;
        const a3 = world[wo + r * 4 + 3]!;
        target[out++] = a0 * inverse[io]! + a1 * inverse[io + 4]! + a2 * inverse[io + 8]!;
        target[out++] = a0 * inverse[io + 1]! + a1 * inverse[io + 5]! + a2 * inverse[io + 9]!;
        target[out++] = a0 * inverse[io + 2]! + a1 * inverse[io + 6]! + a2 * inverse[io + 10]!;
        target[out++] = a0 * inverse[io + 3]! + a1 * inverse[io + 7]! + a2 * inverse[io + 11]! + a3;
      }
    }
    return out - offset;
  }

  /** Floats one {@link writePose} writes. */
  get poseFloats(): number {
    return this.clips.boneNode.length * FLOATS_PER_BONE;
  }
}

/** Samples a track at `time` (clamped to its keys, as three's interpolants do) into out[o…]; `hints[h]` caches the key interval. */
function sampleTrack(track: FlatTrack, time: number, size: number, out: Float64Array, o: number, hints: Int32Array, h: number): void {
  const { times, values, valueOffset, valueStride } = track;
  const last = times.length - 1;
  if (last <= 0 || time <= times[0]!) {
    for (let k = 0; k < size; k++) out[o + k] = values[valueOffset + k]!;
    return;
  }
  if (time >= times[last]!) {
    for (let k = 0; k < size; k++) out[o + k] = values[valueOffset + last * valueStride + k]!;
    return;
  }
  let lo = hints[h]!;
  let hi = lo + 1;
  if (!(hi <= last && times[lo]! <= time && time < times[hi]!)) {
    if (hi + 1 <= last && times[hi]! <= time && time < times[hi + 1]!) {
      lo = hi;
      hi = lo + 1;
    } else {
      // Binary search for the key interval holding `time`.
      lo = 0;
      hi = last;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (times[mid]! <= time) lo = mid;
        else hi = mid;
      }
    }
    hints[h] = lo;
  }
  const v0 = valueOffset + lo * valueStride;
  if (track.discrete) {
    for (let k = 0; k < size; k++) out[o + k] = values[v0 + k]!;
    return;
  }
  const v1 = valueOffset + hi * valueStride;
  const t = (time - times[lo]!) / (times[hi]! - times[lo]!);
  if (size === 4) slerpKeys(track, lo, v0, v1, t, out, o);
  else for (let k = 0; k < size; k++) out[o + k] = values[v0 + k]! + (values[v1 + k]! - values[v0 + k]!) * t;
}

/** Slerp between two keys with the interval's precomputed angle (three's slerpFlat, term for term). */
function slerpKeys(track: FlatTrack, interval: number, i0: number, i1: number, t: number, out: Float64Array, o: number): void {
  const values = track.values;
  const x0 = values[i0]!;
  const y0 = values[i0 + 1]!;
  const z0 = values[i0 + 2]!;
  const w0 = values[i0 + 3]!;
  const x1 = values[i1]!;
  const y1 = values[i1 + 1]!;
  const z1 = values[i1 + 2]!;
  const w1 = values[i1 + 3]!;
  if (t <= 0 || (x0 === x1 && y0 === y1 && z0 === z1 && w0 === w1)) {
    out[o] = x0;
    out[o + 1] = y0;
    out[o + 2] = z0;
    out[o + 3] = w0;
    return;
  }
  const table = track.slerp!;
  const len = table[interval * 3]!;
  const invSin = table[interval * 3 + 1]!;
  const dir = table[interval * 3 + 2]!;
  let s = 1 - t;
  let u = t;
  if (invSin > 0) {
    s = Math.sin(s * len) * invSin;
    u = Math.sin(u * len) * invSin;
  }
  const ud = u * dir;
  let x = x0 * s + x1 * ud;
  let y = y0 * s + y1 * ud;
  let z = z0 * s + z1 * ud;
  let w = w0 * s + w1 * ud;
  if (invSin === 0) {
    const f = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
    x *= f;
    y *= f;
    z *= f;
    w *= f;
  }
  out[o] = x;
  out[o + 1] = y;
  out[o + 2] = z;
  out[o + 3] = w;
}

/** Quaternion slerp along the shorter arc, as three's Quaternion.slerpFlat. */
function slerp(src0: Float64Array, i0: number, src1: Float64Array, i1: number, t: number, out: Float64Array, o: number): void {
  let x0 = src0[i0]!;
  let y0 = src0[i0 + 1]!;
  let z0 = src0[i0 + 2]!;
  let w0 = src0[i0 + 3]!;
  const x1 = src1[i1]!;
  const y1 = src1[i1 + 1]!;
  const z1 = src1[i1 + 2]!;
  const w1 = src1[i1 + 3]!;
  if (t <= 0) {
    out[o] = x0;
    out[o + 1] = y0;
    out[o + 2] = z0;
    out[o + 3] = w0;
    return;
  }
  if (t >= 1) {
    out[o] = x1;
    out[o + 1] = y1;
    out[o + 2] = z1;
    out[o + 3] = w1;
    return;
  }
  if (w0 !== w1 || x0 !== x1 || y0 !== y1 || z0 !== z1) {
    let s = 1 - t;
    const cos = x0 * x1 + y0 * y1 + z0 * z1 + w0 * w1;
    const dir = cos >= 0 ? 1 : -1;
    const sqrSin = 1 - cos * cos;
    if (sqrSin > Number.EPSILON) {
      const sin = Math.sqrt(sqrSin);
      const len = Math.atan2(sin, cos * dir);
      s = Math.sin(s * len) / sin;
      t = Math.sin(t * len) / sin;
    }
    const tDir = t * dir;
    x0 = x0 * s + x1 * tDir;
    y0 = y0 * s + y1 * tDir;
    z0 = z0 * s + z1 * tDir;
    w0 = w0 * s + w1 * tDir;
    if (s === 1 - t) {
      const f = 1 / Math.sqrt(x0 * x0 + y0 * y0 + z0 * z0 + w0 * w0);
      x0 *= f;
      y0 *= f;
      z0 *= f;
      w0 *= f;
    }
  }
  out[o] = x0;
  out[o + 1] = y0;
  out[o + 2] = z0;
  out[o + 3] = w0;
}

/** Row-major 3×4 affine parts of column-major 4×4 matrices, 12 numbers each. */
function toAffine(matrices: ArrayLike<number>[]): Float64Array {
  const out = new Float64Array(matrices.length * 12);
  matrices.forEach((e, i) => {
    for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) out[i * 12 + r * 4 + c] = e[c * 4 + r]!;
  });
  return out;
}
