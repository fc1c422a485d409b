import { ANIMATION_STATES, type AnimationStateName, type AvatarFrame } from '../protocol/frame.ts';
import { Ema } from '../../core/ema.ts';

/** One received pose, on this page's clock. */
export interface PoseSample {
  /** Local ms at which the sender made it (its timestamp mapped through the clock offset). */
  t: number;
  /** The sender's sequence number. */
  seq: number;
  /** East position (m). */
  x: number;
  /** Height (m). */
  y: number;
  /** South position (m). */
  z: number;
  /** Facing in radians, atan2(wx, wz). */
  facing: number;
  /** Ground speed (m/s). */
  speed: number;
  /** Animation state code (index into {@link ANIMATION_STATES}). */
  state: number;
  /** Seconds into the current clip. */
  animTime: number;
}

/** Where a remote avatar is drawn now. */
export interface RemotePose {
  /** East position (m). */
  x: number;
  /** Height (m). */
  y: number;
  /** South position (m). */
  z: number;
  /** Facing in radians, atan2(wx, wz). */
  facing: number;
  /** Ground speed (m/s). */
  speed: number;
  /** The animation state to play. */
  state: AnimationStateName;
  /** True when the pose is predicted past the newest sample (the peer is late). */
  extrapolated: boolean;
}

/** A zeroed pose (idle at the origin) to interpolate into. */
export function createPose(): RemotePose {
  return { x: 0, y: 0, z: 0, facing: 0, speed: 0, state: 'idle', extrapolated: false };
}

const TAU = Math.PI * 2;
function angleDelta(from: number, to: number): number {
  let d = (to - from) % TAU;
  if (d <= -Math.PI) d += TAU;
  else if (d > Math.PI) d -= TAU;
  return d;
}

/** Signed difference of two u32 counters (sequence numbers, ms timestamps) across wrap-around. */
export function u32Delta(from: number, to: number): number {
  return (to - from) | 0;
}

/**
 * One remote peer: a small ring of recent samples on the local clock, from which a pose is
 * interpolated `delay` ms in the past (or briefly extrapolated when the next sample is late).
 *
 * Clock mapping: sender timestamps are mapped to local time with an offset that tracks the
 * smallest (arrival − sent) seen — the fastest path — and creeps up slowly to follow drift. Using
 * the sender's own timing, not arrival times, keeps the spacing of frames that a coalescing relay
 * delivers in bunches.
 */
export class RemotePeer {
  /** Samples, oldest first (a ring of {@link capacity}). */
  private readonly ring: PoseSample[];
  private head = 0;
  private size = 0;
  /** Last sequence number accepted. */
  lastSeq = 0;
  /** Local ms of the last frame from this peer. */
  lastHeard: number;
  /** Local ms a leave arrived, or null. */
  leavingSince: number | null = null;
  /** Moving average of the interval between samples (ms), starting from the nominal 10 Hz. */
  private readonly interval = Object.assign(new Ema(0.2), { value: 100 });
  /** States the renderer has not yet been asked to play, oldest first (see {@link takeStateRequests}). */
  private readonly requests: AnimationStateName[] = [];
  private lastRequestedSeq: number | null = null;
  private lastRequestedState: AnimationStateName | null = null;
  private offset = Number.NaN;
  private lastStamp = 0;
  private unwrapped = 0;
  /** Frames accepted from this peer. */
  frames = 0;

  /** The peer's sender id (stamped by the relay). */
  readonly id: number;
  private readonly capacity: number;

  constructor(id: number, now: number, capacity = 16) {
    this.id = id;
    this.capacity = capacity;
    this.lastHeard = now;
    this.ring = Array.from({ length: capacity }, () => ({ t: 0, seq: 0, x: 0, y: 0, z: 0, facing: 0, speed: 0, state: 0, animTime: 0 }));
  }

  /** Samples held. */
  get samples(): number {
    return this.size;
  }

  /** The newest sample (undefined when empty). */
  newest(): PoseSample | undefined {
    return this.size === 0 ? undefined : this.at(this.size - 1);
  }

  /**
   * Accepts a state frame received at local time `now`. Returns false for a frame that is not
   * newer than the last one (duplicate or out of order: dropped).
   */
  accept(frame: AvatarFrame, now: number): boolean {
    if (this.frames > 0 && u32Delta(this.lastSeq, frame.seq) <= 0) return false;
    // Continuous sender time from the wrapping u32 timestamp.
    this.unwrapped = this.frames === 0 ? frame.timestamp : this.unwrapped + u32Delta(this.lastStamp, frame.timestamp);
    this.lastStamp = frame.timestamp;
    const path = now - this.unwrapped;
    if (Number.isNaN(this.offset) || path < this.offset) this.offset = path;
    else this.offset += (path - this.offset) * 0.02;
    const t = this.unwrapped + this.offset;
    const newest = this.newest();
    if (newest) {
      const gap = t - newest.t;
      if (gap > 0 && gap < 2000) this.interval.push(gap);
    }
    const slot = this.size < this.capacity ? this.at(this.size++) : this.advance();
    slot.t = newest && t < newest.t ? newest.t : t;
    slot.seq = frame.seq;
    slot.x = frame.x;
    slot.y = frame.y;
    slot.z = frame.z;
    slot.facing = frame.facing;
    slot.speed = frame.speed;
    slot.state = frame.animState;
    slot.animTime = frame.animTime;
    this.lastSeq = frame.seq;
    this.lastHeard = now;
    this.leavingSince = null;
    this.frames++;
    return true;
  }

  /** Moving average of the interval between this peer's samples (ms; 100 until measured). */
  get intervalMs(): number {
    return this.interval.value;
  }

  /** The render delay for this peer: `baseDelay`, or more for a peer that updates slowly. */
  delayFor(baseDelay: number): number {
    return Math.max(baseDelay, this.intervalMs * 1.2);
  }

  /**
   * Writes the pose at local time `renderTime` into `out`: interpolated between the samples around
   * it, held at the oldest before it, or extrapolated up to `extrapolateMs` past the newest.
   * Also queues, in order, the animation states of the samples the render time has passed.
   */
  pose(renderTime: number, extrapolateMs: number, out: RemotePose): void {
    const n = this.size;
    if (n === 0) return;
    this.queueStates(renderTime);
    const first = this.at(0);
    if (renderTime <= first.t || n === 1) {
      this.write(out, first, first, 0, false);
      if (n === 1 && renderTime > first.t) out.extrapolated = renderTime - first.t > this.intervalMs * 1.5;
      return;
    }
    const last = this.at(n - 1);
    if (renderTime >= last.t) {
      const before = this.at(n - 2);
      const span = last.t - before.t;
      const ahead = Math.min(renderTime - last.t, extrapolateMs);
      this.write(out, last, last, 0, renderTime - last.t > this.intervalMs * 0.5);
      if (span > 0 && ahead > 0) {
        const k = ahead / span;
        out.x += (last.x - before.x) * k;
        out.y += (last.y - before.y) * k;
        out.z += (last.z - before.z) * k;
      }
      return;
    }
    // Binary search would do; rings are 16 long, a scan from the newest end is as fast.
    let i = n - 2;
    while (i > 0 && this.at(i).t > renderTime) i--;
    const a = this.at(i);
    const b = this.at(i + 1);
    const span = b.t - a.t;
    this.write(out, a, b, span > 0 ? (renderTime - a.t) / span : 1, false);
  }

  /** Moves the queued animation states into `into` (cleared first) and returns it. */
  takeStateRequests(into: AnimationStateName[]): AnimationStateName[] {
    into.length = 0;
    for (const state of this.requests) into.push(state);
    this.requests.length = 0;
    return into;
  }

  /**
   * Queues the animation state of each sample the render time has passed, in order — but only
   * when it differs from the last state *queued* (never from the clip now playing: two samples in
   * one tick, walk then idle, must end in idle). On first sight, only the current state is queued.
   */
  private queueStates(renderTime: number): void {
    if (this.lastRequestedSeq === null) {
      let pick = this.at(0);
      for (let i = 1; i < this.size && this.at(i).t <= renderTime; i++) pick = this.at(i);
      this.request(pick);
      return;
    }
    for (let i = 0; i < this.size; i++) {
      const sample = this.at(i);
      if (sample.t > renderTime) break;
      if (u32Delta(this.lastRequestedSeq, sample.seq) <= 0) continue;
      this.request(sample);
    }
  }

  private request(sample: PoseSample): void {
    this.lastRequestedSeq = sample.seq;
    const state = ANIMATION_STATES[sample.state] ?? 'idle';
    if (state === this.lastRequestedState) return;
    this.lastRequestedState = state;
    this.requests.push(state);
  }

  private write(out: RemotePose, a: PoseSample, b: PoseSample, k: number, extrapolated: boolean): void {
    out.x = a.x + (b.x - a.x) * k;
    out.y = a.y + (b.y - a.y) * k;
    out.z = a.z + (b.z - a.z) * k;
    out.facing = a.facing + angleDelta(a.facing, b.facing) * k;
    out.speed = a.speed + (b.speed - a.speed) * k;
    out.state = ANIMATION_STATES[k < 1 ? a.state : b.state] ?? 'idle';
    out.extrapolated = extrapolated;
  }

  private at(i: number): PoseSample {
    return this.ring[(this.head + i) % this.capacity]!;
  }

  /** Drops the oldest sample and returns its slot (now the newest). */
  private advance(): PoseSample {
    const slot = this.ring[this.head]!;
    this.head = (this.head + 1) % this.capacity;
    return slot;
  }
}
