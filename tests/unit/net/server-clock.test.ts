import { describe, expect, it } from 'vitest';
import { phaseOf } from '../../../src/net/protocol/world.ts';
import { CLOCK_STALE_MS, ServerClock } from '../../../src/net/world/server-clock.ts';

describe('ServerClock (a world client reading the server’s clock)', () => {
  it('takes the stamp as mid-way through the round trip and keeps the answer with the shortest one', () => {
    const clock = new ServerClock();
    expect(clock.phase(40)).toBeNull();
    // True offset +5,000 ms. A slow first answer (joining while the server was busy): the stamp was
    // taken 280 ms after sending, read 20 ms later — the midpoint is 130 ms off.
    expect(clock.observe(1_000_000 + 5000 + 280, 1_000_000, 1_000_300)).toBe(true);
    expect(clock.offsetMs).toBe(5130);
    expect(clock.rttMs).toBe(300);
    // A quick probe a second later: kept, and now within half its round trip of the truth.
    expect(clock.observe(1_001_000 + 5000 + 2, 1_001_000, 1_001_004)).toBe(true);
    expect(clock.offsetMs).toBe(5000);
    expect(clock.rttMs).toBe(4);
    // A slower one after it says less: ignored.
    expect(clock.observe(1_002_000 + 5000 + 90, 1_002_000, 1_002_100)).toBe(false);
    expect(clock.offsetMs).toBe(5000);
    expect(clock.rttMs).toBe(4);
    // The send moment: the server's moment 40 on this clock.
    expect(clock.phase(40)).toBe(40);
    expect(new ServerClock().observe(undefined, 0, 1)).toBe(false);
    expect(new ServerClock().observe(Number.NaN, 0, 1)).toBe(false);
  });

  it('gives way to any answer once its estimate is stale, so a drifting clock is followed', () => {
    const clock = new ServerClock();
    clock.observe(10_000 + 1, 10_000, 10_002);
    expect(clock.observe(10_500 + 60, 10_500, 10_600)).toBe(false);
    expect(clock.observe(10_000 + CLOCK_STALE_MS + 3000 + 60, 10_000 + CLOCK_STALE_MS + 3000, 10_000 + CLOCK_STALE_MS + 3100)).toBe(true);
    expect(clock.offsetMs).toBe(10);
  });

  it('moves the sends by the cell’s notes, within half a period, and ignores nonsense', () => {
    const clock = new ServerClock();
    clock.observe(1000, 1000, 1000);
    expect(clock.note(12)).toBe(true);
    expect(clock.phase(30)).toBe(18);
    expect(clock.note(45)).toBe(true); // 12 + 45 = 57 ≡ −43
    expect(clock.correctionMs).toBe(-43);
    for (const bad of [75, -51, Number.POSITIVE_INFINITY, 'soon', null]) expect(clock.note(bad)).toBe(false);
    expect(clock.notes).toBe(2);
  });

  it('gives the server’s time at a local instant, notes included, and nothing before it knows', () => {
    const clock = new ServerClock();
    expect(clock.serverTime(5000)).toBeNull();
    clock.observe(9000, 1000, 1000); // the server is 8,000 ms ahead
    expect(clock.serverTime(5000)).toBe(13_000);
    clock.note(12); // frames arrive 12 ms late: send 12 ms earlier, i.e. this clock reads 12 ms behind
    expect(clock.serverTime(5000)).toBe(13_000 + clock.correctionMs);
    // The phase and the server time agree: at the local moment of server phase 30, the server's time is at phase 30.
    const local = 100_000 + clock.phase(30)!;
    expect(phaseOf(clock.serverTime(local)!, 100)).toBeCloseTo(30, 9);
  });

  it('keeps the notes’ refinement when a better answer agrees with it, and drops it when the answer shows it was correcting a bad estimate', () => {
    // Refined and confirmed: offset 0 plus notes of 4 ms (the one-way delay); a probe with a 3 ms
    // round trip reads offset 1. The moment stays where the notes put it.
    const kept = new ServerClock();
    kept.observe(50_000 + 5, 50_000, 50_010);
    kept.note(4);
    const before = kept.phase(30);
    expect(kept.observe(60_000 + 2, 60_000, 60_003)).toBe(true);
    expect(kept.offsetMs).toBe(1);
    expect(kept.correctionMs).toBe(3);
    expect(kept.phase(30)).toBe(before);
    // On loopback the round trip is ~1 ms but the client sends a few ms late (a 5 ms frame loop):
    // notes of 9 ms against a 1 ms probe are still a refinement, not an error.
    const loopback = new ServerClock();
    loopback.observe(90_001, 90_000, 90_002);
    loopback.note(9);
    const sendAt = loopback.phase(30);
    expect(loopback.observe(95_001, 95_000, 95_001)).toBe(true);
    expect(loopback.offsetMs).toBe(1);
    expect(loopback.correctionMs).toBe(8);
    expect(loopback.phase(30)).toBe(sendAt);
    // A bad start: joined into a busy server, offset read as +90 (truly 0); the notes had pulled it
    // 40 ms back before a quick probe read the truth. The 40 ms were about the bad estimate: gone.
    const dropped = new ServerClock();
    dropped.observe(70_000 + 180, 70_000, 70_180);
    expect(dropped.offsetMs).toBe(90);
    dropped.note(-40);
    expect(dropped.observe(80_000 + 1, 80_000, 80_002)).toBe(true);
    expect(dropped.offsetMs).toBe(0);
    expect(dropped.correctionMs).toBe(0);
    expect(dropped.phase(30)).toBe(30);
  });
});
