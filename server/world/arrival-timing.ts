/**
 * How late a world cell's publisher's frames arrive against the cell's send moment
 * (`cellSendPhase`), and when to tell it so.
 *
 * Players line their sends up on their cell's moment so that the cell forwards them in one
 * message per recipient. A client can only guess the moment from the server's clock (one HTTP
 * round trip, easily tens of ms off under load or across the internet), and what matters is not
 * when it sends but when its frames *arrive*, one-way delay included. The cell sees that directly:
 * the arrival time of each binary message. So the cell keeps the last few arrivals of each
 * publisher and, when they are typically more than a few ms off the moment, tells it by how much
 * (`{"type":"timing","lateMs":n}`); the client moves its moment by that. A closed loop: it
 * corrects clock offset, network delay and the client's own scheduling together.
 *
 * **What the cell times is not the raw arrival.** A cell that is behind (its thread busy, on one
 * machine with other cells) reads every frame late by its own backlog, and that backlog comes and
 * goes. Told to publishers, it moves each by whatever the backlog was when its verdict fell, so
 * players that sent together end up apart; apart, they cost the cell more flushes and more sends,
 * and the backlog grows — a state it never left (measured: 144 walkers on one workerd stayed at p50
 * ~220 ms, where lined up they run at ~8 ms). So each frame's arrival is taken back to what it
 * would have been on the quickest path seen lately: the frame carries its sender's timestamp, and
 * arrival − timestamp (clock offset + network delay + backlog) is compared with its minimum over
 * the last few seconds; the excess is queueing, and is taken off. What is left moves only when the
 * sender sends at another moment — which is what the note is for.
 *
 * Pure: no sockets, no clock of its own.
 */
import { signedPhase } from '../../src/net/protocol/world.ts';

/** Arrivals gathered before each verdict (at 10 frames a second, ~0.8 s). */
export const TIMING_SAMPLES = 8;
/** Typical lateness (ms) below which nothing is said. */
export const TIMING_TOLERANCE_MS = 4;
/** Arrivals spread wider than this (ms) are not read at all (see {@link ArrivalTiming.maxSpreadMs}). */
export const TIMING_MAX_SPREAD_MS = 15;

/** How many ms after the moment `phase` (modulo `period`) the time `at` falls, in (−period/2, period/2]. */
export function lateness(at: number, phase: number, period: number): number {
  return signedPhase(at - phase, period);
}

/** `samples` read around their circular mean (so +49 and −49 are 2 ms apart, not 98), sorted. */
function aroundMean(samples: readonly number[], period: number): number[] {
  let sin = 0;
  let cos = 0;
  for (const s of samples) {
    const angle = (2 * Math.PI * s) / period;
    sin += Math.sin(angle);
    cos += Math.cos(angle);
  }
  const centre = (Math.atan2(sin, cos) * period) / (2 * Math.PI);
  return samples.map((s) => centre + lateness(s, centre, period)).sort((a, b) => a - b);
}

/**
 * How late `samples` (each in (−period/2, period/2]) say the sender is: their second earliest,
 * read around their circular mean so that arrivals straddling the half-period mark are read
 * right. The early edge, not the middle: a busy relay or network only ever makes a frame later,
 * so the earliest arrivals carry the least queueing — a median would chase the relay's own
 * backlog. The second, not the first, so that one frame sent off schedule (an animation-state
 * change goes at once) is not taken for the edge.
 */
export function typicalLateness(samples: readonly number[], period: number): number {
  if (samples.length === 0) return 0;
  const around = aroundMean(samples, period);
  return lateness(around[Math.min(1, around.length - 1)]!, 0, period);
}

/**
 * How far apart `samples` are (ms): second latest less second earliest, around their circular
 * mean (one stray frame at either end does not count).
 */
export function arrivalSpread(samples: readonly number[], period: number): number {
  if (samples.length < 4) return 0;
  const around = aroundMean(samples, period);
  return around[around.length - 2]! - around[1]!;
}

/** Frames over which the quickest transit is remembered (two blocks of this; ~3–6 s at 10 Hz). */
export const TRANSIT_BLOCK = 32;
const TWO_32 = 2 ** 32;

/**
 * The quickest transit (arrival − sender timestamp) of one sender's recent frames, in ms relative
 * to its first frame's (the sender's clock is its own, and its timestamps wrap at 2^32 ms). The
 * minimum over the current and the previous block of {@link TRANSIT_BLOCK} frames: O(1) a frame,
 * and it follows a clock that drifts or a path that changes within two blocks.
 */
class QuickestTransit {
  private reference: number | null = null;
  private current = Number.POSITIVE_INFINITY;
  private previous = Number.POSITIVE_INFINITY;
  private count = 0;

  /** Records one frame; returns how much longer than the quickest lately it took (ms, ≥ 0). */
  excess(at: number, sentStamp: number): number {
    const transit = ((((at % TWO_32) - sentStamp) % TWO_32) + TWO_32) % TWO_32;
    this.reference ??= transit;
    // Relative to the first frame's, as a signed 32-bit difference: continuous across the wrap.
    const relative = (transit - this.reference) | 0;
    this.current = Math.min(this.current, relative);
    if (++this.count % TRANSIT_BLOCK === 0) {
      this.previous = this.current;
      this.current = Number.POSITIVE_INFINITY;
    }
    return relative - Math.min(this.current, this.previous);
  }
}

/** One publisher's arrivals in one cell. */
export class ArrivalTiming {
  private readonly samples: number[] = [];
  private readonly transit = new QuickestTransit();

  readonly phase: number;
  readonly period: number;
  readonly samplesPerVerdict: number;
  readonly toleranceMs: number;
  readonly maxSpreadMs: number;

  constructor(
    /** The cell's send moment, ms within each period of the server's clock. */
    phase: number,
    period: number,
    samplesPerVerdict = TIMING_SAMPLES,
    toleranceMs = TIMING_TOLERANCE_MS,
    /**
     * Arrivals further apart than this (ms) say nothing: the relay (or the network) is queueing,
     * and a note would move the sender by the backlog, not by its error — with many cells on one
     * busy machine that chases itself. Default {@link TIMING_MAX_SPREAD_MS}.
     */
    maxSpreadMs = TIMING_MAX_SPREAD_MS,
  ) {
    this.phase = phase;
    this.period = period;
    this.samplesPerVerdict = samplesPerVerdict;
    this.toleranceMs = toleranceMs;
    this.maxSpreadMs = maxSpreadMs;
  }

  /**
   * Records a frame arriving at `at` (server ms since epoch), stamped `sentStamp` by its sender
   * (the frame's u32 timestamp; omitted: the raw arrival is timed, backlog and all). Every
   * {@link samplesPerVerdict} frames, returns how late they typically were (ms; negative: early)
   * when that is beyond the tolerance and they agree (within {@link maxSpreadMs}) — what to tell
   * the publisher — else null.
   */
  record(at: number, sentStamp?: number): number | null {
    const queued = sentStamp === undefined ? 0 : this.transit.excess(at, sentStamp);
    this.samples.push(lateness(at - queued, this.phase, this.period));
    if (this.samples.length < this.samplesPerVerdict) return null;
    const late = typicalLateness(this.samples, this.period);
    const spread = arrivalSpread(this.samples, this.period);
    this.samples.length = 0;
    return Math.abs(late) > this.toleranceMs && spread <= this.maxSpreadMs ? late : null;
  }
}
