/**
 * Bakes every template clip into the baked-pose table: one row per frame, each row every crowd
 * bone's 3×4 skinning matrix, evaluated by a VirtualSkeleton (the same code the live path uses, so
 * both paths agree). Far avatars then sample these rows in the vertex shader: no mixer, no upload.
 * Done once per template; reports progress for long files. Uses three's animation system only.
 */
import { planBake, bakedFrameTime, type BakePlan } from './baked-layout.ts';
import type { CrowdTemplate } from './template.ts';
import { FLOATS_PER_BONE, VirtualSkeleton } from './virtual-skeleton.ts';

export interface BakedClips {
  plan: BakePlan;
  /** rows × bones × 12 floats. */
  data: Float32Array;
  /** Floats per row. */
  rowStride: number;
}

export interface BakeOptions {
  /** Frames per second to bake at. Default 30. */
  fps?: number;
  /** Most rows the table may have (texture height limit). Default 8192. */
  maxRows?: number;
  /** Called with 0..1 as clips are baked. */
  onProgress?: (fraction: number) => void;
}

export function bakeClips(template: CrowdTemplate, options: BakeOptions = {}): BakedClips {
  const plan = planBake(template.clips, options.fps ?? 30, options.maxRows ?? 8192);
  const rowStride = template.boneCount * FLOATS_PER_BONE;
  const data = new Float32Array(plan.rows * rowStride);
  const skeleton = new VirtualSkeleton(template);
  const sample = { clip: 0, time: 0, previousClip: -1, previousTime: 0, weight: 1 };
  let done = 0;
  try {
    for (const [clipIndex, layout] of plan.clips.entries()) {
      for (let frame = 0; frame < layout.frames; frame++) {
        sample.clip = clipIndex;
        sample.time = bakedFrameTime(layout, frame);
        skeleton.pose(sample);
        skeleton.writePose(data, (layout.startRow + frame) * rowStride);
        done++;
      }
      options.onProgress?.(done / plan.rows);
    }
  } finally {
    skeleton.dispose();
  }
  return { plan, data, rowStride };
}
