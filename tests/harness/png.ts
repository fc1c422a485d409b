import { PNG } from 'pngjs';

export interface Image {
  width: number;
  height: number;
  /** RGBA, 8 bits per channel, row-major from the top. */
  data: Uint8Array;
}

export function decodePng(buffer: Buffer): Image {
  const png = PNG.sync.read(buffer);
  return { width: png.width, height: png.height, data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.length) };
}

/** Number of pixels whose RGB differs by more than `threshold` in any channel. */
export function countDifferentPixels(a: Image, b: Image, threshold = 24): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error('images differ in size');
  let count = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (
      Math.abs(a.data[i]! - b.data[i]!) > threshold ||
      Math.abs(a.data[i + 1]! - b.data[i + 1]!) > threshold ||
      Math.abs(a.data[i + 2]! - b.data[i + 2]!) > threshold
    )
      count++;
  }
  return count;
}

/** Mean absolute per-channel difference over the whole image, 0..255. */
export function meanAbsoluteDifference(a: Image, b: Image): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error('images differ in size');
  let sum = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    sum += Math.abs(a.data[i]! - b.data[i]!) + Math.abs(a.data[i + 1]! - b.data[i + 1]!) + Math.abs(a.data[i + 2]! - b.data[i + 2]!);
  }
  return sum / ((a.data.length / 4) * 3);
}

/** Pixels matching a predicate, e.g. "greenish" for grass. */
export function countPixels(image: Image, predicate: (r: number, g: number, b: number) => boolean): number {
  let count = 0;
  for (let i = 0; i < image.data.length; i += 4) if (predicate(image.data[i]!, image.data[i + 1]!, image.data[i + 2]!)) count++;
  return count;
}
