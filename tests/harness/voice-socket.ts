import WebSocket from 'ws';
import { openSocket, wsUrl } from './ws-client.ts';

/** A parsed message as the VoiceRoom sent it. */
export type Received = { type: string; [key: string]: unknown };

/**
 * A test client for the VoiceRoom: a real WebSocket (ws) that queues every JSON message it
 * receives, so a test can wait for the next message of a kind or assert that none arrived.
 */
export class VoiceSocket {
  readonly received: Received[] = [];
  private cursor = 0;
  private waiters: Array<() => void> = [];
  closeInfo: { code: number; reason: string } | null = null;

  readonly socket: WebSocket;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data, isBinary) => {
      this.received.push(isBinary ? { type: '<binary>' } : (JSON.parse(data.toString()) as Received));
      this.wake();
    });
    socket.on('close', (code, reason) => {
      this.closeInfo = { code, reason: reason.toString() };
      this.wake();
    });
  }

  /** Opens a socket to /rooms/voice/<room> and waits for its welcome. */
  static async join(base: string, room: string, query = ''): Promise<VoiceSocket & { id: number; token: string; welcome: Received }> {
    const client = new VoiceSocket(await openSocket(wsUrl(base, `/rooms/voice/${room}${query}`)));
    const welcome = await client.next((m) => m.type === 'welcome');
    return Object.assign(client, { id: welcome.id as number, token: welcome.token as string, welcome });
  }

  /** Like {@link join}, with request headers (the abuse suite plays addresses with them). */
  static async joinWith(
    base: string,
    room: string,
    query: string,
    headers: Record<string, string>,
  ): Promise<VoiceSocket & { id: number; token: string; welcome: Received }> {
    const socket = new WebSocket(wsUrl(base, `/rooms/voice/${room}${query}`), { headers });
    const client = new VoiceSocket(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    });
    const welcome = await client.next((m) => m.type === 'welcome');
    return Object.assign(client, { id: welcome.id as number, token: welcome.token as string, welcome });
  }

  /** Opens a socket without waiting for anything (to watch a refusal). */
  static async open(base: string, room: string): Promise<VoiceSocket> {
    return new VoiceSocket(await openSocket(wsUrl(base, `/rooms/voice/${room}`)));
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  sendRaw(data: string | Buffer, binary = false): void {
    this.socket.send(data, { binary });
  }

  /** Waits for the next not-yet-consumed message matching `match` (earlier non-matching ones stay queued). */
  async next(match: (m: Received) => boolean = () => true, timeoutMs = 5000): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      for (let i = this.cursor; i < this.received.length; i++) {
        const m = this.received[i]!;
        if (match(m)) {
          this.received.splice(i, 1);
          return m;
        }
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no matching message within ${timeoutMs} ms; queued: ${JSON.stringify(this.received.slice(this.cursor))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Messages matching `match` that arrive within `ms` (already queued ones included), consumed. */
  async collect(ms: number, match: (m: Received) => boolean = () => true): Promise<Received[]> {
    await new Promise((r) => setTimeout(r, ms));
    const hits = this.received.filter(match);
    for (const hit of hits) this.received.splice(this.received.indexOf(hit), 1);
    return hits;
  }

  /**
   * The close frame the server sent, as soon as it arrives. Under `wrangler dev` a close the
   * server starts on a hibernated socket reaches the client at once, but the TCP connection is not
   * ended, so ws's 'close' event would only fire after its 30 s timeout. ws keeps the received
   * frame in these fields (ws 8.x internals), which is what a browser's close event reports.
   */
  closeFrame(): { code: number; reason: string } | null {
    const internals = this.socket as unknown as { _closeFrameReceived?: boolean; _closeCode?: number; _closeMessage?: Buffer };
    if (this.closeInfo) return this.closeInfo;
    if (!internals._closeFrameReceived) return null;
    return { code: internals._closeCode ?? 1005, reason: internals._closeMessage?.toString() ?? '' };
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    if (this.socket.readyState === WebSocket.CLOSING) {
      this.socket.terminate();
      return;
    }
    const done = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    this.socket.close(1000, 'bye');
    await done;
  }

  /** Drops the TCP connection without a close frame (a dead network, from the server's view). */
  terminate(): void {
    this.socket.terminate();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** A small but real-looking SDP (the server only checks it is a string that starts with v=0). */
export const SAMPLE_SDP =
  'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n';

/**
 * A server test's voice rooms: a fresh room name per call (so tests never see each other's
 * peers) and every socket joined through it, closed by {@link closeAll} after each test.
 */
export class VoiceTestRooms {
  private sockets: VoiceSocket[] = [];
  private counter = 0;

  private readonly base: string;
  private readonly prefix: string;

  constructor(base: string, prefix: string) {
    this.base = base;
    this.prefix = prefix;
  }

  room(prefix = this.prefix): string {
    return `${prefix}-${process.pid}-${Date.now().toString(36)}-${this.counter++}`;
  }

  async join(name: string, query = ''): ReturnType<typeof VoiceSocket.join> {
    const socket = await VoiceSocket.join(this.base, name, query);
    this.sockets.push(socket);
    return socket;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.sockets.map((s) => s.close().catch(() => undefined)));
    this.sockets = [];
  }
}
