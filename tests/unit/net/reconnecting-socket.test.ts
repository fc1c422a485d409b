import { afterEach, describe, expect, it } from 'vitest';
import { ReconnectingSocket, type SocketLoss, type SocketState } from '../../../src/core/reconnecting-socket.ts';
import { FakeSocket, tick, until } from './fake-socket.ts';

const made: ReconnectingSocket[] = [];
function socket(options: Partial<ConstructorParameters<typeof ReconnectingSocket>[0]> = {}): ReconnectingSocket {
  const s = new ReconnectingSocket({
    url: 'ws://relay.test/rooms/avatar/a',
    WebSocket: FakeSocket.ctor,
    backoff: { baseMs: 5, maxMs: 10 },
    ...options,
  });
  made.push(s);
  return s;
}

afterEach(() => {
  for (const s of made.splice(0)) s.dispose();
  FakeSocket.reset();
});

describe('ReconnectingSocket (the one socket under net and voice)', () => {
  it('connects on connect(), passes text and bytes through, and consumes the pong as a round trip', async () => {
    const s = socket({ pingMs: 20 });
    const states: SocketState[] = [];
    const texts: string[] = [];
    const bytes: number[] = [];
    s.events.on('state', (state) => states.push(state));
    s.events.on('text', (text) => texts.push(text));
    s.events.on('binary', (data) => bytes.push(data.length));
    expect(FakeSocket.made).toHaveLength(0);
    s.connect();
    const raw = FakeSocket.made[0]!;
    raw.open();
    expect(s.isOpen).toBe(true);
    raw.receive('hello');
    raw.receive(new ArrayBuffer(36));
    await until(() => raw.sent.includes('ping'));
    raw.receive('pong');
    expect(texts).toEqual(['hello']);
    expect(bytes).toEqual([36]);
    expect(s.pingMs).not.toBeNull();
    expect(states).toEqual(['connecting', 'open']);
    expect(s.send('x')).toBe(true);
  });

  it('reconnects with backoff after a drop, and a fatal close code ends it', async () => {
    const s = socket({ fatalCloseCodes: [4003] });
    const losses: SocketLoss[] = [];
    s.events.on('lost', (loss) => losses.push(loss));
    s.connect();
    FakeSocket.made[0]!.open();
    FakeSocket.made[0]!.drop(1006);
    expect(s.state).toBe('reconnecting');
    expect(s.send('x')).toBe(false);
    await until(() => FakeSocket.made.length === 2);
    FakeSocket.made[1]!.open();
    expect(s.reconnects).toBe(1);
    FakeSocket.made[1]!.drop(4003, 'bad token');
    expect(losses.map((l) => [l.reason, l.code, l.final])).toEqual([
      ['socket closed (1006)', 1006, false],
      ['socket closed (4003 bad token)', 4003, true],
    ]);
    expect(s.state).toBe('closed');
    await tick(30);
    expect(FakeSocket.made).toHaveLength(2);
  });

  it('backs off ever more slowly until the server accepts (accepted() resets the backoff)', async () => {
    const s = socket({ backoff: { baseMs: 4, maxMs: 1000, random: () => 0.999 } });
    s.connect();
    for (let i = 0; i < 3; i++) {
      FakeSocket.made.at(-1)!.drop(4001, 'room full');
      await until(() => FakeSocket.made.length === i + 2);
    }
    expect(s.attempts).toBe(3);
    FakeSocket.made.at(-1)!.open();
    expect(s.attempts).toBe(3); // open alone is not acceptance: a full room accepts, then closes
    s.accepted();
    expect(s.attempts).toBe(0);
  });

  it('replaces a socket that goes silent, counted in keep-alive ticks, without a close frame reaching a dead network', async () => {
    const s = socket({ pingMs: 10, deadMs: 30 });
    const losses: SocketLoss[] = [];
    s.events.on('lost', (loss) => losses.push(loss));
    s.connect();
    const first = FakeSocket.made[0]!;
    first.open();
    s.simulateDeadSocket();
    expect(s.send('x')).toBe(false);
    await until(() => FakeSocket.made.length === 2);
    expect(losses[0]!.reason).toMatch(/keep-alive timeout/);
    expect(losses[0]!.code).toBeNull();
    expect(first.closedWith).toBeNull(); // a simulated dead socket is left as a dead network leaves it
  });

  it('refuses a URL that is not ws:// or wss://', () => {
    expect(() => socket({ url: 'http://relay.test/' })).toThrow(/not a ws:\/\/ or wss:\/\/ URL/);
  });
});
