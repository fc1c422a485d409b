import { measureLevel, type Level } from './level-meter.ts';

/**
 * Reads the level of a point in the graph (the soft clipper's output) with one AnalyserNode per
 * channel, so a sound panned hard to one side is metered at its real peak, not halved by a downmix.
 */
export class MeterTap {
  private readonly splitter: ChannelSplitterNode;
  /** One analyser per channel, after a splitter. */
  readonly analysers: [AnalyserNode, AnalyserNode];
  private readonly buffers: [Float32Array<ArrayBuffer>, Float32Array<ArrayBuffer>];

  /** The context the tap's nodes live on. */
  readonly context: BaseAudioContext;
  private readonly source: AudioNode;

  constructor(
    context: BaseAudioContext,
    source: AudioNode,
    /** Samples per reading (a power of two, 32…32768). Default 2048 (≈ 43–46 ms). */
    fftSize = 2048,
  ) {
    this.context = context;
    this.source = source;
    this.splitter = context.createChannelSplitter(2);
    const make = (): AnalyserNode => {
      const analyser = context.createAnalyser();
      analyser.fftSize = fftSize;
      analyser.smoothingTimeConstant = 0;
      return analyser;
    };
    this.analysers = [make(), make()];
    source.connect(this.splitter);
    this.splitter.connect(this.analysers[0], 0);
    this.splitter.connect(this.analysers[1], 1);
    this.buffers = [new Float32Array(fftSize), new Float32Array(fftSize)];
  }

  /** RMS and peak over the last `fftSize` samples of both channels. */
  read(): Level {
    this.analysers[0].getFloatTimeDomainData(this.buffers[0]);
    this.analysers[1].getFloatTimeDomainData(this.buffers[1]);
    return measureLevel(this.buffers[0], this.buffers[1]);
  }

  /** The raw samples of the last reading, per channel (valid until the next read). */
  get samples(): readonly [Float32Array, Float32Array] {
    return this.buffers;
  }

  /** Disconnects the tap's splitter and analysers. */
  dispose(): void {
    try {
      this.source.disconnect(this.splitter);
    } catch {
      // Already disconnected (the source was disposed first).
    }
    this.splitter.disconnect();
    this.analysers[0].disconnect();
    this.analysers[1].disconnect();
  }
}
