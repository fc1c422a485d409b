import { describe, expect, it } from 'vitest';
import { parseServerControl } from '../../../src/net/protocol/control.ts';
import { isCanonicalCellRoom, parseCellRoom } from '../../../src/net/protocol/world.ts';
import { roomNameIssue } from '../../../src/net/protocol/room-name.ts';

describe('control messages: one validated union', () => {
  const welcome = {
    type: 'welcome',
    id: 3,
    room: 'lobby',
    mode: 'coalesce',
    tickMs: 40,
    capacity: 320,
    rateCap: 30,
    peers: 2,
    avatarToken: 'abc',
  };

  it('narrows on type, so each kind is read without casts', () => {
    const parsed = parseServerControl(JSON.stringify(welcome));
    expect(parsed.ok).toBe(true);
    if (parsed.ok && parsed.value.type === 'welcome') expect(parsed.value.avatarToken).toBe('abc');
    const ack = parseServerControl(JSON.stringify({ type: 'cell', cell: { x: 1, z: -2 }, role: 'sub', expiresAt: 5, avatarToken: 't' }));
    expect(ack).toEqual({ ok: true, value: { type: 'cell', cell: { x: 1, z: -2 }, role: 'sub', expiresAt: 5, avatarToken: 't' } });
    expect(parseServerControl('{"type":"timing","lateMs":-12}')).toEqual({ ok: true, value: { type: 'timing', lateMs: -12 } });
    expect(parseServerControl('{"type":"dropped","reason":"frame","detail":"x","count":2}')).toMatchObject({
      ok: true,
      value: { reason: 'frame' },
    });
  });

  it('refuses unknown types, wrong fields and oversized text with a reason', () => {
    expect(parseServerControl('{"type":"surprise"}')).toMatchObject({ ok: false });
    expect(parseServerControl(JSON.stringify({ ...welcome, id: 0 }))).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/field id/),
    });
    expect(parseServerControl(JSON.stringify({ ...welcome, mode: 'turbo' }))).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/field mode/),
    });
    expect(parseServerControl(JSON.stringify({ ...welcome, avatarToken: undefined }))).toMatchObject({ ok: false });
    expect(parseServerControl('{"type":"dropped","reason":"boredom","detail":"x","count":1}')).toMatchObject({ ok: false });
    expect(parseServerControl('not json')).toEqual({ ok: false, problem: 'control text is not JSON' });
    expect(parseServerControl('x'.repeat(3000))).toMatchObject({ ok: false, problem: expect.stringMatching(/3000 characters/) });
  });
});

describe('names', () => {
  it('gives every cell one spelling', () => {
    expect(isCanonicalCellRoom('world:cell:3:-3')).toBe(true);
    for (const alias of ['world:cell:03:3', 'world:cell:-0:0', 'world:cell:0:-0', 'world:cell:+1:1'])
      expect(isCanonicalCellRoom(alias), alias).toBe(false);
    expect(parseCellRoom('world:cell:-0:0')).toEqual({ x: 0, z: 0 });
    expect(Object.is(parseCellRoom('world:cell:-0:0')!.x, -0)).toBe(false);
  });

  it('has one room-name rule for the Worker and every client', () => {
    expect(roomNameIssue('world:cell:1:2')).toBeNull();
    expect(roomNameIssue('')).toMatch(/empty/);
    expect(roomNameIssue('a'.repeat(65))).toMatch(/65 characters/);
    expect(roomNameIssue('a b')).toMatch(/may only contain/);
  });
});
