/**
 * Test signals for the voice module, generated at test time (nothing binary is committed):
 * WAV files for Chromium's fake microphone (`--use-file-for-fake-audio-capture=FILE.wav`),
 * speech synthesised by Debian's espeak-ng, and keyboard-like clicks placed between words.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mulberry32 } from '../../src/core/rng.ts';
import { ensureDebianPackage } from './browser.ts';

export const SAMPLE_RATE = 48_000;

/** Writes mono 16-bit PCM WAV (what Chromium's fake capture device reads). */
export function writeWav(path: string, samples: Float32Array, sampleRate = SAMPLE_RATE): void {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  writeFileSync(path, Buffer.concat([header, data]));
}

/** Reads a mono or stereo 16-bit PCM WAV (first channel). */
export function readWav(path: string): { sampleRate: number; samples: Float32Array } {
  const buffer = readFileSync(path);
  if (buffer.toString('ascii', 0, 4) !== 'RIFF' || buffer.toString('ascii', 8, 12) !== 'WAVE') throw new Error(`${path} is not a WAV file`);
  let offset = 12;
  let channels = 1;
  let sampleRate = SAMPLE_RATE;
  let bits = 16;
  while (offset + 8 <= buffer.length) {
    const id = buffer.toString('ascii', offset, offset + 4);
    const size = buffer.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      channels = buffer.readUInt16LE(offset + 10);
      sampleRate = buffer.readUInt32LE(offset + 12);
      bits = buffer.readUInt16LE(offset + 22);
    } else if (id === 'data') {
      if (bits !== 16) throw new Error(`${path}: only 16-bit PCM is supported, got ${bits}-bit`);
      // espeak-ng streams to a file and leaves the size fields at 0x7fffffff: read to the end.
      const end = Math.min(buffer.length, offset + 8 + size);
      const frames = Math.floor((end - offset - 8) / (2 * channels));
      const samples = new Float32Array(frames);
      for (let i = 0; i < frames; i++) samples[i] = buffer.readInt16LE(offset + 8 + i * 2 * channels) / 32768;
      return { sampleRate, samples };
    }
    offset += 8 + size + (size & 1);
  }
  throw new Error(`${path} has no data chunk`);
}

/**
 * Speech from espeak-ng, resampled by sox to 48 kHz mono and normalised to `peak`.
 * Installs espeak-ng (and sox) through ensureDebianPackage when missing. sox runs with `-D` (no
 * dither): its dither is random on every run, and RNNoise's gains between words react to even
 * that −96 dB noise (the click reduction moved between −10.3 and −11.8 dB run to run); without it
 * the same text gives the same samples every time.
 */
export function speak(
  text: string,
  options: {
    voice?: string;
    wordsPerMinute?: number;
    peak?: number;
    /** Extra pause between words, s (espeak -g). */ wordGapSeconds?: number;
  } = {},
): Float32Array {
  ensureDebianPackage('/usr/bin/espeak-ng', 'espeak-ng');
  ensureDebianPackage('/usr/bin/sox', 'sox');
  const dir = mkdtempSync(join(tmpdir(), 'cairn-speech-'));
  try {
    const raw = join(dir, 'raw.wav');
    const out = join(dir, 'out.wav');
    execFileSync('/usr/bin/espeak-ng', [
      '-v',
      options.voice ?? 'en-us',
      '-s',
      String(options.wordsPerMinute ?? 150),
      '-g',
      String(Math.round((options.wordGapSeconds ?? 0) * 100)),
      '-w',
      raw,
      text,
    ]);
    execFileSync('/usr/bin/sox', ['-D', '--ignore-length', raw, '-r', String(SAMPLE_RATE), '-c', '1', '-b', '16', out, 'rate', '-h']);
    const { samples } = readWav(out);
    let peak = 0;
    for (const s of samples) peak = Math.max(peak, Math.abs(s));
    const gain = peak > 0 ? (options.peak ?? 0.5) / peak : 1;
    for (let i = 0; i < samples.length; i++) samples[i]! *= gain;
    return samples;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A keyboard-like click, as a membrane or laptop key makes it: a sharp, bright noise burst (the
 * press) and a softer second one 8 ms later (the key bottoming out), with a faint ~3.2 kHz ring
 * of the key cap. About 20 ms long. (A switch that rings strongly — a spring "ping" — reads as
 * voiced to RNNoise and loses only ~9 dB; docs/voice.md has the numbers.)
 */
export function keyboardClick(rng: Mulberry32, peak = 0.35, sampleRate = SAMPLE_RATE): Float32Array {
  const length = Math.round(0.02 * sampleRate);
  const out = new Float32Array(length);
  const resonance = 2 * Math.PI * (3200 + rng.range(-400, 400));
  const second = Math.round(0.008 * sampleRate);
  let lp = 0;
  for (let i = 0; i < length; i++) {
    const t = i / sampleRate;
    const noise = rng.range(-1, 1);
    // One-pole high-pass of the noise: a click is bright.
    const hp = noise - lp;
    lp += 0.2 * (noise - lp);
    const env1 = Math.exp(-t / 0.0015);
    const env2 = i >= second ? 0.6 * Math.exp(-(i - second) / sampleRate / 0.002) : 0;
    out[i] = (env1 + env2) * (0.7 * hp + 0.15 * Math.sin(resonance * t));
  }
  let max = 0;
  for (const s of out) max = Math.max(max, Math.abs(s));
  for (let i = 0; i < length; i++) out[i]! *= peak / max;
  return out;
}

export interface SpeechWithClicks {
  /** Speech plus clicks. */
  mixed: Float32Array;
  /** Sample ranges [start, end) holding a click (and no speech). */
  clicks: Array<[number, number]>;
  /** Sample ranges [start, end) of 10 ms frames with clear speech and no click nearby. */
  speech: Array<[number, number]>;
}

/**
 * Places keyboard clicks in the pauses between words of `speech`: pauses of at least 130 ms below
 * −45 dBFS get one click in the middle (two in pauses over 300 ms), at least 50 ms clear of the
 * words on each side. Reports where the clicks and the clear speech are, so a test can measure
 * how much each loses. (A click closer to a word is only partly removed: RNNoise holds its gains
 * open for a few tens of milliseconds after speech. docs/voice.md says so.)
 */
export function addClicksBetweenWords(speech: Float32Array, seed = 7, sampleRate = SAMPLE_RATE): SpeechWithClicks {
  const rng = new Mulberry32(seed);
  const frame = Math.round(0.01 * sampleRate);
  const frames = Math.floor(speech.length / frame);
  const level = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) sum += speech[i]! * speech[i]!;
    level[f] = 10 * Math.log10(sum / frame + 1e-12);
  }
  const mixed = Float32Array.from(speech);
  const clicks: Array<[number, number]> = [];
  const quiet = (f: number) => level[f]! < -45;
  const clearance = 5; // frames (50 ms) kept free on each side of a click
  const clickFrames = 2;
  let f = 0;
  while (f < frames) {
    if (!quiet(f)) {
      f++;
      continue;
    }
    let g = f;
    while (g < frames && quiet(g)) g++;
    // Pause [f, g).
    const length = g - f;
    if (f > 0 && g < frames && length >= 2 * clearance + clickFrames + 1) {
      const count = length >= 30 ? 2 : 1;
      const usable = length - 2 * clearance - clickFrames;
      for (let k = 0; k < count; k++) {
        const at = (f + clearance + Math.round(((k + 0.5) * usable) / count)) * frame;
        const click = keyboardClick(rng, rng.range(0.25, 0.45), sampleRate);
        for (let i = 0; i < click.length; i++) mixed[at + i]! += click[i]!;
        clicks.push([at, at + click.length]);
      }
    }
    f = g;
  }
  const nearClick = (start: number, end: number) => clicks.some(([a, b]) => start < b + 3 * frame && end > a - 3 * frame);
  const speechFrames: Array<[number, number]> = [];
  for (let f2 = 0; f2 < frames; f2++) {
    const start = f2 * frame;
    if (level[f2]! > -30 && !nearClick(start, start + frame)) speechFrames.push([start, start + frame]);
  }
  return { mixed, clicks, speech: speechFrames };
}

/** Total energy of `samples` over `ranges`, each shifted by `offset` samples. */
export function energyIn(samples: Float32Array, ranges: Array<[number, number]>, offset = 0): number {
  let sum = 0;
  for (const [start, end] of ranges)
    for (let i = start + offset; i < end + offset && i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return sum;
}

/** Concatenates clips with `gapSeconds` of silence between them. */
export function concat(clips: Float32Array[], gapSeconds = 0.3, sampleRate = SAMPLE_RATE): Float32Array {
  const gap = Math.round(gapSeconds * sampleRate);
  const out = new Float32Array(clips.reduce((n, c) => n + c.length + gap, 0));
  let at = 0;
  for (const clip of clips) {
    out.set(clip, at);
    at += clip.length + gap;
  }
  return out;
}
