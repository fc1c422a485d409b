/**
 * Notes, chords and the progression the music plays. Pure: the music player schedules from it and
 * effects (the crystal chime) read the chord playing at a given moment from it.
 */

/** Frequency of a MIDI note number (A4 = 69 = 440 Hz), equal temperament. */
export function midiToHz(midi: number): number {
  return 440 * Math.pow(2, (midi - 69) / 12);
}

const NOTE_NAMES = ['C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B'] as const;

/** Name of a MIDI note, e.g. 69 → "A4". */
export function midiName(midi: number): string {
  const m = Math.round(midi);
  return `${NOTE_NAMES[((m % 12) + 12) % 12]}${Math.floor(m / 12) - 1}`;
}

/** A triad's quality. */
export type ChordQuality = 'major' | 'minor';

/** A triad, voiced for the pads. */
export interface Chord {
  /** e.g. "Am", "F". */
  name: string;
  /** MIDI number of the root in the voicing the pads play. */
  root: number;
  /** Major or minor. */
  quality: ChordQuality;
  /** The triad's MIDI numbers, root position, ascending. */
  tones: readonly number[];
}

const INTERVALS: Record<ChordQuality, readonly number[]> = { major: [0, 4, 7], minor: [0, 3, 7] };

/** A root-position triad on `root` (MIDI). */
export function triad(root: number, quality: ChordQuality): Chord {
  const name = `${NOTE_NAMES[root % 12]}${quality === 'minor' ? 'm' : ''}`;
  return { name, root, quality, tones: INTERVALS[quality].map((i) => root + i) };
}

/** A chord progression and its tempo. */
export interface Progression {
  /** Beats per minute. */
  bpm: number;
  /** How many beats each chord lasts. */
  beatsPerChord: number;
  /** The chords, in order; the progression loops. */
  chords: readonly Chord[];
}

/** Cairn's theme: i–VI–III–VII in A minor (Am F C G), slow and open. */
export const CAIRN_PROGRESSION: Progression = {
  bpm: 84,
  beatsPerChord: 4,
  chords: [triad(57, 'minor'), triad(53, 'major'), triad(48, 'major'), triad(55, 'major')],
};

/** Seconds per beat. */
export function beatSeconds(progression: Progression): number {
  return 60 / progression.bpm;
}

/** Seconds one pass through the progression takes. */
export function loopSeconds(progression: Progression): number {
  return beatSeconds(progression) * progression.beatsPerChord * progression.chords.length;
}

/** Where the music is: the chord sounding, its index and the beat. */
export interface ChordPosition {
  /** The chord sounding. */
  chord: Chord;
  /** Index in the progression. */
  index: number;
  /** Beat number since the music started (0-based). */
  beat: number;
}

/**
 * The chord sounding `elapsed` seconds after the music started. Before the start (negative time)
 * the first chord is reported, so an effect played just before the downbeat is in key.
 */
export function chordAt(progression: Progression, elapsed: number): ChordPosition {
  const beat = Math.max(0, Math.floor(elapsed / beatSeconds(progression) + 1e-9));
  const index = Math.floor(beat / progression.beatsPerChord) % progression.chords.length;
  return { chord: progression.chords[index]!, index, beat };
}

/** The chime's lowest note (E5): a crystal sits above the music. */
export const CHIME_BASE_MIDI = 76;
/** How many chord tones a streak can climb before it stays on the top one. */
export const CHIME_MAX_STEPS = 7;

/**
 * The note of the `streak`-th pickup in a row (0 = first) over `chord`: the chord's tones from
 * `base` upwards, one chord tone higher per pickup, holding at the top after `maxSteps`.
 */
export function chimeMidi(chord: Chord, streak: number, base = CHIME_BASE_MIDI, maxSteps = CHIME_MAX_STEPS): number {
  if (!Number.isFinite(streak) || streak < 0) throw new RangeError(`chimeMidi: streak must be ≥ 0 (got ${streak})`);
  const step = Math.min(Math.floor(streak), maxSteps);
  const classes = new Set(chord.tones.map((t) => ((t % 12) + 12) % 12));
  let midi = Math.ceil(base) - 1;
  for (let found = -1; found < step;) {
    midi++;
    if (classes.has(midi % 12)) found++;
  }
  return midi;
}
