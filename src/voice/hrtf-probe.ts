import { withDefaults } from '../core/options.ts';
import { Mulberry32 } from '../core/rng.ts';
import { toDb } from '../core/decibels.ts';
import { rms } from './levels.ts';
import type { WirePosition } from './protocol/signaling.ts';
import { hrtfIsPanning, listenerRight } from './spatial-model.ts';

/** Options of an {@link HrtfProbe}. */
export interface HrtfProbeOptions {
  /** How often the probe reads its meters, ms. Default 200. */
  intervalMs?: number;
}

/** The defaults, applied once. */
export function resolveHrtfProbeOptions(options: HrtfProbeOptions = {}): Required<HrtfProbeOptions> {
  return withDefaults(HRTF_PROBE_DEFAULTS, options);
}

/** Defaults of an {@link HrtfProbe}: a look every 200 ms. */
const HRTF_PROBE_DEFAULTS: Required<HrtfProbeOptions> = { intervalMs: 200 };

/**
 * Tells when the browser's HRTF data is loaded, by listening to it: a quiet noise source sits
 * 1 m to the listener's right behind its own HRTF PannerNode in the page's (realtime) context,
 * routed only to two meters (and a muted gain, so the graph pulls it). Until Chrome's HRTF
 * database is loaded the panner copies its input to both ears (left = right); once it is loaded
 * the right ear is about 12 dB louder (measured in Chromium 150). The probe then stops and frees
 * its nodes. It also resolves when the *left* ear leads: in a context whose listener was never
 * oriented (facing −Z) Cairn's "right" is the listener's left, and panning is panning.
 *
 * Why not an OfflineAudioContext render (which waits for the database)? In Chromium the
 * offline render thread waits holding the loader's lock while the loader thread needs that lock
 * to load: if the render reaches the panner before the loader thread has started, both wait
 * forever — the page never gets HRTF panning at all (reproduced: 3 of 13 fresh browsers;
 * docs/voice.md). Listening in the realtime context takes no lock that can deadlock.
 *
 * Creating the probe's panner is also what starts the database loading, so a mixer that builds
 * a probe at construction has the data ready by the time the first voice arrives (~1 s here).
 */
export class HrtfProbe {
  /** Resolves when HRTF panning is heard (never rejects; stays pending if disposed first). */
  readonly ready: Promise<void>;
  private readonly source: AudioBufferSourceNode;
  private readonly panner: PannerNode;
  private readonly splitter: ChannelSplitterNode;
  private readonly meters: [AnalyserNode, AnalyserNode];
  private readonly mute: GainNode;
  private readonly buffer = new Float32Array(1024);
  private timer: ReturnType<typeof setInterval> | null = null;
  private done = false;

  /** The context the probe listens in. */
  readonly context: BaseAudioContext;

  constructor(context: BaseAudioContext, options: HrtfProbeOptions = {}) {
    this.context = context;
    // 0.25 s of seeded white noise, looped: broadband, so the ears differ clearly once panned.
    const length = Math.round(context.sampleRate / 4);
    const noise = context.createBuffer(1, length, context.sampleRate);
    const data = noise.getChannelData(0);
    const rng = new Mulberry32(0x4872_7466);
    for (let i = 0; i < length; i++) data[i] = (rng.next() * 2 - 1) * 0.25;
    this.source = new AudioBufferSourceNode(context, { buffer: noise, loop: true });
    this.panner = new PannerNode(context, {
      panningModel: 'HRTF',
      distanceModel: 'linear',
      refDistance: 1,
      maxDistance: 10_000,
      rolloffFactor: 0,
    });
    this.splitter = context.createChannelSplitter(2);
    this.meters = [new AnalyserNode(context, { fftSize: 1024 }), new AnalyserNode(context, { fftSize: 1024 })];
    this.mute = new GainNode(context, { gain: 0 });
    this.source.connect(this.panner);
    this.panner.connect(this.splitter);
    this.splitter.connect(this.meters[0], 0);
    this.splitter.connect(this.meters[1], 1);
    this.panner.connect(this.mute).connect(context.destination);
    this.follow({ x: 0, y: 0, z: 0, facing: 0 });
    this.source.start();
    this.ready = new Promise<void>((resolve) => {
      this.timer = setInterval(() => {
        if (!hrtfIsPanning(this.level(0), this.level(1))) return;
        this.dispose();
        resolve();
      }, resolveHrtfProbeOptions(options).intervalMs);
    });
  }

  /** Keeps the probe 1 m to the right of the listener (call when the listener moves). */
  follow(listener: WirePosition): void {
    if (this.done) return;
    const right = listenerRight(listener.facing);
    this.panner.positionX.value = listener.x + right.x;
    this.panner.positionY.value = listener.y;
    this.panner.positionZ.value = listener.z + right.z;
  }

  /** Stops listening and frees the nodes (called by itself once HRTF is heard; disposed earlier, the promise never settles). */
  dispose(): void {
    if (this.done) return;
    this.done = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    try {
      this.source.stop();
    } catch {
      // never started (a closed context)
    }
    this.source.disconnect();
    this.panner.disconnect();
    this.splitter.disconnect();
    this.mute.disconnect();
  }

  private level(channel: 0 | 1): number {
    this.meters[channel].getFloatTimeDomainData(this.buffer);
    return toDb(rms(this.buffer));
  }
}
