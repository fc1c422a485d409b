import { createSoftClipCurve } from './clipper-curve.ts';
import { mixSettings, checkVolume, type BusVolumes, type CompressorSettings, type MixSettings } from './mix-settings.ts';
import type { BusName } from './recipes/recipe.ts';

/**
 * The one mix bus every sound goes through, on any BaseAudioContext:
 *
 *   effects ┐  (each input: trim × volume)
 *   music   ├→ high-pass 35 Hz → compressor → low-pass (paused: muffled) → makeup ×2.25 ┐
 *   ambience┘                                                                          ├→ master → limiter → soft clipper → out
 *   ui ────────────────────────────────────────────────────────────────────────────────┘
 *
 * `out` feeds the speakers and the level meter. Mute fades master to exactly 0.
 */
export class MixBus {
  /** The settings the bus was built with. */
  readonly settings: MixSettings;
  /** Where each kind of sound enters; their gains are the bus volumes. */
  readonly inputs: Record<BusName, GainNode>;
  /** The rumble high-pass at the head of the chain. */
  readonly highpass: BiquadFilterNode;
  /** The glue compressor. */
  readonly compressor: DynamicsCompressorNode;
  /** The low-pass that muffles the world while paused. */
  readonly lowpass: BiquadFilterNode;
  /** Makeup gain after the compressor. */
  readonly makeup: GainNode;
  /** The master gain (volume and mute). */
  readonly master: GainNode;
  /** The brick-wall limiter. */
  readonly limiter: DynamicsCompressorNode;
  /** The soft clipper at the end. */
  readonly clipper: WaveShaperNode;
  /** The end of the chain (the soft clipper): connect speakers and meters here. */
  readonly output: AudioNode;
  private volumes: BusVolumes;
  private mutedValue = false;
  private muffledValue = false;

  /** The context the bus's nodes live on. */
  readonly context: BaseAudioContext;

  constructor(context: BaseAudioContext, settings: Partial<MixSettings> = {}, destination: AudioNode | null = context.destination) {
    this.context = context;
    const s = (this.settings = mixSettings(settings));
    this.volumes = { ...s.volumes };
    const gain = (value: number): GainNode => {
      const node = context.createGain();
      node.gain.value = value;
      return node;
    };
    this.inputs = {
      effects: gain(s.trims.effects * s.volumes.effects),
      music: gain(s.trims.music * s.volumes.music),
      ambience: gain(s.trims.ambience * s.volumes.ambience),
      ui: gain(s.trims.ui * s.volumes.ui),
    };
    this.highpass = context.createBiquadFilter();
    this.highpass.type = 'highpass';
    this.highpass.frequency.value = s.highpassHz;
    this.highpass.Q.value = Math.SQRT1_2;
    this.compressor = compressor(context, s.compressor);
    this.lowpass = context.createBiquadFilter();
    this.lowpass.type = 'lowpass';
    this.lowpass.frequency.value = Math.min(s.lowpassOpenHz, context.sampleRate / 2);
    this.lowpass.Q.value = Math.SQRT1_2;
    this.makeup = gain(s.makeupGain);
    this.master = gain(s.volumes.master);
    this.limiter = compressor(context, s.limiter);
    this.clipper = context.createWaveShaper();
    this.clipper.curve = createSoftClipCurve(8193, s.clipper);
    this.clipper.oversample = s.clipper.oversample;
    this.output = this.clipper;

    this.inputs.effects.connect(this.highpass);
    this.inputs.music.connect(this.highpass);
    this.inputs.ambience.connect(this.highpass);
    this.highpass.connect(this.compressor).connect(this.lowpass).connect(this.makeup).connect(this.master);
    this.inputs.ui.connect(this.master);
    this.master.connect(this.limiter).connect(this.clipper);
    if (destination) this.clipper.connect(destination);
  }

  /** True while muted (the master faded to 0). */
  get muted(): boolean {
    return this.mutedValue;
  }

  /** True while the world's buses are muffled (paused). */
  get muffled(): boolean {
    return this.muffledValue;
  }

  /** A bus's volume as the user set it. */
  getVolume(bus: keyof BusVolumes): number {
    return this.volumes[bus];
  }

  /** Sets a bus volume (0…2) with a short glide so a slider does not zipper. */
  setVolume(bus: keyof BusVolumes, value: number): void {
    if (!(bus in this.volumes)) throw new RangeError(`unknown bus "${bus}"; buses: ${Object.keys(this.volumes).join(', ')}`);
    this.volumes[bus] = checkVolume(bus, value);
    if (bus === 'master') this.applyMaster(0.02);
    else this.inputs[bus].gain.setTargetAtTime(this.settings.trims[bus] * this.volumes[bus], this.context.currentTime, 0.01);
  }

  /**
   * Mute fades master linearly to exactly 0 over `muteRampSeconds` (then the limiter and clipper see
   * silence and output exact zeros); unmute fades back to the master volume.
   */
  setMuted(muted: boolean, immediate = false): void {
    this.mutedValue = muted;
    this.applyMaster(immediate ? 0 : this.settings.muteRampSeconds);
  }

  /** Sweeps the low-pass down (paused: the world muffled behind the menu) or back open. UI sounds bypass it. */
  setMuffled(muffled: boolean, immediate = false): void {
    this.muffledValue = muffled;
    const target = Math.min(muffled ? this.settings.lowpassMuffledHz : this.settings.lowpassOpenHz, this.context.sampleRate / 2);
    const param = this.lowpass.frequency;
    const now = this.context.currentTime;
    param.cancelScheduledValues(now);
    if (immediate) param.setValueAtTime(target, now);
    else {
      param.setValueAtTime(param.value, now);
      param.setTargetAtTime(target, now, this.settings.lowpassSweepSeconds);
    }
  }

  /** Disconnects every node of the bus. */
  dispose(): void {
    for (const node of [
      ...Object.values(this.inputs),
      this.highpass,
      this.compressor,
      this.lowpass,
      this.makeup,
      this.master,
      this.limiter,
      this.clipper,
    ])
      node.disconnect();
  }

  private applyMaster(ramp: number): void {
    const target = this.mutedValue ? 0 : this.volumes.master;
    const param = this.master.gain;
    const now = this.context.currentTime;
    param.cancelScheduledValues(now);
    if (ramp <= 0) {
      param.setValueAtTime(target, now);
      return;
    }
    param.setValueAtTime(param.value, now);
    param.linearRampToValueAtTime(target, now + ramp);
  }
}

function compressor(context: BaseAudioContext, s: CompressorSettings): DynamicsCompressorNode {
  const node = context.createDynamicsCompressor();
  node.threshold.value = s.threshold;
  node.ratio.value = s.ratio;
  node.knee.value = s.knee;
  node.attack.value = s.attack;
  node.release.value = s.release;
  return node;
}
