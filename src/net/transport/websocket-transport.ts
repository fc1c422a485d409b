import { Emitter } from '../../core/emitter.ts';
import { CloseCode, parseServerControl } from '../protocol/control.ts';
import { Backoff, type BackoffOptions } from './backoff.ts';
import { emptyTransportStats, type FrameTransport, type TransportEvents, type TransportState, type TransportStats } from './transport.ts';

/** The subset of the WebSocket constructor this transport uses (the browser's, or `ws` in Node). */
export type WebSocketConstructor = new (url: string) => WebSocket;

export interface WebSocketTransportOptions {
  /** ws:// or wss:// URL of a relay room, e.g. `wss://cairn.example/rooms/avatar/lobby`. */
  url: string;
  /** Reconnect delays. Default: 500 ms doubling to 15 s, equal jitter. */
  backoff?: BackoffOptions;
  /** Keep-alive ping interval (ms). The relay answers without waking. Default 20,000. */
  pingMs?: number;
  /** A connection silent this long (ms) is presumed dead and replaced. Default 3 × pingMs. */
  deadMs?: number;
  /** WebSocket implementation. Default: the global one. */
  WebSocket?: WebSocketConstructor;
}

/** Close codes after which retrying cannot help (the relay said the request itself is wrong). */
const FATAL_CLOSE_CODES = new Set<number>([1008, CloseCode.badToken, CloseCode.replaced]);

/**
 * Frames over a WebSocket to the relay (`/rooms/avatar/:room`). Reconnects with jittered
 * exponential backoff after any drop and resumes sending; while it is down, {@link state} says
 * `reconnecting` and {@link send} returns false (poses are not queued: a stale pose is worthless,
 * the next one supersedes it). The relay's welcome tells it its id ({@link selfId}), which
 * changes on every reconnect. A text `ping` every {@link WebSocketTransportOptions.pingMs} keeps
 * idle connections alive and measures the round trip.
 */
export class WebSocketTransport implements FrameTransport {
  readonly kind = 'relay' as const;
  /** The URL of the current (or next) connection; see {@link setUrl}. */
  target: string;
  readonly stats: TransportStats = emptyTransportStats();
  readonly events = new Emitter<TransportEvents>();
  state: TransportState = 'connecting';
  selfId: number | null = null;
  /** Relay delivery mode from the last welcome. */
  relayMode: string | null = null;
  private socket: WebSocket | null = null;
  private readonly backoff: Backoff;
  private readonly pingMs: number;
  private readonly deadMs: number;
  private readonly Impl: WebSocketConstructor;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private pingSentAt = 0;
  private lastHeard = 0;
  private everOpened = false;
  private disposed = false;

  constructor(options: WebSocketTransportOptions) {
    this.target = options.url;
    this.backoff = new Backoff(options.backoff);
    this.pingMs = options.pingMs ?? 20_000;
    this.deadMs = options.deadMs ?? this.pingMs * 3;
    const Impl = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Impl) throw new Error('WebSocketTransport: no WebSocket implementation (pass options.WebSocket in Node)');
    this.Impl = Impl;
    if (!/^wss?:\/\//.test(options.url)) throw new Error(`WebSocketTransport: "${options.url}" is not a ws:// or wss:// URL`);
    this.connect();
  }

  /**
   * Resolves true once a connection has opened, false if the first attempt failed (the transport
   * keeps retrying; callers use this to fall back, e.g. to a BroadcastChannel, when no relay answers).
   */
  opened(): Promise<boolean> {
    if (this.everOpened) return Promise.resolve(true);
    if (this.state !== 'connecting') return Promise.resolve(false);
    return new Promise((resolve) => {
      const off = this.events.on('state', (state) => {
        off();
        resolve(state === 'open');
      });
    });
  }

  send(frame: Uint8Array): boolean {
    const socket = this.socket;
    if (this.state !== 'open' || !socket || socket.readyState !== 1) {
      this.stats.unsent++;
      return false;
    }
    // A copy: callers reuse their frame buffer (LocalPublisher does), and Node's `ws` queues a
    // send by reference while it is still compressing an earlier one (permessage-deflate), so
    // without it a queued frame goes out with the next frame's bytes — one frame lost, another
    // sent twice. Browsers copy anyway; 36 bytes ten times a second.
    socket.send(frame.slice() as Uint8Array<ArrayBuffer>);
    this.stats.sent++;
    return true;
  }

  /** Changes the URL used from the next connection attempt on (a fresher token, another role). */
  setUrl(url: string): void {
    if (!/^wss?:\/\//.test(url)) throw new Error(`WebSocketTransport: "${url}" is not a ws:// or wss:// URL`);
    this.target = url;
  }

  /** Sends a control text (world cells accept a few commands). Returns false when not open. */
  sendText(text: string): boolean {
    const socket = this.socket;
    if (this.state !== 'open' || !socket || socket.readyState !== 1) return false;
    socket.send(text);
    return true;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.clearTimers();
    const socket = this.socket;
    this.socket = null;
    if (socket && (socket.readyState === 0 || socket.readyState === 1)) socket.close(1000, 'bye');
    this.setState('closed');
    this.events.clear();
  }

  private connect(): void {
    if (this.disposed) return;
    let socket: WebSocket;
    try {
      socket = new this.Impl(this.target);
    } catch (error) {
      this.stats.lastError = (error as Error).message;
      this.setState('closed');
      return;
    }
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onopen = () => {
      if (socket !== this.socket) return;
      if (this.everOpened) this.stats.reconnects++;
      this.everOpened = true;
      this.lastHeard = Date.now();
      this.setState('open');
      this.startPings(socket);
    };
    socket.onmessage = (event: MessageEvent) => {
      if (socket !== this.socket) return;
      this.lastHeard = Date.now();
      const data: unknown = event.data;
      if (typeof data === 'string') return this.onText(data);
      if (data instanceof ArrayBuffer) {
        this.stats.messages++;
        this.events.emit('message', new Uint8Array(data));
        return;
      }
      // Node's `ws` may hand over a Buffer (a Uint8Array).
      if (data instanceof Uint8Array) {
        this.stats.messages++;
        this.events.emit('message', data);
        return;
      }
      this.reject('binary message of an unexpected type');
    };
    socket.onerror = () => {
      if (socket !== this.socket) return;
      this.stats.lastError = 'connection error';
    };
    socket.onclose = (event: CloseEvent) => {
      if (socket !== this.socket) return;
      this.socket = null;
      this.selfId = null;
      this.stopPings();
      if (event.reason) this.stats.lastError = `closed ${event.code}: ${event.reason}`;
      else if (event.code !== 1000) this.stats.lastError = `closed ${event.code}`;
      if (this.disposed) return;
      if (FATAL_CLOSE_CODES.has(event.code)) {
        this.setState('closed');
        return;
      }
      this.scheduleRetry();
    };
  }

  private onText(text: string): void {
    if (text === 'pong') {
      if (this.pingSentAt > 0) this.stats.pingMs = Date.now() - this.pingSentAt;
      this.pingSentAt = 0;
      return;
    }
    const parsed = parseServerControl(text);
    if (!parsed.ok) return this.reject(parsed.problem);
    this.stats.controls++;
    const control = parsed.value;
    if (control.type === 'welcome') {
      const welcome = control as { id: number; mode: string };
      this.selfId = welcome.id;
      this.relayMode = welcome.mode;
      this.backoff.reset();
    }
    this.events.emit('control', control);
  }

  private reject(reason: string): void {
    this.stats.rejected++;
    this.stats.lastRejection = reason;
    this.events.emit('rejected', reason);
  }

  private scheduleRetry(): void {
    this.setState('reconnecting');
    const delay = this.backoff.next();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }

  private startPings(socket: WebSocket): void {
    this.stopPings();
    this.pingTimer = setInterval(() => {
      if (socket !== this.socket || socket.readyState !== 1) return;
      if (Date.now() - this.lastHeard > this.deadMs) {
        // Silent too long: presume the connection dead and replace it.
        this.stats.lastError = `no answer for ${Math.round((Date.now() - this.lastHeard) / 1000)} s`;
        this.socket = null;
        this.selfId = null;
        this.stopPings();
        socket.close(4000, 'presumed dead');
        this.scheduleRetry();
        return;
      }
      this.pingSentAt = Date.now();
      socket.send('ping');
    }, this.pingMs);
  }

  private stopPings(): void {
    if (this.pingTimer !== null) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  private clearTimers(): void {
    this.stopPings();
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private setState(state: TransportState): void {
    if (state === this.state) return;
    this.state = state;
    this.events.emit('state', state);
  }
}
