import { afterEach, describe, expect, it, vi } from 'vitest';
import { MixerAnimationDriver } from '../../../src/anim/mixer-driver.ts';
import { createFrame, encodeFrame, FRAME_BYTES, FRAME_OFFSET, FrameFlag, stampSenderId } from '../../../src/net/protocol/frame.ts';
import { NetSession } from '../../../src/net/net-session.ts';
import { BroadcastTransport } from '../../../src/net/transport/broadcast-transport.ts';
import { openTransport } from '../../../src/net/transport/open-transport.ts';
import { emptyTransportStats, type FrameTransport, type TransportEvents } from '../../../src/net/transport/transport.ts';
import { Emitter } from '../../../src/core/emitter.ts';
import { HumanoidPeerView } from '../../../src/net/view/humanoid-peer-view.ts';
import type { RemoteAvatar, RemotePeerView } from '../../../src/net/view/remote-peer-view.ts';
import { Group } from 'three';

/** A view that records what the session asks of it. */
class RecordingView implements RemotePeerView {
  readonly avatars = new Map<number, { x: number; z: number; states: string[]; removed: boolean }>();
  add(id: number): RemoteAvatar {
    const record = { x: Number.NaN, z: Number.NaN, states: [] as string[], removed: false };
    this.avatars.set(id, record);
    return {
      setTransform: (x, _y, z) => Object.assign(record, { x, z }),
      play: (state) => record.states.push(state),
      remove: () => (record.removed = true),
    };
  }
  update(): void {}
  get count(): number {
    return [...this.avatars.values()].filter((a) => !a.removed).length;
  }
  dispose(): void {}
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sessions: NetSession[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.dispose();
});

describe('NetSession over a real BroadcastChannel (Node has one)', () => {
  it('two sessions on one channel see each other move, at ~10 Hz, and a leave removes the avatar at once', async () => {
    const channel = `test-${Math.random()}`;
    const viewA = new RecordingView();
    const viewB = new RecordingView();
    const a = new NetSession({ transport: openTransport(`broadcast:${channel}`), view: viewA, timerMs: 10 });
    const b = new NetSession({ transport: openTransport(`broadcast:${channel}`), view: viewB, timerMs: 10 });
    sessions.push(a);
    expect(a.transport.kind).toBe('broadcast');
    const started = performance.now();
    let x = 0;
    while (performance.now() - started < 1200) {
      x = (performance.now() - started) / 100; // 10 m/s along +X
      a.setLocalPose({ x, y: 0, z: 5, facing: Math.PI / 2, speed: 10, state: 'run' });
      b.setLocalPose({ x: -3, y: 0, z: 0, facing: 0, speed: 0, state: 'idle' });
      a.update(0.016);
      b.update(0.016);
      await sleep(16);
    }
    const seenByB = viewB.avatars.get(a.transport.selfId!)!;
    expect(seenByB).toBeDefined();
    expect(seenByB.states[0]).toBe('run');
    expect(seenByB.z).toBe(5);
    // Drawn ~100–200 ms behind the sender (1–2 m at 10 m/s), never ahead.
    expect(seenByB.x).toBeLessThan(x);
    expect(seenByB.x).toBeGreaterThan(x - 3);
    expect(viewA.avatars.get(b.transport.selfId!)?.x).toBe(-3);
    // 10 Hz: ~12 frames in 1.2 s (the timer polls every 10 ms).
    expect(a.stats.sent).toBeGreaterThanOrEqual(10);
    expect(a.stats.sent).toBeLessThanOrEqual(14);
    expect(b.stats.peers).toBe(1);
    b.dispose(); // posts a leave frame
    const until = performance.now() + 1000;
    while (viewA.count > 0 && performance.now() < until) {
      a.update(0.016);
      await sleep(20);
    }
    expect(viewA.count).toBe(0);
    expect(a.stats.leaves).toBe(1);
    expect(a.stats.silenced).toBe(0);
  });

  it('rejects garbage on the channel with a reason and keeps the peers it has', async () => {
    const channel = `garbage-${Math.random()}`;
    const view = new RecordingView();
    const a = new NetSession({ transport: new BroadcastTransport({ channel }), view, timerMs: 0 });
    sessions.push(a);
    const raw = new BroadcastChannel(`cairn-avatar:${channel}`);
    const good = new Uint8Array(FRAME_BYTES);
    encodeFrame({ ...createFrame(), seq: 1, x: 4 }, good);
    stampSenderId(good, 0, 123);
    raw.postMessage(good);
    raw.postMessage('not bytes');
    raw.postMessage(new Uint8Array(35));
    const forged = good.slice();
    forged[0] = 9;
    raw.postMessage(forged);
    await sleep(50);
    a.update(0.016);
    expect(a.stats.peers).toBe(1);
    // Two messages rejected whole (not bytes; not whole frames), one bad frame skipped.
    expect(a.stats.rejected).toBe(2);
    expect(a.stats.badFrames).toBe(1);
    expect(a.stats.lastRejection).toMatch(/unsupported format version/);
    raw.close();
  });

  it('skips and counts a bad frame inside a coalesced message and takes the honest frames around it', async () => {
    const channel = `coalesced-${Math.random()}`;
    const view = new RecordingView();
    const a = new NetSession({ transport: new BroadcastTransport({ channel }), view, timerMs: 0 });
    sessions.push(a);
    const raw = new BroadcastChannel(`cairn-avatar:${channel}`);
    const message = new Uint8Array(FRAME_BYTES * 3);
    encodeFrame({ ...createFrame(), seq: 1, x: 4 }, message, 0);
    stampSenderId(message, 0, 201);
    encodeFrame({ ...createFrame(), seq: 1, x: 5 }, message, FRAME_BYTES);
    stampSenderId(message, FRAME_BYTES, 202);
    message[FRAME_BYTES] = 9; // the middle sender's frame: a version no reader knows
    encodeFrame({ ...createFrame(), seq: 1, x: 6 }, message, 2 * FRAME_BYTES);
    stampSenderId(message, 2 * FRAME_BYTES, 203);
    raw.postMessage(message);
    await sleep(50);
    a.update(0.016);
    expect([...a.table.peers.keys()].sort()).toEqual([201, 203]);
    expect(a.stats.frames).toBe(2);
    expect(a.stats.badFrames).toBe(1);
    expect(a.stats.rejected).toBe(0);
    expect(a.stats.lastRejection).toMatch(/unsupported format version/);
    raw.close();
  });

  it('openTransport explains targets it cannot open', () => {
    expect(() => openTransport('broadcast:')).toThrow(/needs a channel name/);
    expect(() => openTransport('http://x/rooms/avatar/a')).toThrow(/neither broadcast:NAME, a ws:\/\/ or wss:\/\/ URL/);
    expect(() => openTransport('/rooms/avatar/a')).toThrow(/no page origin/);
  });
});

describe('remote avatars: the animation request fix (regression)', () => {
  it('two frames in one tick — walk, then idle — end in idle on the remote avatar', () => {
    const parent = new Group();
    const view = new HumanoidPeerView({ parent });
    const channel = `anim-${Math.random()}`;
    let now = 10_000;
    const session = new NetSession({ transport: new BroadcastTransport({ channel }), view, timerMs: 0, now: () => now });
    sessions.push(session);
    const bytes = new Uint8Array(FRAME_BYTES);
    const send = (seq: number, animState: number, ts: number) => {
      encodeFrame({ ...createFrame(), seq, animState, timestamp: ts }, bytes);
      stampSenderId(bytes, 0, 77);
      (session as unknown as { receive(b: Uint8Array): void }).receive(bytes.slice());
    };
    send(1, 0, 0); // idle
    now += 200;
    session.update(0.2);
    const avatar = [...view.avatars][0]!;
    const driver: MixerAnimationDriver = avatar.animation;
    expect(driver.clip?.name).toBe('idle');
    // Walk and idle again, 30 ms apart: both pass the render time within one update.
    send(2, 1, 230);
    send(3, 0, 260);
    now += 300;
    session.update(0.016);
    expect(driver.machine.current).toBe('idle');
    expect(driver.clip?.name).toBe('idle');
    // And a lasting change does play.
    send(4, 2, 600);
    now += 300;
    session.update(0.016);
    expect(driver.clip?.name).toBe('run');
  });
});

describe('NetSession sends when the transport asks (open-world cells)', () => {
  /** A transport that records when (Date.now()) frames leave and asks for a moment within each 100 ms. */
  function timedTransport(phase: () => number | null): FrameTransport & { sentAt: number[] } {
    const sentAt: number[] = [];
    return {
      kind: 'world',
      target: 'test',
      state: 'open',
      selfId: 1,
      stats: emptyTransportStats(),
      events: new Emitter<TransportEvents>(),
      sentAt,
      send: () => (sentAt.push(Date.now()), true),
      sendPhase: phase,
      dispose: () => undefined,
    };
  }

  it('moves the transport’s moment (Date.now) into its own clock and sends on it; alignSends: false ignores it', () => {
    vi.useFakeTimers({ now: 1_800_000_000_003 });
    try {
      const run = (alignSends: boolean): number[] => {
        const transport = timedTransport(() => 40);
        // The session's clock is 12,345.6 ms off Date.now(), as performance.now() is.
        const session = new NetSession({ transport, view: new RecordingView(), timerMs: 25, now: () => Date.now() - 12_345.6, alignSends });
        session.setLocalPose({ x: 0, y: 0, z: 0, facing: 0, speed: 0, state: 'idle' });
        vi.advanceTimersByTime(2000);
        session.dispose();
        return transport.sentAt;
      };
      const aligned = run(true);
      expect(aligned.length).toBeGreaterThanOrEqual(19);
      expect(aligned.length).toBeLessThanOrEqual(21);
      // After the first frame, each leaves at x40 ms of Date.now(): the session wakes when a frame
      // is due, not at its next 25 ms pump.
      for (const t of aligned.slice(1)) expect((t - 40) % 100).toBeLessThan(2);
      const free = run(false);
      expect(Math.abs(free.length - aligned.length)).toBeLessThanOrEqual(1);
      expect(free.slice(1).some((t) => (t - 40) % 100 >= 2)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('sends the half-rate frames for neighbouring cells on the moments the transport numbers, across its own clock', () => {
    vi.useFakeTimers({ now: 1_800_000_000_003 });
    try {
      const sent: Array<{ number: number; far: boolean }> = [];
      const moment = (now: number): number => Math.round((now - 40) / 100);
      const transport: FrameTransport = {
        ...timedTransport(() => 40),
        sendMoment: moment,
        send: (frame) => (sent.push({ number: moment(Date.now()), far: (frame[FRAME_OFFSET.flags]! & FrameFlag.nearOnly) === 0 }), true),
      };
      const session = new NetSession({
        transport,
        view: new RecordingView(),
        timerMs: 25,
        now: () => Date.now() - 12_345.6,
        publisher: { farRateDivisor: 2 },
      });
      session.setLocalPose({ x: 0, y: 0, z: 0, facing: 0, speed: 0, state: 'walk' });
      vi.advanceTimersByTime(3000);
      session.dispose();
      const regular = sent.slice(1);
      expect(regular.length).toBeGreaterThanOrEqual(28);
      // Far exactly on the even-numbered moments (of Date.now(), though the session polls on its own clock).
      for (const frame of regular) expect(frame.far).toBe(frame.number % 2 === 0);
      expect(regular.filter((f) => f.far).length).toBeGreaterThanOrEqual(14);
    } finally {
      vi.useRealTimers();
    }
  });
});
