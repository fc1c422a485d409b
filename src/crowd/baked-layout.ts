/**
 * Where each clip's baked frames live in the baked-pose table, and which two frames (and what
 * blend between them) a time falls on. The table has one row per baked frame; a row holds every
 * bone's 3×4 skinning matrix. Pure logic: no three.js, no DOM.
 */
import type { ClipTiming } from './anim-state.ts';

export interface BakedClipLayout extends ClipTiming {
  name: string;
  /** First row of this clip in the table. */
  startRow: number;
  /** Rows (frames) this clip occupies; the first is t = 0, the last t = duration. */
  frames: number;
}

export interface BakePlan {
  clips: BakedClipLayout[];
  rows: number;
  /** Frames per second actually used (lowered from the request when the table would not fit). */
  fps: number;
}

/** A time resolved to two table rows and the blend between them. */
export interface BakedFrame {
  row0: number;
  row1: number;
  /** Blend towards row1, 0..1. */
  frac: number;
}

/**
 * Lays clips out one after another at `fps`. When the total would exceed `maxRows` (a texture
 * dimension limit), the rate drops until it fits and the plan says so in `fps`.
 */
export function planBake(clips: ReadonlyArray<ClipTiming & { name: string }>, fps = 30, maxRows = 8192): BakePlan {
  if (!(fps > 0)) throw new RangeError(`planBake: fps must be positive, got ${fps}`);
  if (clips.length === 0) throw new RangeError('planBake: no clips to bake');
  const framesAt = (rate: number): number[] =>
    clips.map((clip) => (clip.duration > 0 ? Math.max(2, Math.round(clip.duration * rate) + 1) : 1));
  let rate = fps;
  let frames = framesAt(rate);
  let total = frames.reduce((a, b) => a + b, 0);
  if (total > maxRows) {
    const minimum = clips.reduce((sum, clip) => sum + (clip.duration > 0 ? 2 : 1), 0);
    if (minimum > maxRows)
      throw new RangeError(`planBake: ${clips.length} clips need at least ${minimum} rows, more than the ${maxRows} available`);
    // Shrink until it fits; each step is small so the rate stays as high as possible.
    while (total > maxRows) {
      rate *= Math.max(0.5, Math.min(0.98, maxRows / total));
      frames = framesAt(rate);
      total = frames.reduce((a, b) => a + b, 0);
    }
  }
  let row = 0;
  const layouts = clips.map((clip, i) => {
    const layout: BakedClipLayout = { name: clip.name, duration: clip.duration, loop: clip.loop, startRow: row, frames: frames[i]! };
    row += frames[i]!;
    return layout;
  });
  return { clips: layouts, rows: row, fps: rate };
}

/** Seconds of the clip at which frame `frame` was baked. */
export function bakedFrameTime(layout: BakedClipLayout, frame: number): number {
  return layout.frames > 1 ? (frame / (layout.frames - 1)) * layout.duration : 0;
}

/**
 * The two rows around `time` (already wrapped or clamped into the clip) and the blend between
 * them. Frames sit at even spacing including both ends, so t = duration is exactly the last row.
 */
export function bakedFrame(layout: BakedClipLayout, time: number, out: BakedFrame = { row0: 0, row1: 0, frac: 0 }): BakedFrame {
  if (layout.frames <= 1 || !(layout.duration > 0)) {
    out.row0 = out.row1 = layout.startRow;
    out.frac = 0;
    return out;
  }
  const position = Math.min(Math.max(time / layout.duration, 0), 1) * (layout.frames - 1);
  const frame = Math.min(Math.floor(position), layout.frames - 2);
  out.row0 = layout.startRow + frame;
  out.row1 = out.row0 + 1;
  out.frac = position - frame;
  return out;
}
