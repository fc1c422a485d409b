/**
 * A world client's estimate of the server's clock, and the send moment it gives.
 *
 * Players of a cell send at the cell's moment (`cellSendPhase`) on the server's clock. The client
 * reads that clock from stamped answers — the directory's (`serverTime`) and its cell's answers to
 * `clock` probes — taking each stamp to be mid-way through its round trip, so an estimate is off by
 * at most half its round trip. The cell then refines the moment from what it sees (`timing` notes:
 * how late the frames arrive, one-way delay included), which no round trip can know.
 *
 * Why probes and not only the directory: a client that joins while the server is busy (a burst of
 * players joining, shaders compiling in the page) gets its first answers hundreds of ms late, and
 * the queueing sits on the way in, so the midpoint is wrong by most of it (measured at 144
 * walkers: offsets of +79 ms typical, +356 ms worst, on one machine whose true offset is 0) — the
 * moment is then anywhere in the period, and the cell's notes, at most half a period every eight
 * frames, take seconds to bring a whole cell together while it is busiest. Probing again a second
 * later, and keeping the answer with the shortest round trip, finds a quiet moment; the notes are
 * left the fine tuning.
 *
 * Pure: no sockets, no clock of its own.
 */
import { phaseOf, SEND_PERIOD_MS, signedPhase } from '../protocol/world.ts';

/** An estimate older than this (ms) gives way to any newer one, so a clock that drifts is followed. */
export const CLOCK_STALE_MS = 300_000;
/**
 * A new estimate keeps the cell's refinement when it agrees with the refined offset within its
 * round trip plus this (ms): the refinement holds the one-way delay (up to a whole round trip) and
 * the client's own lateness in sending — a timer or a frame loop a few ms late, which on loopback
 * is more than the round trip. The estimates worth dropping a refinement for are tens of ms off.
 */
const AGREE_SLACK_MS = 10;

export class ServerClock {
  /** The server's clock minus this client's (ms), or null before the first stamped answer. */
  offsetMs: number | null = null;
  /** Round trip of the answer {@link offsetMs} came from (ms): its uncertainty is half of it. */
  rttMs: number | null = null;
  /** How far (ms) the cell's `timing` notes moved the sends, in (−period/2, period/2]. */
  correctionMs = 0;
  /** `timing` notes taken. */
  notes = 0;
  private observedAt = Number.NEGATIVE_INFINITY;
  private readonly periodMs: number;

  constructor(periodMs = SEND_PERIOD_MS) {
    this.periodMs = periodMs;
  }

  /**
   * An answer stamped `serverTime` (server ms), asked at `sentAt` and read at `readAt` (this
   * clock's ms). Kept when its round trip is the shortest so far (or the estimate is stale);
   * returns whether it was. A kept estimate that contradicts the refined one (the old offset plus
   * the notes' correction, beyond what its round trip allows) drops the correction: it was
   * correcting the old estimate's error, which is gone.
   */
  observe(serverTime: unknown, sentAt: number, readAt: number): boolean {
    if (typeof serverTime !== 'number' || !Number.isFinite(serverTime) || !Number.isFinite(sentAt) || !Number.isFinite(readAt))
      return false;
    const rtt = Math.max(0, readAt - sentAt);
    const stale = readAt - this.observedAt > CLOCK_STALE_MS;
    if (this.rttMs !== null && rtt > this.rttMs && !stale) return false;
    const offset = Math.round(serverTime - (sentAt + readAt) / 2);
    if (this.offsetMs !== null) {
      const refined = this.offsetMs + this.correctionMs;
      this.correctionMs = Math.abs(refined - offset) <= rtt + AGREE_SLACK_MS ? signedPhase(refined - offset, this.periodMs) : 0;
    }
    this.offsetMs = offset;
    this.rttMs = rtt;
    this.observedAt = readAt;
    return true;
  }

  /**
   * The cell's word that this client's frames arrive `lateMs` late (typically): move the sends that
   * much earlier. Ignored (false) unless a finite number within half a period.
   */
  note(lateMs: unknown): boolean {
    if (typeof lateMs !== 'number' || !Number.isFinite(lateMs) || Math.abs(lateMs) > this.periodMs / 2) return false;
    this.notes++;
    this.correctionMs = signedPhase(this.correctionMs + lateMs, this.periodMs);
    return true;
  }

  /** The server's time at `localMs` of this clock, as best known (the cell's notes included); null while the offset is unknown. */
  serverTime(localMs: number): number | null {
    return this.offsetMs === null ? null : localMs + this.offsetMs + this.correctionMs;
  }

  /** When, within each period of this clock, to send for a moment `serverPhase` of the server's; null while the offset is unknown. */
  phase(serverPhase: number): number | null {
    return this.offsetMs === null ? null : phaseOf(serverPhase - this.offsetMs - this.correctionMs, this.periodMs);
  }
}
