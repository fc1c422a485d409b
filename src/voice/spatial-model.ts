import type { XYZ } from '../core/math.ts';

/**
 * The spatial model for voices, as numbers (PannerNode settings and the math they imply). Pure.
 *
 * Walking scale: people talk face to face at 1–2 m, call out at 10–20 m, and a voice 40 m away is
 * background. Web Audio's inverse model gives gain = ref / (ref + rolloff·(d − ref)) for
 * d clamped to [ref, maxDistance]:
 * - refDistance 2 m: full level within arm's reach plus a step, so two players standing together
 *   are not loudness-ducked by small movements;
 * - rolloffFactor 1: −6 dB per doubling of distance beyond 2 m, like speech in the open
 *   (4 m −6 dB, 8 m −12 dB, 16 m −18 dB, 32 m −24 dB);
 * - maxDistance 40 m: the inverse curve stops there (−26 dB); beyond it {@link rangeGain} fades the
 *   voice out by 50 m, so far-away chatter does not pile up in the mix.
 * HRTF panning for direction (left/right/front/back cues on headphones); voices are omnidirectional.
 */
export const VOICE_PANNER = {
  /** Direction by head-related transfer functions. */
  panningModel: 'HRTF',
  /** Gain = ref / (ref + rolloff·(d − ref)). */
  distanceModel: 'inverse',
  /** Full level within this distance (m). */
  refDistance: 2,
  /** −6 dB per doubling of distance. */
  rolloffFactor: 1,
  /** Where the inverse curve stops (m); {@link rangeGain} fades beyond. */
  maxDistance: 40,
  /** Voices are omnidirectional: no cone. */
  coneInnerAngle: 360,
  /** Voices are omnidirectional: no cone. */
  coneOuterAngle: 360,
  /** Unused (no cone). */
  coneOuterGain: 0,
} as const satisfies Partial<PannerOptions>;

/** Beyond maxDistance voices fade to nothing over this many metres. */
export const VOICE_FADE_METRES = 10;

/** Gain of the inverse distance model with {@link VOICE_PANNER}'s settings. */
export function inverseDistanceGain(
  distance: number,
  p: { refDistance: number; rolloffFactor: number; maxDistance: number } = VOICE_PANNER,
): number {
  const d = Math.min(Math.max(distance, p.refDistance), p.maxDistance);
  return p.refDistance / (p.refDistance + p.rolloffFactor * (d - p.refDistance));
}

/** Extra gain that fades a voice out between maxDistance and maxDistance + fade. */
export function rangeGain(distance: number, maxDistance: number = VOICE_PANNER.maxDistance, fade = VOICE_FADE_METRES): number {
  if (distance <= maxDistance) return 1;
  if (distance >= maxDistance + fade) return 0;
  return 1 - (distance - maxDistance) / fade;
}

/** Listener orientation for a facing (atan2(wx, wz)): forward = (sin f, 0, cos f), up = +Y. */
export function listenerForward(facing: number): XYZ {
  return { x: Math.sin(facing), y: 0, z: Math.cos(facing) };
}

/** The listener's right-hand direction (forward × up), for placing things "to the right". */
export function listenerRight(facing: number): XYZ {
  return { x: -Math.cos(facing), y: 0, z: Math.sin(facing) };
}

/**
 * Interaural level difference (dB) that proves HRTF panning for a source 1 m to one side of the
 * listener. Before Chrome's HRTF data is loaded an HRTF panner copies its input to both ears
 * (0 dB); once loaded, broadband noise there reads about 12 dB louder on that side (Chromium 150).
 */
export const HRTF_PROBE_MIN_ILD_DB = 3;

/**
 * True when a probe beside the listener is heard panned: one ear louder than the other by
 * {@link HRTF_PROBE_MIN_ILD_DB}. Either ear counts: which side "right" lands on depends on how the
 * context's listener is turned, and a context no one has oriented faces −Z, where Cairn's
 * "right" (for +Z forward) is the listener's left. Only equal ears mean no HRTF.
 */
export function hrtfIsPanning(leftDb: number, rightDb: number): boolean {
  return Math.max(leftDb, rightDb) > -100 && Math.abs(rightDb - leftDb) >= HRTF_PROBE_MIN_ILD_DB;
}
