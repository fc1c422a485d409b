import type { BackoffOptions } from '../../core/backoff.ts';
import { Emitter } from '../../core/emitter.ts';
import { ReconnectingSocket, type SocketLoss, type WebSocketConstructor } from '../../core/reconnecting-socket.ts';
import { CloseCode, parseServerControl, type ServerControl, type WelcomeMessage } from '../protocol/control.ts';
import { profileCommand, type Profile } from '../protocol/profile.ts';
import { emptyTransportStats, type FrameTransport, type TransportEvents, type TransportState, type TransportStats } from './transport.ts';

export type { WebSocketConstructor } from '../../core/reconnecting-socket.ts';

/** Options of a {@link WebSocketTransport}. */
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
const FATAL_CLOSE_CODES = [1008, CloseCode.badToken, CloseCode.replaced];

/**
 * Frames over a WebSocket to the relay (`/rooms/avatar/:room`), on a {@link ReconnectingSocket}:
 * reconnects with jittered exponential backoff after any drop and resumes sending; while it is
 * down, {@link state} says `reconnecting` and {@link send} returns false (poses are not queued: a
 * stale pose is worthless, the next one supersedes it). The relay's welcome tells it its id
 * ({@link selfId}) and avatar token ({@link avatarToken}), both new on every reconnect. A text
 * `ping` every {@link WebSocketTransportOptions.pingMs} keeps idle connections alive and measures
 * the round trip.
 */
export class WebSocketTransport implements FrameTransport {
  readonly kind = 'relay' as const;
  readonly stats: TransportStats = emptyTransportStats();
  readonly events = new Emitter<TransportEvents>();
  state: TransportState = 'connecting';
  selfId: number | null = null;
  avatarToken: string | null = null;
  /** Relay delivery mode from the last welcome. */
  relayMode: string | null = null;
  /** The one connection (reconnects, keep-alive). */
  readonly socket: ReconnectingSocket;
  private everOpened = false;
  private disposed = false;
  /** The profile command sent after every welcome (null: none). */
  private profileText: string | null = null;
  /** True between a welcome and the connection's loss: the relay takes text now. */
  private welcomed = false;

  constructor(options: WebSocketTransportOptions) {
    if (!/^wss?:\/\//.test(options.url)) throw new Error(`WebSocketTransport: "${options.url}" is not a ws:// or wss:// URL`);
    this.socket = new ReconnectingSocket({ ...options, fatalCloseCodes: FATAL_CLOSE_CODES });
    const events = this.socket.events;
    events.on('open', () => {
      this.everOpened = true;
      this.stats.reconnects = this.socket.reconnects;
    });
    events.on('binary', (bytes) => {
      this.stats.messages++;
      this.events.emit('message', bytes);
    });
    events.on('text', (text) => this.onText(text));
    events.on('pong', (rttMs) => (this.stats.pingMs = rttMs));
    events.on('unreadable', () => this.reject('binary message of an unexpected type'));
    events.on('lost', (loss) => this.onLost(loss));
    events.on('state', (state) => {
      this.setState(state === 'idle' ? 'connecting' : state);
    });
    this.socket.connect();
  }

  /** The URL of the current (or next) connection; see {@link setUrl}. */
  get target(): string {
    return this.socket.url;
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
    // A copy: callers reuse their frame buffer (LocalPublisher does), and Node's `ws` queues a
    // send by reference while it is still compressing an earlier one (permessage-deflate), so
    // without it a queued frame goes out with the next frame's bytes — one frame lost, another
    // sent twice. Browsers copy anyway; 36 bytes ten times a second.
    if (this.state !== 'open' || !this.socket.send(frame.slice())) {
      this.stats.unsent++;
      return false;
    }
    this.stats.sent++;
    return true;
  }

  /** Changes the URL used from the next connection attempt on (a fresher token, another role). */
  setUrl(url: string): void {
    if (!/^wss?:\/\//.test(url)) throw new Error(`WebSocketTransport: "${url}" is not a ws:// or wss:// URL`);
    this.socket.setUrl(url);
  }

  /**
   * Publishes this page's profile: at once when the relay has welcomed this connection, and after
   * every welcome from now on (a reconnect is a new socket, with nothing stored). Throws a
   * RangeError on a profile the relay would refuse (see `checkProfile`).
   */
  setProfile(profile: Profile | null): void {
    this.profileText = profile ? profileCommand(profile) : null;
    if (this.profileText !== null && this.welcomed) this.sendText(this.profileText);
  }

  /** Sends a control text (world cells accept a few commands). Returns false when not open. */
  sendText(text: string): boolean {
    return this.state === 'open' && this.socket.send(text);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.socket.dispose();
    this.setState('closed');
    this.events.clear();
  }

  private onText(text: string): void {
    const parsed = parseServerControl(text);
    if (!parsed.ok) return this.reject(parsed.problem);
    this.stats.controls++;
    const control = parsed.value;
    if (isWelcome(control)) {
      this.selfId = control.id;
      this.relayMode = control.mode;
      this.setAvatarToken(typeof control.avatarToken === 'string' ? control.avatarToken : null);
      this.socket.accepted();
      this.welcomed = true;
      if (this.profileText !== null) this.sendText(this.profileText);
    }
    this.events.emit('control', control);
  }

  private onLost(loss: SocketLoss): void {
    this.selfId = null;
    this.welcomed = false;
    this.setAvatarToken(null);
    if (loss.code === null) this.stats.lastError = loss.reason;
    else if (loss.closeReason) this.stats.lastError = `closed ${loss.code}: ${loss.closeReason}`;
    else if (loss.code !== 1000) this.stats.lastError = `closed ${loss.code}`;
  }

  private reject(reason: string): void {
    this.stats.rejected++;
    this.stats.lastRejection = reason;
    this.events.emit('rejected', reason);
  }

  private setAvatarToken(token: string | null): void {
    if (token === this.avatarToken) return;
    this.avatarToken = token;
    this.events.emit('avatarToken', token);
  }

  private setState(state: TransportState): void {
    if (state === this.state) return;
    this.state = state;
    this.events.emit('state', state);
  }
}

/** {@link parseServerControl} has checked a welcome's fields; this only names the type. */
function isWelcome(control: ServerControl): control is WelcomeMessage {
  return control.type === 'welcome';
}
