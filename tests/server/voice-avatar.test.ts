/**
 * The VoiceRoom's part in voice following hearing range (real workerd): avatar ids announced,
 * validated and carried by the roster; `bye` routed to one peer; world voice rooms that hold more
 * than 16 and relay no positions.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import { VoiceSocket, VoiceTestRooms, type Received } from '../harness/voice-socket.ts';
import { VOICE_ROOM_CAPACITY } from '../../server/voice/capacity.ts';

const rooms = new VoiceTestRooms(inject('serverUrl'), 'voice-avatar');
const room = (prefix?: string): string => rooms.room(prefix);
const join = (name: string, query = ''): ReturnType<typeof rooms.join> => rooms.join(name, query);

const ofType = (type: string) => (m: Received) => m.type === type;

afterEach(() => rooms.closeAll());

describe('VoiceRoom avatar ids (real workerd)', () => {
  it('announces an avatar id to everyone else, keeps it in the roster, and carries changes and withdrawal', async () => {
    const name = room();
    const a = await join(name);
    const b = await join(name);
    await a.collect(100, ofType('join'));
    a.send({ type: 'avatar', id: 4_000_000_000 });
    expect(await b.next(ofType('avatar'))).toEqual({ type: 'avatar', from: a.id, id: 4_000_000_000 });
    // The sender hears nothing back (no echo, no error).
    expect(await a.collect(200, (m) => m.type === 'avatar' || m.type === 'error')).toEqual([]);

    const c = await join(name);
    const roster = (c.welcome.peers as Array<{ id: number; avatar: number | null }>).sort((p, q) => p.id - q.id);
    expect(roster.map((p) => [p.id, p.avatar])).toEqual([
      [a.id, 4_000_000_000],
      [b.id, null],
    ]);

    // A reconnect of avatar sync gives a new id: the change reaches everyone; the same id again is not resent.
    a.send({ type: 'avatar', id: 17 });
    a.send({ type: 'avatar', id: 17 });
    expect(await b.next(ofType('avatar'))).toEqual({ type: 'avatar', from: a.id, id: 17 });
    expect(await c.next(ofType('avatar'))).toEqual({ type: 'avatar', from: a.id, id: 17 });
    expect(await c.collect(200, ofType('avatar'))).toEqual([]);
    a.send({ type: 'avatar', id: null });
    expect(await c.next(ofType('avatar'))).toEqual({ type: 'avatar', from: a.id, id: null });
  });

  it('refuses a malformed avatar id with a clear error to the sender only, and keeps the old one', async () => {
    const name = room();
    const a = await join(name);
    const b = await join(name);
    await a.collect(100, ofType('join'));
    a.send({ type: 'avatar', id: 12 });
    await b.next(ofType('avatar'));
    for (const bad of [0, -5, 2.5, 2 ** 32, '12', true]) {
      a.send({ type: 'avatar', id: bad });
      const error = await a.next(ofType('error'));
      expect(error).toMatchObject({ type: 'error', code: 'bad-field', ref: 'avatar' });
      expect(String(error.message)).toMatch(/integer from 1 to 4294967295/);
    }
    a.send({ type: 'avatar' });
    expect(await a.next(ofType('error'))).toMatchObject({ code: 'bad-field', message: expect.stringMatching(/missing/) });
    expect(await b.collect(300, ofType('avatar'))).toEqual([]);
    // Nothing lost: the roster still has 12.
    const c = await join(name);
    expect((c.welcome.peers as Array<{ id: number; avatar: number | null }>).find((p) => p.id === a.id)?.avatar).toBe(12);
  });

  it('refuses an avatar id another peer in the room already announced', async () => {
    const name = room();
    const a = await join(name);
    const b = await join(name);
    await a.collect(100, ofType('join'));
    a.send({ type: 'avatar', id: 99 });
    await b.next(ofType('avatar'));
    b.send({ type: 'avatar', id: 99 });
    const error = await b.next(ofType('error'));
    expect(error).toMatchObject({ code: 'avatar-taken', ref: 'avatar' });
    expect(String(error.message)).toContain(`peer ${a.id}`);
    expect(await a.collect(200, ofType('avatar'))).toEqual([]);
    // Once A leaves, the id is free.
    await a.close();
    await b.next(ofType('leave'));
    b.send({ type: 'avatar', id: 99 });
    expect(await b.collect(300, ofType('error'))).toEqual([]);
  });

  it('routes a bye to its one target, stamped with the sender, and refuses one to nobody', async () => {
    const name = room();
    const a = await join(name);
    const b = await join(name);
    const c = await join(name);
    await a.collect(150);
    await b.collect(100);
    a.send({ type: 'bye', to: b.id, from: c.id });
    expect(await b.next(ofType('bye'))).toEqual({ type: 'bye', from: a.id });
    expect(await c.collect(200, ofType('bye'))).toEqual([]);
    a.send({ type: 'bye', to: 999_999 });
    expect(await a.next(ofType('error'))).toMatchObject({ code: 'no-such-peer', ref: 'bye' });
    a.send({ type: 'bye', to: a.id });
    expect(await a.next(ofType('error'))).toMatchObject({ code: 'no-such-peer', ref: 'bye' });
  });
});

describe('world voice rooms (real workerd)', () => {
  it(`admit more than ${VOICE_ROOM_CAPACITY} peers, relay no positions, and still route point to point`, async () => {
    const name = room('world:voice-test');
    const peers: VoiceSocket[] = [];
    for (let i = 0; i < VOICE_ROOM_CAPACITY + 4; i++) peers.push(await join(name, '?ping=60'));
    const first = peers[0]! as Awaited<ReturnType<typeof VoiceSocket.join>>;
    const last = peers.at(-1)! as Awaited<ReturnType<typeof VoiceSocket.join>>;
    expect(last.welcome).toMatchObject({ type: 'welcome', positionRate: 0 });
    expect((last.welcome.peers as unknown[]).length).toBe(VOICE_ROOM_CAPACITY + 3);

    first.send({ type: 'pos', x: 1, y: 0, z: 2, facing: 0 });
    const error = await first.next(ofType('error'));
    expect(error).toMatchObject({ code: 'no-positions', ref: 'pos' });
    expect(String(error.message)).toMatch(/avatars/);
    expect(await last.collect(300, ofType('pos'))).toEqual([]);

    first.send({ type: 'avatar', id: 5 });
    expect(await last.next(ofType('avatar'))).toEqual({ type: 'avatar', from: first.id, id: 5 });
    first.send({ type: 'offer', to: last.id, sdp: 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n' });
    expect(await last.next(ofType('offer'))).toMatchObject({ from: first.id });
    expect(await peers[1]!.collect(200, ofType('offer'))).toEqual([]);
  });
});
