import type { WebSocketConstructor } from '../../../src/core/reconnecting-socket.ts';

/**
 * A WebSocket stand-in the test drives by hand: it records what is sent and opens, answers or
 * closes only when told. `FakeSocket.made` lists every socket constructed since `reset()`.
 */
export class FakeSocket {
  static made: FakeSocket[] = [];
  static reset(): void {
    FakeSocket.made = [];
  }
  readyState = 0;
  binaryType = 'blob';
  sent: Array<string | Uint8Array> = [];
  closedWith: { code: number; reason: string } | null = null;
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: (() => void) | null = null;

  readonly url: string;

  constructor(url: string) {
    this.url = url;
    FakeSocket.made.push(this);
  }

  send(data: string | Uint8Array): void {
    this.sent.push(data);
  }

  close(code = 1000, reason = ''): void {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }

  /** The server accepts. */
  open(): void {
    this.readyState = 1;
    this.onopen?.();
  }

  /** The server sends `data`. */
  receive(data: unknown): void {
    this.onmessage?.({ data });
  }

  /** The connection ends from the server's side (or fails: 1006). */
  drop(code = 1006, reason = ''): void {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }

  /** Typed as the constructor the clients take. */
  static get ctor(): WebSocketConstructor {
    // The clients touch only what FakeSocket has; a structural stand-in for the DOM WebSocket.
    return FakeSocket as unknown as WebSocketConstructor;
  }
}

export const tick = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (real time, short steps) until `condition` holds, or fails after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await tick(2);
  }
}
