/**
 * Adapts a frame-based processor to Web Audio's render quanta: samples arrive in blocks of any
 * size (128 in an AudioWorklet) and are processed in frames of `frameSize` (480 = 10 ms at 48 kHz
 * for RNNoise). Output is the processed input exactly `frameSize` samples later, so a block of 128
 * never waits for a frame that is not complete yet. Pure: no Web Audio, unit-tested in Node.
 */
export class BlockFramer {
  /** Samples between an input sample and its processed output. */
  readonly latency: number;
  private readonly frame: Float32Array;
  private fill = 0;
  private readonly ring: Float32Array;
  private readonly mask: number;
  private readPos = 0;
  private writePos: number;

  /** Samples per frame the processor takes. */
  readonly frameSize: number;
  private readonly processFrame: (frame: Float32Array) => void;

  /**
   * @param frameSize samples per processing frame (480 for RNNoise at 48 kHz).
   * @param processFrame transforms one frame in place.
   */
  constructor(frameSize: number, processFrame: (frame: Float32Array) => void) {
    this.frameSize = frameSize;
    this.processFrame = processFrame;
    if (!Number.isInteger(frameSize) || frameSize <= 0) throw new Error(`frameSize must be a positive integer, got ${frameSize}`);
    this.latency = frameSize;
    this.frame = new Float32Array(frameSize);
    // Occupancy never exceeds two frames (one primed + one just processed); round up to a power of 2.
    let capacity = 1;
    while (capacity < frameSize * 2 + 1) capacity <<= 1;
    this.ring = new Float32Array(capacity);
    this.mask = capacity - 1;
    // Prime with one frame of silence: that is the latency.
    this.writePos = frameSize;
  }

  /**
   * Pushes `output.length` input samples (silence when `input` is null, e.g. an unconnected
   * worklet input) and writes the same number of processed samples to `output`.
   */
  process(input: Float32Array | null, output: Float32Array): void {
    const { frame, ring, mask, frameSize } = this;
    for (let i = 0; i < output.length; i++) {
      frame[this.fill++] = input ? input[i]! : 0;
      if (this.fill === frameSize) {
        this.processFrame(frame);
        for (let k = 0; k < frameSize; k++) ring[(this.writePos + k) & mask] = frame[k]!;
        this.writePos += frameSize;
        this.fill = 0;
      }
      output[i] = ring[this.readPos & mask]!;
      this.readPos++;
    }
  }
}
