/**
 * Bakes every template clip into the baked-pose table: one row per frame, each row every crowd
 * bone's 3×4 skinning matrix, evaluated by a {@link ClipSampler} (the same code the live path
 * uses, so both paths agree at frame times). The GPU then samples these rows for every avatar
 * without procedural control: no mixer, no per-frame upload. Done once per template; reports
 * progress for long files. The table is kept under a memory budget: half floats by default
 * (24 bytes per bone per frame), and the bake rate drops when a rig's clips would not fit.
 */
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
  precision: BakePrecision;
  /** Bytes the table takes on the GPU at its precision. */
  gpuBytes: number;
}

export interface BakeOptions {
  /** Frames per second to bake at. Default 30. */
  fps?: number;
  /** Most rows the table may have (texture height limit). Default 8192. */
  maxRows?: number;
  /** GPU storage: 'half' (16-bit floats, default) or 'float'. */
  precision?: BakePrecision;
  /** Most GPU bytes the table may take; the rate drops to fit. Default {@link DEFAULT_BAKED_BUDGET}. */
  maxBytes?: number;
  /** Called with 0..1 as clips are baked. */
  onProgress?: (fraction: number) => void;
}

/** The baked table's budget per rig: 8 MiB (a 64-bone rig: ~5,400 frames, 55 clips of 3.3 s at 30 fps, in half floats). */
export const DEFAULT_BAKED_BUDGET = 8 * 1024 * 1024;

/** GPU bytes of one baked row (every bone's 3×4 matrix) at a precision. */
export function bakedRowBytes(boneCount: number, precision: BakePrecision): number {
  return boneCount * FLOATS_PER_BONE * (precision === 'half' ? 2 : 4);
}

export function bakeClips(template: CrowdTemplate, options: BakeOptions = {}): BakedClips {
  const precision = options.precision ?? 'half';
  const rowBytes = bakedRowBytes(template.boneCount, precision);
  const maxRows = Math.min(options.maxRows ?? 8192, Math.floor((options.maxBytes ?? DEFAULT_BAKED_BUDGET) / rowBytes));
  const plan = planBake(template.clips, options.fps ?? 30, maxRows);
  const rowStride = template.boneCount * FLOATS_PER_BONE;
  const data = new Float32Array(plan.rows * rowStride);
  const sampler = new ClipSampler(template);
  const sample = { clip: 0, time: 0, previousClip: -1, previousTime: 0, weight: 1 };
  let done = 0;
  for (const [clipIndex, layout] of plan.clips.entries()) {
    for (let frame = 0; frame < layout.frames; frame++) {
      sample.clip = clipIndex;
      sample.time = bakedFrameTime(layout, frame);
      sampler.pose(sample);
      sampler.writePose(data, (layout.startRow + frame) * rowStride);
      done++;
    }
    options.onProgress?.(done / plan.rows);
  }
  return { plan, data, rowStride, precision, gpuBytes: plan.rows * rowBytes };
}
