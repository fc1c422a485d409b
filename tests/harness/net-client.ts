import WebSocket from 'ws';
import { createFrame, decodeFrame, encodeFrame, FRAME_BYTES, type AvatarFrame } from '../../src/net/protocol/frame.ts';

/** A frame as a test reads it back. */
export interface ReceivedFrame extends AvatarFrame {
  /** Index of the binary message it came in. */
  message: number;
}

/**
 * A raw relay client for server tests: records every binary message and text from the moment the
 * socket exists (a welcome can arrive in the same packet as the handshake, before an `open`
 * listener added later would run), and decodes frames for assertions.
 */
export class RelayClient {
  readonly binary: Buffer[] = [];
  readonly texts: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  /**
   * Resolves when the server's close *frame* arrives. A server-initiated close of a hibernatable
   * socket completes its TCP teardown only ~10 s later through wrangler dev (measured), so tests
   * of server-side closes wait for the frame, not for {@link closed}.
   */
  readonly closeFrame: Promise<{ code: number; reason: string }>;
  private readonly waiters = new Set<() => void>();

  readonly socket: WebSocket;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.binaryType = 'nodebuffer';
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) this.binary.push(Buffer.from(data));
      else this.texts.push(data.toString());
      for (const wake of [...this.waiters]) wake();
    });
    this.closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    this.closeFrame = new Promise((resolve) => {
      void this.closed.then(resolve);
      socket.once('open', () => {
        // ws's Receiver emits 'conclude' with the close frame's code and reason (Buffer).
        const receiver = (
          socket as unknown as { _receiver: { once(event: 'conclude', listener: (code: number, reason: Buffer) => void): void } | null }
        )._receiver;
        receiver?.once('conclude', (code, reason) => resolve({ code, reason: reason.toString() }));
      });
    });
    void this.closed.then(() => {
      for (const wake of [...this.waiters]) wake();
    });
  }

  /** Connects and resolves once the socket is open (the welcome may follow). Rejects on HTTP refusals. */
  static connect(url: string, timeoutMs = 10_000, headers: Record<string, string> = {}): Promise<RelayClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      const client = new RelayClient(socket);
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new Error(`WebSocket ${url} did not open within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('open', () => {
        clearTimeout(timer);
        resolve(client);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.once('unexpected-response', (_request, response) => {
        clearTimeout(timer);
        reject(new Error(`WebSocket ${url} refused with HTTP ${response.statusCode}`));
      });
    });
  }

  /** Connects and waits for the relay's welcome; returns the client and its id. */
  static async join(url: string, headers: Record<string, string> = {}): Promise<RelayClient> {
    const client = await RelayClient.connect(url, 10_000, headers);
    await client.waitFor(() => client.welcome() !== null, 'welcome');
    return client;
  }

  /** The parsed welcome, or null. */
  welcome(): { id: number; mode: string; peers: number; capacity: number; tickMs: number; rateCap: number; avatarToken: string } | null {
    for (const text of this.texts) {
      const value = JSON.parse(text) as { type?: string };
      if (value.type === 'welcome') return value as never;
    }
    return null;
  }

  get id(): number {
    const welcome = this.welcome();
    if (!welcome) throw new Error('no welcome yet');
    return welcome.id;
  }

  /** Parsed control messages of one type. */
  controls<T = Record<string, unknown>>(type: string): T[] {
    return this.texts
      .filter((t) => t.startsWith('{'))
      .map((t) => JSON.parse(t) as { type: string })
      .filter((v) => v.type === type) as T[];
  }

  /** Every frame received so far, decoded (throws on a frame the codec rejects: the relay must never deliver one). */
  frames(): ReceivedFrame[] {
    const out: ReceivedFrame[] = [];
    this.binary.forEach((message, index) => {
      if (message.length === 0 || message.length % FRAME_BYTES !== 0)
        throw new Error(`message ${index} is ${message.length} bytes, not whole frames`);
      for (let offset = 0; offset < message.length; offset += FRAME_BYTES) {
        const frame = createFrame();
        const problem = decodeFrame(message, offset, frame);
        if (problem) throw new Error(`message ${index} frame ${offset / FRAME_BYTES}: ${problem}`);
        out.push({ ...frame, message: index });
      }
    });
    return out;
  }

  /** Sends one state frame built from `fields` (senderId defaults to 0: the relay stamps it). */
  sendFrame(fields: Partial<AvatarFrame> = {}): Uint8Array {
    const bytes = new Uint8Array(FRAME_BYTES);
    encodeFrame({ ...createFrame(), timestamp: Date.now() % 2 ** 32, ...fields }, bytes);
    this.socket.send(bytes);
    return bytes;
  }

  send(data: Uint8Array | string): void {
    this.socket.send(data);
  }

  /** Resolves when `predicate` holds (checked on every message), rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what}; got ${this.binary.length} binary, texts: ${this.texts.join(' | ').slice(0, 500)}`,
          ),
        );
      }, timeoutMs);
      const check = (): void => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  close(code = 1000, reason = 'bye'): Promise<{ code: number; reason: string }> {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close(code, reason);
    return this.closed;
  }
}

/** ms to wait so a message that would arrive does (loopback through wrangler's proxy and workerd). */
export const SETTLE_MS = 400;

export const settle = (ms = SETTLE_MS): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** GET /api/rooms/avatar/:room. */
export async function roomStats(
  base: string,
  room: string,
): Promise<
  Record<string, unknown> & {
    peers: number;
    wakes: number;
    mode: string;
    received: number;
    delivered: number;
    sends: number;
    leaves: number;
    refused: number;
    dropped: Record<string, number>;
  }
> {
  const response = await fetch(`${base}/api/rooms/avatar/${encodeURIComponent(room)}`);
  if (!response.ok) throw new Error(`stats for ${room}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as never;
}
