import { afterEach, describe, expect, it } from 'vitest';
import { createFrame, encodeFrame, FRAME_BYTES, stampSenderId } from '../../../src/net/protocol/frame.ts';
import { NetSession } from '../../../src/net/net-session.ts';
import { BroadcastTransport } from '../../../src/net/transport/broadcast-transport.ts';
import { FallbackTransport, relayAttempt } from '../../../src/net/transport/fallback-transport.ts';
import type { RemoteAvatar, RemotePeerView } from '../../../src/net/view/remote-peer-view.ts';
import { WorldTransport, worldAttempt } from '../../../src/net/world/world-transport.ts';
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
const welcome = (id: number, avatarToken?: string): string =>
  JSON.stringify({
    type: 'welcome',
    id,
    room: 'lobby',
    mode: 'direct',
    tickMs: 25,
    capacity: 64,
    rateCap: 30,
    peers: 1,
    ...(avatarToken ? { avatarToken } : {}),
  });

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

  it('the open world: falls back while the world API does not answer, retries, and switches back entering where the player stands then', async () => {
    const channel = `world-${Math.random()}`;
    let down = true;
    const entered: Array<{ x: number; z: number }> = [];
    // The Worker's directory: unreachable (a network error, as fetch gives) until `down` clears.
    const directory = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
      if (down) throw new TypeError('Failed to fetch');
      expect(String(url)).toBe('http://world.test/api/world/enter');
      entered.push(JSON.parse(String(init?.body)) as { x: number; z: number });
      return new Response(
        JSON.stringify({
          id: 12,
          token: 'tok-12',
          cell: { x: 1, z: 0 },
          cellSize: 64,
          expiresAt: Date.now() + 120_000,
          serverTime: Date.now(),
        }),
      );
    };
    const player = { x: 10, z: 10 };
    const transport = new FallbackTransport({
      kind: 'world',
      target: 'http://world.test/api/world',
      attempt: worldAttempt(() => ({
        origin: 'http://world.test',
        start: { ...player },
        fetch: directory as typeof fetch,
        WebSocket: FakeSocket.ctor,
        backoff: { baseMs: 1, maxMs: 2 },
        clockProbeMs: 0,
      })),
      fallback: () => new BroadcastTransport({ channel }),
      backoff: { baseMs: 5, maxMs: 20 },
    });
    const session = new NetSession({ transport, view: new CountingView(), timerMs: 0 });
    cleanup.push(() => session.dispose());

    expect(await transport.ready()).toBe(false);
    expect(transport.fallbackReason).toBe('the world API did not answer (Failed to fetch)');
    expect(session.stats.transport).toBe('broadcast');
    await until(() => transport.failedAttempts >= 3);
    expect(FakeSocket.made).toHaveLength(0); // a failed try opens no cell

    // The player walked meanwhile; the world comes back: the next try enters there and the page switches.
    player.x = 70;
    down = false;
    await until(() => session.stats.transport === 'world');
    expect(entered).toEqual([{ x: 70, z: 10 }]);
    expect(transport.fallenBack).toBe(false);
    expect(transport.current).toBeInstanceOf(WorldTransport);
    expect(session.stats.switches).toBe(2); // to the channel (this session was made before the first try ended), then back to the world
    expect(session.stats.target).toBe('http://world.test/api/world');
    // It opened the 3×3 around the cell it entered (1:0), publishing there.
    expect(FakeSocket.made).toHaveLength(9);
    expect(FakeSocket.made[0]!.url).toBe('ws://world.test/rooms/avatar/world%3Acell%3A1%3A0?role=pub&token=tok-12');
    const failed = transport.failedAttempts;
    await tick(60);
    expect(transport.failedAttempts).toBe(failed); // no more tries once in the world
  });
});
