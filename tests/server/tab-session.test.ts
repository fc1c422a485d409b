/**
 * A tab's session (src/net/tab-session.ts) against the real Worker, and what it is for: the world
 * transport's cell sockets carry it, so the avatar token a cell hands out proves the avatar to the
 * tab's voice socket of the same session, and to no other tab's.
 */
import WebSocket from 'ws';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { TAB_SESSION_KEY, tabSession } from '../../src/net/tab-session.ts';
import type { WebSocketConstructor } from '../../src/net/transport/websocket-transport.ts';
import { WorldTransport } from '../../src/net/world/world-transport.ts';
import { settle } from '../harness/net-client.ts';
import { VoiceSocket, type Received } from '../harness/voice-socket.ts';

const base = inject('serverUrl');
const run = Date.now().toString(36);

/** Web Storage in memory (one tab's sessionStorage). */
function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

const opened: Array<{ dispose(): void } | VoiceSocket> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const thing of opened.splice(0)) {
    if (thing instanceof VoiceSocket) await thing.close().catch(() => undefined);
    else thing.dispose();
  }
});

describe('a tab session', () => {
  it('is one request however many callers, kept in the tab’s storage and reused from it', async () => {
    const storage = memoryStorage();
    const requests = vi.spyOn(globalThis, 'fetch');
    const [a, b] = await Promise.all([tabSession(base, storage), tabSession(base, storage)]);
    expect(a).toMatch(/^[A-Za-z0-9_-]{30,64}$/);
    expect(b).toBe(a);
    expect(requests.mock.calls.filter(([url]) => String(url).endsWith('/api/session'))).toHaveLength(1);
    expect(JSON.parse(storage.getItem(TAB_SESSION_KEY)!)).toMatchObject({ token: a });
    // Another page of the same tab (a reload: same storage, nothing in memory) asks nothing.
    const reload = base.replace('127.0.0.1', 'localhost');
    expect(await tabSession(reload, storage)).toBe(a);
    expect(requests.mock.calls.filter(([url]) => String(url).endsWith('/api/session'))).toHaveLength(1);
  });

  it('makes a world cell’s avatar token count on the tab’s voice socket only', async () => {
    const tab = await tabSession(base, memoryStorage());
    const other = await tabSession(base, memoryStorage());
    expect(tab).not.toBeNull();
    expect(other).not.toBe(tab);
    const world = new WorldTransport({
      origin: base,
      start: { x: 29 * 64 + 10, z: -30 * 64 + 10 },
      session: tab,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
    });
    opened.push(world);
    expect(await world.start()).toBe(true);
    for (let waited = 0; world.avatarToken === null && waited < 10_000; waited += 100) await settle(100);
    const claim = { type: 'avatar', id: world.selfId, token: world.avatarToken };
    const room = `world:tab-${run}`;
    const page = await VoiceSocket.join(base, room);
    const stranger = await VoiceSocket.join(base, room, `?session=${other}`);
    const mine = await VoiceSocket.join(base, room, `?session=${tab}`);
    opened.push(page, stranger, mine);
    stranger.send(claim);
    expect(await stranger.next((m: Received) => m.type === 'error')).toMatchObject({ code: 'bad-avatar-token' });
    mine.send(claim);
    expect(await page.next((m: Received) => m.type === 'avatar')).toEqual({ type: 'avatar', from: mine.id, id: world.selfId });
    expect(await page.collect(300, (m: Received) => m.type === 'avatar')).toEqual([]);
  });
});
