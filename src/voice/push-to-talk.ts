import { withDefaults } from '../core/options.ts';
import { PTT_ATTACK_TAU, PTT_RELEASE_TAU } from './ptt-envelope.ts';

/** 'push-to-talk': silent until pressed. 'open': always sending. */
export type TalkMode = 'push-to-talk' | 'open';

/** Options of a {@link PushToTalk}. */
export interface PushToTalkOptions {
  /** Default 'push-to-talk' (nothing leaves the microphone until you ask). */
  mode?: TalkMode;
  /** Attack time constant, s. Default {@link PTT_ATTACK_TAU} (4 ms). */
  attackTau?: number;
  /** Release time constant, s. Default {@link PTT_RELEASE_TAU} (−60 dB after 0.4 s). */
  releaseTau?: number;
}

/** Defaults of a {@link PushToTalk}: push-to-talk mode, {@link PTT_ATTACK_TAU} and {@link PTT_RELEASE_TAU}. */
const PUSH_TO_TALK_DEFAULTS: Required<PushToTalkOptions> = {
  mode: 'push-to-talk',
  attackTau: PTT_ATTACK_TAU,
  releaseTau: PTT_RELEASE_TAU,
};

/**
 * The push-to-talk gain near the tail of the capture chain. It never touches `track.enabled`: a
 * disabled track restarts the encoder and clips the first syllable, and its on/off is a hard cut.
 * Instead a GainNode ramps with setTargetAtTime — fast up, slow down — and the track keeps
 * sending (silence costs little with Opus).
 */
export class PushToTalk {
  /** The gain that opens and closes the voice. */
  readonly node: GainNode;
  private modeValue: TalkMode;
  private pressedValue = false;
  private readonly attackTau: number;
  private readonly releaseTau: number;

  private readonly context: BaseAudioContext;

  constructor(context: BaseAudioContext, options: PushToTalkOptions = {}) {
    this.context = context;
    ({ mode: this.modeValue, attackTau: this.attackTau, releaseTau: this.releaseTau } = withDefaults(PUSH_TO_TALK_DEFAULTS, options));
    this.node = context.createGain();
    this.node.gain.value = this.modeValue === 'open' ? 1 : 0;
  }

  /** Push-to-talk or open mic. */
  get mode(): TalkMode {
    return this.modeValue;
  }

  /** True while the talk key is held. */
  get pressed(): boolean {
    return this.pressedValue;
  }

  /** True while audio is going out (open mic, or the key is held). */
  get talking(): boolean {
    return this.modeValue === 'open' || this.pressedValue;
  }

  /** Start talking now (key down). Repeated presses are ignored. */
  press(): void {
    if (this.pressedValue) return;
    this.pressedValue = true;
    this.apply();
  }

  /** Stop talking (key up): the gain drains over the release. */
  release(): void {
    if (!this.pressedValue) return;
    this.pressedValue = false;
    this.apply();
  }

  /** Switches between push-to-talk and open mic. */
  setMode(mode: TalkMode): void {
    if (mode === this.modeValue) return;
    this.modeValue = mode;
    this.apply();
  }

  /** Disconnects the gain. */
  dispose(): void {
    this.node.disconnect();
  }

  private apply(): void {
    const param = this.node.gain;
    const now = this.context.currentTime;
    holdAt(param, now);
    if (this.talking) param.setTargetAtTime(1, now, this.attackTau);
    else param.setTargetAtTime(0, now, this.releaseTau);
  }
}

/** Freezes a param at its current value from `time` on, dropping later events (no jump). */
export function holdAt(param: AudioParam, time: number): void {
  if (typeof param.cancelAndHoldAtTime === 'function') param.cancelAndHoldAtTime(time);
  else {
    // Firefox: no cancelAndHoldAtTime; approximate with the current value.
    const value = param.value;
    param.cancelScheduledValues(time);
    param.setValueAtTime(value, time);
  }
}
