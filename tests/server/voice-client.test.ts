/**
 * The browser's signaling client (src/voice/signaling-client.ts) against the real VoiceRoom, run in
 * Node with the ws package as its WebSocket: welcome and roster, relaying, the keep-alive noticing
 * a dead socket, the reconnect, and the resume that makes the room drop the old socket at once.
 */
import WebSocket from 'ws';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { Mulberry32 } from '../../src/core/rng.ts';
import { VOICE_CLOSE } from '../../src/voice/protocol/signaling.ts';
import { SignalingClient, type SignalingEvents, type WebSocketConstructor } from '../../src/voice/signaling-client.ts';
import { wsUrl } from '../harness/ws-client.ts';
import { SAMPLE_SDP, VoiceSocket } from '../harness/voice-socket.ts';

const base = inject('serverUrl');
let clients: SignalingClient[] = [];

/**
 * ws with Chromium's 2 s wait for the server to end TCP after a server-initiated close (ws waits
 * 30 s by default; wrangler dev answers the close frame but keeps the connection open).
 */
class BrowserLikeWebSocket extends WebSocket {
  constructor(url: string) {
    // closeTimeout is in ws 8.18+ but not yet in @types/ws.
    super(url, { closeTimeout: 2000 } as WebSocket.ClientOptions);
  }
}
let sockets: VoiceSocket[] = [];

function client(room: string, options: { pingMs?: number; deadMs?: number } = {}): SignalingClient {
  const rng = new Mulberry32(3);
  const c = new SignalingClient({
    url: wsUrl(base, `/rooms/voice/${room}`),
    WebSocket: BrowserLikeWebSocket as unknown as WebSocketConstructor,
    backoff: { baseMs: 100, maxMs: 500, random: () => rng.next() },
    ...options,
  });
  clients.push(c);
  return c;
}

function next<K extends keyof SignalingEvents>(c: SignalingClient, type: K, timeoutMs = 10_000): Promise<SignalingEvents[K]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${String(type)} within ${timeoutMs} ms`)), timeoutMs);
    const off = c.events.on(type, (payload) => {
      clearTimeout(timer);
      off();
      resolve(payload);
    });
  });
}

afterEach(async () => {
  for (const c of clients) c.dispose();
  clients = [];
  await Promise.all(sockets.map((s) => s.close().catch(() => undefined)));
  sockets = [];
});

describe('SignalingClient against the real VoiceRoom', () => {
  it('joins, hears the roster and joins, and relays through the room', async () => {
    const room = `client-${Date.now().toString(36)}`;
    const a = client(room);
    const welcomeA = next(a, 'welcome');
    a.connect();
    const wa = await welcomeA;
    expect(wa.peers).toEqual([]);
    expect(wa.previousId).toBeNull();
    expect(a.state).toBe('open');

    const joined = next(a, 'join');
    const other = await VoiceSocket.join(base, room);
    sockets.push(other);
    expect(await joined).toEqual({ type: 'join', id: other.id });
    const offer = next(a, 'offer');
    other.send({ type: 'offer', to: a.id, sdp: SAMPLE_SDP });
    expect(await offer).toEqual({ type: 'offer', from: other.id, sdp: SAMPLE_SDP });

    expect(a.send({ type: 'pos', x: 1, y: 2, z: 3, facing: 0 })).toBe(true);
    expect(await other.next((m) => m.type === 'pos')).toMatchObject({ from: a.id, x: 1 });

    // Errors the room sends are surfaced and counted, not thrown.
    const error = next(a, 'error');
    a.send({ type: 'answer', to: 999_999, sdp: SAMPLE_SDP });
    expect((await error).code).toBe('no-such-peer');
    expect(a.errors).toBe(1);
    expect(a.lastError).toMatch(/^no-such-peer: /);
  });

  it('notices a dead socket with its keep-alive, reconnects, and resumes so the room drops the old one', async () => {
    const room = `client-dead-${Date.now().toString(36)}`;
    const watcher = await VoiceSocket.join(base, room);
    sockets.push(watcher);
    const a = client(room, { pingMs: 200, deadMs: 800 });
    const first = next(a, 'welcome');
    a.connect();
    const oldId = (await first).id;
    expect(await watcher.next((m) => m.type === 'join')).toEqual({ type: 'join', id: oldId });

    const lost = next(a, 'lost');
    const rewelcome = next(a, 'welcome');
    a.simulateDeadSocket();
    expect(a.send({ type: 'ping' })).toBe(false); // nothing goes out on a dead socket
    expect((await lost).reason).toMatch(/keep-alive timeout/);
    expect((await lost).code).toBeNull();
    const again = await rewelcome;
    expect(again.previousId).toBe(oldId);
    expect(again.id).not.toBe(oldId);
    expect(again.peers.map((p) => p.id).sort()).toEqual([oldId, watcher.id].sort()); // the old socket was still there…
    expect(a.reconnects).toBe(1);
    // …until the resume: the room announces the old id's leave right away and the new id's join.
    const seen = [
      await watcher.next((m) => m.type === 'join' || m.type === 'leave'),
      await watcher.next((m) => m.type === 'join' || m.type === 'leave'),
    ];
    expect(seen).toEqual(
      expect.arrayContaining([
        { type: 'join', id: again.id },
        { type: 'leave', id: oldId },
      ]),
    );
  });

  it('reconnects after the server closes the socket, with backoff', async () => {
    const room = `client-close-${Date.now().toString(36)}`;
    const a = client(room);
    const first = next(a, 'welcome');
    a.connect();
    const oldId = (await first).id;
    // Another client resumes as A with A's token: the room closes A's socket (4001).
    const token = (a as unknown as { token: string }).token;
    const thief = await VoiceSocket.join(base, room);
    sockets.push(thief);
    const lost = next(a, 'lost');
    const rewelcome = next(a, 'welcome');
    thief.send({ type: 'resume', id: oldId, token });
    expect(await lost).toEqual({ reason: 'socket closed (4001 replaced by a reconnect)', code: VOICE_CLOSE.replaced });
    expect(a.state === 'reconnecting' || a.state === 'connecting' || a.state === 'open').toBe(true);
    expect((await rewelcome).previousId).toBe(oldId);
    expect(a.state).toBe('open');
  });

  it('stops for good on dispose()', async () => {
    const a = client(`client-stop-${Date.now().toString(36)}`);
    const welcome = next(a, 'welcome');
    a.connect();
    await welcome;
    a.dispose();
    expect(a.state).toBe('closed');
    expect(a.send({ type: 'ping' })).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    expect(a.state).toBe('closed');
  });
});
