import { withDefaults } from '../core/options.ts';
import type { BackoffOptions } from '../core/backoff.ts';
import { Emitter } from '../core/emitter.ts';
import { ReconnectingSocket, type SocketLoss, type WebSocketConstructor } from '../core/reconnecting-socket.ts';
import {
  PING_TEXT,
  PONG_TEXT,
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

export type { WebSocketConstructor } from '../core/reconnecting-socket.ts';

/** Where the signaling socket stands: idle before connecting, connecting, open, reconnecting, or closed for good. */
export type SignalingState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed';

/** What a {@link SignalingClient} emits on its `events`. */
export type SignalingEvents = {
  /** A (re)connection was welcomed: new id, roster. `previousId` is set after a reconnect. */
  welcome: WelcomeMessage & {
    /** The id before a reconnect, or null for the first welcome. */
    previousId: number | null;
  };
  /** A peer joined the room. */
  join: JoinMessage;
  /** A peer left the room. */
  leave: LeaveMessage;
  /** An offer relayed from a peer. */
  offer: RelayedOffer;
  /** An answer relayed from a peer. */
  answer: RelayedAnswer;
  /** An ICE candidate relayed from a peer. */
  ice: RelayedIce;
  /** A peer's position, relayed. */
  pos: RelayedPosition;
  /** A peer announced or changed its avatar id. */
  avatar: RelayedAvatar;
  /** A peer closed its link with us. */
  bye: RelayedBye;
  /** An error the room sent about one of our messages. */
  error: ErrorMessage;
  /** The socket's new state, on every change. */
  state: SignalingState;
  /**
   * The socket was lost; `reason` says why, `code` is the close code when the socket closed (see
   * VOICE_CLOSE; null when the keep-alive gave up). Followed by a reconnect unless disposed.
   */
  lost: {
    /** Why, in words. */
    reason: string;
    /** The close code, or null when the keep-alive gave up. */
    code: number | null;
  };
};

/** Options of a {@link SignalingClient}. */
export interface SignalingClientOptions {
  /** ws:// or wss:// URL of `/rooms/voice/:room`. */
  url: string;
  /** Keep-alive ping interval (ms). Default 5,000. */
  pingMs?: number;
  /** A socket silent for this long (ms) is dead: drop it and reconnect. Default 15,000. */
  deadMs?: number;
  /** Reconnect backoff. Default 500 ms doubling to 10 s, equal jitter. */
  backoff?: BackoffOptions;
  /** WebSocket implementation. Default: the global one. */
  WebSocket?: WebSocketConstructor;
}

/** {@link SignalingClientOptions} with every default filled in. */
export type ResolvedSignalingClientOptions = Required<Omit<SignalingClientOptions, 'WebSocket'>> &
  Pick<SignalingClientOptions, 'WebSocket'>;

/** The defaults, applied once. */
export function resolveSignalingClientOptions(options: SignalingClientOptions): ResolvedSignalingClientOptions {
  const resolved = withDefaults(SIGNALING_CLIENT_DEFAULTS, options);
  return { ...options, ...resolved, backoff: withDefaults(SIGNALING_CLIENT_DEFAULTS.backoff, options.backoff) };
}

/** Defaults of a {@link SignalingClient}: a ping every 5 s, dead after 15 s, reconnects capped at 10 s. */
const SIGNALING_CLIENT_DEFAULTS: Omit<ResolvedSignalingClientOptions, 'url' | 'WebSocket'> = {
  pingMs: 5000,
  deadMs: 15_000,
  backoff: { maxMs: 10_000 },
};

/**
 * The voice signaling connection: JSON over a {@link ReconnectingSocket} to the VoiceRoom (keep-alive
 * pings, dead-socket detection, reconnects with backoff). After a reconnect it sends `resume` with
 * the old id and token, so the room drops the old socket at once and the others renegotiate with
 * the new id without anyone reloading.
 */
export class SignalingClient {
  /** What the client emits: the room's messages, errors, state changes and losses. */
  readonly events = new Emitter<SignalingEvents>();
  /** The resolved options. */
  readonly options: ResolvedSignalingClientOptions;
  /** Our peer id in the room (null before the first welcome). */
  id: number | null = null;
  /** Where the socket stands. */
  state: SignalingState = 'idle';
  /** Successful reconnects since start. */
  reconnects = 0;
  /** Messages from the server that could not be read. */
  unreadable = 0;
  /** Errors the room sent us. */
  errors = 0;
  /** The last error the room sent ("code: message") or why the socket was lost. */
  lastError: string | null = null;
  /** The one connection (reconnects, keep-alive). */
  readonly socket: ReconnectingSocket;
  private token: string | null = null;

  constructor(options: SignalingClientOptions) {
    this.options = resolveSignalingClientOptions(options);
    const { url, pingMs, deadMs, backoff, WebSocket } = this.options;
    this.socket = new ReconnectingSocket({ url, pingMs, deadMs, backoff, WebSocket, pingText: PING_TEXT, pongText: PONG_TEXT });
    const events = this.socket.events;
    events.on('text', (text) => this.onText(text));
    events.on('binary', () => this.unreadable++);
    events.on('unreadable', () => this.unreadable++);
    events.on('lost', (loss) => this.onLost(loss));
    events.on('state', (state) => {
      // `open` waits for the room's welcome.
      if (state === 'connecting' || state === 'reconnecting') this.setState(this.id === null ? 'connecting' : 'reconnecting');
      else if (state === 'closed') this.setState('closed');
    });
  }

  /** Opens the connection (and keeps it open until {@link dispose}). */
  connect(): void {
    this.socket.connect();
  }

  /** Sends a message; returns false when not connected (the caller decides whether that matters). */
  send(message: ClientMessage): boolean {
    if (this.state !== 'open') return false;
    return this.socket.send(message.type === 'ping' ? PING_TEXT : JSON.stringify(message));
  }

  /** Leaves the room for good: closes politely and stops reconnecting. */
  dispose(): void {
    this.socket.dispose();
    this.setState('closed');
    this.events.clear();
  }

  /**
   * Test and diagnostics hook: makes the current socket go silent as a dead network would (see
   * {@link ReconnectingSocket.simulateDeadSocket}). The keep-alive notices within `deadMs`,
   * reconnects and resumes.
   */
  simulateDeadSocket(): void {
    this.socket.simulateDeadSocket();
  }

  private onText(data: string): void {
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
        this.socket.accepted();
        this.setState('open');
        if (previousId !== null && previousToken !== null) this.send({ type: 'resume', id: previousId, token: previousToken });
        this.events.emit('welcome', { ...message, previousId });
        return;
      }
      case 'pong':
        return;
      case 'error':
        this.errors++;
        this.lastError = `${message.code}: ${message.message}`;
        this.events.emit('error', message);
        return;
      default:
        this.events.emit(message.type, message as never);
    }
  }

  private onLost(loss: SocketLoss): void {
    this.lastError = loss.reason;
    this.events.emit('lost', { reason: loss.reason, code: loss.code });
  }

  private setState(state: SignalingState): void {
    if (this.state === state) return;
    this.state = state;
    this.events.emit('state', state);
  }
}
