import { afterEach, describe, expect, it } from 'vitest';
import { createFrame, encodeFrame, FRAME_BYTES, stampSenderId } from '../../../src/net/protocol/frame.ts';
import { NetSession } from '../../../src/net/net-session.ts';
import { BroadcastTransport } from '../../../src/net/transport/broadcast-transport.ts';
import { FallbackTransport, relayAttempt } from '../../../src/net/transport/fallback-transport.ts';
import type { RemoteAvatar, RemotePeerView } from '../../../src/net/view/remote-peer-view.ts';
import { FakeSocket, tick, until } from './fake-socket.ts';

class CountingView implements RemotePeerView {
  readonly ids = new Set<number>();
  add(id: number): RemoteAvatar {
    this.ids.add(id);
    return { setTransform: () => undefined, play: () => undefined, remove: () => this.ids.delete(id) };
  }
  get count(): number {
    return this.ids.size;
  }
  update(): void {}
  dispose(): void {}
}

const URL_A = 'ws://relay.test/rooms/avatar/lobby';
const welcome = (id: number, avatarToken?: string): string => JSON.stringify({ type: 'welcome', id, room: 'lobby', mode: 'direct', tickMs: 25, capacity: 64, rateCap: 30, peers: 1, ...(avatarToken ? { avatarToken } : {}) });

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const undo of cleanup.splice(0)) undo();
  FakeSocket.reset();
});

describe('FallbackTransport: a page that fell back keeps trying the relay', () => {
  it('falls back to the channel when the relay refuses, retries with backoff, and switches back when it answers', async () => {
    const channel = `fallback-${Math.random()}`;
    const transport = new FallbackTransport({
      kind: 'relay',
      target: URL_A,
      attempt: relayAttempt(URL_A, { WebSocket: FakeSocket.ctor }, 1000),
      fallback: () => new BroadcastTransport({ channel }),
      backoff: { baseMs: 5, maxMs: 20 },
    });
    const view = new CountingView();
    const session = new NetSession({ transport, view, timerMs: 0 });
    cleanup.push(() => session.dispose());
    const switches: string[] = [];
    session.events.on('switched', ({ kind }) => switches.push(kind));
    expect(session.stats.transport).toBe('relay');

    // No relay: the first socket fails, the page falls back to this browser's tabs.
    FakeSocket.made[0]!.drop(1006);
    expect(await transport.ready()).toBe(false);
    expect(transport.fallbackReason).toMatch(/no relay answered at ws:\/\/relay\.test\/rooms\/avatar\/lobby \(closed 1006\)/);
    expect(session.stats.transport).toBe('broadcast');
    expect(session.stats.state).toBe('open');

    // Another tab on the channel is seen while fallen back.
    const tab = new BroadcastChannel(`cairn-avatar:${channel}`);
    cleanup.push(() => tab.close());
    const frame = new Uint8Array(FRAME_BYTES);
    encodeFrame({ ...createFrame(), seq: 1 }, frame);
    stampSenderId(frame, 0, 77);
    const leaves: number[] = [];
    tab.onmessage = (event: MessageEvent<Uint8Array>) => leaves.push(event.data.length);
    tab.postMessage(frame);
    await until(() => session.table.size === 1);

    // In the background it keeps knocking, ever more slowly, with fresh sockets.
    for (let i = 1; i <= 3; i++) {
      await until(() => FakeSocket.made.length === i + 1);
      FakeSocket.made[i]!.drop(1006);
    }
    expect(transport.failedAttempts).toBeGreaterThanOrEqual(3);
    expect(transport.fallenBack).toBe(true);

    // The relay comes back: the next try opens, the page switches, the channel's peers go.
    await until(() => FakeSocket.made.length === 5);
    const relay = FakeSocket.made[4]!;
    relay.open();
    await until(() => session.stats.transport === 'relay');
    expect(switches).toEqual(['broadcast', 'relay']);
    expect(transport.fallenBack).toBe(false);
    expect(session.table.size).toBe(0);
    expect(leaves).toEqual([FRAME_BYTES]); // the channel said goodbye to the other tabs
    // The relay's welcome gives the id and the avatar token the session exposes.
    const tokens: Array<string | null> = [];
    session.events.on('avatarToken', (token) => tokens.push(token));
    relay.receive(welcome(9, 'tok-9'));
    expect(session.avatarToken).toBe('tok-9');
    expect(tokens).toEqual(['tok-9']);
    expect(session.table.selfId).toBe(9);
    session.setLocalPose({ x: 1, y: 0, z: 2, facing: 0, speed: 0, state: 'idle' });
    expect(relay.sent.some((data) => data instanceof Uint8Array && data.length === FRAME_BYTES)).toBe(true);
    await tick(40);
    expect(FakeSocket.made).toHaveLength(5); // no more tries once on the relay
  });

  it('stays on the relay when it answers the first time', async () => {
    const transport = new FallbackTransport({
      kind: 'relay',
      target: URL_A,
      attempt: relayAttempt(URL_A, { WebSocket: FakeSocket.ctor }, 1000),
      fallback: () => {
        throw new Error('no fallback expected');
      },
    });
    cleanup.push(() => transport.dispose());
    FakeSocket.made[0]!.open();
    expect(await transport.ready()).toBe(true);
    expect(transport.kind).toBe('relay');
    expect(transport.fallbackReason).toBeNull();
  });

  it('counts a try that throws (no WebSocket, a URL the page may not open) as failed, with its message', async () => {
    const channel = `throws-${Math.random()}`;
    let tries = 0;
    const transport = new FallbackTransport({
      kind: 'relay',
      target: URL_A,
      attempt: async () => {
        tries++;
        throw new Error('no WebSocket implementation');
      },
      fallback: () => new BroadcastTransport({ channel }),
      backoff: { baseMs: 5, maxMs: 10 },
    });
    cleanup.push(() => transport.dispose());
    expect(await transport.ready()).toBe(false);
    expect(transport.fallbackReason).toBe('no WebSocket implementation');
    expect(transport.kind).toBe('broadcast');
    await until(() => tries >= 3);
  });
});
