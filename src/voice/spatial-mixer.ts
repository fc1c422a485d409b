import type { XYZ } from '../core/math.ts';
import { withDefaults } from '../core/options.ts';
import type { WirePosition } from './protocol/signaling.ts';
import { rms, toDb } from './levels.ts';
import { HrtfProbe } from './hrtf-probe.ts';
import { VOICE_PANNER, listenerForward, rangeGain } from './spatial-model.ts';

/** Smoothing of peer positions, s: positions arrive at ≤ 10 Hz, the panner glides between them. */
const POSITION_TAU = 0.05;

/** Options of a {@link SpatialMixer}. */
export interface SpatialMixerOptions {
  /** Where the mix goes. Default the context's destination. */
  destination?: AudioNode;
  /**
   * Where the hidden, muted `<audio>` elements go (one per remote stream: Chrome only pulls a
   * remote WebRTC track's packets while a media element plays it). Default document.body.
   */
  elementParent?: HTMLElement;
}

interface Voice {
  stream: MediaStream;
  element: HTMLAudioElement;
  source: MediaStreamAudioSourceNode;
  /** Fades voices out beyond maxDistance. */
  range: GainNode;
  panner: PannerNode;
  meter: AnalyserNode;
}

/**
 * Spatial receive: every remote stream goes through its own HRTF PannerNode (inverse distance,
 * settings in spatial-model.ts) into one master bus; the AudioListener follows the local player.
 * Output meters on the left and right channels show what a listener hears.
 */
export class SpatialMixer {
  /** The bus every voice is mixed into. */
  readonly master: GainNode;
  /**
   * 'loading' until the browser's HRTF database is ready. Chrome loads (and resamples) it on a
   * background thread when the first HRTF panner needs it — about a second here — and until then
   * HRTF panners play voices unpanned (distance still applies). Heard by an {@link HrtfProbe}.
   */
  spatial: 'loading' | 'ready' = 'loading';
  /** Resolves when {@link spatial} is 'ready'. */
  readonly ready: Promise<void>;
  private readonly voices = new Map<number, Voice>();
  private readonly positions = new Map<number, WirePosition>();
  private readonly splitter: ChannelSplitterNode;
  private readonly meters: [AnalyserNode, AnalyserNode];
  private readonly buffer = new Float32Array(2048);
  private readonly elementParent: HTMLElement;
  private listener: WirePosition = { x: 0, y: 0, z: 0, facing: 0 };
  private readonly probe: HrtfProbe;

  /** The context the mixer's nodes live on. */
  readonly context: AudioContext;

  constructor(context: AudioContext, options: SpatialMixerOptions = {}) {
    this.context = context;
    const resolved = withDefaults<Required<SpatialMixerOptions>>(
      { destination: context.destination, elementParent: document.body },
      options,
    );
    this.elementParent = resolved.elementParent;
    this.master = context.createGain();
    this.master.channelCount = 2;
    this.master.connect(resolved.destination);
    this.splitter = context.createChannelSplitter(2);
    this.master.connect(this.splitter);
    this.meters = [new AnalyserNode(context, { fftSize: 2048 }), new AnalyserNode(context, { fftSize: 2048 })];
    this.splitter.connect(this.meters[0], 0);
    this.splitter.connect(this.meters[1], 1);
    // The probe's panner is the page's first HRTF panner: it starts Chrome loading the data now,
    // before any voice arrives, and hears when it is there (hrtf-probe.ts says why not offline).
    this.probe = new HrtfProbe(context);
    this.setListener(this.listener);
    this.ready = this.probe.ready.then(() => {
      this.spatial = 'ready';
    });
  }

  /** Voices playing now. */
  get size(): number {
    return this.voices.size;
  }

  /** Whether peer `id` has a voice in the mix. */
  has(id: number): boolean {
    return this.voices.has(id);
  }

  /** Starts playing a remote peer's stream at its last known position. Replaces an older stream. */
  addStream(id: number, stream: MediaStream): void {
    this.removeStream(id);
    const element = document.createElement('audio');
    element.muted = true;
    element.autoplay = true;
    element.hidden = true;
    element.dataset.voicePeer = String(id);
    element.srcObject = stream;
    this.elementParent.append(element);
    void element.play().catch(() => undefined);
    const source = this.context.createMediaStreamSource(stream);
    const meter = new AnalyserNode(this.context, { fftSize: 2048 });
    const range = this.context.createGain();
    const panner = new PannerNode(this.context, VOICE_PANNER);
    source.connect(meter);
    source.connect(range).connect(panner).connect(this.master);
    this.voices.set(id, { stream, element, source, range, panner, meter });
    const pos = this.positions.get(id);
    if (pos) this.placeNow(this.voices.get(id)!, pos);
  }

  /** Takes peer `id`'s voice out of the mix (its element, nodes and meter). */
  removeStream(id: number): void {
    const voice = this.voices.get(id);
    if (!voice) return;
    this.voices.delete(id);
    voice.source.disconnect();
    voice.range.disconnect();
    voice.panner.disconnect();
    voice.meter.disconnect();
    voice.element.pause();
    voice.element.srcObject = null;
    voice.element.remove();
  }

  /** Forgets a peer entirely (stream and position). */
  removePeer(id: number): void {
    this.removeStream(id);
    this.positions.delete(id);
  }

  /** A peer's position (from the VoiceRoom); glides there over ~50 ms. */
  setPeerPosition(id: number, position: WirePosition): void {
    const pos = { x: position.x, y: position.y, z: position.z, facing: position.facing };
    this.positions.set(id, pos);
    const voice = this.voices.get(id);
    if (!voice) return;
    const now = this.context.currentTime;
    voice.panner.positionX.setTargetAtTime(pos.x, now, POSITION_TAU);
    voice.panner.positionY.setTargetAtTime(pos.y, now, POSITION_TAU);
    voice.panner.positionZ.setTargetAtTime(pos.z, now, POSITION_TAU);
    this.updateRange(voice, pos);
  }

  /** The last position peer `id` reported, or null. */
  peerPosition(id: number): WirePosition | null {
    return this.positions.get(id) ?? null;
  }

  /** Where the audio engine has a voice now (its PannerNode's position), or null without a stream. */
  pannerPosition(id: number): XYZ | null {
    const voice = this.voices.get(id);
    if (!voice) return null;
    return { x: voice.panner.positionX.value, y: voice.panner.positionY.value, z: voice.panner.positionZ.value };
  }

  /**
   * Moves the AudioListener to the local player (call every frame): position, and forward =
   * (sin facing, 0, cos facing), up = +Y.
   */
  setListener(pos: WirePosition): void {
    this.listener = pos;
    this.probe.follow(pos);
    const l = this.context.listener;
    const forward = listenerForward(pos.facing);
    if (l.positionX) {
      l.positionX.value = pos.x;
      l.positionY.value = pos.y;
      l.positionZ.value = pos.z;
      l.forwardX.value = forward.x;
      l.forwardY.value = forward.y;
      l.forwardZ.value = forward.z;
      l.upX.value = 0;
      l.upY.value = 1;
      l.upZ.value = 0;
    } else {
      // Firefox before AudioParam listeners.
      l.setPosition(pos.x, pos.y, pos.z);
      l.setOrientation(forward.x, forward.y, forward.z, 0, 1, 0);
    }
    for (const [id, voice] of this.voices) {
      const p = this.positions.get(id);
      if (p) this.updateRange(voice, p);
    }
  }

  /** Distance from the listener to a peer, m (NaN when its position is unknown). */
  distanceTo(id: number): number {
    const p = this.positions.get(id);
    if (!p) return Number.NaN;
    return Math.hypot(p.x - this.listener.x, p.y - this.listener.y, p.z - this.listener.z);
  }

  /** Levels of the mix's left and right channels, dBFS. */
  outputLevels(): {
    /** Left channel (dBFS). */
    left: number;
    /** Right channel (dBFS). */
    right: number;
  } {
    return { left: this.level(this.meters[0]), right: this.level(this.meters[1]) };
  }

  /** Level of a peer's incoming stream before panning, dBFS (−120 when absent). */
  peerLevelDb(id: number): number {
    const voice = this.voices.get(id);
    return voice ? this.level(voice.meter) : -120;
  }

  /** Removes every voice and disconnects the mixer and its probe. */
  dispose(): void {
    this.probe.dispose();
    for (const id of [...this.voices.keys()]) this.removeStream(id);
    this.positions.clear();
    this.master.disconnect();
    this.splitter.disconnect();
  }

  private level(analyser: AnalyserNode): number {
    const buffer = this.buffer.length === analyser.fftSize ? this.buffer : new Float32Array(analyser.fftSize);
    analyser.getFloatTimeDomainData(buffer);
    return toDb(rms(buffer));
  }

  private placeNow(voice: Voice, pos: WirePosition): void {
    voice.panner.positionX.value = pos.x;
    voice.panner.positionY.value = pos.y;
    voice.panner.positionZ.value = pos.z;
    this.updateRange(voice, pos);
  }

  private updateRange(voice: Voice, pos: WirePosition): void {
    const distance = Math.hypot(pos.x - this.listener.x, pos.y - this.listener.y, pos.z - this.listener.z);
    const gain = rangeGain(distance);
    if (Math.abs(voice.range.gain.value - gain) > 1e-3) voice.range.gain.setTargetAtTime(gain, this.context.currentTime, POSITION_TAU);
  }
}
