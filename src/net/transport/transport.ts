import type { Emitter } from '../../core/emitter.ts';
import type { ServerControl } from '../protocol/control.ts';
import type { Profile } from '../protocol/profile.ts';

/** Which wire a transport uses: one relay room, a BroadcastChannel, or the open world's cells. */
export type TransportKind = 'relay' | 'broadcast' | 'world';

/**
 * - `connecting`: the first attempt is under way;
 * - `open`: frames flow;
 * - `reconnecting`: the connection dropped (or never came up) and a retry is scheduled;
 * - `closed`: disposed, or refused for good (the reason is in {@link TransportStats.lastError}).
 */
export type TransportState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** What a transport counted, for `cairn.stats.net`. */
export interface TransportStats {
  /** Frames handed to the wire. */
  sent: number;
  /** Frames not sent because the transport was not open (they are dropped, never queued: a stale pose is worthless). */
  unsent: number;
  /** Binary messages received. */
  messages: number;
  /** Control (text) messages received and understood. */
  controls: number;
  /** Messages rejected before reaching the peer table, and why the last one was. */
  rejected: number;
  /** Why the last rejected message was rejected, or null. */
  lastRejection: string | null;
  /** Successful connections after the first. */
  reconnects: number;
  /** The last error or close reason, for the HUD. */
  lastError: string | null;
  /** Round-trip time of the last keep-alive ping (ms), relay only. */
  pingMs: number | null;
}

/** What a {@link FrameTransport} emits on its `events`. */
export type TransportEvents = {
  /** One relay message: one or more whole 36-byte frames (not yet validated). */
  message: Uint8Array;
  /** A control message from the relay (welcome, dropped, …). */
  control: ServerControl;
  /** The transport's new state, on every change. */
  state: TransportState;
  /** Something arrived that the transport could not use; the reason. */
  rejected: string;
  /** {@link FrameTransport.avatarToken} changed (a welcome or cell ack brought a new one, or the connection dropped). */
  avatarToken: string | null;
  /**
   * The transport now carries frames over another wire ({@link FrameTransport.kind} and
   * {@link FrameTransport.target} changed, and so did the sender ids): peers heard on the old wire
   * are gone. A {@link FallbackTransport} emits it when the relay answers again.
   */
  switched: {
    /** The new wire. */
    kind: TransportKind;
    /** Its URL or channel name. */
    target: string;
  };
};

/**
 * Carries 36-byte frames between this page and the others in a room. Both implementations —
 * {@link BroadcastTransport} (tabs of one browser) and {@link WebSocketTransport} (the relay) —
 * deliver the same frames in the same message format, so switching is a URL change
 * (see {@link openTransport}).
 */
export interface FrameTransport {
  /** Which wire this is. */
  readonly kind: TransportKind;
  /** The relay URL or the channel name. */
  readonly target: string;
  /** Where the wire stands. */
  readonly state: TransportState;
  /** This page's sender id on the wire: assigned by the relay (after its welcome) or chosen at random on a channel. Null until known. */
  readonly selfId: number | null;
  /** What the transport counted. */
  readonly stats: TransportStats;
  /** What the transport emits: messages, controls, state changes, rejections, tokens, switches. */
  readonly events: Emitter<TransportEvents>;
  /**
   * The server's signed proof that this page owns avatar {@link selfId} (the relay's welcome or the
   * world cell's ack carries it): voice sends it with its avatar claim, so nobody can claim another
   * player's avatar. Null (or absent) on a BroadcastChannel, before the first welcome, and while
   * disconnected.
   */
  readonly avatarToken?: string | null;
  /** Sends one 36-byte frame. Returns false (and counts it unsent) when not open. */
  send(frame: Uint8Array): boolean;
  /**
   * When, within each period of `Date.now()` (ms, modulo the publisher's period), regular frames
   * should leave so that they reach the relay together with the other players' and go out in
   * one message (the open world: `cellSendPhase` in protocol/world.ts). Null, or absent: any moment is as good.
   */
  sendPhase?(): number | null;
  /**
   * Which of the shared send moments a regular frame leaving at `now` (`Date.now()` ms) belongs
   * to — the same number for every player sending at that moment (the open world:
   * `sendMomentNumber` in protocol/world.ts). The publisher sends its reduced-rate frames to
   * neighbouring cells on multiples of its divisor, so a cell's players send them together. Null,
   * or absent: no shared count (the publisher counts its own frames instead).
   */
  sendMoment?(now: number): number | null;
  /**
   * Publishes this page's display name and look (src/net/protocol/profile.ts) — now, and again on
   * every (re)connection, so whoever joins later learns it from the relay — or stops with null.
   * Other players' profiles arrive as `profiles` control messages. Absent: the wire carries none.
   */
  setProfile?(profile: Profile | null): void;
  /** Closes for good; a leave is sent where the wire allows. */
  dispose(): void;
}

/** Zeroed transport figures, for a new transport. */
export function emptyTransportStats(): TransportStats {
  return { sent: 0, unsent: 0, messages: 0, controls: 0, rejected: 0, lastRejection: null, reconnects: 0, lastError: null, pingMs: null };
}
