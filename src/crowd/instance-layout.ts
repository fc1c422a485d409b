/**
 * The per-instance records the crowd shader reads, kept in draw order on the GPU and rewritten
 * only when something changes. Two buffers, so an avatar that walks uploads its 16-byte pose and
 * one that changes clip uploads its 48-byte animation record; one that does neither uploads
 * nothing, because clip time advances on the GPU from one crowd-clock uniform:
 *
 * pose, 4 floats (16 B): position x, y, z, facing (radians, atan2(wx, wz)).
 *
 * animation, 12 floats (48 B):
 *
 * | vec4 | x              | y                  | z               | w                                |
 * |------|----------------|--------------------|-----------------|----------------------------------|
 * | 0    | clip           | phase (s)          | speed           | live slot, or -1 (GPU animation) |
 * | 1    | previous clip  | previous phase (s) | previous speed  | palette index (0: the file's colours) |
 * | 2    | fade start (s) | 1 / fade seconds (0: no fade) | variant index (0: the template as authored; variant-table.ts) | 0 |
 *
 * A clip's time at crowd clock `T` is `phase + T × speed`, wrapped (looping clips) or clamped
 * (one-shots) to its duration; the crossfade weight is smoothstep((T − fadeStart) / fade).
 * {@link recordClipFrame} and {@link recordWeight} are the shader's arithmetic in JavaScript, so
 * unit tests hold the record to {@link AnimState} and {@link bakedFrame}. Pure: no three.js.
 */
import { clipTime, type AnimState } from './anim-state.ts';
import type { BakedClipLayout, BakedFrame } from './baked-layout.ts';

export const POSE_FLOATS = 4;
export const ANIM_FLOATS = 12;
/** Bytes an avatar can upload in one frame: a new pose and a new animation record. */
export const RECORD_BYTES = (POSE_FLOATS + ANIM_FLOATS) * 4;

export const AnimField = {
  Clip: 0,
  Phase: 1,
  Speed: 2,
  LiveSlot: 3,
  PreviousClip: 4,
  PreviousPhase: 5,
  PreviousSpeed: 6,
  Palette: 7,
  FadeStart: 8,
  FadeRate: 9,
  Variant: 10,
} as const;
/** An index into an animation record (see {@link AnimField}). */
export type AnimField = (typeof AnimField)[keyof typeof AnimField];

/**
 * Writes an avatar's animation record for crowd clock `clock` (seconds since the crowd's epoch).
 * Phases are wrapped into the clip for looping clips, so precision does not decay with the clock.
 */
export function writeAnimRecord(
  out: Float32Array,
  offset: number,
  anim: AnimState,
  clock: number,
  clips: ReadonlyArray<BakedClipLayout>,
  liveSlot: number,
  palette: number,
  variant = 0,
): void {
  const current = clips[anim.clip]!;
  out[offset + AnimField.Clip] = anim.clip;
  out[offset + AnimField.Phase] = phaseAt(anim.time, anim.speed, clock, current);
  out[offset + AnimField.Speed] = anim.speed;
  out[offset + AnimField.LiveSlot] = liveSlot;
  out[offset + AnimField.Palette] = palette;
  out[offset + AnimField.Variant] = variant;
  out[offset + 11] = 0;
  const fading = anim.previousClip >= 0 && anim.fadeDuration > 0 && anim.fadeElapsed < anim.fadeDuration;
  if (fading) {
    const previous = clips[anim.previousClip]!;
    out[offset + AnimField.PreviousClip] = anim.previousClip;
    out[offset + AnimField.PreviousPhase] = phaseAt(anim.previousTime, anim.previousSpeed, clock, previous);
    out[offset + AnimField.PreviousSpeed] = anim.previousSpeed;
    out[offset + AnimField.FadeStart] = clock - anim.fadeElapsed;
    out[offset + AnimField.FadeRate] = 1 / anim.fadeDuration;
  } else {
    out[offset + AnimField.PreviousClip] = -1;
    out[offset + AnimField.PreviousPhase] = 0;
    out[offset + AnimField.PreviousSpeed] = 0;
    out[offset + AnimField.FadeStart] = 0;
    out[offset + AnimField.FadeRate] = 0;
  }
}

function phaseAt(time: number, speed: number, clock: number, clip: BakedClipLayout): number {
  const phase = time - clock * speed;
  return clip.loop && clip.duration > 0 ? clipTime(phase, clip) : phase;
}

/** The shader's clip time and baked rows for one clip of a record at clock `clock`. */
export function recordClipFrame(
  clip: BakedClipLayout,
  phase: number,
  speed: number,
  clock: number,
  out: BakedFrame = { row0: 0, row1: 0, frac: 0 },
): BakedFrame {
  const duration = clip.duration;
  const t = phase + clock * speed;
  const time = duration > 0 ? (clip.loop ? t - Math.floor(t / duration) * duration : Math.min(Math.max(t, 0), duration)) : 0;
  const u = duration > 0 ? Math.min(Math.max(time / duration, 0), 1) : 0;
  const position = u * (clip.frames - 1);
  const frame = Math.min(Math.floor(position), Math.max(clip.frames - 2, 0));
  out.row0 = clip.startRow + frame;
  out.row1 = Math.min(out.row0 + 1, clip.startRow + clip.frames - 1);
  out.frac = Math.min(Math.max(position - frame, 0), 1);
  return out;
}

/** The shader's weight of the current clip (1 when no fade runs). */
export function recordWeight(fadeStart: number, fadeRate: number, clock: number): number {
  if (!(fadeRate > 0)) return 1;
  const s = Math.min(Math.max((clock - fadeStart) * fadeRate, 0), 1);
  return s * s * (3 - 2 * s);
}

/**
 * Merges sorted record indices into upload ranges: runs closer than `maxGap` records join (one
 * bigger write beats two calls), and past `maxRanges` everything from the first to the last
 * index goes as one range. Returns [start, end) pairs, flattened.
 */
export function mergeRanges(sorted: ArrayLike<number>, count: number, maxGap = 4, maxRanges = 16, out: number[] = []): number[] {
  out.length = 0;
  if (count === 0) return out;
  let start = sorted[0]!;
  let end = start + 1;
  for (let i = 1; i < count; i++) {
    const index = sorted[i]!;
    if (index < end) continue;
    if (index - end <= maxGap) end = index + 1;
    else {
      out.push(start, end);
      start = index;
      end = index + 1;
    }
  }
  out.push(start, end);
  if (out.length / 2 > maxRanges) {
    const last = out[out.length - 1]!;
    out.length = 0;
    out.push(sorted[0]!, last);
  }
  return out;
}
