import { describe, expect, it } from 'vitest';
import { VoiceLimiter, voiceLevelAt, type VoiceInfo } from '../../../src/audio/voice-limiter.ts';

let nextId = 1;
function voice(sound: string, start: number, peak = 0.5, length = 1, bus = 'effects'): VoiceInfo {
  return { id: nextId++, sound, bus, start, peakTime: start + 0.01, end: start + length, peak };
}

/** Asks for a voice as the graph does; returns the ids of the voices it steals when it starts, or null when refused. */
function play(limiter: VoiceLimiter, v: VoiceInfo, now = v.start): number[] | null {
  const result = limiter.admit(v, now);
  return result.admitted ? result.victims.map((x) => x.id) : null;
}

describe('voiceLevelAt', () => {
  it('rises to the peak, then decays exponentially to 1e-4 at the end', () => {
    const v = { id: 1, sound: 's', bus: 'b', start: 0, peakTime: 0.01, end: 1.01, peak: 0.5 };
    expect(voiceLevelAt(v, -0.1)).toBe(0);
    expect(voiceLevelAt(v, 0.005)).toBeCloseTo(0.25, 9);
    expect(voiceLevelAt(v, 0.01)).toBe(0.5);
    expect(voiceLevelAt(v, 0.51)).toBeCloseTo(0.5 * Math.sqrt(1e-4 / 0.5), 9);
    expect(voiceLevelAt(v, 1.01)).toBe(0);
  });
});

describe('VoiceLimiter', () => {
  it('steals the oldest voice of a sound at its limit', () => {
    const limiter = new VoiceLimiter({ perSound: { step: { max: 2, steal: 'oldest' } } });
    const a = voice('step', 0);
    const b = voice('step', 0.1);
    expect(play(limiter, a)).toEqual([]);
    expect(play(limiter, b)).toEqual([]);
    expect(play(limiter, voice('step', 0.2))).toEqual([a.id]);
    expect(limiter.count({ sound: 'step' })).toBe(2);
    expect(limiter.stolen).toBe(1);
  });

  it('steals the quietest voice now, and refuses a new voice quieter than every playing one', () => {
    const limiter = new VoiceLimiter({ perSound: { strike: { max: 2, steal: 'quietest' } } });
    const loudOld = voice('strike', 0, 0.9, 10); // long ring: still loud at t = 0.5
    const quietNew = voice('strike', 0.4, 0.1, 10);
    play(limiter, loudOld);
    play(limiter, quietNew);
    // At 0.5 s the older voice is louder than the newer, quieter one: the quieter one goes.
    expect(play(limiter, voice('strike', 0.5, 0.6, 10))).toEqual([quietNew.id]);
    // A whisper cannot push out voices louder than itself.
    expect(play(limiter, voice('strike', 0.6, 0.0001, 10))).toBeNull();
    expect(limiter.refused).toBe(1);
  });

  it('refuses the new voice under the "none" policy', () => {
    const limiter = new VoiceLimiter({ perSound: { groan: { max: 1, steal: 'none' } } });
    expect(play(limiter, voice('groan', 0))).toEqual([]);
    expect(play(limiter, voice('groan', 0.1))).toBeNull();
  });

  it('limits a bus across sounds, after the per-sound limit', () => {
    const limiter = new VoiceLimiter({ perBus: { ui: { max: 3, steal: 'oldest' } }, defaultSound: { max: 10, steal: 'oldest' } });
    const first = voice('click', 0, 0.5, 1, 'ui');
    play(limiter, first);
    play(limiter, voice('confirm', 0.1, 0.5, 1, 'ui'));
    play(limiter, voice('click', 0.2, 0.5, 1, 'ui'));
    expect(play(limiter, voice('hover', 0.3, 0.5, 1, 'ui'))).toEqual([first.id]);
    expect(limiter.count({ bus: 'ui' })).toBe(3);
    // Another bus is not affected.
    expect(play(limiter, voice('click', 0.3, 0.5, 1, 'effects'))).toEqual([]);
  });

  it('can steal one voice for the sound limit and another for the bus limit in one admission', () => {
    const limiter = new VoiceLimiter({
      perSound: { a: { max: 1, steal: 'oldest' } },
      perBus: { fx: { max: 2, steal: 'oldest' } },
      defaultSound: { max: 8, steal: 'oldest' },
    });
    const a1 = voice('a', 0, 0.5, 5, 'other');
    const b1 = voice('b', 0.1, 0.5, 5, 'fx');
    const b2 = voice('b', 0.2, 0.5, 5, 'fx');
    play(limiter, a1);
    play(limiter, b1);
    play(limiter, b2);
    expect(play(limiter, voice('a', 0.3, 0.5, 5, 'fx'))?.sort()).toEqual([a1.id, b1.id].sort());
    expect(limiter.size).toBe(2);
  });

  it('counts only voices sounding when the new one starts (sounds scheduled ahead do not compete early)', () => {
    const limiter = new VoiceLimiter({ perSound: { step: { max: 1, steal: 'none' } } });
    // Steps scheduled up front, each 0.2 s long, 0.5 s apart: never two at once.
    for (let i = 0; i < 10; i++) expect(play(limiter, voice('step', i * 0.5, 0.3, 0.2), 0)).toEqual([]);
    expect(limiter.size).toBe(10);
    expect(limiter.soundingAt(1.1, { sound: 'step' })).toBe(1);
    expect(limiter.soundingAt(1.3, { sound: 'step' })).toBe(0);
  });

  it('forgets voices that have ended', () => {
    const limiter = new VoiceLimiter({ perSound: { step: { max: 1, steal: 'none' } } });
    play(limiter, voice('step', 0, 0.3, 0.2));
    expect(limiter.reap(0.19)).toBe(0);
    expect(limiter.reap(0.21)).toBe(1);
    expect(play(limiter, voice('step', 0.25, 0.3, 0.2))).toEqual([]);
  });

  it('never lets more than the limit sound at once, even when later voices are asked for first', () => {
    const limiter = new VoiceLimiter({ perSound: { 'crack-line': { max: 3, steal: 'oldest' } } });
    // Six crack-lines 50 ms apart, each 0.3 s long, scheduled ahead in reverse order.
    for (let i = 5; i >= 0; i--) play(limiter, voice('crack-line', 1 + i * 0.05, 0.5, 0.3), 0);
    let most = 0;
    for (let t = 0.9; t < 1.7; t += 0.001) most = Math.max(most, limiter.soundingAt(t, { sound: 'crack-line' }));
    expect(most).toBe(3);
    expect(limiter.stolen).toBe(3);
  });

  it('counts a stolen voice as gone at once (its fade does not hold the place)', () => {
    const limiter = new VoiceLimiter({ perSound: { s: { max: 1, steal: 'oldest' } } });
    const a = voice('s', 0);
    play(limiter, a);
    expect(play(limiter, voice('s', 0.1))).toEqual([a.id]);
    expect(limiter.soundingAt(0.1, { sound: 's' })).toBe(1);
    expect(limiter.count({ sound: 's' })).toBe(1);
  });

  it('holds the bus limit for calls with guards off (they only skip the per-sound limit)', () => {
    const limiter = new VoiceLimiter({
      perSound: { strike: { max: 8, steal: 'none' } },
      perBus: { effects: { max: 24, steal: 'oldest' } },
    });
    let admitted = 0;
    for (let i = 0; i < 30; i++) if (limiter.admit(voice('strike', 0), 0, { ignoreSoundLimit: true }).admitted) admitted++;
    // Thirty at one instant: the first 24 asked for keep their places; none started before the
    // others, so none is stolen (it would never have sounded) and the last six are refused.
    expect(admitted).toBe(24);
    expect(limiter.stolen).toBe(0);
    expect(limiter.refused).toBe(6);
    expect(limiter.soundingAt(0.5, { bus: 'effects' })).toBe(24);
    // With guards on, the per-sound limit refuses the ninth.
    const fresh = new VoiceLimiter({ perSound: { strike: { max: 8, steal: 'none' } } });
    const results = Array.from({ length: 9 }, () => play(fresh, voice('strike', 0)));
    expect(results.filter((r) => r !== null)).toHaveLength(8);
  });

  it('admits every voice of a sound when disabled (stress tests), within the bus limit', () => {
    const limiter = new VoiceLimiter({ perSound: { s: { max: 1, steal: 'none' } }, perBus: { effects: { max: 4, steal: 'none' } } });
    limiter.enabled = false;
    for (let i = 0; i < 4; i++) expect(play(limiter, voice('s', 0))).toEqual([]);
    expect(play(limiter, voice('s', 0))).toBeNull();
    expect(limiter.size).toBe(4);
  });

  it('judges voices in audio-time order: six groans 350 ms apart sound from their starts whatever the call order', () => {
    // Limit 2, oldest gives way; each groan rings 1.3 s. Scheduled ahead at audio time 0.
    const outcome = (order: number[]): { cuts: (number | null)[]; stolen: number; admitted: number } => {
      const limiter = new VoiceLimiter({ perSound: { groan: { max: 2, steal: 'oldest' } } });
      const ids: number[] = [];
      for (const i of order) {
        const v = { ...voice('groan', i * 0.35, 0.5, 1.3), id: 100 + i };
        ids[i] = v.id;
        expect(limiter.admit(v, 0).admitted).toBe(true);
      }
      return { cuts: ids.map((id) => limiter.cutOf(id)), stolen: limiter.stolen, admitted: limiter.admitted };
    };
    const forward = outcome([0, 1, 2, 3, 4, 5]);
    // Each of the first four is stolen when the groan two after it starts (it has sounded 0.7 s); the last two ring out.
    expect(forward.cuts.map((c) => (c === null ? null : Number(c.toFixed(2))))).toEqual([0.7, 1.05, 1.4, 1.75, null, null]);
    expect(forward.stolen).toBe(4);
    expect(forward.admitted).toBe(6);
    expect(outcome([5, 4, 3, 2, 1, 0])).toEqual(forward);
    expect(outcome([3, 0, 5, 1, 4, 2])).toEqual(forward);
  });

  it('never steals a voice that has not started for a later one', () => {
    const limiter = new VoiceLimiter({ perSound: { s: { max: 1, steal: 'oldest' } } });
    const late = voice('s', 1);
    const early = voice('s', 0.5);
    limiter.admit(late, 0);
    // Asked for later but due earlier: it sounds from 0.5 s until the later one takes over at 1 s.
    const result = limiter.admit(early, 0);
    expect(result.admitted).toBe(true);
    expect(limiter.cutOf(early.id)).toBe(1);
    expect(limiter.cutOf(late.id)).toBeNull();
    expect(result.changes.cuts).toEqual([{ voice: expect.objectContaining({ id: early.id }), at: 1, was: null }]);
    // At no moment do two sound, and each sounds from its own start.
    expect(limiter.soundingAt(0.75, { sound: 's' })).toBe(1);
    expect(limiter.soundingAt(1.2, { sound: 's' })).toBe(1);
    expect(limiter.stolen).toBe(1);
  });

  it('refuses the later voice, not one that has sounded, when neither may steal; it comes back when the place frees', () => {
    const limiter = new VoiceLimiter({ perSound: { s: { max: 1, steal: 'none' } } });
    const late = voice('s', 1, 0.5, 1);
    const early = voice('s', 0.5, 0.5, 1);
    expect(limiter.admit(late, 0).admitted).toBe(true);
    // The earlier voice takes the place: the later one (not started) is withdrawn.
    const result = limiter.admit(early, 0);
    expect(result.admitted).toBe(true);
    expect(result.changes.withdrawn.map((v) => v.id)).toEqual([late.id]);
    expect(result.changes.reasons.get(late.id)).toMatch(/s: 1 voices playing \(steal: none\)/);
    expect(limiter.refused).toBe(1);
    expect(limiter.admitted).toBe(1);
    // The earlier voice is stopped at 0.6 s: the later one has its place back.
    const back = limiter.remove(early.id, 0.6);
    expect(back.admitted.map((v) => v.id)).toEqual([late.id]);
    expect(limiter.refused).toBe(0);
    expect(limiter.admitted).toBe(2);
  });

  it('refuses the second of two voices starting together rather than steal one that never sounded', () => {
    const limiter = new VoiceLimiter({ perSound: { s: { max: 1, steal: 'oldest' } } });
    expect(play(limiter, voice('s', 0.2), 0)).toEqual([]);
    expect(play(limiter, voice('s', 0.2), 0)).toBeNull();
    expect(limiter.stolen).toBe(0);
  });

  it('takes the same decisions for any call order (random schedules, every policy)', () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const steal of ['oldest', 'quietest', 'none'] as const) {
      for (let run = 0; run < 20; run++) {
        const voices = Array.from({ length: 14 }, (_, i) => ({
          ...voice(random() < 0.5 ? 'a' : 'b', Math.round(random() * 200) / 100, 0.1 + random(), 0.2 + random()),
          id: i + 1,
        }));
        const decide = (order: VoiceInfo[]): string => {
          const limiter = new VoiceLimiter({
            perSound: { a: { max: 2, steal }, b: { max: 3, steal } },
            perBus: { effects: { max: 4, steal } },
          });
          for (const v of order) limiter.admit(v, 0);
          return (
            voices.map((v) => `${v.id}:${limiter.isAdmitted(v.id)}:${limiter.cutOf(v.id)}`).join(' ') +
            ` s${limiter.stolen} r${limiter.refused}`
          );
        };
        const inTimeOrder = decide([...voices].sort((x, y) => x.start - y.start || x.id - y.id));
        expect(decide([...voices].reverse()), `${steal} run ${run}`).toBe(inTimeOrder);
        expect(decide([...voices].sort(() => random() - 0.5)), `${steal} run ${run}`).toBe(inTimeOrder);
      }
    }
  });
});
