/**
 * The five-second broadcast delay's timeline, as pure state (broadcast-delay.ts drives Web Audio
 * from it). Radio-style: your voice goes out `seconds` late, so an operator can "dump" what was
 * said before anyone hears it.
 *
 * - enable: the direct (bypass) leg fades out and the delayed leg stays shut for `seconds`, so
 *   nothing already heard is repeated: listeners hear a gap, then you, `seconds` late ('building').
 * - dump: the delayed leg shuts at once; everything said before the dump is discarded; audio
 *   resumes `seconds` later with what was said after it ('dumped', with a countdown).
 * - disable: back to the direct leg at once; the delay line's contents are dropped.
 */
export type DelayPhase = 'off' | 'building' | 'on' | 'dumped';

/** The gains a change asks of the two legs. */
export interface DelayLegs {
  /** Target gain of the direct leg. */
  bypass: 0 | 1;
  /** Target gain of the delayed leg, and the time it opens (null: shut, no reopening scheduled). */
  delayedOpensAt: number | null;
}

/** The broadcast delay's timeline as pure state (see {@link DelayPhase}): what each change asks of the legs. */
export class DelaySchedule {
  private enabledValue = false;
  /** Context time the delayed leg opens (enable or dump + seconds). */
  private opensAt = 0;
  /** Whether the current closed stretch comes from a dump (else from enabling). */
  private dumped = false;

  /** The delay (s). */
  readonly seconds: number;

  constructor(seconds = 5) {
    this.seconds = seconds;
    if (!(seconds > 0)) throw new Error(`broadcast delay must be positive, got ${seconds}`);
  }

  /** Whether the delay is on. */
  get enabled(): boolean {
    return this.enabledValue;
  }

  /** Turns the delay on at `now`; returns the legs to apply, or null when it was on. */
  enable(now: number): DelayLegs | null {
    if (this.enabledValue) return null;
    this.enabledValue = true;
    this.opensAt = now + this.seconds;
    this.dumped = false;
    return { bypass: 0, delayedOpensAt: this.opensAt };
  }

  /** Turns the delay off; returns the legs to apply, or null when it was off. */
  disable(_now: number): DelayLegs | null {
    if (!this.enabledValue) return null;
    this.enabledValue = false;
    return { bypass: 1, delayedOpensAt: null };
  }

  /** Returns the legs to apply, or null when the delay is off (nothing to dump). */
  dump(now: number): DelayLegs | null {
    if (!this.enabledValue) return null;
    this.dumped = true;
    this.opensAt = now + this.seconds;
    return { bypass: 0, delayedOpensAt: this.opensAt };
  }

  /** Where the delay stands at `now`. */
  phase(now: number): DelayPhase {
    if (!this.enabledValue) return 'off';
    if (now >= this.opensAt) return 'on';
    return this.dumped ? 'dumped' : 'building';
  }

  /** Seconds until delayed audio is heard again (0 when it is playing or the delay is off). */
  resumesIn(now: number): number {
    return this.enabledValue ? Math.max(0, this.opensAt - now) : 0;
  }
}
