import { describe, expect, it } from 'vitest';
import { CAIRN_PROGRESSION, beatSeconds, midiToHz } from '../../../src/audio/music-theory.ts';
import { notesForBeat } from '../../../src/audio/music-score.ts';

describe('notesForBeat', () => {
  it('plays the pad on each chord change, the bass on beats 1 and 3, arpeggio notes from the chord', () => {
    for (let beat = 0; beat < 32; beat++) {
      const chord = CAIRN_PROGRESSION.chords[Math.floor(beat / 4) % 4]!;
      const notes = notesForBeat(CAIRN_PROGRESSION, beat, 1234);
      const pads = notes.filter((n) => n.voice === 'pad');
      const bass = notes.filter((n) => n.voice === 'bass');
      expect(pads).toHaveLength(beat % 4 === 0 ? 3 : 0);
      expect(bass).toHaveLength(beat % 4 === 0 || beat % 4 === 2 ? 1 : 0);
      for (const note of notes) {
        expect(chord.tones.map((t) => t % 12)).toContain(note.midi % 12);
        expect(note.layer.f0).toBeCloseTo(midiToHz(note.midi), 9);
        expect(note.layer.t).toBeLessThan(beatSeconds(CAIRN_PROGRESSION));
      }
      if (bass[0]) expect(bass[0].midi).toBe(chord.root - 12);
    }
  });

  it('is stateless: the same beat and seed give the same notes, another seed another arpeggio', () => {
    const a = Array.from({ length: 16 }, (_, b) => notesForBeat(CAIRN_PROGRESSION, b, 1));
    const b = Array.from({ length: 16 }, (_, i) => notesForBeat(CAIRN_PROGRESSION, i, 1));
    expect(b).toEqual(a);
    const other = Array.from({ length: 16 }, (_, i) => notesForBeat(CAIRN_PROGRESSION, i, 2));
    expect(other).not.toEqual(a);
  });
});
