import { describe, expect, it } from 'vitest';
import { createFrame, decodeFrame } from '../../../src/net/protocol/frame.ts';
import { LocalPublisher, type LocalPose } from '../../../src/net/peers/local-publisher.ts';

const pose = (state: string, x = 0): LocalPose => ({ x, y: 1, z: 2, facing: 0.5, speed: 1.6, state });

describe('LocalPublisher', () => {
  it('sends at 10 Hz from a 60 fps loop, with increasing sequence numbers and the wall-clock timestamp', () => {
    let wall = 1_700_000_000_000;
    const publisher = new LocalPublisher({ clock: () => wall });
    const out = createFrame();
    const seqs: number[] = [];
    for (let frame = 0; frame < 600; frame++) {
      const now = frame * (1000 / 60);
      wall = 1_700_000_000_000 + now;
      const bytes = publisher.poll(pose('walk', frame), now);
      if (!bytes) continue;
      expect(decodeFrame(Uint8Array.from([...bytes.subarray(0, 4), 1, 0, 0, 0, ...bytes.subarray(8)]), 0, out)).toBeNull();
      seqs.push(out.seq);
      expect(out.timestamp).toBe(Math.floor(wall % 2 ** 32));
    }
    expect(seqs.length).toBeGreaterThanOrEqual(99);
    expect(seqs.length).toBeLessThanOrEqual(101);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it('sends at once when the animation state changes, but never faster than the relay cap allows', () => {
    const publisher = new LocalPublisher();
    expect(publisher.poll(pose('idle'), 0)).not.toBeNull();
    expect(publisher.poll(pose('idle'), 16)).toBeNull();
    expect(publisher.poll(pose('jump'), 20)).toBeNull(); // within 1/30 s of the last frame
    expect(publisher.poll(pose('jump'), 40)).not.toBeNull(); // state change: no waiting for the 100 ms tick
    expect(publisher.changeFrames).toBe(1);
    expect(publisher.poll(pose('jump'), 60)).toBeNull();
    expect(publisher.poll(pose('jump'), 100)).not.toBeNull(); // the regular cadence continues
  });

  it('keeps sending in a slow tab (one poll per second) and sends unknown states as idle', () => {
    const publisher = new LocalPublisher();
    let sent = 0;
    for (let t = 0; t < 5000; t += 1000) if (publisher.poll(pose('cartwheel'), t)) sent++;
    expect(sent).toBe(5);
    expect(publisher.unknownStates).toBe(5);
  });

  it('lines regular frames up on the phase it is given, follows a new phase within one frame, and keeps 10 Hz', () => {
    let phase: number | null = 37;
    const publisher = new LocalPublisher({ phase: () => phase });
    const sentAt: number[] = [];
    const step = 1000 / 60;
    for (let frame = 0; frame < 1200; frame++) {
      const now = 5 + frame * step;
      if (frame === 600) phase = 81;
      if (publisher.poll(pose('walk'), now)) sentAt.push(now);
    }
    const first = sentAt.filter((t) => t < 5 + 600 * step);
    const later = sentAt.filter((t) => t > 5 + 600 * step + 200);
    // Each frame leaves at the first poll at or after a moment of the phase: within one 60 fps frame.
    for (const t of first.slice(1)) expect((t - 37 + 1000) % 100).toBeLessThan(step);
    for (const t of later) expect((t - 81 + 1000) % 100).toBeLessThan(step);
    // The rate is kept (20 s at 10 Hz), and moving the phase never bunches two frames together.
    expect(sentAt.length).toBeGreaterThanOrEqual(198);
    expect(sentAt.length).toBeLessThanOrEqual(201);
    const gaps = sentAt.slice(1).map((t, i) => t - sentAt[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(50 - step);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(150 + step);
  });

  it('sends unaligned while the phase is unknown (null), as without one', () => {
    const publisher = new LocalPublisher({ phase: () => null });
    const sentAt: number[] = [];
    for (let t = 3; t < 1000; t += 5) if (publisher.poll(pose('walk'), t)) sentAt.push(t);
    expect(sentAt).toEqual([3, 103, 203, 303, 403, 503, 603, 703, 803, 903]);
  });
});
