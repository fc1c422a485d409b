import { describe, expect, it } from 'vitest';
import { ChimeStreak } from '../../../src/audio/chime-streak.ts';
import {
  CAIRN_PROGRESSION,
  beatSeconds,
  chimeMidi,
  chordAt,
  loopSeconds,
  midiName,
  midiToHz,
  triad,
} from '../../../src/audio/music-theory.ts';

describe('notes and chords', () => {
  it('tunes A4 = 440 Hz in equal temperament', () => {
    expect(midiToHz(69)).toBe(440);
    expect(midiToHz(81)).toBeCloseTo(880, 9);
    expect(midiToHz(60)).toBeCloseTo(261.6256, 3);
    expect(midiName(69)).toBe('A4');
    expect(midiName(60)).toBe('C4');
  });

  it('builds root-position triads', () => {
    expect(triad(57, 'minor')).toEqual({ name: 'Am', root: 57, quality: 'minor', tones: [57, 60, 64] });
    expect(triad(53, 'major').tones).toEqual([53, 57, 60]);
  });

  it('plays Am F C G, four beats each at 84 bpm', () => {
    expect(CAIRN_PROGRESSION.chords.map((c) => c.name)).toEqual(['Am', 'F', 'C', 'G']);
    const beat = beatSeconds(CAIRN_PROGRESSION);
    expect(beat).toBeCloseTo(60 / 84, 12);
    expect(chordAt(CAIRN_PROGRESSION, 0).chord.name).toBe('Am');
    expect(chordAt(CAIRN_PROGRESSION, 4 * beat - 0.001).chord.name).toBe('Am');
    expect(chordAt(CAIRN_PROGRESSION, 4 * beat).chord.name).toBe('F');
    expect(chordAt(CAIRN_PROGRESSION, 13 * beat).chord.name).toBe('G');
    expect(chordAt(CAIRN_PROGRESSION, loopSeconds(CAIRN_PROGRESSION) + 0.01).chord.name).toBe('Am');
    expect(chordAt(CAIRN_PROGRESSION, -5).chord.name).toBe('Am');
  });
});

describe('chord-following chime pitch', () => {
  const [am, f, c, g] = CAIRN_PROGRESSION.chords;

  it('starts on the lowest chord tone at or above E5', () => {
    expect(midiName(chimeMidi(am!, 0))).toBe('E5');
    expect(midiName(chimeMidi(f!, 0))).toBe('F5');
    expect(midiName(chimeMidi(c!, 0))).toBe('E5');
    expect(midiName(chimeMidi(g!, 0))).toBe('G5');
  });

  it('climbs one chord tone per pickup in a streak', () => {
    expect([0, 1, 2, 3, 4].map((s) => midiName(chimeMidi(am!, s)))).toEqual(['E5', 'A5', 'C6', 'E6', 'A6']);
    expect([0, 1, 2, 3].map((s) => midiName(chimeMidi(g!, s)))).toEqual(['G5', 'B5', 'D6', 'G6']);
  });

  it('only ever plays tones of the chord sounding', () => {
    for (const chord of CAIRN_PROGRESSION.chords) {
      const classes = chord.tones.map((t) => t % 12);
      for (let s = 0; s < 12; s++) expect(classes).toContain(chimeMidi(chord, s) % 12);
    }
  });

  it('holds at the top after seven steps', () => {
    expect(chimeMidi(am!, 7)).toBe(chimeMidi(am!, 30));
    expect(chimeMidi(am!, 6)).toBeLessThan(chimeMidi(am!, 7));
  });

  it('rejects a negative streak', () => {
    expect(() => chimeMidi(am!, -1)).toThrow(/streak/);
  });
});

describe('ChimeStreak', () => {
  it('counts pickups within the window and starts over after a gap', () => {
    const streak = new ChimeStreak(2.5);
    expect(streak.current).toBe(-1);
    expect([0, 0.5, 1, 3].map((t) => streak.next(t))).toEqual([0, 1, 2, 3]);
    expect(streak.next(5.6)).toBe(0);
    expect(streak.next(5.7)).toBe(1);
    streak.reset();
    expect(streak.next(5.8)).toBe(0);
  });
});
