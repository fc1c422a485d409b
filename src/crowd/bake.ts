/**
 * Bakes every template clip into the baked-pose table: one row per frame, each row every crowd
 * bone's 3×4 skinning matrix, evaluated by a {@link ClipSampler} (the same code the live path
 * uses, so both paths agree at frame times). The GPU then samples these rows for every avatar
 * without procedural control: no mixer, no per-frame upload. Done once per template; reports
 * progress for long files. The table is kept under a memory budget: half floats by default
 * (24 bytes per bone per frame), and the bake rate drops when a rig's clips would not fit.
 */
import { withDefaults } from '../core/options.ts';
import type { ProgressListener } from '../core/progress.ts';
import { planBake, bakedFrameTime, type BakePlan } from './baked-layout.ts';
import { ClipSampler } from './clip-sampler.ts';
import type { CrowdTemplate } from './template.ts';
import { FLOATS_PER_BONE } from './virtual-skeleton.ts';

/** How the baked table is stored on the GPU. */
export type BakePrecision = 'half' | 'float';

export interface BakedClips {
  plan: BakePlan;
  /** rows × bones × 12 floats (the CPU copy, full precision). */
  data: Float32Array;
  /** Floats per row. */
  rowStride: number;
  /**
   * The same frames as local transforms, rows × chain nodes × 8 floats (rotation quaternion;
   * translation and uniform scale): what a crossfade blends, joint by joint, on the GPU.
   */
  locals: Float32Array;
  /** Chain nodes per row of `locals`. */
  nodes: number;
  /** Per chain node, its parent's index (-1: the root); per crowd bone, its chain node. */
  parents: Int32Array;
  boneNodes: Int32Array;
  /** Inverse bind matrices, row-major 3×4 per bone; and the template's uniform root scale. */
  inverseBinds: Float32Array;
  rootScale: number;
  precision: BakePrecision;
  /** Bytes the tables take on the GPU at their precision. */
  gpuBytes: number;
}

/** Floats per chain node per row of the local-transform table. */
export const LOCAL_FLOATS = 8;

export interface BakeOptions {
  /** Frames per second to bake at. Default 30. */
  fps?: number;
  /** Most rows the table may have (texture height limit). Default 8192. */
  maxRows?: number;
  /** GPU storage: 'half' (16-bit floats, default) or 'float'. */
  precision?: BakePrecision;
  /** Most GPU bytes the table may take; the rate drops to fit. Default {@link DEFAULT_BAKED_BUDGET}. */
  maxBytes?: number;
  /** Hears `done` of `total` rows after each clip is baked, `label` the clip's name. */
  onProgress?: ProgressListener;
}

/** The baked table's budget per rig: 8 MiB (a 64-bone rig: ~5,400 frames, 55 clips of 3.3 s at 30 fps, in half floats). */
export const DEFAULT_BAKED_BUDGET = 8 * 1024 * 1024;

/** Defaults of {@link BakeOptions}: 30 fps, 8192 rows, half floats, {@link DEFAULT_BAKED_BUDGET}. */
export const BAKE_DEFAULTS: Required<Omit<BakeOptions, 'onProgress'>> = {
  fps: 30,
  maxRows: 8192,
  precision: 'half',
  maxBytes: DEFAULT_BAKED_BUDGET,
};

/** GPU bytes of one baked row (every bone's 3×4 matrix and every chain node's local transform) at a precision. */
export function bakedRowBytes(boneCount: number, nodeCount: number, precision: BakePrecision): number {
  return (boneCount * FLOATS_PER_BONE + nodeCount * LOCAL_FLOATS) * (precision === 'half' ? 2 : 4);
}

export function bakeClips(template: CrowdTemplate, options: BakeOptions = {}): BakedClips {
  const { fps, maxRows: rowLimit, precision, maxBytes } = withDefaults(BAKE_DEFAULTS, options);
  const sampler = new ClipSampler(template);
  const flat = sampler.clips;
  const nodes = flat.nodes.length;
  const rowBytes = bakedRowBytes(template.boneCount, nodes, precision);
  const maxRows = Math.min(rowLimit, Math.floor(maxBytes / rowBytes));
  const plan = planBake(template.clips, fps, maxRows);
  const rowStride = template.boneCount * FLOATS_PER_BONE;
  const data = new Float32Array(plan.rows * rowStride);
  const locals = new Float32Array(plan.rows * nodes * LOCAL_FLOATS);
  const sample = { clip: 0, time: 0, previousClip: -1, previousTime: 0, weight: 1 };
  let done = 0;
  for (const [clipIndex, layout] of plan.clips.entries()) {
    for (let frame = 0; frame < layout.frames; frame++) {
      sample.clip = clipIndex;
      sample.time = bakedFrameTime(layout, frame);
      sampler.pose(sample);
      const row = layout.startRow + frame;
      sampler.writePose(data, row * rowStride);
      for (let n = 0; n < nodes; n++) {
        const o = (row * nodes + n) * LOCAL_FLOATS;
        for (let k = 0; k < 4; k++) locals[o + k] = sampler.quaternion[n * 4 + k]!;
        for (let k = 0; k < 3; k++) locals[o + 4 + k] = sampler.position[n * 3 + k]!;
        // Uniform scale (the crossfade blend assumes it; a non-uniform one keeps its x).
        locals[o + 7] = sampler.scale[n * 3]!;
      }
      done++;
    }
    options.onProgress?.({ done, total: plan.rows, label: layout.name });
  }
  return {
    plan,
    data,
    rowStride,
    locals,
    nodes,
    parents: Int32Array.from(flat.parent),
    boneNodes: Int32Array.from(flat.boneNode),
    inverseBinds: Float32Array.from(flat.inverseAffine),
    rootScale: flat.rootAffine[0]!,
    precision,
    gpuBytes: plan.rows * rowBytes,
  };
}
