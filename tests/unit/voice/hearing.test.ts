import { describe, expect, it } from 'vitest';
import { DeferredHearing, type VoiceHearingChange, type VoiceHearingSource } from '../../../src/voice/hearing-source.ts';
import { isWorldVoiceRoom, MAX_AVATAR_ID, parseClientMessage, parseServerMessage } from '../../../src/voice/protocol/signaling.ts';
import { sdpSessionId } from '../../../src/voice/sdp.ts';
import { hrtfIsPanning } from '../../../src/voice/spatial-model.ts';
import { emptyVoiceStats } from '../../../src/voice/voice-stats.ts';
import { voiceHudRows } from '../../../src/voice/voice-hud.ts';
import { voiceRoomCapacity, VOICE_ROOM_CAPACITY, WORLD_VOICE_ROOM_CAPACITY } from '../../../server/voice/capacity.ts';

/** A hearing source whose set the test drives. */
function source(initial: number[] = []): VoiceHearingSource & { set(ids: number[]): void } {
  const ids = new Set(initial);
  const listeners = new Set<(c: VoiceHearingChange) => void>();
  return {
    ids,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    positionOf: (id) => (ids.has(id) ? { x: id, y: 0, z: -id, facing: 0 } : null),
    set(next) {
      const added = next.filter((id) => !ids.has(id));
      const removed = [...ids].filter((id) => !next.includes(id));
      ids.clear();
      for (const id of next) ids.add(id);
      for (const l of listeners) l({ added, removed });
    },
  };
}

describe('DeferredHearing', () => {
  it('hears nobody until bound, then reports who is already in range and forwards changes', () => {
    const deferred = new DeferredHearing();
    const changes: VoiceHearingChange[] = [];
    deferred.onChange((c) => changes.push(c));
    expect([...deferred.ids]).toEqual([]);
    expect(deferred.ready).toBe(false);
    expect(deferred.positionOf(4)).toBeNull();

    const net = source([4, 9]);
    deferred.bind(net);
    expect(deferred.ready).toBe(true);
    expect(changes).toEqual([{ added: [4, 9], removed: [] }]);
    expect(deferred.positionOf(4)).toEqual({ x: 4, y: 0, z: -4, facing: 0 });

    net.set([9, 12]);
    expect(changes[1]).toEqual({ added: [12], removed: [4] });
    expect([...deferred.ids].sort()).toEqual([12, 9].sort());

    // Rebinding reports the difference; the old source no longer reaches us.
    const other = source([12, 30]);
    deferred.bind(other);
    expect(changes[2]).toEqual({ added: [30], removed: [9] });
    net.set([1]);
    expect(changes).toHaveLength(3);
    deferred.dispose();
    other.set([]);
    expect(changes).toHaveLength(3);
  });
});

describe('avatar and bye messages', () => {
  it("accepts an avatar id in the net module's 32-bit range, or null", () => {
    expect(parseClientMessage('{"type":"avatar","id":42,"token":"t0k","from":7}')).toEqual({
      ok: true,
      message: { type: 'avatar', id: 42, token: 't0k' },
    });
    expect(parseClientMessage('{"type":"avatar","id":null}')).toEqual({ ok: true, message: { type: 'avatar', id: null } });
    expect(parseClientMessage(`{"type":"avatar","id":${MAX_AVATAR_ID},"token":"t0k"}`).ok).toBe(true);
    // An id without the avatar token its room or cell issued is refused before the room looks at it.
    expect(parseClientMessage('{"type":"avatar","id":42}')).toMatchObject({ ok: false, error: { code: 'bad-field' } });
    expect(parseClientMessage('{"type":"bye","to":3}')).toEqual({ ok: true, message: { type: 'bye', to: 3 } });
  });

  it.each([
    ['{"type":"avatar"}', /missing/],
    ['{"type":"avatar","id":0}', /integer from 1 to 4294967295/],
    ['{"type":"avatar","id":-1}', /integer from 1/],
    ['{"type":"avatar","id":1.5}', /integer from 1/],
    [`{"type":"avatar","id":${MAX_AVATAR_ID + 1}}`, /integer from 1/],
    ['{"type":"avatar","id":"12"}', /integer from 1/],
    ['{"type":"bye"}', /peer id/],
    ['{"type":"bye","to":0}', /peer id/],
  ])('refuses %s with a clear bad-field error', (raw, message) => {
    const result = parseClientMessage(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('bad-field');
      expect(result.error.message).toMatch(message);
      expect(result.error.ref).toMatch(/avatar|bye/);
    }
  });

  it("reads the roster's avatars (absent = null, from an older room) and the relayed messages", () => {
    const welcome = parseServerMessage(
      JSON.stringify({
        type: 'welcome',
        id: 2,
        token: 't',
        room: 'world',
        peers: [
          { id: 1, pos: null, avatar: 77 },
          { id: 3, pos: null },
        ],
        positionRate: 0,
      }),
    );
    expect(welcome).toMatchObject({
      type: 'welcome',
      peers: [
        { id: 1, avatar: 77 },
        { id: 3, avatar: null },
      ],
    });
    expect(parseServerMessage(JSON.stringify({ type: 'welcome', id: 2, token: 't', room: 'w', peers: [{ id: 1, avatar: 0 }] }))).toBeNull();
    expect(parseServerMessage('{"type":"avatar","from":4,"id":9}')).toEqual({ type: 'avatar', from: 4, id: 9 });
    expect(parseServerMessage('{"type":"avatar","from":4,"id":null}')).toEqual({ type: 'avatar', from: 4, id: null });
    expect(parseServerMessage('{"type":"avatar","from":4,"id":-9}')).toBeNull();
    expect(parseServerMessage('{"type":"bye","from":4}')).toEqual({ type: 'bye', from: 4 });
  });

  it('gives world voice rooms their own capacity', () => {
    expect(['world', 'world:eu', 'world:cell:1:2'].every(isWorldVoiceRoom)).toBe(true);
    expect(['lobby', 'worlds', 'my-world', 'World'].some(isWorldVoiceRoom)).toBe(false);
    expect(voiceRoomCapacity('lobby')).toBe(VOICE_ROOM_CAPACITY);
    expect(voiceRoomCapacity('world')).toBe(WORLD_VOICE_ROOM_CAPACITY);
    expect(WORLD_VOICE_ROOM_CAPACITY).toBeGreaterThan(VOICE_ROOM_CAPACITY);
  });
});

describe('sdpSessionId', () => {
  it("reads the o= line's session id, which tells one RTCPeerConnection from the next", () => {
    expect(sdpSessionId('v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\ns=-\r\n')).toBe('4611731400430051336');
    expect(sdpSessionId('v=0\no=mozilla...THIS_IS_SDPARTA-99.0 7051920346428437004 0 IN IP4 0.0.0.0\n')).toBe('7051920346428437004');
    expect(sdpSessionId('v=0\r\ns=-\r\n')).toBeNull();
  });
});

describe('HRTF readiness', () => {
  it('counts a probe beside the listener as panned only with a clear difference between the ears', () => {
    expect(hrtfIsPanning(-18, -6)).toBe(true); // measured once loaded (Chromium 150)
    expect(hrtfIsPanning(-4.9, -4.9)).toBe(false); // not loaded: both ears get the input
    expect(hrtfIsPanning(-120, -120)).toBe(false); // a suspended context: silence
    expect(hrtfIsPanning(-10, -8)).toBe(false);
    // Mirrored: a listener never oriented faces −Z, and the probe lands on its left (measured
    // L −18.0, R −28.9 dB in a fresh context); that is HRTF panning too.
    expect(hrtfIsPanning(-18, -28.9)).toBe(true);
    expect(hrtfIsPanning(-120, -118)).toBe(false);
  });
});

describe('HUD when following hearing range', () => {
  it('shows who is in range, the links and the avatar id, or that it waits for avatar sync', () => {
    const stats = emptyVoiceStats('world', 'push-to-talk');
    expect(voiceHudRows(stats).find((r) => r.label === 'hearing')).toBeUndefined();
    stats.follows = 'hearing';
    stats.hearingReady = false;
    expect(voiceHudRows(stats).find((r) => r.label === 'hearing')).toEqual({
      label: 'hearing',
      value: 'waiting for avatar sync (no avatar yet)',
      tone: 'warn',
    });
    Object.assign(stats, { hearingReady: true, hearing: [4, 9], links: 1, roomPeers: 40, avatarId: 12 });
    expect(voiceHudRows(stats).find((r) => r.label === 'hearing')?.value).toBe('2 in range · 1 link of 40 in the room · avatar 12');
    expect(voiceHudRows(stats).find((r) => r.label === 'peers')?.value).toBe('nobody within earshot');
  });
});
