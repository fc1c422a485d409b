import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES, parseClientMessage, parseServerMessage, utf8Length } from '../../../src/voice/protocol/signaling.ts';

const SDP = 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n';

describe('parseClientMessage', () => {
  it('accepts each message type and returns only schema fields', () => {
    expect(parseClientMessage(JSON.stringify({ type: 'offer', to: 7, sdp: SDP, from: 99, extra: 1 }))).toEqual({
      ok: true,
      message: { type: 'offer', to: 7, sdp: SDP },
    });
    expect(parseClientMessage(JSON.stringify({ type: 'answer', to: 7, sdp: SDP }))).toEqual({
      ok: true,
      message: { type: 'answer', to: 7, sdp: SDP },
    });
    expect(parseClientMessage(JSON.stringify({ type: 'ice', to: 3, candidate: { candidate: 'candidate:1', sdpMid: '0' } }))).toEqual({
      ok: true,
      message: { type: 'ice', to: 3, candidate: { candidate: 'candidate:1', sdpMid: '0', sdpMLineIndex: null, usernameFragment: null } },
    });
    expect(parseClientMessage(JSON.stringify({ type: 'ice', to: 3, candidate: null }))).toEqual({
      ok: true,
      message: { type: 'ice', to: 3, candidate: null },
    });
    expect(parseClientMessage(JSON.stringify({ type: 'pos', x: 1, y: -2, z: 3.5, facing: -1, from: 4 }))).toEqual({
      ok: true,
      message: { type: 'pos', x: 1, y: -2, z: 3.5, facing: -1 },
    });
    expect(parseClientMessage(JSON.stringify({ type: 'resume', id: 5, token: 'abc' }))).toEqual({
      ok: true,
      message: { type: 'resume', id: 5, token: 'abc' },
    });
    expect(parseClientMessage('{"type":"ping"}')).toEqual({ ok: true, message: { type: 'ping' } });
  });

  it.each([
    ['not json', 'bad-json'],
    ['null', 'bad-json'],
    ['"offer"', 'bad-json'],
    ['{"type":5}', 'unknown-type'],
    ['{"type":"hack"}', 'unknown-type'],
    ['{"type":"offer","to":0,"sdp":"v=0"}', 'bad-field'],
    ['{"type":"offer","to":1.5,"sdp":"v=0"}', 'bad-field'],
    ['{"type":"offer","to":-3,"sdp":"v=0"}', 'bad-field'],
    ['{"type":"offer","to":1,"sdp":""}', 'bad-field'],
    ['{"type":"offer","to":1,"sdp":"m=audio"}', 'bad-field'],
    ['{"type":"ice","to":1,"candidate":"candidate:1"}', 'bad-field'],
    ['{"type":"ice","to":1,"candidate":{"candidate":"x","sdpMLineIndex":-1}}', 'bad-field'],
    ['{"type":"pos","x":1,"y":2,"z":3}', 'bad-field'],
    ['{"type":"pos","x":1,"y":2,"z":3,"facing":1e300}', 'bad-field'],
    ['{"type":"resume","id":1,"token":""}', 'bad-field'],
  ])('refuses %s with %s', (raw, code) => {
    const result = parseClientMessage(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe(code);
      expect(result.error.message.length).toBeGreaterThan(5);
    }
  });

  it('refuses oversize messages by UTF-8 bytes, and binary frames', () => {
    const justUnder = JSON.stringify({ type: 'ping', pad: 'x'.repeat(MAX_MESSAGE_BYTES - 30) });
    expect(parseClientMessage(justUnder).ok).toBe(true);
    // 3-byte characters: under the cap in UTF-16 units, over it in bytes.
    const wide = JSON.stringify({ type: 'ping', pad: '€'.repeat(MAX_MESSAGE_BYTES / 2) });
    const result = parseClientMessage(wide);
    expect(!result.ok && result.error.code).toBe('too-large');
    const binary = parseClientMessage(new ArrayBuffer(4));
    expect(!binary.ok && binary.error.code).toBe('binary');
  });

  it('counts UTF-8 bytes like TextEncoder', () => {
    for (const text of ['', 'abc', 'é', '€uro', '😀 ok', 'a\u{10ffff}b'])
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
  });
});

describe('parseServerMessage', () => {
  it('reads what the room sends and returns null for anything else', () => {
    expect(parseServerMessage('{"type":"join","id":4}')).toEqual({ type: 'join', id: 4 });
    expect(parseServerMessage('{"type":"pos","from":2,"x":1,"y":0,"z":-1,"facing":0}')).toMatchObject({ from: 2 });
    expect(parseServerMessage('{"type":"pong"}')).toEqual({ type: 'pong' });
    expect(parseServerMessage('{"type":"join"}')).toBeNull();
    expect(parseServerMessage('{"type":"pos","from":2,"x":"a","y":0,"z":-1,"facing":0}')).toBeNull();
    expect(parseServerMessage('garbage')).toBeNull();
    expect(parseServerMessage(new ArrayBuffer(2))).toBeNull();
  });
});
