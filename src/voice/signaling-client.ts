import { Emitter } from '../core/emitter.ts';
import { Backoff } from './backoff.ts';
import {
  PING_TEXT,
  parseServerMessage,
  type ClientMessage,
  type ErrorMessage,
  type JoinMessage,
  type LeaveMessage,
  type RelayedAnswer,
  type RelayedAvatar,
  type RelayedBye,
  type RelayedIce,
  type RelayedOffer,
  type RelayedPosition,
  type WelcomeMessage,
} from './protocol/signaling.ts';

export type SignalingState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface SignalingEvents {
  [key: string]: unknown;
  /** A (re)connection was welcomed: new id, roster. `previousId` is set after a reconnect. */
  welcome: WelcomeMessage & { previousId: number | null };
  join: JoinMessage;
  leave: LeaveMessage;
  offer: RelayedOffer;
  answer: RelayedAnswer;
  ice: RelayedIce;
  pos: RelayedPosition;
  /** A peer announced or changed its avatar id. */
  avatar: RelayedAvatar;
  /** A peer closed its link with us. */
  bye: RelayedBye;
  /** An error the room sent about one of our messages. */
  error: ErrorMessage;
  state: SignalingState;
  /**
   * The socket was lost; `reason` says why, `code` is the close code when the socket closed (see
   * VOICE_CLOSE; null when the keep-alive gave up). Followed by a reconnect unless closed.
   */
  lost: { reason: string; code: number | null };
}

/** The WebSocket constructor to use (the browser's by default; tests may pass ws's). */
export type WebSocketConstructor = new (url: string) => WebSocket;

export interface SignalingClientOptions {
  /** ws:// or wss:// URL of `/rooms/voice/:room`. */
  url: string;
  /** Seconds between keep-alive pings. Default 5. */
  pingSeconds?: number;
  /** A socket silent for this long is dead: drop it and reconnect. Default 15. */
  deadAfterSeconds?: number;
  /** Reconnect backoff. Default 0.5 s doubling to 10 s, jittered with seed 1. */
  backoff?: Backoff;
  WebSocketImpl?: WebSocketConstructor;
}

/**
 * The voice signaling connection: JSON over a WebSocket to the VoiceRoom, with keep-alive pings,
 * dead-socket detection and reconnects with backoff. After a reconnect it sends `resume` with the
 * old id and token, so the room drops the old socket at once and the others renegotiate with the
 * new id without anyone reloading.
 */
export class SignalingClient extends Emitter<SignalingEvents> {
  /** Our peer id in the room (null before the first welcome). */
  id: number | null = null;
  state: SignalingState = 'idle';
  /** Successful reconnects since start. */
  reconnects = 0;
  /** Messages from the server that could not be read. */
  unreadable = 0;
  /** Errors the room sent us. */
  errors = 0;
  /** The last error the room sent ("code: message") or why the socket was lost. */
  lastError: string | null = null;

  private socket: WebSocket | null = null;
  private token: string | null = null;
  private readonly backoff: Backoff;
  private readonly pingMs: number;
  private readonly deadMs: number;
  private readonly WebSocketImpl: WebSocketConstructor;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private lastHeard = 0;
  /** Keep-alive ticks in a row with nothing heard from the room. */
  private silentTicks = 0;
  private closedByUser = false;

  constructor(private readonly options: SignalingClientOptions) {
    super();
    this.backoff = options.backoff ?? new Backoff();
    this.pingMs = (options.pingSeconds ?? 5) * 1000;
    this.deadMs = (options.deadAfterSeconds ?? 15) * 1000;
    this.WebSocketImpl = options.WebSocketImpl ?? WebSocket;
  }

  /** Opens the connection (and keeps it open until {@link close}). */
  connect(): void {
    if (this.socket || this.closedByUser) return;
    this.setState(this.id === null ? 'connecting' : 'reconnecting');
    let socket: WebSocket;
    try {
      socket = new this.WebSocketImpl(this.options.url);
    } catch (error) {
      this.lost(`cannot open ${this.options.url}: ${(error as Error).message}`);
      return;
    }
    this.socket = socket;
    this.lastHeard = Date.now();
    this.silentTicks = 0;
    socket.onmessage = (event) => {
      if (socket !== this.socket) return;
      this.lastHeard = Date.now();
      this.silentTicks = 0;
      this.onText(event.data);
    };
    socket.onclose = (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      this.lost(`socket closed (${event.code}${event.reason ? ` ${event.reason}` : ''})`, event.code);
    };
    socket.onerror = () => {
      // A close event follows; nothing to do here but not let it reach the console as unhandled.
    };
    this.startPings();
  }

  /** Sends a message; returns false when not connected (the caller decides whether that matters). */
  send(message: ClientMessage): boolean {
    const socket = this.socket;
    if (!socket || socket === this.deadSocket || socket.readyState !== OPEN || this.state !== 'open') return false;
    socket.send(message.type === 'ping' ? PING_TEXT : JSON.stringify(message));
    return true;
  }

  /** Leaves the room for good: closes politely and stops reconnecting. */
  close(): void {
    this.closedByUser = true;
    this.stopTimers();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      detach(socket);
      try {
        socket.close(1000, 'leaving');
      } catch {
        // already closed
      }
    }
    this.setState('closed');
  }

  /**
   * Test and diagnostics hook: makes the current socket go silent as a dead network would — its
   * messages are ignored and it is abandoned without a close frame, so the server still thinks it
   * is alive. The keep-alive notices within `deadAfterSeconds`, reconnects and resumes.
   */
  simulateDeadSocket(): void {
    const socket = this.socket;
    if (!socket) return;
    detach(socket);
    this.deadSocket = socket;
  }

  /** A socket abandoned by {@link simulateDeadSocket}, closed by the room when the resume lands. */
  private deadSocket: WebSocket | null = null;

  private onText(data: unknown): void {
    const message = parseServerMessage(data);
    if (!message) {
      this.unreadable++;
      return;
    }
    switch (message.type) {
      case 'welcome': {
        const previousId = this.id;
        const previousToken = this.token;
        this.id = message.id;
        this.token = message.token;
        if (previousId !== null) this.reconnects++;
        this.backoff.reset();
        this.setState('open');
        if (previousId !== null && previousToken !== null) this.send({ type: 'resume', id: previousId, token: previousToken });
        this.emit('welcome', { ...message, previousId });
        return;
      }
      case 'pong':
        return;
      case 'error':
        this.errors++;
        this.lastError = `${message.code}: ${message.message}`;
        this.emit('error', message);
        return;
      default:
        this.emit(message.type, message as never);
    }
  }

  private lost(reason: string, code: number | null = null): void {
    this.stopTimers();
    if (this.closedByUser) return;
    this.lastError = reason;
    this.emit('lost', { reason, code });
    this.setState('reconnecting');
    const delay = this.backoff.next();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay * 1000);
  }

  /**
   * Keep-alive: a ping every `pingSeconds`; the socket is dead after `deadAfterSeconds` worth of
   * ticks in a row with nothing heard. Counting ticks (not wall time) means a main thread frozen
   * for a while (a long shader compile) never mistakes a pong still waiting in the queue for a
   * dead network.
   */
  private startPings(): void {
    this.stopPings();
    const interval = Math.min(this.pingMs, this.deadMs / 3);
    const allowed = Math.max(2, Math.round(this.deadMs / interval));
    this.pingTimer = setInterval(() => {
      const socket = this.socket;
      if (!socket) return;
      // Closed under us without a close event reaching us, or silent (a handshake that hangs
      // counts too): either way it is gone.
      if (socket.readyState > OPEN || ++this.silentTicks > allowed) {
        // Dead. Abandon it; a close frame would not get through a dead network anyway (a
        // simulated dead socket is left open, as a real one would be).
        const wasClosed = socket.readyState > OPEN;
        detach(socket);
        if (socket !== this.deadSocket && !wasClosed) {
          try {
            socket.close(4000, 'keep-alive timeout');
          } catch {
            // ignore
          }
        }
        this.socket = null;
        this.lost(wasClosed ? 'socket closed without a close event' : `no answer for ${Math.round((Date.now() - this.lastHeard) / 1000)} s (keep-alive timeout)`);
        return;
      }
      if (socket.readyState === OPEN && socket !== this.deadSocket) socket.send(PING_TEXT);
    }, interval);
  }

  private stopPings(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  private stopTimers(): void {
    this.stopPings();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private setState(state: SignalingState): void {
    if (this.state === state) return;
    this.state = state;
    this.emit('state', state);
  }
}

/** WebSocket.OPEN, spelled out so the client also runs with ws in Node (no global WebSocket). */
const OPEN = 1;

function detach(socket: WebSocket): void {
  socket.onmessage = null;
  socket.onclose = null;
  socket.onerror = null;
  socket.onopen = null;
}
