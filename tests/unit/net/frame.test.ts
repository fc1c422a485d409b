import { describe, expect, it } from 'vitest';
import { Mulberry32 } from '../../../src/core/rng.ts';
import {
  ANIMATION_STATES,
  checkClientFrame,
  checkFrame,
  createFrame,
  decodeFrame,
  encodeFrame,
  FRAME_BYTES,
  FRAME_OFFSET,
  FrameKind,
  FrameProblem,
  isRelayableHeader,
  readSenderId,
  stampSenderId,
  writeLeaveFrame,
  type AvatarFrame,
} from '../../../src/net/protocol/frame.ts';

function randomFrame(rng: Mulberry32): AvatarFrame {
  const f = createFrame();
  f.animState = rng.int(ANIMATION_STATES.length);
  f.senderId = 1 + rng.int(0x7fffffff);
  f.seq = rng.int(0x100000000);
  f.x = rng.range(-5000, 5000);
  f.y = rng.range(-100, 500);
  f.z = rng.range(-5000, 5000);
  f.facing = rng.range(-Math.PI, Math.PI);
  f.speed = rng.range(0, 12);
  f.animTime = rng.range(0, 60);
  f.timestamp = rng.int(0x100000000);
  return f;
}

describe('36-byte frame codec', () => {
  it('has the documented layout: 36 bytes, little-endian, fields at fixed offsets', () => {
    const f = createFrame();
    Object.assign(f, {
      animState: 2,
      senderId: 0x01020304,
      seq: 0x0a0b0c0d,
      x: 1.5,
      y: -2,
      z: 3.25,
      facing: 0.5,
      speed: 4.8,
      animTime: 1.234,
      timestamp: 0xdeadbeef,
    });
    const bytes = new Uint8Array(FRAME_BYTES);
    encodeFrame(f, bytes);
    const view = new DataView(bytes.buffer);
    expect(bytes.length).toBe(36);
    expect(view.getUint8(0)).toBe(1);
    expect(view.getUint8(1)).toBe(FrameKind.state);
    expect(view.getUint8(2)).toBe(2);
    expect(view.getUint8(3)).toBe(0);
    expect([...bytes.subarray(4, 8)]).toEqual([4, 3, 2, 1]); // little-endian
    expect(view.getUint32(8, true)).toBe(0x0a0b0c0d);
    expect(view.getFloat32(12, true)).toBe(1.5);
    expect(view.getFloat32(16, true)).toBe(-2);
    expect(view.getFloat32(20, true)).toBe(3.25);
    expect(view.getFloat32(24, true)).toBeCloseTo(0.5, 6);
    expect(view.getUint16(28, true)).toBe(4800); // mm/s
    expect(view.getUint16(30, true)).toBe(1234); // ms
    expect(view.getUint32(32, true)).toBe(0xdeadbeef);
    expect(FRAME_OFFSET.timestamp + 4).toBe(FRAME_BYTES);
  });

  it('round-trips thousands of random frames (within the quantisation of each field)', () => {
    const rng = new Mulberry32(7);
    const bytes = new Uint8Array(FRAME_BYTES * 2);
    const out = createFrame();
    const worst = { id: 0, seq: 0, anim: 0, ts: 0, xz: 0, y: 0, facing: 0, speed: 0, animTime: 0 };
    for (let i = 0; i < 5000; i++) {
      const f = randomFrame(rng);
      encodeFrame(f, bytes, FRAME_BYTES); // at an offset
      if (decodeFrame(bytes, FRAME_BYTES, out) !== null) throw new Error(`frame ${i} rejected`);
      worst.id += out.senderId !== f.senderId ? 1 : 0;
      worst.seq += out.seq !== f.seq ? 1 : 0;
      worst.anim += out.animState !== f.animState ? 1 : 0;
      worst.ts += out.timestamp !== f.timestamp ? 1 : 0;
      worst.xz = Math.max(worst.xz, Math.abs(out.x - f.x), Math.abs(out.z - f.z));
      worst.y = Math.max(worst.y, Math.abs(out.y - f.y));
      worst.facing = Math.max(worst.facing, Math.abs(out.facing - f.facing));
      worst.speed = Math.max(worst.speed, Math.abs(out.speed - f.speed));
      worst.animTime = Math.max(worst.animTime, Math.abs(out.animTime - (Math.round(f.animTime * 1000) % 65536) / 1000));
    }
    expect(worst).toMatchObject({ id: 0, seq: 0, anim: 0, ts: 0 });
    expect(worst.xz).toBeLessThan(1e-3); // f32 at ±5 km
    expect(worst.y).toBeLessThan(1e-4);
    expect(worst.facing).toBeLessThan(1e-6);
    expect(worst.speed).toBeLessThanOrEqual(0.0005 + 1e-9); // mm/s
    expect(worst.animTime).toBeLessThan(1e-9);
  });

  it('wraps facing, clamps speed and wraps animation time rather than corrupting neighbours', () => {
    const f = createFrame();
    Object.assign(f, { senderId: 9, facing: 3 * Math.PI + 0.25, speed: 1000, animTime: 70 });
    const bytes = new Uint8Array(FRAME_BYTES);
    encodeFrame(f, bytes);
    const out = createFrame();
    expect(decodeFrame(bytes, 0, out)).toBeNull();
    expect(out.facing).toBeCloseTo(-Math.PI + 0.25, 5);
    expect(out.speed).toBe(65.535);
    expect(out.animTime).toBeCloseTo(70 - 65.536, 6);
  });

  it('refuses to encode what the format cannot carry', () => {
    const bytes = new Uint8Array(FRAME_BYTES);
    expect(() => encodeFrame({ ...createFrame(), x: Number.NaN }, bytes)).toThrow(/position/);
    expect(() => encodeFrame({ ...createFrame(), z: 1e6 }, bytes)).toThrow(/outside/);
    expect(() => encodeFrame({ ...createFrame(), animState: 99 }, bytes)).toThrow(/animation state 99/);
    expect(() => encodeFrame({ ...createFrame(), kind: 7 as FrameKind }, bytes)).toThrow(/kind 7/);
    expect(() => encodeFrame(createFrame(), new Uint8Array(35))).toThrow(/no room/);
    expect(() => encodeFrame(createFrame(), bytes, 1)).toThrow(/no room/);
  });

  it('rejects malformed frames with a reason and leaves the target untouched', () => {
    const good = new Uint8Array(FRAME_BYTES);
    encodeFrame({ ...createFrame(), senderId: 5, x: 1, y: 2, z: 3 }, good);
    const cases: Array<[string, (b: Uint8Array) => void, FrameProblem]> = [
      ['version', (b) => (b[0] = 2), FrameProblem.version],
      ['kind', (b) => (b[1] = 9), FrameProblem.kind],
      ['anim state', (b) => (b[2] = ANIMATION_STATES.length), FrameProblem.animState],
      ['flags', (b) => (b[3] = 0x80), FrameProblem.flags],
      ['sender 0', (b) => b.fill(0, 4, 8), FrameProblem.senderId],
      ['NaN x', (b) => new DataView(b.buffer).setFloat32(12, Number.NaN, true), FrameProblem.position],
      ['infinite y', (b) => new DataView(b.buffer).setFloat32(16, Number.POSITIVE_INFINITY, true), FrameProblem.position],
      ['far z', (b) => new DataView(b.buffer).setFloat32(20, 2e5, true), FrameProblem.position],
      ['facing 4 rad', (b) => new DataView(b.buffer).setFloat32(24, 4, true), FrameProblem.facing],
    ];
    for (const [name, corrupt, problem] of cases) {
      const bytes = good.slice();
      corrupt(bytes);
      const out = createFrame();
      out.x = 42;
      const before = { ...out };
      expect(decodeFrame(bytes, 0, out), name).toBe(problem);
      expect(out, name).toEqual(before);
      expect(checkFrame(bytes), name).toBe(problem);
      // The relay's check is the same rule set, but a client's frame carries no sender id yet
      // (the relay stamps it) and may only be a state frame.
      const fromClient = bytes.slice();
      fromClient.fill(0, 4, 8);
      expect(checkClientFrame(fromClient), name).toBe(problem === FrameProblem.senderId ? null : problem);
    }
    const unstamped = good.slice();
    unstamped.fill(0, 4, 8);
    expect(checkClientFrame(unstamped)).toBeNull();
    const leave = new Uint8Array(FRAME_BYTES);
    writeLeaveFrame(leave, 0, 5);
    expect(checkFrame(leave)).toBeNull();
    expect(checkClientFrame(leave)).toBe(FrameProblem.kind);
    expect(checkClientFrame(good.subarray(0, 35))).toBe(FrameProblem.short);
    expect(decodeFrame(good.subarray(0, 35), 0, createFrame())).toBe(FrameProblem.short);
    expect(decodeFrame(good, 1, createFrame())).toBe(FrameProblem.short);
  });

  it('fuzz: thousands of random buffers never throw; each is rejected with a reason or decodes to a frame that re-encodes to the same bytes', () => {
    const rng = new Mulberry32(99);
    const out = createFrame();
    const again = new Uint8Array(FRAME_BYTES);
    let accepted = 0;
    const reasons = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const length = rng.next() < 0.8 ? FRAME_BYTES : rng.int(80);
      const bytes = new Uint8Array(length);
      for (let k = 0; k < length; k++) bytes[k] = rng.int(256);
      // Bias a share of them towards plausible headers so the payload checks are exercised too.
      if (length >= 4 && rng.next() < 0.5) {
        bytes[0] = 1;
        bytes[1] = 1 + rng.int(2);
        bytes[2] = rng.int(8);
        bytes[3] = rng.next() < 0.8 ? 0 : bytes[3]!;
      }
      const before = { ...out };
      const problem = decodeFrame(bytes, 0, out);
      if (problem) {
        reasons.add(problem);
        expect(out).toEqual(before);
        continue;
      }
      accepted++;
      if (out.kind === FrameKind.leave) continue;
      encodeFrame(out, again);
      // Facing exactly at ±π may flip sign when wrapped; everything else is byte-exact.
      expect([...again.subarray(0, 24)]).toEqual([...bytes.subarray(0, 24)]);
      expect([...again.subarray(28)]).toEqual([...bytes.subarray(28, FRAME_BYTES)]);
    }
    expect(accepted).toBeGreaterThan(100);
    expect(reasons.size).toBeGreaterThanOrEqual(7);
  });

  it('stamps and reads the sender id in place without touching other bytes', () => {
    const bytes = new Uint8Array(FRAME_BYTES * 3);
    const rng = new Mulberry32(3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int(256);
    const before = bytes.slice();
    stampSenderId(bytes, FRAME_BYTES, 0xfedcba98);
    expect(readSenderId(bytes, FRAME_BYTES)).toBe(0xfedcba98);
    for (let i = 0; i < bytes.length; i++) {
      if (i >= FRAME_BYTES + 4 && i < FRAME_BYTES + 8) continue;
      expect(bytes[i]).toBe(before[i]);
    }
  });

  it('writes leave frames the decoder accepts, and the relay header check passes only v1 state frames', () => {
    const leave = new Uint8Array(FRAME_BYTES);
    writeLeaveFrame(leave, 0, 77);
    const out = createFrame();
    expect(decodeFrame(leave, 0, out)).toBeNull();
    expect(out.kind).toBe(FrameKind.leave);
    expect(out.senderId).toBe(77);
    expect(isRelayableHeader(leave)).toBe(false); // clients may not send leaves
    const state = new Uint8Array(FRAME_BYTES);
    encodeFrame(createFrame(), state);
    expect(isRelayableHeader(state)).toBe(true);
    expect(isRelayableHeader(state.subarray(0, 35))).toBe(false);
    state[0] = 2;
    expect(isRelayableHeader(state)).toBe(false);
  });
});
