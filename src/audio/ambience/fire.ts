import { noise, type Layer } from '../layers.ts';
import type { AudioRandom } from '../audio-random.ts';
import type { BusName } from '../recipes/recipe.ts';
import type { Synth } from '../synth.ts';

/** Where fire crackles are played: as voices, so the ambience bus limit holds them. */
export interface CrackleHost {
  /** Plays `layers` as one voice named `sound` on `bus` at audio time `at`. */
  playLayers(sound: string, bus: BusName, layers: Layer[], at: number): unknown;
}

/** Crackles per second at level 1. */
export const CRACKLES_PER_SECOND = 7;

/**
 * A fire on the ambience bus: a low roar (looping noise through a low-pass, breathing slowly) and
 * crackles — tiny high-passed noise hits at random (Poisson) moments, a few in quick pairs.
 */
export class FireAmbience {
  private readonly source: AudioBufferSourceNode;
  private readonly filter: BiquadFilterNode;
  private readonly gain: GainNode;
  private readonly breath: OscillatorNode;
  private readonly breathDepth: GainNode;
  private level = 0;
  private started = false;
  private nextCrackle = Number.NaN;

  private readonly synth: Synth;
  private readonly random: AudioRandom;
  private readonly host: CrackleHost;

  constructor(synth: Synth, random: AudioRandom, host: CrackleHost, destination: AudioNode) {
    this.synth = synth;
    this.random = random;
    this.host = host;
    const ctx = synth.context;
    this.source = ctx.createBufferSource();
    this.source.buffer = synth.noise;
    this.source.loop = true;
    this.source.playbackRate.value = 0.5;
    this.filter = ctx.createBiquadFilter();
    this.filter.type = 'lowpass';
    this.filter.frequency.value = 380;
    this.filter.Q.value = 0.7;
    this.gain = ctx.createGain();
    this.gain.gain.value = 0;
    this.breath = ctx.createOscillator();
    this.breath.frequency.value = 0.23;
    this.breathDepth = ctx.createGain();
    this.breathDepth.gain.value = 0;
    this.breath.connect(this.breathDepth).connect(this.gain.gain);
    this.source.connect(this.filter).connect(this.gain).connect(destination);
  }

  /** The level the fire is heading to (0…1). */
  get currentLevel(): number {
    return this.level;
  }

  /** 0 (out) … 1 (a roaring fire). */
  setLevel(level: number, seconds = 0.5): void {
    this.level = Math.min(1, Math.max(0, level));
    const ctx = this.synth.context;
    if (!this.started && this.level > 0) {
      this.started = true;
      this.source.start(ctx.currentTime, 1.3);
      this.breath.start(ctx.currentTime);
      this.nextCrackle = ctx.currentTime + 0.05;
    }
    // 0.15: fire 0.6 sits in the ambience loudness band (loudness-targets.ts).
    this.gain.gain.setTargetAtTime(0.15 * this.level, ctx.currentTime, seconds / 3);
    this.breathDepth.gain.setTargetAtTime(0.05 * this.level, ctx.currentTime, seconds / 3);
  }

  /** Schedules crackles up to audio time `time`; returns how many. */
  scheduleUntil(time: number): number {
    if (!this.started || this.level <= 0) return 0;
    const now = this.synth.context.currentTime;
    if (this.nextCrackle < now - 0.2) this.nextCrackle = now;
    let count = 0;
    while (this.nextCrackle < time) {
      const at = this.nextCrackle;
      const layers: Layer[] = [
        noise(
          'highpass',
          this.random.range(1800, 5200),
          this.random.range(1200, 3000),
          0.9,
          0,
          0.001,
          this.random.range(0.006, 0.03),
          this.random.range(0.03, 0.12) * this.level,
        ),
      ];
      if (this.random.next() < 0.25)
        layers.push(
          noise('bandpass', this.random.range(2500, 6000), 2000, 2, this.random.range(0.01, 0.03), 0.001, 0.012, 0.05 * this.level),
        );
      this.host.playLayers('fire-crackle', 'ambience', layers, at);
      count++;
      // Exponential gaps: a Poisson process at the level's rate.
      this.nextCrackle += -Math.log(1 - this.random.next()) / (CRACKLES_PER_SECOND * Math.max(0.2, this.level));
    }
    return count;
  }

  /** Stops the fire's sources and disconnects its nodes. */
  dispose(): void {
    if (this.started) {
      this.source.stop();
      this.breath.stop();
    }
    for (const node of [this.source, this.filter, this.gain, this.breath, this.breathDepth]) node.disconnect();
  }
}
