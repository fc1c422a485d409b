import { afterEach, describe, expect, inject, it } from 'vitest';
import { SAMPLE_SDP, VoiceSocket, VoiceTestRooms, type Received } from '../harness/voice-socket.ts';
import { MAX_MESSAGE_BYTES, PING_TEXT } from '../../src/voice/protocol/signaling.ts';

const rooms = new VoiceTestRooms(inject('serverUrl'), 'voice-test');
const base = inject('serverUrl');
const room = (prefix?: string): string => rooms.room(prefix);
const join = (name: string, query = ''): ReturnType<typeof rooms.join> => rooms.join(name, query);

const ofType = (type: string) => (m: Received) => m.type === type;

afterEach(() => rooms.closeAll());

describe('VoiceRoom signaling relay (real workerd)', () => {
  it('sends each new peer the roster with last positions, and announces joins', async () => {
    const name = room();
    const a = await join(name);
    expect(a.welcome).toMatchObject({ type: 'welcome', room: name, peers: [], positionRate: 15 });
    expect(a.token).toMatch(/^[0-9a-f]{32}$/);

    const b = await join(name);
    expect(b.id).not.toBe(a.id);
    expect(b.welcome.peers).toEqual([{ id: a.id, pos: null, avatar: null }]);
    expect(await a.next(ofType('join'))).toEqual({ type: 'join', id: b.id });

    a.send({ type: 'pos', x: 3, y: 1.5, z: -4, facing: 0.5 });
    expect(await b.next(ofType('pos'))).toEqual({ type: 'pos', from: a.id, x: 3, y: 1.5, z: -4, facing: 0.5 });

    const c = await join(name);
    const roster = (c.welcome.peers as Array<{ id: number }>).sort((p, q) => p.id - q.id);
    expect(roster).toEqual([
      { id: a.id, pos: { x: 3, y: 1.5, z: -4, facing: 0.5 }, avatar: null },
      { id: b.id, pos: null, avatar: null },
    ]);
    expect(await a.next(ofType('join'))).toEqual({ type: 'join', id: c.id });
    expect(await b.next(ofType('join'))).toEqual({ type: 'join', id: c.id });
  });

  it('routes offers, answers and ICE candidates to the one target peer only', async () => {
    const name = room();
    const a = await join(name);
    const b = await join(name);
    const c = await join(name);
    await a.collect(200);
    await b.collect(200);
    await c.collect(0);

    a.send({ type: 'offer', to: b.id, sdp: SAMPLE_SDP });
    expect(await b.next(ofType('offer'))).toEqual({ type: 'offer', from: a.id, sdp: SAMPLE_SDP });
    b.send({ type: 'answer', to: a.id, sdp: SAMPLE_SDP });
    expect(await a.next(ofType('answer'))).toEqual({ type: 'answer', from: b.id, sdp: SAMPLE_SDP });
    const candidate = {
      candidate: 'candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host',
      sdpMid: '0',
      sdpMLineIndex: 0,
      usernameFragment: 'abcd',
    };
    a.send({ type: 'ice', to: b.id, candidate });
    expect(await b.next(ofType('ice'))).toEqual({ type: 'ice', from: a.id, candidate });
    a.send({ type: 'ice', to: b.id, candidate: null });
    expect(await b.next(ofType('ice'))).toEqual({ type: 'ice', from: a.id, candidate: null });

    // The bystander saw none of it.
    expect(await c.collect(300)).toEqual([]);
  });

  it('stamps the real sender id over a forged "from" and drops unknown fields', async () => {
    const name = room();
    const a = await join(name);
    const b = await join(name);
    const c = await join(name);
    a.send({ type: 'offer', to: b.id, from: c.id, sdp: SAMPLE_SDP, admin: true });
    const got = await b.next(ofType('offer'));
    expect(got.from).toBe(a.id);
    expect(got).not.toHaveProperty('admin');
    a.send({ type: 'pos', from: c.id, x: 1, y: 2, z: 3, facing: 0 });
    expect((await b.next(ofType('pos'))).from).toBe(a.id);
    expect((await c.next(ofType('pos'))).from).toBe(a.id);
  });

  it('answers malformed, unknown and oversize messages with an error to the sender only, forwarding nothing', async () => {
    const name = room();
    const a = await join(name);
    const b = await join(name);
    await a.collect(200);
    const cases: Array<[unknown, string, boolean?]> = [
      ['this is not json', 'bad-json'],
      ['[1,2,3]', 'bad-json'],
      [{ to: b.id, sdp: SAMPLE_SDP }, 'unknown-type'],
      [{ type: 'shout', to: b.id }, 'unknown-type'],
      [{ type: 'offer', sdp: SAMPLE_SDP }, 'bad-field'],
      [{ type: 'offer', to: '2', sdp: SAMPLE_SDP }, 'bad-field'],
      [{ type: 'offer', to: b.id, sdp: 'hello' }, 'bad-field'],
      [{ type: 'offer', to: b.id, sdp: 'v=0' + 'x'.repeat(13_000) }, 'too-large'],
      [{ type: 'answer', to: a.id, sdp: SAMPLE_SDP }, 'no-such-peer'],
      [{ type: 'answer', to: 987654, sdp: SAMPLE_SDP }, 'no-such-peer'],
      [{ type: 'ice', to: b.id }, 'bad-field'],
      [{ type: 'ice', to: b.id, candidate: { candidate: 42 } }, 'bad-field'],
      [{ type: 'pos', x: 'left', y: 0, z: 0, facing: 0 }, 'bad-field'],
      [{ type: 'pos', x: 1e9, y: 0, z: 0, facing: 0 }, 'bad-field'],
      [{ type: 'resume', id: b.id }, 'bad-field'],
      [{ type: 'resume', id: b.id, token: 'guess' }, 'bad-resume'],
      [JSON.stringify({ type: 'pos', pad: 'x'.repeat(MAX_MESSAGE_BYTES) }), 'too-large'],
    ];
    for (const [message, code] of cases) {
      a.send(message);
      const error = await a.next(ofType('error'));
      expect(error.code, JSON.stringify(message).slice(0, 80)).toBe(code);
      expect(typeof error.message).toBe('string');
    }
    a.sendRaw(Buffer.from([1, 2, 3]), true);
    expect((await a.next(ofType('error'))).code).toBe('binary');
    // B, the target of most of those, received nothing, and B is still in the room.
    expect(await b.collect(300)).toEqual([]);
    expect(b.closeInfo).toBeNull();
    // A is still connected and served after all that.
    a.send({ type: 'offer', to: b.id, sdp: SAMPLE_SDP });
    expect((await b.next(ofType('offer'))).from).toBe(a.id);
  });

  it('rate-limits position updates and says so once per second', async () => {
    const name = room();
    const a = await join(name);
    const b = await join(name);
    await a.collect(200);
    const started = Date.now();
    for (let i = 0; i < 60; i++) a.send({ type: 'pos', x: i, y: 0, z: 0, facing: 0 });
    const forwarded = await b.collect(600, ofType('pos'));
    const elapsed = (Date.now() - started) / 1000;
    // Burst of 15 plus 15/s refill over the time the flood took to arrive, never all 60.
    expect(forwarded.length).toBeGreaterThanOrEqual(15);
    expect(forwarded.length).toBeLessThanOrEqual(15 + Math.ceil(15 * elapsed) + 1);
    expect(forwarded.length).toBeLessThan(60);
    const errors = await a.collect(0, ofType('error'));
    expect(errors.map((e) => e.code)).toEqual(['rate-limited']);
    // The first updates got through in order; the refused ones were dropped, not queued.
    expect(forwarded.slice(0, 15).map((m) => m.x)).toEqual([...Array(15).keys()]);

    // After a pause the bucket has refilled and updates flow again.
    await new Promise((r) => setTimeout(r, 1100));
    a.send({ type: 'pos', x: 1000, y: 0, z: 0, facing: 0 });
    expect((await b.next(ofType('pos'))).x).toBe(1000);
  });

  it('announces leaves, for a polite close and for a dropped connection', async () => {
    const name = room();
    const a = await join(name);
    const b = await join(name);
    const c = await join(name);
    await b.close();
    expect(await a.next(ofType('leave'))).toEqual({ type: 'leave', id: b.id });
    expect(await c.next(ofType('leave'))).toEqual({ type: 'leave', id: b.id });
    c.terminate();
    expect(await a.next(ofType('leave'), 15_000)).toEqual({ type: 'leave', id: c.id });
    // Nothing routes to a peer that left.
    a.send({ type: 'offer', to: b.id, sdp: SAMPLE_SDP });
    expect((await a.next(ofType('error'))).code).toBe('no-such-peer');
  });

  it('lets a reconnecting peer replace its old socket with the resume token', async () => {
    const name = room();
    const a = await join(name);
    const b = await join(name);
    await a.collect(200);
    const a2 = await join(name);
    expect(await b.next(ofType('join'))).toEqual({ type: 'join', id: a2.id });
    a2.send({ type: 'resume', id: a.id, token: a.token });
    expect(await b.next(ofType('leave'))).toEqual({ type: 'leave', id: a.id });
    await expect.poll(() => a.closeFrame()).toEqual({ code: 4001, reason: 'replaced by a reconnect' });
    // One leave, not two (the old socket's own close is not announced again).
    expect(await b.collect(500, ofType('leave'))).toEqual([]);
  });

  it('refuses the 17th peer with a clear close reason', async () => {
    const name = room();
    for (let i = 0; i < 16; i++) await join(name);
    const extra = await VoiceSocket.open(base, name);
    await expect.poll(() => extra.closeFrame(), { timeout: 5000 }).toEqual({ code: 4008, reason: 'voice room is full (16 peers)' });
    expect(extra.received).toEqual([]);
  });

  it('drops a socket whose keep-alive pings stop, and keeps one that pings', async () => {
    const name = room();
    const watcher = await join(name); // default 5 s pings: not due within this test
    const silent = await join(name, '?ping=1'); // declares 1 s pings, then never sends one
    const pinger = await join(name, '?ping=1');
    const timer = setInterval(() => pinger.send(PING_TEXT), 500);
    try {
      const started = Date.now();
      expect(await watcher.next((m) => m.type === 'leave', 12_000)).toEqual({ type: 'leave', id: silent.id });
      // 3 missed pings + 2 s slack = 5 s, plus the alarm's granularity.
      expect(Date.now() - started).toBeGreaterThan(2_500);
      await expect
        .poll(() => silent.closeFrame(), { timeout: 5000 })
        .toMatchObject({ code: 4002, reason: expect.stringMatching(/no keep-alive for \d+ s/) });
      // The one that pings is still there, and still served.
      expect(await watcher.collect(1500, (m) => m.type === 'leave')).toEqual([]);
      pinger.send({ type: 'offer', to: watcher.id, sdp: SAMPLE_SDP });
      expect((await watcher.next((m) => m.type === 'offer')).from).toBe(pinger.id);
    } finally {
      clearInterval(timer);
    }
  });

  it('answers keep-alive pings, exact ones without waking the room', async () => {
    const a = await join(room());
    a.send(PING_TEXT);
    expect(await a.next(ofType('pong'))).toEqual({ type: 'pong' });
    a.send('{ "type": "ping" }');
    expect(await a.next(ofType('pong'))).toEqual({ type: 'pong' });
  });
});
