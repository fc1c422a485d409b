import { describe, expect, it } from 'vitest';
import { CellGate } from '../../../server/world/cell-gate.ts';
import { importTokenKey, randomTokenKey, signToken, TOKEN_TTL_MS, verifyToken } from '../../../server/world/token.ts';
import {
  cellAt,
  cellDistance,
  cellRoom,
  cellSendPhase,
  neighbourhood,
  parseCellCommand,
  parseCellRoom,
  phaseOf,
  SEND_PERIOD_MS,
  sendMomentNumber,
  signedPhase,
} from '../../../src/net/protocol/world.ts';
import { CellTracker } from '../../../src/net/world/cell-tracker.ts';
import { HearingSet } from '../../../src/net/world/hearing.ts';
import { createFrame, decodeFrame, FRAME_OFFSET, FrameFlag } from '../../../src/net/protocol/frame.ts';
import { LocalPublisher } from '../../../src/net/peers/local-publisher.ts';

describe('cells', () => {
  it('maps positions to 64 m cells and names them world:cell:X:Z', () => {
    expect(cellAt(0, 0)).toEqual({ x: 0, z: 0 });
    expect(cellAt(63.9, -0.1)).toEqual({ x: 0, z: -1 });
    expect(cellAt(-256, 255)).toEqual({ x: -4, z: 3 });
    expect(cellRoom({ x: 3, z: -2 })).toBe('world:cell:3:-2');
    expect(parseCellRoom('world:cell:3:-2')).toEqual({ x: 3, z: -2 });
    expect(parseCellRoom('world:cell:3')).toBeNull();
    expect(parseCellRoom('lobby')).toBeNull();
    const around = neighbourhood({ x: 0, z: 0 });
    expect(around).toHaveLength(9);
    expect(around[0]).toEqual({ x: 0, z: 0 });
    expect(new Set(around.map(cellRoom)).size).toBe(9);
    expect(Math.max(...around.map((c) => cellDistance(c, { x: 0, z: 0 })))).toBe(1);
  });

  it('gives the nine cells of every 3×3 nine different send moments, a ninth of a period apart', () => {
    for (let cx = -7; cx <= 7; cx++) {
      for (let cz = -7; cz <= 7; cz++) {
        const phases = neighbourhood({ x: cx, z: cz }).map((c) => cellSendPhase(c));
        expect(new Set(phases).size).toBe(9);
        for (const p of phases) {
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThan(SEND_PERIOD_MS);
        }
        const sorted = [...phases].sort((a, b) => a - b);
        for (let i = 1; i < 9; i++) expect(sorted[i]! - sorted[i - 1]!).toBeCloseTo(SEND_PERIOD_MS / 9, 9);
      }
    }
    expect(cellSendPhase({ x: 0, z: 0 })).toBe(0);
    expect(cellSendPhase({ x: -1, z: 0 })).toBeCloseTo((2 * SEND_PERIOD_MS) / 9, 9);
    expect(phaseOf(-30, 100)).toBe(70);
    expect(phaseOf(250, 100)).toBe(50);
    expect(signedPhase(250, 100)).toBe(50);
    expect(signedPhase(251, 100)).toBe(-49);
    expect(signedPhase(-30, 100)).toBe(-30);
  });

  it('moves publication only past the hysteresis margin (walking along a border does not thrash)', () => {
    const tracker = new CellTracker(64, 4);
    expect(tracker.update(60, 10)).toEqual({ x: 0, z: 0 });
    // Zig-zag across the x = 64 border within 4 m: stays in cell 0.
    for (let i = 0; i < 50; i++) expect(tracker.update(i % 2 ? 62 : 67.5, 10)).toEqual({ x: 0, z: 0 });
    expect(tracker.changes).toBe(0);
    expect(tracker.update(68.5, 10)).toEqual({ x: 1, z: 0 });
    // And back: needs 4 m into cell 0 again.
    expect(tracker.update(61, 10)).toEqual({ x: 1, z: 0 });
    expect(tracker.update(59.5, 10)).toEqual({ x: 0, z: 0 });
    expect(tracker.changes).toBe(2);
    expect(() => new CellTracker(64, 40)).toThrow(/margin/);
  });

  it('parses cell commands and refuses anything else', () => {
    expect(parseCellCommand('{"type":"subscribe"}')).toEqual({ ok: true, value: { type: 'subscribe' } });
    expect(parseCellCommand('{"type":"clock","t":1796040372410}')).toEqual({ ok: true, value: { type: 'clock', t: 1796040372410 } });
    expect(parseCellCommand('{"type":"clock","t":"now"}')).toEqual({ ok: false, problem: 'clock without a numeric t' });
    expect(parseCellCommand('{"type":"clock"}')).toEqual({ ok: false, problem: 'clock without a numeric t' });
    expect(parseCellCommand(JSON.stringify({ type: 'publish', token: 'A'.repeat(38) }))).toMatchObject({ ok: true });
    expect(parseCellCommand('{"type":"publish"}')).toEqual({ ok: false, problem: 'publish without a well-formed token' });
    expect(parseCellCommand(JSON.stringify({ type: 'renew', token: 'x y' }))).toMatchObject({ ok: false });
    expect(parseCellCommand('{"type":"teleport"}')).toEqual({ ok: false, problem: 'unknown command' });
    expect(parseCellCommand('nope')).toEqual({ ok: false, problem: 'not JSON' });
    expect(parseCellCommand('x'.repeat(600))).toMatchObject({ ok: false });
  });
});

describe('world tokens and the cell gate', () => {
  it('sign/verify round-trips; a changed byte, another key or age past the TTL is refused', async () => {
    const key = await importTokenKey(randomTokenKey());
    const now = 1_750_000_000_000;
    const token = await signToken(key, 42, { x: -3, z: 7 }, now);
    expect(token).toMatch(/^[A-Za-z0-9_-]{38}$/);
    const ok = await verifyToken(key, token, now + 1000);
    expect(ok).toEqual({ ok: true, claims: { id: 42, cell: { x: -3, z: 7 }, issuedAt: now, expiresAt: now + TOKEN_TTL_MS } });
    const tampered = token.slice(0, 5) + (token[5] === 'A' ? 'B' : 'A') + token.slice(6);
    expect(await verifyToken(key, tampered, now)).toMatchObject({ ok: false, reason: 'world token signature does not match' });
    const other = await importTokenKey(randomTokenKey());
    expect(await verifyToken(other, token, now)).toMatchObject({ ok: false, expired: false });
    expect(await verifyToken(key, token, now + TOKEN_TTL_MS)).toMatchObject({ ok: false, expired: true });
    expect(await verifyToken(key, 'short', now)).toMatchObject({ ok: false, reason: 'malformed world token' });
  });

  it('admits publishers only to their own cell and watchers only to the 3×3; expired tokens get 4005', async () => {
    const raw = randomTokenKey();
    const key = await importTokenKey(raw);
    const now = Date.now();
    const token = await signToken(key, 7, { x: 2, z: 2 }, now);
    const here = new CellGate({ x: 2, z: 2 }, async () => key);
    const next = new CellGate({ x: 3, z: 1 }, async () => key);
    const far = new CellGate({ x: 4, z: 2 }, async () => key);
    expect(await here.check(token, 'pub', now)).toMatchObject({ ok: true, claims: { id: 7 } });
    expect(await next.check(token, 'sub', now)).toMatchObject({ ok: true });
    expect(await next.check(token, 'pub', now)).toMatchObject({ ok: false, code: 4004 });
    expect(await far.check(token, 'sub', now)).toMatchObject({ ok: false, code: 4004 });
    expect(await here.check(token, 'sub', now + TOKEN_TTL_MS + 1)).toMatchObject({ ok: false, code: 4005 });
    expect(await here.check(null, 'sub', now)).toMatchObject({ ok: false, code: 4003 });
    const broken = new CellGate({ x: 2, z: 2 }, async () => {
      throw new Error('directory unreachable');
    });
    expect(await broken.check(token, 'sub', now)).toMatchObject({ ok: false, code: 1011, reason: /directory unreachable/ });
  });
});

describe('interest management', () => {
  it('halves the rate to neighbouring cells: every other regular frame is near-only, state changes go everywhere', () => {
    const publisher = new LocalPublisher({ farRateDivisor: 2 });
    const out = createFrame();
    const regular: number[] = [];
    let change = -1;
    for (let t = 0; t < 2000; t += 10) {
      const bytes = publisher.poll({ x: 0, y: 0, z: 0, facing: 0, speed: 0, state: t >= 450 ? 'jump' : 'idle' }, t);
      if (!bytes) continue;
      const copy = bytes.slice();
      copy[4] = 1; // a sender id, as the relay would stamp
      expect(decodeFrame(copy, 0, out)).toBeNull();
      if (t === 450) change = out.flags;
      else regular.push(out.flags);
    }
    expect(change).toBe(0); // the jump goes everywhere at once
    expect(regular).toHaveLength(20);
    const far = regular.filter((f) => (f & FrameFlag.nearOnly) === 0).length;
    expect(far).toBeGreaterThanOrEqual(9);
    expect(far).toBeLessThanOrEqual(11);
  });

  it('numbers a cell’s send moments on the server’s clock: up to half a period either side of one gets its number', () => {
    const cell = { x: 1, z: 0 }; // moment at 100/9 ≈ 11.1 ms into each period
    const moment = 1_700_000_000_000 + cellSendPhase(cell);
    const n = sendMomentNumber(moment, cell);
    expect(n).toBe(1_700_000_000_000 / SEND_PERIOD_MS);
    for (const off of [-49, -10, 0, 3, 49]) expect(sendMomentNumber(moment + off, cell)).toBe(n);
    expect(sendMomentNumber(moment + 51, cell)).toBe(n + 1);
    expect(sendMomentNumber(moment - 51, cell)).toBe(n - 1);
    // Another cell's moment of the same period carries the same number.
    expect(sendMomentNumber(1_700_000_000_000 + cellSendPhase({ x: 2, z: 2 }), { x: 2, z: 2 })).toBe(n);
  });

  it('sends a cell’s half-rate frames in the same periods for every player, whatever their clocks and sequence numbers', () => {
    // Three players of one cell: local clocks 0, +4,321 and −777 ms off the server's, different
    // frame counts so far, each told the cell's moment and its number through its own clock.
    const cell = { x: 0, z: 1 };
    const period = SEND_PERIOD_MS;
    const players = [0, 4321, -777].map((offset, i) => {
      const publisher = new LocalPublisher({
        farRateDivisor: 2,
        phase: () => phaseOf(cellSendPhase(cell) - offset, period),
        moment: (now) => sendMomentNumber(now + offset, cell),
      });
      publisher.seq = i * 7 + 1; // sequence parities differ
      return { offset, publisher, far: new Set<number>(), near: new Set<number>() };
    });
    const out = createFrame();
    for (let t = 0; t < 3000; t += 5) {
      for (const p of players) {
        const bytes = p.publisher.poll({ x: 0, y: 0, z: 0, facing: 0, speed: 0, state: 'walk' }, t - p.offset);
        if (!bytes || t < 300) continue;
        const copy = bytes.slice();
        copy[4] = 1;
        expect(decodeFrame(copy, 0, out)).toBeNull();
        // Which server period the frame left in, counted the same way for everyone.
        const number = Math.round((t - cellSendPhase(cell)) / period);
        ((out.flags & FrameFlag.nearOnly) === 0 ? p.far : p.near).add(number);
      }
    }
    // Half of each player's frames go to the neighbours, and on exactly the same periods.
    for (const p of players) {
      expect(p.far.size).toBeGreaterThanOrEqual(13);
      expect(p.far.size).toBeLessThanOrEqual(14);
      expect([...p.far].every((n) => n % 2 === 0)).toBe(true);
      expect([...p.near].every((n) => n % 2 !== 0)).toBe(true);
    }
    expect([...players[1]!.far]).toEqual([...players[0]!.far]);
    expect([...players[2]!.far]).toEqual([...players[0]!.far]);
    // Without the moment numbers the same three split by their own sequence parity.
    const bySeq = [1, 2].map((seq) => {
      const publisher = new LocalPublisher({ farRateDivisor: 2, phase: () => cellSendPhase(cell) });
      publisher.seq = seq;
      const far: number[] = [];
      for (let t = 0; t < 1000; t += 5) {
        const bytes = publisher.poll({ x: 0, y: 0, z: 0, facing: 0, speed: 0, state: 'walk' }, t);
        if (bytes && (bytes[FRAME_OFFSET.flags]! & FrameFlag.nearOnly) === 0) far.push(Math.round((t - cellSendPhase(cell)) / period));
      }
      return far;
    });
    expect(bySeq[0]!.some((n) => bySeq[1]!.includes(n))).toBe(false);
  });

  it('offers voice connections to the nearest peers in range and hangs up only past the exit radius', () => {
    const hearing = new HearingSet({ enterRadius: 20, exitRadius: 30, max: 2 });
    expect(
      hearing.update(0, 0, [
        { id: 1, x: 10, z: 0 },
        { id: 2, x: 25, z: 0 },
        { id: 3, x: 15, z: 0 },
      ]),
    ).toEqual({ added: [1, 3], removed: [] });
    // Peer 3 drifts to 25 m: inside the exit radius, it stays.
    expect(
      hearing.update(0, 0, [
        { id: 1, x: 10, z: 0 },
        { id: 2, x: 19, z: 0 },
        { id: 3, x: 25, z: 0 },
      ]),
    ).toEqual({ added: [], removed: [] });
    // A closer newcomer waits for a free place; past 30 m peer 3 goes and the newcomer comes in.
    expect(
      hearing.update(0, 0, [
        { id: 1, x: 10, z: 0 },
        { id: 2, x: 5, z: 0 },
        { id: 3, x: 29, z: 0 },
      ]),
    ).toEqual({ added: [], removed: [] });
    expect(
      hearing.update(0, 0, [
        { id: 1, x: 10, z: 0 },
        { id: 2, x: 19, z: 0 },
        { id: 3, x: 31, z: 0 },
      ]),
    ).toEqual({ added: [2], removed: [3] });
    // A peer that left the table is hung up on.
    expect(hearing.update(0, 0, [{ id: 2, x: 19, z: 0 }])).toEqual({ added: [], removed: [1] });
    expect([...hearing.ids]).toEqual([2]);
  });
});
