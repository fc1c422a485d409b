import { withDefaults } from '../core/options.ts';
import { toDb } from '../core/decibels.ts';
import { PeakHold } from './level-meter.ts';
import { LOUDNESS_FLOOR, type LoudnessReading } from './meter/loudness-meter.ts';
import { MeterTap } from './meter-tap.ts';
import { silentLoudness, type LoudnessStats } from './audio-stats.ts';

/** Name the meter processor registers under (see meter/meter-processor.ts). */
export const METER_PROCESSOR_NAME = 'cairn-loudness-meter';

/**
 * The worklet file, by a module-relative URL: Vite sees `new URL('…', import.meta.url)` and emits
 * the file for the dev server, the build and any path prefix. One self-contained file.
 */
export function defaultMeterWorkletUrl(): URL {
  return new URL('./meter/meter-worklet.js', import.meta.url);
}

/** Options of a {@link BusMeter}. */
export interface BusMeterOptions {
  /** Seconds a peak is held on the meter. Default 1.5. */
  holdSeconds?: number;
  /** Where the worklet module is, or null to meter with analysers only. Default {@link defaultMeterWorkletUrl}. */
  workletUrl?: string | URL | null;
}

/** Defaults of a {@link BusMeter}: a peak is held 1.5 s; the worklet comes from {@link defaultMeterWorkletUrl}. */
const BUS_METER_DEFAULTS: Required<Pick<BusMeterOptions, 'holdSeconds'>> = { holdSeconds: 1.5 };

/** One tick's figures. Peaks and RMS cover every sample since the previous read. */
export interface BusMeterReading {
  /** RMS since the previous read (linear). */
  rms: number;
  /** Sample peak since the previous read (linear). */
  peak: number;
  /** Highest sample peak within the hold time (linear). */
  peakHold: number;
  /** Loudness and true peak. */
  loudness: LoudnessStats;
}

const loaded = new WeakMap<BaseAudioContext, Promise<void>>();

/**
 * Meters a point of the graph (the mix bus after the soft clipper). An AudioWorklet runs the
 * BS.1770-4 {@link LoudnessMeter} on every sample: sample and true peak, momentary, short-term and
 * integrated loudness. Until the worklet has loaded, or where AudioWorklet is missing, two
 * AnalyserNodes read the newest ≈ 46 ms at each tick instead (`loudness.source` says which).
 */
export class BusMeter {
  /** The worklet node, once loaded. */
  node: AudioWorkletNode | null = null;
  private readonly tap: MeterTap;
  private readonly peakHold: PeakHold;
  private readonly truePeakHold: PeakHold;
  private latest: LoudnessReading | null = null;
  private intervalPeak = 0;
  private intervalTruePeak = 0;
  private intervalSquares = 0;
  private intervalReadings = 0;
  private disposed = false;

  /** The context the meter's nodes live on. */
  readonly context: BaseAudioContext;
  private readonly source: AudioNode;

  constructor(context: BaseAudioContext, source: AudioNode, options: BusMeterOptions = {}) {
    this.context = context;
    this.source = source;
    const hold = withDefaults(BUS_METER_DEFAULTS, options).holdSeconds;
    this.peakHold = new PeakHold(hold);
    this.truePeakHold = new PeakHold(hold);
    this.tap = new MeterTap(context, source);
    const url = options.workletUrl === undefined ? defaultMeterWorkletUrl() : options.workletUrl;
    if (url !== null && context.audioWorklet) void this.load(url);
  }

  /** Reads and restarts the interval (call once per tick). */
  read(now: number): BusMeterReading {
    const latest = this.latest;
    if (!this.node || !latest) {
      const level = this.tap.read();
      return {
        rms: level.rms,
        peak: level.peak,
        peakHold: this.peakHold.push(level.peak, now),
        loudness: {
          ...silentLoudness(),
          source: 'analyser',
          truePeakDb: toDb(level.peak),
          truePeakHoldDb: toDb(this.truePeakHold.push(level.peak, now)),
        },
      };
    }
    const peak = this.intervalPeak;
    const truePeak = this.intervalTruePeak;
    const rms = this.intervalReadings > 0 ? Math.sqrt(this.intervalSquares / this.intervalReadings) : 0;
    this.intervalPeak = this.intervalTruePeak = this.intervalSquares = this.intervalReadings = 0;
    return {
      rms,
      peak,
      peakHold: this.peakHold.push(peak, now),
      loudness: {
        source: 'worklet',
        momentary: latest.momentary,
        shortTerm: latest.shortTerm,
        integrated: latest.integrated,
        momentaryMax: latest.momentaryMax,
        shortTermMax: latest.shortTermMax,
        truePeakDb: toDb(truePeak, LOUDNESS_FLOOR),
        truePeakHoldDb: toDb(this.truePeakHold.push(truePeak, now), LOUDNESS_FLOOR),
        truePeakMaxDb: toDb(latest.truePeakMax, LOUDNESS_FLOOR),
      },
    };
  }

  /** Starts the loudness history and maxima afresh (integrated loudness of a new take). */
  reset(): void {
    this.node?.port.postMessage({ type: 'reset' });
    this.latest = null;
    this.peakHold.reset();
    this.truePeakHold.reset();
  }

  /** Disconnects the meter's analyser tap and worklet. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.tap.dispose();
    const node = this.node;
    this.node = null;
    if (node) {
      node.port.onmessage = null;
      try {
        this.source.disconnect(node);
      } catch {
        // Already disconnected (the source was disposed first).
      }
      node.disconnect();
    }
  }

  private async load(url: string | URL): Promise<void> {
    const context = this.context;
    let module = loaded.get(context);
    if (!module) {
      module = context.audioWorklet.addModule(url);
      loaded.set(context, module);
    }
    try {
      await module;
    } catch (error) {
      console.warn(`[cairn audio] the loudness meter worklet did not load (${(error as Error).message}); metering with analysers`);
      return;
    }
    if (this.disposed) return;
    const node = new AudioWorkletNode(context, METER_PROCESSOR_NAME, {
      numberOfInputs: 1,
      numberOfOutputs: 1,
      outputChannelCount: [1],
      channelCount: 2,
      channelCountMode: 'explicit',
      channelInterpretation: 'speakers',
    });
    node.port.onmessage = (event: MessageEvent<{ type: string; reading: LoudnessReading }>) => {
      if (event.data.type !== 'reading') return;
      const reading = event.data.reading;
      this.latest = reading;
      this.intervalPeak = Math.max(this.intervalPeak, reading.samplePeak);
      this.intervalTruePeak = Math.max(this.intervalTruePeak, reading.truePeak);
      this.intervalSquares += reading.rms * reading.rms;
      this.intervalReadings++;
    };
    this.source.connect(node);
    // The node outputs silence; connecting it to the destination keeps the graph pulling it.
    node.connect(context.destination);
    this.node = node;
  }
}
