import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FRAME_BYTES, FrameKind } from '../../src/net/protocol/frame.ts';
import { RelayClient, roomStats, settle } from '../harness/net-client.ts';
import { wsUrl } from '../harness/ws-client.ts';

const base = inject('serverUrl');
const run = Date.now().toString(36);
const roomUrl = (room: string, query = ''): string => wsUrl(base, `/rooms/avatar/${room}-${run}${query}`);
const statsOf = (room: string) => roomStats(base, `${room}-${run}`);

const opened: RelayClient[] = [];
async function join(room: string, query = ''): Promise<RelayClient> {
  const client = await RelayClient.join(roomUrl(room, query));
  opened.push(client);
  return client;
}
async function joinAll(room: string, n: number, query = '', everyone = query.startsWith('?session=')): Promise<RelayClient[]> {
  const clients: RelayClient[] = [];
  // One at a time, so ids (and the founder's settings) are predictable.
  for (let i = 0; i < n; i++) clients.push(await join(room, i === 0 || everyone ? query : ''));
  return clients;
}

/** Sockets opened first and then left alone, so the room hibernates while the other tests run. */
let sleepers: RelayClient[] = [];
let sleepersIdleSince = 0;
/** workerd evicts an idle object with hibernatable sockets after ~10 s (measured); wait a little longer. */
const HIBERNATE_AFTER_MS = 11_500;

/** The sleepers' session: its seats must still count after the room wakes from hibernation. */
let sleepySession = '';

beforeAll(async () => {
  const response = await fetch(`${base}/api/session`, { method: 'POST' });
  sleepySession = ((await response.json()) as { token: string }).token;
  sleepers = await joinAll('sleepy', 2, `?session=${sleepySession}`);
  sleepers[0]!.sendFrame({ seq: 1, x: 1 });
  await sleepers[1]!.waitFor(() => sleepers[1]!.binary.length === 1, 'first frame');
  sleepersIdleSince = Date.now();
});

afterAll(async () => {
  await Promise.all(opened.concat(sleepers).map((c) => c.close().catch(() => undefined)));
});

describe('RelayRoom relay (real workerd via wrangler dev)', () => {
  it('forwards each frame to every other socket, byte for byte apart from the stamped id, and not to the sender', async () => {
    const [a, b, c] = await joinAll('fwd', 3);
    expect([a!.id, b!.id, c!.id]).toEqual([1, 2, 3]);
    expect(c!.welcome()).toMatchObject({ mode: 'direct', peers: 3, rateCap: 30 });
    const sent = a!.sendFrame({ seq: 7, x: 1.5, y: 2, z: -3, facing: 1, speed: 1.6, animState: 1, timestamp: 123456 });
    await b!.waitFor(() => b!.binary.length === 1, 'b gets the frame');
    await c!.waitFor(() => c!.binary.length === 1, 'c gets the frame');
    for (const receiver of [b!, c!]) {
      const got = receiver.binary[0]!;
      expect(got.length).toBe(FRAME_BYTES);
      expect([...got.subarray(0, 4)]).toEqual([...sent.subarray(0, 4)]);
      expect(got.readUInt32LE(4)).toBe(a!.id);
      expect([...got.subarray(8)]).toEqual([...sent.subarray(8)]);
    }
    await settle();
    expect(a!.binary).toHaveLength(0);
  });

  it('gives sockets that join a new room at the same moment distinct ids (two visitors opening one link)', async () => {
    // A new room's first joins wait together for its signing key; they must not share the id counter's read.
    for (let round = 0; round < 40; round++) {
      const tokens = await Promise.all(
        Array.from({ length: 3 }, async () => {
          const response = await fetch(`${base}/api/session`, { method: 'POST' });
          return ((await response.json()) as { token: string }).token;
        }),
      );
      const clients = await Promise.all(tokens.map((token) => join(`together${round}`, `?session=${token}`)));
      expect(new Set(clients.map((c) => c.id)).size, `round ${round}: ids ${clients.map((c) => c.id).join(', ')}`).toBe(3);
      expect((await statsOf(`together${round}`)).lastPeerId).toBe(3);
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it('stamps the real sender id over a forged one', async () => {
    const [a, b, c] = await joinAll('forge', 3);
    c!.sendFrame({ seq: 1, senderId: a!.id }); // c pretends to be a
    await b!.waitFor(() => b!.binary.length === 1, 'frame');
    expect(b!.frames()[0]!.senderId).toBe(c!.id);
    await a!.waitFor(() => a!.binary.length === 1, 'frame');
    expect(a!.frames()[0]!.senderId).toBe(c!.id);
  });

  it('drops text, wrong-size frames and bad headers with a reason to the sender; the others never notice and the relay keeps running', async () => {
    const [bad, other] = await joinAll('junk', 2);
    bad!.send('{"type":"hello"}');
    bad!.send(new Uint8Array(35));
    bad!.send(new Uint8Array(37));
    bad!.send(new Uint8Array(FRAME_BYTES * 2));
    bad!.send(new Uint8Array(0));
    const randomBytes = new Uint8Array(FRAME_BYTES).map(() => Math.floor(Math.random() * 256));
    randomBytes[0] = 7; // not version 1
    bad!.send(randomBytes);
    const leave = new Uint8Array(FRAME_BYTES);
    leave[0] = 1;
    leave[1] = FrameKind.leave; // clients may not send leaves (they could make others drop them)
    bad!.send(leave);
    await bad!.waitFor(() => bad!.controls('dropped').length >= 3, 'drop notices');
    const notices = bad!.controls<{ reason: string; detail: string; count: number }>('dropped');
    expect(notices.map((n) => n.reason).sort()).toEqual(['header', 'size', 'text']);
    expect(notices.find((n) => n.reason === 'size')!.detail).toMatch(/not exactly one 36-byte frame/);
    // A valid frame afterwards still goes through, and is the only thing the other socket saw.
    bad!.sendFrame({ seq: 1, x: 9 });
    await other!.waitFor(() => other!.binary.length === 1, 'the valid frame');
    await settle();
    expect(other!.frames().map((f) => f.x)).toEqual([9]);
    expect(other!.texts.filter((t) => !t.includes('welcome'))).toEqual([]);
    const stats = await statsOf('junk');
    expect(stats.dropped).toEqual({ text: 1, size: 4, header: 2, frame: 0, rate: 0, role: 0 });
    expect(stats.received).toBe(1);
  });

  it('caps each socket at its rate (burst 15, 30/s) and counts the excess', async () => {
    const [flooder, calm, watcher] = await joinAll('flood', 3);
    const started = Date.now();
    for (let seq = 1; seq <= 200; seq++) flooder!.sendFrame({ seq });
    calm!.sendFrame({ seq: 1, x: 5 });
    await flooder!.waitFor(() => flooder!.controls('dropped').length > 0, 'rate notice');
    await settle(600);
    const elapsed = (Date.now() - started) / 1000;
    const fromFlooder = watcher!.frames().filter((f) => f.senderId === flooder!.id).length;
    expect(fromFlooder).toBeGreaterThanOrEqual(15);
    expect(fromFlooder).toBeLessThanOrEqual(15 + Math.ceil(30 * elapsed));
    // The calm peer is not punished for the flood.
    expect(watcher!.frames().filter((f) => f.senderId === calm!.id)).toHaveLength(1);
    const notice = flooder!.controls<{ reason: string; count: number }>('dropped')[0]!;
    expect(notice.reason).toBe('rate');
    const stats = await statsOf('flood');
    expect(stats.dropped.rate).toBe(200 - fromFlooder);
  });

  it('refuses joins past capacity with a close reason, and bad room parameters with HTTP 400', async () => {
    await joinAll('full', 2, '?capacity=2');
    const third = await RelayClient.connect(roomUrl('full'));
    expect(await third.closeFrame).toEqual({ code: 4001, reason: 'room full: 2 of 2 peers' });
    expect((await statsOf('full')).refused).toBe(1);
    await expect(RelayClient.connect(roomUrl('full', '?mode=turbo'))).rejects.toThrow(/HTTP 400/);
    const response = await fetch(`${base}/rooms/avatar/full-${run}?capacity=100000`);
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/capacity must be a whole number from 1 to 320/);
  });

  it('sends the others a leave frame when a socket closes', async () => {
    const [a, b, c] = await joinAll('leave', 3);
    await a!.close();
    for (const peer of [b!, c!]) {
      await peer.waitFor(() => peer.binary.length === 1, 'leave');
      expect(peer.frames()[0]).toMatchObject({ kind: FrameKind.leave, senderId: a!.id });
    }
    expect((await statsOf('leave')).peers).toBe(2);
  });

  it('answers keep-alive pings without waking the object (no webSocketMessage: no text drop counted)', async () => {
    const [a] = await joinAll('keepalive', 1);
    a!.send('ping');
    await a!.waitFor(() => a!.texts.includes('pong'), 'pong');
    await settle(200);
    expect((await statsOf('keepalive')).dropped.text).toBe(0);
    expect(a!.controls('dropped')).toEqual([]);
  });

  it('coalesces: one message per peer per tick holding every other peer’s frames (not its own)', async () => {
    const clients = await joinAll('coalesce', 5, '?mode=coalesce');
    expect(clients[0]!.welcome()!.mode).toBe('coalesce');
    for (const [i, client] of clients.entries()) client.sendFrame({ seq: 1, x: i });
    for (const client of clients) await client.waitFor(() => client.frames().length === 4, 'four frames');
    await settle();
    for (const [i, client] of clients.entries()) {
      const frames = client.frames();
      expect(frames.map((f) => f.senderId).sort()).toEqual(
        clients
          .filter((c) => c !== client)
          .map((c) => c.id)
          .sort(),
      );
      expect(frames.some((f) => f.x === i)).toBe(false);
      // Five frames sent at once arrive in one or two ticks, not four separate sends.
      expect(client.binary.length).toBeLessThanOrEqual(2);
    }
    const stats = await statsOf('coalesce');
    expect(stats.delivered).toBe(20);
    expect(stats.sends).toBeLessThanOrEqual(10);
  });

  it('chooses the mode by room size: direct while small, coalescing from 8 sockets', async () => {
    const clients = await joinAll('auto', 7);
    expect((await statsOf('auto')).mode).toBe('direct');
    clients.push(await join('auto'));
    expect(clients.at(-1)!.welcome()!.mode).toBe('coalesce');
    expect((await statsOf('auto')).mode).toBe('coalesce');
    await clients.pop()!.close();
    await clients.pop()!.close();
    await settle(200);
    expect((await statsOf('auto')).mode).toBe('direct');
  });

  it('survives hibernation: sockets stay, ids and stamping are rebuilt from attachments', async () => {
    const [a, b] = sleepers;
    const wait = HIBERNATE_AFTER_MS - (Date.now() - sleepersIdleSince);
    if (wait > 0) await settle(wait);
    // Reading the stats constructs the object again if (and only if) it was evicted.
    const stats = await statsOf('sleepy');
    expect(stats.wakes).toBeGreaterThanOrEqual(2);
    expect(stats.peers).toBe(2);
    expect(stats.received).toBe(1); // the counter was saved before the eviction
    a!.sendFrame({ seq: 2, x: 2, senderId: 999 });
    await b!.waitFor(() => b!.binary.length === 2, 'frame after waking');
    expect(b!.frames()[1]).toMatchObject({ senderId: a!.id, seq: 2, x: 2 });
    // The session's seats were recounted from the attachments: two more sockets fit (4 per client), a third does not.
    await join('sleepy', `?session=${sleepySession}`);
    await join('sleepy', `?session=${sleepySession}`);
    const extra = await RelayClient.connect(roomUrl('sleepy', `?session=${sleepySession}`));
    opened.push(extra);
    expect(await extra.closeFrame).toMatchObject({ code: 4006 });
    await a!.close();
    await b!.waitFor(() => b!.frames().some((f) => f.kind === FrameKind.leave && f.senderId === a!.id), 'leave after waking');
  }, 30_000);
});
