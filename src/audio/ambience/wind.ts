import type { Synth } from '../synth.ts';

/**
 * Wind on the ambience bus: the shared noise looping through a band-pass whose centre and level
 * drift with two slow, unrelated LFOs (gusts). Long-lived nodes, started once; `setLevel` glides.
 */
export class WindAmbience {
  private readonly source: AudioBufferSourceNode;
  private readonly filter: BiquadFilterNode;
  private readonly gain: GainNode;
  private readonly gustDepth: GainNode;
  private readonly lfos: OscillatorNode[] = [];
  private readonly nodes: AudioNode[] = [];
  private level = 0;
  private started = false;

  private readonly synth: Synth;

  constructor(synth: Synth, destination: AudioNode) {
    this.synth = synth;
    const ctx = synth.context;
    this.source = ctx.createBufferSource();
    this.source.buffer = synth.noise;
    this.source.loop = true;
    this.filter = ctx.createBiquadFilter();
    this.filter.type = 'bandpass';
    this.filter.frequency.value = 520;
    this.filter.Q.value = 0.9;
    this.gain = ctx.createGain();
    this.gain.gain.value = 0;
    // Gust level: a slow LFO added to the gain (scaled with the wind level in setLevel).
    this.gustDepth = ctx.createGain();
    this.gustDepth.gain.value = 0;
    const sweep = ctx.createGain();
    sweep.gain.value = 260;
    const lfoA = ctx.createOscillator();
    lfoA.frequency.value = 0.11;
    const lfoB = ctx.createOscillator();
    lfoB.frequency.value = 0.071;
    lfoA.connect(sweep).connect(this.filter.frequency);
    lfoB.connect(this.gustDepth).connect(this.gain.gain);
    this.source.connect(this.filter).connect(this.gain).connect(destination);
    this.lfos.push(lfoA, lfoB);
    this.nodes.push(this.source, this.filter, this.gain, this.gustDepth, sweep, lfoA, lfoB);
  }

  /** The level the wind is heading to (0…1). */
  get currentLevel(): number {
    return this.level;
  }

  /** 0 (still) … 1 (a gale); glides over `seconds`. Starts the nodes the first time it is above 0. */
  setLevel(level: number, seconds = 0.8): void {
    this.level = Math.min(1, Math.max(0, level));
    const ctx = this.synth.context;
    if (!this.started && this.level > 0) {
      this.started = true;
      const at = ctx.currentTime;
      this.source.start(at, (this.synth.noise.duration * 0.37) % this.synth.noise.duration);
      for (const lfo of this.lfos) lfo.start(at);
    }
    // 0.22: wind 0.5 sits in the middle of the ambience loudness band (loudness-targets.ts).
    const base = 0.22 * this.level;
    this.gain.gain.setTargetAtTime(base, ctx.currentTime, seconds / 3);
    this.gustDepth.gain.setTargetAtTime(base * 0.45, ctx.currentTime, seconds / 3);
    this.filter.Q.setTargetAtTime(0.9 + this.level * 0.6, ctx.currentTime, seconds / 3);
  }

  /** Stops the wind's sources and disconnects its nodes. */
  dispose(): void {
    if (this.started) {
      this.source.stop();
      for (const lfo of this.lfos) lfo.stop();
    }
    for (const node of this.nodes) node.disconnect();
  }
}
