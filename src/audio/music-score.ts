import { Mulberry32 } from '../core/rng.ts';
import { tone, type ToneLayer } from './layers.ts';
import { beatSeconds, midiToHz, type Progression } from './music-theory.ts';

/** The music's voices: a slow pad on the chord, a bass on the root, a sparse arpeggio above. */
export type MusicVoice = 'pad' | 'bass' | 'arp';

/** One note of the score on one beat. */
export interface ScoredNote {
  /** Which voice plays it. */
  voice: MusicVoice;
  /** Its MIDI number. */
  midi: number;
  /** The note as a tone layer; `t` is seconds after the beat starts. */
  layer: ToneLayer;
}

/** Gain of each music voice (linear). */
export interface MusicMix {
  /** The pad's gain. */
  pad: number;
  /** The bass's gain. */
  bass: number;
  /** The arpeggio's gain. */
  arp: number;
}

/** Peak level of each voice's notes. */
export const DEFAULT_MUSIC_MIX: MusicMix = { pad: 0.045, bass: 0.11, arp: 0.05 };

const ARP_PATTERNS: readonly (readonly number[])[] = [
  [0, 1, 2, 1, 0, 1, 2, 1],
  [0, 2, 1, 2, 0, 2, 1, 2],
  [2, 1, 0, 1, 2, 1, 0, 1],
  [0, 1, 2, 3, 2, 1, 0, 1],
];

/** A stable per-beat random sequence: the same beat always plays the same notes for a seed. */
function beatRandom(seed: number, beat: number): Mulberry32 {
  return new Mulberry32((seed ^ Math.imul(beat + 1, 0x9e3779b1)) >>> 0);
}

/**
 * The notes that start on `beat` (0-based, counted from the music's start). Pure and stateless:
 * a scheduler can ask for any beat in any order and get the same answer.
 */
export function notesForBeat(progression: Progression, beat: number, seed: number, mix: MusicMix = DEFAULT_MUSIC_MIX): ScoredNote[] {
  const beatDur = beatSeconds(progression);
  const chordBeat = beat % progression.beatsPerChord;
  const chordIndex = Math.floor(beat / progression.beatsPerChord) % progression.chords.length;
  const chord = progression.chords[chordIndex]!;
  const chordDur = beatDur * progression.beatsPerChord;
  const notes: ScoredNote[] = [];
  const note = (voice: MusicVoice, midi: number, layer: ToneLayer): void => void notes.push({ voice, midi, layer });

  if (chordBeat === 0) {
    // Pad: the triad an octave up, swelling in and ringing a little past the change.
    for (const [i, midi] of chord.tones.entries()) {
      const f = midiToHz(midi + 12);
      note('pad', midi + 12, tone(i === 1 ? 'sine' : 'triangle', f, f, 0.01 * i, 0.9, chordDur - 0.4, mix.pad));
    }
  }
  if (chordBeat === 0 || chordBeat === 2) {
    const midi = chord.root - 12;
    const f = midiToHz(midi);
    note('bass', midi, tone('sine', f, f * 0.995, 0, 0.012, beatDur * 1.8, mix.bass * (chordBeat === 0 ? 1 : 0.75)));
  }
  // Arpeggio: two eighths per beat over the chord an octave and a half up, some left out.
  const rng = beatRandom(seed, beat);
  const pattern = ARP_PATTERNS[beatRandom(seed, Math.floor(beat / progression.beatsPerChord) * 7919).int(ARP_PATTERNS.length)]!;
  const ladder = [...chord.tones.map((m) => m + 24), chord.tones[0]! + 36];
  for (let half = 0; half < 2; half++) {
    if (rng.next() < 0.3) continue;
    const step = pattern[(chordBeat * 2 + half) % pattern.length]!;
    const midi = ladder[step]!;
    const f = midiToHz(midi);
    note('arp', midi, tone('triangle', f, f, (half * beatDur) / 2, 0.006, 0.38, mix.arp * (0.75 + 0.25 * rng.next())));
  }
  return notes;
}
