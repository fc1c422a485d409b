import { withDefaults } from './options.ts';
import { Backoff, type BackoffOptions } from './backoff.ts';
import { Emitter } from './emitter.ts';

/** The subset of the WebSocket constructor a {@link ReconnectingSocket} uses (the browser's, or `ws` in Node). */
export type WebSocketConstructor = new (url: string) => WebSocket;

/**
 * - `idle`: not started ({@link ReconnectingSocket.connect} not called yet);
 * - `connecting`: the first attempt is under way;
 * - `open`: the socket is open;
 * - `reconnecting`: the connection dropped (or never came up) and a retry is scheduled or under way;
 * - `closed`: disposed, or refused for good (a fatal close code, or a URL no socket can open).
 */
export type SocketState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed';

/** Options of a {@link ReconnectingSocket}. */
export interface ReconnectingSocketOptions {
  /** ws:// or wss:// URL; see {@link ReconnectingSocket.setUrl}. */
  url: string;
  /** Reconnect delays. Default: 500 ms doubling to 15 s, equal jitter. */
  backoff?: BackoffOptions;
  /** Keep-alive ping interval (ms). Default 20,000. */
  pingMs?: number;
  /**
   * A socket that has answered nothing for this long (ms, counted in keep-alive ticks) is presumed
   * dead, dropped and replaced. Default 3 × pingMs.
   */
  deadMs?: number;
  /** The keep-alive text sent every tick. Default `ping`. */
  pingText?: string;
  /** The server's answer to {@link pingText}; it is consumed here (its round trip becomes {@link ReconnectingSocket.pingMs}). Default `pong`. */
  pongText?: string;
  /** Close codes after which retrying cannot help (the server said the request itself is wrong): the socket goes `closed`. Default none. */
  fatalCloseCodes?: readonly number[];
  /** WebSocket implementation. Default: the global one. */
  WebSocket?: WebSocketConstructor;
}

/** {@link ReconnectingSocketOptions} with every default filled in. */
export interface ResolvedReconnectingSocketOptions {
  /** The ws:// or wss:// URL of the first connection. */
  url: string;
  /** Reconnect delays, handed to the socket's {@link Backoff}. */
  backoff: BackoffOptions;
  /** Keep-alive ping interval (ms). */
  pingMs: number;
  /** Silence (ms) after which the socket is presumed dead and replaced; 3 × pingMs unless given. */
  deadMs: number;
  /** The keep-alive text sent every tick. */
  pingText: string;
  /** The server's answer to the keep-alive, consumed by the socket. */
  pongText: string;
  /** Close codes after which no retry follows. */
  fatalCloseCodes: ReadonlySet<number>;
  /** The WebSocket implementation: the one given, else the global one. */
  WebSocket: WebSocketConstructor;
}

/** The defaults, applied once. Throws for a URL that is not ws:// or wss:// or when no WebSocket exists. */
export function resolveReconnectingSocketOptions(options: ReconnectingSocketOptions): ResolvedReconnectingSocketOptions {
  checkUrl(options.url);
  const resolved = withDefaults(RECONNECTING_SOCKET_DEFAULTS, options);
  const Impl = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!Impl) throw new Error('ReconnectingSocket: no WebSocket implementation (pass options.WebSocket in Node)');
  if (!(resolved.pingMs > 0)) throw new RangeError(`ReconnectingSocket: pingMs must be positive, not ${resolved.pingMs}`);
  return {
    ...resolved,
    url: options.url,
    // The dead time follows the ping interval unless given.
    deadMs: options.deadMs ?? resolved.pingMs * 3,
    fatalCloseCodes: new Set(resolved.fatalCloseCodes),
    WebSocket: Impl,
  };
}

/**
 * Defaults of a {@link ReconnectingSocket}: the backoff's own delays, a `ping` every 20 s answered
 * by `pong`, no fatal close codes; dead after three ping intervals, the global WebSocket.
 */
const RECONNECTING_SOCKET_DEFAULTS: Required<
  Pick<ReconnectingSocketOptions, 'backoff' | 'pingMs' | 'pingText' | 'pongText' | 'fatalCloseCodes'>
> = {
  backoff: {},
  pingMs: 20_000,
  pingText: 'ping',
  pongText: 'pong',
  fatalCloseCodes: [],
};

/** Why a connection was lost. */
export interface SocketLoss {
  /** A sentence for the HUD: `socket closed (4001 room full)`, `no answer for 15 s (keep-alive timeout)`, … */
  reason: string;
  /** The close code when the socket closed; null when the keep-alive gave up on it or it could not be opened. */
  code: number | null;
  /** The close reason the server sent ('' when none). */
  closeReason: string;
  /** True when no retry follows (a fatal close code, or disposed). */
  final: boolean;
}

/** What a {@link ReconnectingSocket} emits on its `events`. */
export type ReconnectingSocketEvents = {
  /** A connection opened; `reconnect` is false for the first one. */
  open: {
    /** False for the first connection, true for every one after a loss. */
    reconnect: boolean;
  };
  /** A text message (other than the pong). */
  text: string;
  /** A binary message. */
  binary: Uint8Array;
  /** The keep-alive was answered; its round trip (ms). */
  pong: number;
  /** A message that is neither text nor bytes; what it was. */
  unreadable: string;
  /** The connection was lost; a retry follows unless `final`. */
  lost: SocketLoss;
  /** The socket's new {@link SocketState}, on every change. */
  state: SocketState;
};

/** WebSocket.OPEN, spelled out so this also runs with `ws` in Node (no global WebSocket). */
const OPEN = 1;

/**
 * One WebSocket kept open: reconnects with jittered exponential backoff ({@link Backoff}) after any
 * drop, sends a keep-alive text every {@link ResolvedReconnectingSocketOptions.pingMs}, measures
 * its round trip, and replaces a socket that stays silent for
 * {@link ResolvedReconnectingSocketOptions.deadMs} (a dead network sends no close frame).
 *
 * Silence is counted in keep-alive ticks, not wall time: a main thread frozen for a while (a long
 * shader compile) then never mistakes a pong still waiting in the queue for a dead network. A
 * handshake that hangs counts as silence too. Messages are not queued while down: {@link send}
 * returns false and the caller decides (a stale pose is worthless; signaling re-syncs on welcome).
 */
export class ReconnectingSocket {
  /** What the socket emits: opens, messages, pongs, losses and state changes. */
  readonly events = new Emitter<ReconnectingSocketEvents>();
  /** The resolved options. */
  readonly options: ResolvedReconnectingSocketOptions;
  /** Where the connection stands; `state` events announce each change. */
  state: SocketState = 'idle';
  /** Connections opened after the first. */
  reconnects = 0;
  /** Round trip of the last keep-alive ping (ms), or null before the first pong. */
  pingMs: number | null = null;
  /** The URL of the current (or next) connection; see {@link setUrl}. */
  url: string;
  private readonly backoff: Backoff;
  private socket: WebSocket | null = null;
  /** A socket abandoned by {@link simulateDeadSocket}: ignored, left open as a dead network would. */
  private deadSocket: WebSocket | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private pingSentAt = 0;
  private lastHeard = 0;
  /** Keep-alive ticks in a row with nothing heard. */
  private silentTicks = 0;
  private everOpened = false;
  private disposed = false;

  constructor(options: ReconnectingSocketOptions) {
    this.options = resolveReconnectingSocketOptions(options);
    this.url = this.options.url;
    this.backoff = new Backoff(this.options.backoff);
  }

  /** True while a connection is open and usable. */
  get isOpen(): boolean {
    return this.state === 'open' && this.socket !== null && this.socket !== this.deadSocket && this.socket.readyState === OPEN;
  }

  /** Failed attempts since the last successful open (the backoff's count). */
  get attempts(): number {
    return this.backoff.attempt;
  }

  /**
   * Call once the server has accepted this connection (its welcome): the next failure starts from
   * the base delay again. Not done on open, because a server that accepts and then closes at once
   * (a full room) must still be retried ever more slowly.
   */
  accepted(): void {
    this.backoff.reset();
  }

  /** Starts connecting (once; later calls do nothing). */
  connect(): void {
    if (this.state !== 'idle' || this.disposed) return;
    this.open();
  }

  /** Changes the URL used from the next connection attempt on (a fresher token, another role). */
  setUrl(url: string): void {
    checkUrl(url);
    this.url = url;
  }

  /** Sends text or bytes; returns false when not open (nothing is queued). */
  send(data: string | Uint8Array<ArrayBuffer>): boolean {
    if (!this.isOpen) return false;
    this.socket!.send(data);
    return true;
  }

  /** Closes for good (a polite 1000 close) and stops reconnecting. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopTimers();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      detach(socket);
      // Closing a socket still connecting reports an error (Node's `ws` throws one nobody listens to).
      socket.onerror = () => undefined;
      if (socket.readyState <= OPEN) {
        try {
          socket.close(1000, 'bye');
        } catch {
          // already closing
        }
      }
    }
    this.setState('closed');
    this.events.clear();
  }

  /**
   * Test and diagnostics hook: makes the current socket go silent as a dead network would — its
   * messages are ignored and it is abandoned without a close frame, so the server still thinks it
   * is alive. The keep-alive notices within `deadMs` and reconnects.
   */
  simulateDeadSocket(): void {
    const socket = this.socket;
    if (!socket) return;
    detach(socket);
    this.deadSocket = socket;
  }

  private open(): void {
    if (this.disposed) return;
    this.setState(this.everOpened || this.backoff.attempt > 0 ? 'reconnecting' : 'connecting');
    let socket: WebSocket;
    try {
      socket = new this.options.WebSocket(this.url);
    } catch (error) {
      // A URL no socket can open (bad syntax, a blocked port): retrying the same URL cannot help.
      this.lose(`cannot open ${this.url}: ${(error as Error).message}`, null, '', true);
      return;
    }
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    this.silentTicks = 0;
    this.lastHeard = Date.now();
    socket.onopen = () => {
      if (socket !== this.socket) return;
      const reconnect = this.everOpened;
      if (reconnect) this.reconnects++;
      this.everOpened = true;
      this.heard();
      this.setState('open');
      this.events.emit('open', { reconnect });
    };
    socket.onmessage = (event: MessageEvent) => {
      if (socket !== this.socket) return;
      this.heard();
      const data: unknown = event.data;
      if (typeof data === 'string') {
        if (data === this.options.pongText) {
          if (this.pingSentAt > 0) {
            this.pingMs = Date.now() - this.pingSentAt;
            this.events.emit('pong', this.pingMs);
          }
          this.pingSentAt = 0;
          return;
        }
        this.events.emit('text', data);
      } else if (data instanceof ArrayBuffer) this.events.emit('binary', new Uint8Array(data));
      // Node's `ws` may hand over a Buffer (a Uint8Array).
      else if (data instanceof Uint8Array) this.events.emit('binary', data);
      else this.events.emit('unreadable', `message of type ${data === null ? 'null' : typeof data}`);
    };
    socket.onerror = () => {
      // A close event follows; nothing to do but keep it from reaching the console as unhandled.
    };
    socket.onclose = (event: CloseEvent) => {
      if (socket !== this.socket) return;
      this.socket = null;
      detach(socket);
      const reason = `socket closed (${event.code}${event.reason ? ` ${event.reason}` : ''})`;
      this.lose(reason, event.code, event.reason, this.options.fatalCloseCodes.has(event.code));
    };
    this.startPings(socket);
  }

  private heard(): void {
    this.lastHeard = Date.now();
    this.silentTicks = 0;
  }

  private lose(reason: string, code: number | null, closeReason: string, final: boolean): void {
    this.stopTimers();
    if (this.disposed) return;
    this.events.emit('lost', { reason, code, closeReason, final });
    if (final) {
      this.setState('closed');
      return;
    }
    this.setState('reconnecting');
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.open();
    }, this.backoff.next());
  }

  private startPings(socket: WebSocket): void {
    this.stopPings();
    const { pingMs, deadMs, pingText } = this.options;
    const interval = Math.min(pingMs, deadMs / 3);
    const allowed = Math.max(2, Math.round(deadMs / interval));
    this.pingTimer = setInterval(() => {
      if (socket !== this.socket) return;
      // Closed under us without a close event reaching us, or silent (a handshake that hangs
      // counts too): either way it is gone.
      const wasClosed = socket.readyState > OPEN;
      if (wasClosed || ++this.silentTicks > allowed) {
        // Abandon it: a close frame would not get through a dead network anyway (a simulated dead
        // socket is left open, as a real one would be).
        detach(socket);
        if (socket !== this.deadSocket && !wasClosed) {
          try {
            socket.close(4000, 'keep-alive timeout');
          } catch {
            // ignore
          }
        }
        this.socket = null;
        const reason = wasClosed
          ? 'socket closed without a close event'
          : `no answer for ${Math.round((Date.now() - this.lastHeard) / 1000)} s (keep-alive timeout)`;
        this.lose(reason, null, '', false);
        return;
      }
      if (socket.readyState === OPEN && socket !== this.deadSocket) {
        this.pingSentAt = Date.now();
        socket.send(pingText);
      }
    }, interval);
  }

  private stopPings(): void {
    if (this.pingTimer !== null) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  private stopTimers(): void {
    this.stopPings();
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private setState(state: SocketState): void {
    if (state === this.state) return;
    this.state = state;
    this.events.emit('state', state);
  }
}

function checkUrl(url: string): void {
  if (!/^wss?:\/\//.test(url)) throw new Error(`ReconnectingSocket: "${url}" is not a ws:// or wss:// URL`);
}

function detach(socket: WebSocket): void {
  socket.onmessage = null;
  socket.onclose = null;
  socket.onerror = null;
  socket.onopen = null;
}
