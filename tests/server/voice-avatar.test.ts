/**
 * The VoiceRoom's part in voice following hearing range (real workerd): avatar ids announced,
 * validated and carried by the roster; `bye` routed to one peer; world voice rooms that hold more
 * than 16 and relay no positions.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import { VoiceSocket, VoiceTestRooms, type Received } from '../harness/voice-socket.ts';
import { relayProof, worldProof } from '../harness/griefer.ts';
import type { RelayClient } from '../harness/net-client.ts';
import { VOICE_ROOM_CAPACITY } from '../../server/voice/capacity.ts';

const rooms = new VoiceTestRooms(inject('serverUrl'), 'voice-avatar');
const room = (prefix?: string): string => rooms.room(prefix);
const join = (name: string, query = ''): ReturnType<typeof rooms.join> => rooms.join(name, query);

const ofType = (type: string) => (m: Received) => m.type === type;

const relays: RelayClient[] = [];
const base = inject('serverUrl');
/**
 * An avatar in the relay room of the voice room's name, under a session (a new one unless given):
 * its id, the welcome's avatar token, and the session a voice socket needs for the token to count.
 */
async function avatar(name: string, session?: string): Promise<{ id: number; token: string; session: string }> {
  const proof = await relayProof(base, name, undefined, session);
  relays.push(proof.client);
  return proof;
}

afterEach(async () => {
  await rooms.closeAll();
  await Promise.all(relays.splice(0).map((c) => c.close().catch(() => undefined)));
});

describe('VoiceRoom avatar ids (real workerd)', () => {
  it('announces a proven avatar id to everyone else, keeps it in the roster, and carries changes and withdrawal', async () => {
    const name = room();
    const first = await avatar(name);
    const second = await avatar(name, first.session);
    const a = await join(name, `?session=${first.session}`);
    const b = await join(name);
    await a.collect(100, ofType('join'));
    a.send({ type: 'avatar', id: first.id, token: first.token });
    expect(await b.next(ofType('avatar'))).toEqual({ type: 'avatar', from: a.id, id: first.id });
    // The sender hears nothing back (no echo, no error).
    expect(await a.collect(200, (m) => m.type === 'avatar' || m.type === 'error')).toEqual([]);

    const c = await join(name);
    const roster = (c.welcome.peers as Array<{ id: number; avatar: number | null }>).sort((p, q) => p.id - q.id);
    expect(roster.map((p) => [p.id, p.avatar])).toEqual([
      [a.id, first.id],
      [b.id, null],
    ]);

    // A reconnect of avatar sync gives a new id: the change reaches everyone; the same id again is not resent.
    a.send({ type: 'avatar', id: second.id, token: second.token });
    a.send({ type: 'avatar', id: second.id, token: second.token });
    expect(await b.next(ofType('avatar'))).toEqual({ type: 'avatar', from: a.id, id: second.id });
    expect(await c.next(ofType('avatar'))).toEqual({ type: 'avatar', from: a.id, id: second.id });
    expect(await c.collect(200, ofType('avatar'))).toEqual([]);
    a.send({ type: 'avatar', id: null });
    expect(await c.next(ofType('avatar'))).toEqual({ type: 'avatar', from: a.id, id: null });
  });

  it('refuses a malformed avatar id with a clear error to the sender only, and keeps the old one', async () => {
    const name = room();
    const proof = await avatar(name);
    const a = await join(name, `?session=${proof.session}`);
    const b = await join(name);
    await a.collect(100, ofType('join'));
    a.send({ type: 'avatar', id: proof.id, token: proof.token });
    await b.next(ofType('avatar'));
    for (const bad of [0, -5, 2.5, 2 ** 32, '12', true]) {
      a.send({ type: 'avatar', id: bad, token: proof.token });
      const error = await a.next(ofType('error'));
      expect(error).toMatchObject({ type: 'error', code: 'bad-field', ref: 'avatar' });
      expect(String(error.message)).toMatch(/integer from 1 to 4294967295/);
    }
    a.send({ type: 'avatar' });
    expect(await a.next(ofType('error'))).toMatchObject({ code: 'bad-field', message: expect.stringMatching(/missing/) });
    a.send({ type: 'avatar', id: proof.id + 1 });
    expect(await a.next(ofType('error'))).toMatchObject({ code: 'bad-field', message: expect.stringMatching(/avatarToken/) });
    expect(await b.collect(300, ofType('avatar'))).toEqual([]);
    // Nothing lost: the roster still has the proven id.
    const c = await join(name);
    expect((c.welcome.peers as Array<{ id: number; avatar: number | null }>).find((p) => p.id === a.id)?.avatar).toBe(proof.id);
  });

  it('refuses an avatar claim without a valid token for that id and this room, and tells nobody', async () => {
    const name = room();
    const victim = await avatar(name);
    const elsewhere = await avatar(room());
    const honest = await join(name);
    const forger = await join(name);
    await honest.collect(100, ofType('join'));
    const attempts: Array<[string, unknown]> = [
      ['another id', { type: 'avatar', id: victim.id + 50, token: victim.token }],
      [
        'a forged token',
        { type: 'avatar', id: victim.id, token: victim.token.slice(0, -4) + (victim.token.endsWith('AAAA') ? 'BBBB' : 'AAAA') },
      ],
      ['garbage', { type: 'avatar', id: victim.id, token: 'x'.repeat(34) }],
      ['another room', { type: 'avatar', id: elsewhere.id, token: elsewhere.token }],
    ];
    for (const [what, claim] of attempts) {
      forger.send(claim);
      const error = await forger.next(ofType('error'));
      expect(error, what).toMatchObject({ code: 'bad-avatar-token', ref: 'avatar' });
    }
    // Nobody was told of any claim; the roster has none.
    expect(await honest.collect(300, ofType('avatar'))).toEqual([]);
    const late = await join(name);
    expect((late.welcome.peers as Array<{ id: number; avatar: number | null }>).find((p) => p.id === forger.id)?.avatar).toBeNull();
  });

  it('refuses an avatar id another peer in the room already announced', async () => {
    const name = room();
    const proof = await avatar(name);
    // Two voice sockets of the owner's session (a reconnect whose old socket is not gone yet).
    const a = await join(name, `?session=${proof.session}`);
    const b = await join(name, `?session=${proof.session}`);
    await a.collect(100, ofType('join'));
    a.send({ type: 'avatar', id: proof.id, token: proof.token });
    await b.next(ofType('avatar'));
    b.send({ type: 'avatar', id: proof.id, token: proof.token });
    const error = await b.next(ofType('error'));
    expect(error).toMatchObject({ code: 'avatar-taken', ref: 'avatar' });
    expect(String(error.message)).toContain(`peer ${a.id}`);
    expect(await a.collect(200, ofType('avatar'))).toEqual([]);
    // Once A leaves, the id is free.
    await a.close();
    await b.next(ofType('leave'));
    b.send({ type: 'avatar', id: proof.id, token: proof.token });
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
    const world = await worldProof(base, 23 * 64 + 5, -23 * 64 + 5);
    relays.push(world.client);
    const peers: VoiceSocket[] = [];
    for (let i = 0; i < VOICE_ROOM_CAPACITY + 4; i++)
      peers.push(await join(name, i === 0 ? `?ping=60&session=${world.session}` : '?ping=60'));
    const first = peers[0]! as Awaited<ReturnType<typeof VoiceSocket.join>>;
    const last = peers.at(-1)! as Awaited<ReturnType<typeof VoiceSocket.join>>;
    expect(last.welcome).toMatchObject({ type: 'welcome', positionRate: 0 });
    expect((last.welcome.peers as unknown[]).length).toBe(VOICE_ROOM_CAPACITY + 3);

    first.send({ type: 'pos', x: 1, y: 0, z: 2, facing: 0 });
    const error = await first.next(ofType('error'));
    expect(error).toMatchObject({ code: 'no-positions', ref: 'pos' });
    expect(String(error.message)).toMatch(/avatars/);
    expect(await last.collect(300, ofType('pos'))).toEqual([]);

    // World voice rooms take the world cell's proof (scope `world`), not a relay room's.
    const relay = await avatar(name, world.session);
    first.send({ type: 'avatar', id: relay.id, token: relay.token });
    expect(await first.next(ofType('error'))).toMatchObject({ code: 'bad-avatar-token' });
    first.send({ type: 'avatar', id: world.entry.id, token: world.token });
    expect(await last.next(ofType('avatar'))).toEqual({ type: 'avatar', from: first.id, id: world.entry.id });
    first.send({ type: 'offer', to: last.id, sdp: 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n' });
    expect(await last.next(ofType('offer'))).toMatchObject({ from: first.id });
    expect(await peers[1]!.collect(200, ofType('offer'))).toEqual([]);
  });
});
