import { describe, expect, it } from 'vitest';
import { ArrivalTiming, arrivalSpread, lateness, TIMING_SAMPLES, typicalLateness } from '../../../server/world/arrival-timing.ts';

describe('ArrivalTiming (a cell timing its publishers’ arrivals)', () => {
  it('reads lateness around the moment, in (−period/2, period/2]', () => {
    expect(lateness(1_000_030, 20, 100)).toBe(10);
    expect(lateness(1_000_015, 20, 100)).toBe(-5);
    expect(lateness(1_000_070, 20, 100)).toBe(50);
    expect(lateness(1_000_071, 20, 100)).toBe(-49);
  });

  it('reads the early edge (second earliest) around the circular mean: ±49 straddles the half-period mark, queueing and one stray frame move nothing', () => {
    expect(typicalLateness([49, -49, 48, -48, 49, -49], 100)).toBe(49);
    // Eight frames sent 12 ms late; four of them queued behind the relay's own work (+20 … +35 ms)
    // and one sent off schedule (a state change) 40 ms early.
    expect(typicalLateness([12, 32, 13, 47, 12, -40, 40, 14], 100)).toBe(12);
    expect(typicalLateness([], 100)).toBe(0);
  });

  it('says how late every few frames, only when beyond the tolerance', () => {
    const timing = new ArrivalTiming(30, 100);
    const base = 1_800_000_000_000; // ≡ 0 (mod 100)
    const verdicts: Array<number | null> = [];
    for (let i = 0; i < 2 * TIMING_SAMPLES; i++) verdicts.push(timing.record(base + i * 100 + 30 + 17 + (i % 3)));
    expect(verdicts.filter((v) => v !== null)).toEqual([17, 17]);
    expect(verdicts[TIMING_SAMPLES - 1]).toBe(17);
    // On time within the tolerance: nothing to say.
    const onTime = new ArrivalTiming(30, 100);
    const quiet: Array<number | null> = [];
    for (let i = 0; i < TIMING_SAMPLES; i++) quiet.push(onTime.record(base + i * 100 + 30 + (i % 2 ? 3 : -3)));
    expect(quiet.every((v) => v === null)).toBe(true);
  });

  it('says nothing while the arrivals disagree (a backlog in the relay), so it never chases its own queue', () => {
    expect(arrivalSpread([12, 32, 13, 47, 12, -40, 40, 14], 100)).toBe(35); // −40 reads as +60 around the mean
    expect(arrivalSpread([49, -49, 48, -48, 49, -49], 100)).toBe(2);
    const timing = new ArrivalTiming(0, 100);
    const base = 1_800_000_000_000;
    // ~20 ms late, but queued by 0–35 ms on top: the early edge would read 20, the spread is 30.
    const queued = [20, 55, 22, 41, 30, 21, 48, 36];
    const verdicts = queued.map((late, i) => timing.record(base + i * 100 + late));
    expect(verdicts.every((v) => v === null)).toBe(true);
  });
});

describe('ArrivalTiming with sender timestamps (a cell that is behind)', () => {
  const base = 1_800_000_000_000; // ≡ 0 (mod 100)
  // Held on the way (the cell's own backlog, a busy path) by this much, frame after frame.
  const held = [0, 35, 10, 25, 0, 40, 5, 30, 15, 0, 45, 20, 0, 30, 10, 38];

  it('tells a sender its own lateness, not the backlog it waited in', () => {
    const timing = new ArrivalTiming(30, 100);
    const offset = 123_456; // the sender's clock is its own
    const verdicts: number[] = [];
    for (let i = 0; i < held.length; i++) {
      const sent = base + i * 100 + 30 + 17; // 17 ms after the moment, every frame
      const verdict = timing.record(sent + 2 + held[i]!, (sent - offset) % 2 ** 32);
      if (verdict !== null) verdicts.push(verdict);
    }
    // Two verdicts, both the sender's 17 ms plus the 2 ms of quickest transit.
    expect(verdicts).toEqual([19, 19]);
    // Timed on raw arrivals, the same frames spread 40 ms: the cell could say nothing.
    const raw = new ArrivalTiming(30, 100);
    const rawVerdicts = held.map((h, i) => raw.record(base + i * 100 + 30 + 17 + 2 + h));
    expect(rawVerdicts.every((v) => v === null)).toBe(true);
  });

  it('says nothing to a sender that is on time, however the backlog comes and goes', () => {
    const timing = new ArrivalTiming(60, 100);
    const verdicts = held.map((h, i) => timing.record(base + i * 100 + 60 + 1 + h, (base + i * 100 + 60) % 2 ** 32));
    expect(verdicts.every((v) => v === null)).toBe(true);
  });

  it('reads timestamps across their 2^32 ms wrap, and follows a sender that moves its moment', () => {
    const timing = new ArrivalTiming(0, 100);
    const verdicts: number[] = [];
    for (let i = 0; i < 48; i++) {
      // The sender's u32 clock wraps a few frames in; from frame 16 on it sends 20 ms later.
      const sent = base + i * 100 + (i >= 16 ? 20 : 0) + 8;
      const stamp = (2 ** 32 - 500 + i * 100 + (i >= 16 ? 20 : 0)) % 2 ** 32;
      const verdict = timing.record(sent + 3 + held[i % held.length]!, stamp);
      if (verdict !== null) verdicts.push(verdict);
    }
    expect(verdicts).toEqual([11, 11, 31, 31, 31, 31]);
  });
});
