import { AudioRandom } from './audio-random.ts';
import { ENVELOPE_FLOOR, STOP_MARGIN, type Layer, type NoiseFilter, type WaveType } from './layers.ts';

/** Seconds of white noise in the shared buffer. */
export const NOISE_SECONDS = 4;
/** Mixed into the seed of the noise buffer's own sequence. */
const NOISE_SEED_SALT = 0x6e6f6973;

/** Where in the shared noise a noise layer reads, and how fast: drawn from the seeded sequence. */
export interface NoiseDraw {
  /** Playback rate of the noise buffer. */
  rate: number;
  /** Seconds into the noise buffer the layer starts reading. */
  offset: number;
}

/** The nodes one building-block call made, so a voice can fade and stop them. */
export interface ScheduledSound {
  /** The call's source node (oscillator or buffer source). */
  source: AudioScheduledSourceNode;
  /** Every node of the call, source first, for disconnecting after it ends. */
  nodes: AudioNode[];
  /** Audio time the source stops. */
  stop: number;
}

/**
 * The two building blocks every sound is made of, on any BaseAudioContext (live or offline):
 * `tone` — an oscillator gliding exponentially under a short envelope from and to 0.0001 — and
 * `noiseHit` — the one shared white-noise buffer from a random offset at rate 0.8–1.2 through a
 * swept filter. Each call makes short-lived nodes that disconnect themselves when they end.
 */
export class Synth {
  /** The shared noise: {@link NOISE_SECONDS} of white noise, filled once from the seed's own noise sequence. */
  readonly noise: AudioBuffer;

  /** The context the synth's nodes live on. */
  readonly context: BaseAudioContext;
  private readonly random: AudioRandom;
  /** Where calls without a destination go. */
  public output: AudioNode;

  constructor(
    context: BaseAudioContext,
    random: AudioRandom,
    /** Where calls without a destination go. */
    output: AudioNode = context.destination,
  ) {
    this.context = context;
    this.random = random;
    this.output = output;
    const length = Math.round(NOISE_SECONDS * context.sampleRate);
    this.noise = context.createBuffer(1, length, context.sampleRate);
    // From its own sequence of the same seed, so the noise does not depend on what was played
    // before the graph was built: a live graph and an offline render with one seed share it, and
    // `setSeed()` replays a live sound exactly as an offline render plays it.
    const noiseRandom = new AudioRandom((random.seed ^ NOISE_SEED_SALT) >>> 0);
    const data = this.noise.getChannelData(0);
    for (let i = 0; i < length; i++) data[i] = noiseRandom.next() * 2 - 1;
  }

  /** An oscillator of `type` gliding f0 → f1 Hz, starting at audio time `t`. */
  tone(
    type: WaveType,
    f0: number,
    f1: number,
    t: number,
    attack: number,
    decay: number,
    peak: number,
    destination: AudioNode = this.output,
    pan = 0,
  ): ScheduledSound {
    const ctx = this.context;
    const osc = ctx.createOscillator();
    osc.type = type;
    const end = t + attack + decay;
    osc.frequency.setValueAtTime(f0, t);
    if (f1 !== f0) osc.frequency.exponentialRampToValueAtTime(f1, end);
    const gain = this.envelope(t, attack, decay, peak);
    osc.connect(gain);
    const nodes: AudioNode[] = [osc, gain];
    this.route(gain, destination, pan, nodes);
    const stop = end + STOP_MARGIN;
    osc.start(t);
    osc.stop(stop);
    return this.autoRelease({ source: osc, nodes, stop });
  }

  /** The shared noise from a random offset at a random rate (0.8–1.2) through a filter swept f0 → f1 Hz. */
  noiseHit(
    filter: NoiseFilter,
    f0: number,
    f1: number,
    q: number,
    t: number,
    attack: number,
    decay: number,
    peak: number,
    destination: AudioNode = this.output,
    pan = 0,
    draw: NoiseDraw = this.drawNoise(attack, decay),
  ): ScheduledSound {
    const ctx = this.context;
    const source = ctx.createBufferSource();
    source.buffer = this.noise;
    const { rate, offset } = draw;
    source.playbackRate.value = rate;
    const biquad = ctx.createBiquadFilter();
    biquad.type = filter;
    biquad.Q.value = q;
    const end = t + attack + decay;
    biquad.frequency.setValueAtTime(f0, t);
    if (f1 !== f0) biquad.frequency.exponentialRampToValueAtTime(f1, end);
    const gain = this.envelope(t, attack, decay, peak);
    source.connect(biquad).connect(gain);
    const nodes: AudioNode[] = [source, biquad, gain];
    this.route(gain, destination, pan, nodes);
    const stop = end + STOP_MARGIN;
    source.start(t, offset);
    source.stop(stop);
    return this.autoRelease({ source, nodes, stop });
  }

  /** A noise layer's rate (0.8–1.2) and offset into the shared noise, from the seeded sequence. */
  drawNoise(attack: number, decay: number): NoiseDraw {
    const rate = this.random.range(0.8, 1.2);
    const length = attack + decay + STOP_MARGIN;
    return { rate, offset: this.random.range(0, Math.max(0, this.noise.duration - length * rate - 0.01)) };
  }

  /** The noise draws of planned layers, in layer order (null for tones): what {@link renderLayers} would draw. */
  drawLayers(layers: readonly Layer[]): (NoiseDraw | null)[] {
    return layers.map((l) => (l.kind === 'noise' ? this.drawNoise(l.attack, l.decay) : null));
  }

  /**
   * Plays planned layers from audio time `when` into `destination`, with noise `draws` made
   * earlier (a voice decided now and given nodes later sounds as it would have then), or drawn now.
   */
  renderLayers(
    layers: readonly Layer[],
    when: number,
    destination: AudioNode = this.output,
    draws: readonly (NoiseDraw | null)[] = this.drawLayers(layers),
  ): ScheduledSound[] {
    return layers.map((l, i) =>
      l.kind === 'tone'
        ? this.tone(l.type, l.f0, l.f1, when + l.t, l.attack, l.decay, l.peak, destination, l.pan ?? 0)
        : this.noiseHit(l.filter, l.f0, l.f1, l.q, when + l.t, l.attack, l.decay, l.peak, destination, l.pan ?? 0, draws[i] ?? undefined),
    );
  }

  /** Gain from 0.0001 up to `peak` over `attack`, back to 0.0001 over `decay` (exponential both ways). */
  private envelope(t: number, attack: number, decay: number, peak: number): GainNode {
    const gain = this.context.createGain();
    gain.gain.setValueAtTime(ENVELOPE_FLOOR, t);
    gain.gain.exponentialRampToValueAtTime(Math.max(peak, ENVELOPE_FLOOR * 1.0001), t + attack);
    gain.gain.exponentialRampToValueAtTime(ENVELOPE_FLOOR, t + attack + decay);
    return gain;
  }

  private route(from: AudioNode, destination: AudioNode, pan: number, nodes: AudioNode[]): void {
    if (pan !== 0) {
      const panner = this.context.createStereoPanner();
      panner.pan.value = pan;
      from.connect(panner).connect(destination);
      nodes.push(panner);
    } else {
      from.connect(destination);
    }
  }

  /** Disconnects the call's nodes once its source has ended, so nothing lingers in the graph. */
  private autoRelease(sound: ScheduledSound): ScheduledSound {
    sound.source.addEventListener(
      'ended',
      () => {
        for (const node of sound.nodes) node.disconnect();
      },
      { once: true },
    );
    return sound;
  }
}
