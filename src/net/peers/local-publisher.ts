import { withDefaults } from '../../core/options.ts';
import { animationCode, createFrame, encodeFrame, FRAME_BYTES, FrameFlag, FrameKind } from '../protocol/frame.ts';
import { signedPhase } from '../protocol/world.ts';

/** The local player's pose, as the publisher reads it each rendered frame. */
export interface LocalPose {
  /** East position of the feet (m). */
  x: number;
  /** Height of the feet (m). */
  y: number;
  /** South position of the feet (m). */
  z: number;
  /** atan2(wx, wz). */
  facing: number;
  /** m/s. */
  speed: number;
  /** Generic animation state (idle, walk, run, jump, swim, wave, dance). */
  state: string;
  /** Seconds into the current clip. Default 0. */
  animTime?: number;
}

/** Options of a {@link LocalPublisher}. */
export interface LocalPublisherOptions {
  /** Regular frames per second. Default 10. */
  rateHz?: number;
  /**
   * Shortest gap between two frames (ms), also for state-change frames, so a flickering state can
   * never push a client past the relay's rate cap (30/s). Default 1000 / 30.
   */
  minIntervalMs?: number;
  /** Wall clock for the frame timestamp (ms). Default Date.now. */
  clock?: () => number;
  /**
   * Send only every n-th regular frame to peers outside the sender's own world cell: the others
   * carry {@link FrameFlag.nearOnly}. 2 halves the rate to neighbouring cells; 1 (default) sends
   * every frame everywhere. State-change frames always go everywhere. Which frames: those whose
   * {@link moment} number is a multiple of n, else every n-th by sequence number.
   */
  farRateDivisor?: number;
  /**
   * The number of the shared send moment a regular frame leaving at `now` (poll's clock) belongs
   * to, asked at every regular frame; null: none known. The open world gives its cell's
   * (`WorldTransport.sendMoment`): every player of a cell then sends its reduced-rate frames to the
   * neighbouring cells in the same periods, so their watchers get one message every n periods
   * holding everyone's, instead of one every period holding a share — measured at 144 walkers,
   * × 0.60–0.65 of the messages into clients. Default: none (frames are counted by sequence number,
   * each player on its own parity).
   */
  moment?: (now: number) => number | null;
  /**
   * Where in each period regular frames should leave, in the clock of {@link LocalPublisher.poll}'s
   * `now` (ms modulo the period), asked at every regular frame; null: anywhere. The open world
   * gives its cell's moment (`WorldTransport.sendPhase`), so a cell's players send together and
   * the cell forwards them in one message. A new phase moves the schedule at the next frame, by
   * at most half a period either way. Default: none.
   */
  phase?: () => number | null;
}

/** Defaults of a {@link LocalPublisher}: 10 frames a second, at most 30, `Date.now`, every frame everywhere, no moment or phase. */
const LOCAL_PUBLISHER_DEFAULTS: Required<Omit<LocalPublisherOptions, 'moment' | 'phase'>> = {
  rateHz: 10,
  minIntervalMs: 1000 / 30,
  clock: Date.now,
  farRateDivisor: 1,
};

/**
 * Decides when the local player sends and writes the frame: at `rateHz`, and at once when the
 * animation state changes (a jump should not wait up to 100 ms). Reuses one 36-byte buffer — the
 * transports copy what they send. States version 1 cannot carry are sent as idle (counted).
 */
export class LocalPublisher {
  /** Regular frames per second; may be changed while running. */
  rateHz: number;
  /** Shortest gap between two frames (ms), state-change frames included. */
  readonly minIntervalMs: number;
  /** Every n-th regular frame goes to neighbouring cells too; the rest carry {@link FrameFlag.nearOnly}. */
  readonly farRateDivisor: number;
  /** Frames written so far (also the last sequence number used). */
  seq = 0;
  /** Frames sent because the state changed (the rest are regular). */
  changeFrames = 0;
  /** States the wire format has no code for (sent as idle). */
  unknownStates = 0;
  private readonly clock: () => number;
  private readonly phase: (() => number | null) | null;
  private readonly moment: ((now: number) => number | null) | null;
  private readonly bytes = new Uint8Array(FRAME_BYTES);
  private readonly frame = createFrame();
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private nextDue = Number.NEGATIVE_INFINITY;
  private lastState: number | null = null;

  constructor(options: LocalPublisherOptions = {}) {
    const resolved = withDefaults(LOCAL_PUBLISHER_DEFAULTS, options);
    this.rateHz = resolved.rateHz;
    this.minIntervalMs = resolved.minIntervalMs;
    this.clock = resolved.clock;
    this.farRateDivisor = Math.max(1, Math.floor(resolved.farRateDivisor));
    this.phase = options.phase ?? null;
    this.moment = options.moment ?? null;
    if (!(this.rateHz > 0)) throw new RangeError(`LocalPublisher: rateHz must be > 0, got ${this.rateHz}`);
  }

  /** When (poll's clock, ms) the next regular frame is due; −Infinity before the first. */
  get nextDueAt(): number {
    return this.nextDue;
  }

  /**
   * Call every rendered frame with the pose and local time `now` (ms). Returns the encoded frame
   * when one is due (valid until the next call), else null.
   */
  poll(pose: LocalPose, now: number): Uint8Array | null {
    let code = animationCode(pose.state);
    if (code < 0) code = 0;
    const since = now - this.lastSentAt;
    const changed = this.lastState !== null && code !== this.lastState;
    const due = now >= this.nextDue;
    if (!(due || changed) || since < this.minIntervalMs) return null;
    if (animationCode(pose.state) < 0) this.unknownStates++;
    if (changed && !due) this.changeFrames++;
    const period = 1000 / this.rateHz;
    // Keep the average cadence: the next regular frame is one period after the last due time,
    // unless we fell more than a period behind (a stalled tab), then one period from now. A
    // state-change frame leaves the regular schedule alone.
    if (due) this.nextDue = this.aligned(now - this.nextDue < period ? this.nextDue + period : now + period, period);
    this.lastSentAt = now;
    this.lastState = code;
    const f = this.frame;
    f.kind = FrameKind.state;
    f.seq = ++this.seq >>> 0;
    f.senderId = 0; // the relay (or the channel transport) stamps the id
    f.flags = !changed && this.farRateDivisor > 1 && !this.farFrame(now, f.seq) ? FrameFlag.nearOnly : 0;
    f.x = pose.x;
    f.y = pose.y;
    f.z = pose.z;
    f.facing = pose.facing;
    f.speed = pose.speed;
    f.animState = code;
    f.animTime = pose.animTime ?? 0;
    f.timestamp = this.clock() % 0x100000000;
    encodeFrame(f, this.bytes, 0);
    return this.bytes;
  }

  /** Whether the regular frame numbered `seq`, leaving at `now`, is one of the reduced-rate frames that also go to neighbouring cells. */
  private farFrame(now: number, seq: number): boolean {
    const moment = this.moment?.(now);
    const count = typeof moment === 'number' && Number.isFinite(moment) ? moment : seq;
    return ((count % this.farRateDivisor) + this.farRateDivisor) % this.farRateDivisor === 0;
  }

  /** `next` moved to the nearest moment of the wanted phase (at most half a period), if there is one. */
  private aligned(next: number, period: number): number {
    const phase = this.phase?.();
    if (phase === null || phase === undefined || !Number.isFinite(phase)) return next;
    return next + signedPhase(phase - next, period);
  }
}
