import { withDefaults } from '../core/options.ts';
import { DelaySchedule, type DelayLegs, type DelayPhase } from './delay-schedule.ts';
import { holdAt } from './push-to-talk.ts';

/** Options of a {@link BroadcastDelay}. */
export interface BroadcastDelayOptions {
  /** Delay, seconds. Default 5. */
  seconds?: number;
  /** Crossfade time constant between the legs, s. Default 0.01 (a click-free 50 ms fade). */
  fadeTau?: number;
  /** Dump time constant, s. Default 0.005: −60 dB after 35 ms, well inside the 50 ms promise. */
  dumpTau?: number;
}

/** Defaults of a {@link BroadcastDelay}: 5 s, a 10 ms crossfade constant, a 5 ms dump constant. */
const BROADCAST_DELAY_DEFAULTS: Required<BroadcastDelayOptions> = { seconds: 5, fadeTau: 0.01, dumpTau: 0.005 };

/**
 * A radio-style broadcast delay near the end of the capture chain: a bypass leg and a DelayNode
 * leg, crossfaded; `dump()` silences the delayed output at once. See delay-schedule.ts for the
 * timeline. Off by default (audio passes straight through the bypass leg).
 */
export class BroadcastDelay {
  /** Where the chain's audio enters. */
  readonly input: GainNode;
  /** Where it leaves, direct or delayed. */
  readonly output: GainNode;
  private readonly bypass: GainNode;
  private readonly line: DelayNode;
  private readonly delayed: GainNode;
  private readonly schedule: DelaySchedule;
  private readonly fadeTau: number;
  private readonly dumpTau: number;

  private readonly context: BaseAudioContext;

  constructor(context: BaseAudioContext, options: BroadcastDelayOptions = {}) {
    this.context = context;
    const resolved = withDefaults(BROADCAST_DELAY_DEFAULTS, options);
    this.schedule = new DelaySchedule(resolved.seconds);
    this.fadeTau = resolved.fadeTau;
    this.dumpTau = resolved.dumpTau;
    this.input = context.createGain();
    this.output = context.createGain();
    this.bypass = context.createGain();
    this.line = context.createDelay(this.schedule.seconds + 1);
    this.line.delayTime.value = this.schedule.seconds;
    this.delayed = context.createGain();
    this.delayed.gain.value = 0;
    this.input.connect(this.bypass).connect(this.output);
    this.input.connect(this.line).connect(this.delayed).connect(this.output);
  }

  /** The delay (s). */
  get seconds(): number {
    return this.schedule.seconds;
  }

  /** Whether the delay is on. */
  get enabled(): boolean {
    return this.schedule.enabled;
  }

  /** Where the delay stands now: off, building, on, or dumped. */
  get phase(): DelayPhase {
    return this.schedule.phase(this.context.currentTime);
  }

  /** Seconds until delayed audio resumes (the HUD's countdown). */
  get resumesIn(): number {
    return this.schedule.resumesIn(this.context.currentTime);
  }

  /** Turns the delay on: the direct leg fades out and delayed audio is heard `seconds` later. */
  enable(): void {
    this.apply(this.schedule.enable(this.context.currentTime), this.fadeTau);
  }

  /** Turns the delay off: back to the direct leg at once. */
  disable(): void {
    this.apply(this.schedule.disable(this.context.currentTime), this.fadeTau);
  }

  /** Turns the delay on or off. */
  setEnabled(on: boolean): void {
    if (on) this.enable();
    else this.disable();
  }

  /** Silences the delayed output now; it resumes `seconds` later. No-op when the delay is off. */
  dump(): void {
    this.apply(this.schedule.dump(this.context.currentTime), this.dumpTau);
  }

  /** Disconnects every node. */
  dispose(): void {
    for (const node of [this.input, this.bypass, this.line, this.delayed, this.output]) node.disconnect();
  }

  private apply(legs: DelayLegs | null, tau: number): void {
    if (!legs) return;
    const now = this.context.currentTime;
    holdAt(this.bypass.gain, now);
    this.bypass.gain.setTargetAtTime(legs.bypass, now, this.fadeTau);
    const wet = this.delayed.gain;
    holdAt(wet, now);
    wet.setTargetAtTime(0, now, tau);
    if (legs.delayedOpensAt !== null) {
      // Open exactly when the first sample captured after `now` reaches the end of the line.
      wet.setValueAtTime(0, legs.delayedOpensAt);
      wet.setTargetAtTime(1, legs.delayedOpensAt, this.fadeTau);
    }
  }
}
