/**
 * Profiles on the client side: the relay transport sends the page's profile after every welcome
 * (a reconnect is a new socket with nothing stored), the session checks what arrives again and
 * hands each remote view its player's name and look once, and two pages on a BroadcastChannel
 * (no relay to greet newcomers) learn each other's profiles.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NetSession } from '../../../src/net/net-session.ts';
import type { PeerProfile, Profile } from '../../../src/net/protocol/profile.ts';
import { createFrame, encodeFrame, FRAME_BYTES } from '../../../src/net/protocol/frame.ts';
import { BroadcastTransport } from '../../../src/net/transport/broadcast-transport.ts';
import { WebSocketTransport } from '../../../src/net/transport/websocket-transport.ts';
import type { RemoteAvatar, RemotePeerView } from '../../../src/net/view/remote-peer-view.ts';
import { FakeSocket, tick, until } from './fake-socket.ts';

class ProfileView implements RemotePeerView {
  readonly profiles = new Map<number, PeerProfile[]>();
  add(id: number): RemoteAvatar {
    return {
      setTransform: () => undefined,
      play: () => undefined,
      remove: () => undefined,
      setProfile: (profile) => this.profiles.set(id, [...(this.profiles.get(id) ?? []), profile]),
    };
  }
  update(): void {}
  get count(): number {
    return this.profiles.size;
  }
  dispose(): void {}
}

const ada: Profile = { name: 'Ada', look: { kind: 'humanoid', build: 1, skin: 2, hair: 3, outfit: 4 } };
const welcome = (id: number): string =>
  JSON.stringify({ type: 'welcome', id, room: 'r', mode: 'direct', tickMs: 25, capacity: 64, rateCap: 30, peers: 2, avatarToken: 'x' });
const frameFrom = (id: number): Uint8Array => {
  const bytes = new Uint8Array(FRAME_BYTES);
  encodeFrame({ ...createFrame(), senderId: id, seq: 1 }, bytes);
  return bytes;
};
const sessions: NetSession[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.dispose();
  FakeSocket.reset();
});

describe('profiles through a relay transport and a session', () => {
  it('sends the profile after each welcome, and hands views checked profiles, once per change', async () => {
    const transport = new WebSocketTransport({
      url: 'ws://relay.test/rooms/avatar/r',
      WebSocket: FakeSocket.ctor,
      backoff: { baseMs: 5, maxMs: 5 },
    });
    const view = new ProfileView();
    const session = new NetSession({ transport, view, timerMs: 0 });
    sessions.push(session);
    expect(session.setProfile({ name: '', look: ada.look })).toBe('the name is empty');
    expect(session.setProfile({ ...ada, name: '  Ada ' })).toBeNull();
    const first = FakeSocket.made[0]!;
    first.open();
    // Nothing before the welcome: the relay has not taken the socket yet.
    expect(first.sent.filter((s) => typeof s === 'string' && s.includes('profile'))).toEqual([]);
    first.receive(welcome(1));
    expect(first.sent.filter((s) => typeof s === 'string' && s.includes('profile'))).toEqual([
      '{"type":"profile","name":"Ada","look":{"kind":"humanoid","build":1,"skin":2,"hair":3,"outfit":4}}',
    ]);
    expect(session.stats.profile).toEqual({ name: 'Ada', look: 'humanoid:1.2.3.4' });
    // Other players' profiles: one arrives before that player's first frame, one after.
    first.receive(
      JSON.stringify({ type: 'profiles', peers: [{ id: 7, name: 'Bo', look: { kind: 'model', url: 'https://m.example/bo.glb' } }] }),
    );
    first.receive(frameFrom(7));
    first.receive(frameFrom(8));
    session.update(0.016);
    expect(view.profiles.get(7)).toEqual([{ id: 7, name: 'Bo', look: { kind: 'model', url: 'https://m.example/bo.glb' } }]);
    // A bad entry (a relay that does not check) is skipped and counted; the good one beside it is taken.
    first.receive(
      JSON.stringify({
        type: 'profiles',
        peers: [
          { id: 8, name: 'Cy\u202E', look: ada.look },
          { id: 8, name: 'Cy', look: ada.look },
        ],
      }),
    );
    // The same profile again does not reach the view a second time.
    first.receive(JSON.stringify({ type: 'profiles', peers: [{ id: 8, name: 'Cy', look: ada.look }] }));
    expect(view.profiles.get(8)!.map((p) => p.name)).toEqual(['Cy']);
    session.update(0.016);
    expect(session.stats.badProfiles).toBe(1);
    expect(session.stats.profiles).toBe(2);
    expect(session.stats.looks).toBe(2);
    // The relay refused our profile: the reason is in the stats.
    first.receive(JSON.stringify({ type: 'refused', command: 'profile', reason: 'the name is empty' }));
    expect(session.stats.profileRefused).toBe('the name is empty');
    // A reconnect is a new socket: the profile goes again after its welcome.
    first.drop();
    await until(() => FakeSocket.made.length === 2);
    const second = FakeSocket.made[1]!;
    second.open();
    second.receive(welcome(2));
    expect(second.sent.filter((s) => typeof s === 'string' && s.includes('"profile"'))).toHaveLength(1);
  });
});

describe('profiles on a BroadcastChannel', () => {
  it('reach pages that join later (each posts its profile again when it hears a newcomer)', async () => {
    const channel = `profiles-${Math.random()}`;
    const viewA = new ProfileView();
    const a = new NetSession({ transport: new BroadcastTransport({ channel, selfId: 11 }), view: viewA, timerMs: 0 });
    sessions.push(a);
    a.setProfile(ada);
    await tick(20);
    // B opens after A's profile went out: it learns it when A hears B's first frame.
    const viewB = new ProfileView();
    const b = new NetSession({ transport: new BroadcastTransport({ channel, selfId: 22 }), view: viewB, timerMs: 0 });
    sessions.push(b);
    b.setProfile({ name: 'Bo', look: { kind: 'humanoid', build: 0, skin: 0, hair: 0, outfit: 9 } });
    a.setLocalPose({ x: 0, y: 0, z: 0, facing: 0, speed: 0, state: 'idle' });
    b.setLocalPose({ x: 1, y: 0, z: 0, facing: 0, speed: 0, state: 'idle' });
    await until(() => b.profileOf(11) !== undefined && a.profileOf(22) !== undefined, 5000);
    expect(b.profileOf(11)).toEqual({ id: 11, ...ada });
    expect(a.profileOf(22)!.name).toBe('Bo');
  });
});
