import { withDefaults } from '../../core/options.ts';
import { Backoff, type BackoffOptions } from '../../core/backoff.ts';
import { Emitter } from '../../core/emitter.ts';
import {
  emptyTransportStats,
  type FrameTransport,
  type TransportEvents,
  type TransportKind,
  type TransportState,
  type TransportStats,
} from './transport.ts';
import { WebSocketTransport, type WebSocketTransportOptions } from './websocket-transport.ts';
import type { Profile } from '../protocol/profile.ts';

/** One try at the preferred transport: it, open; or why not (the attempt disposed what it made). */
export type TransportAttempt = () => Promise<FrameTransport | string>;

/** Options of a {@link FallbackTransport}. */
export interface FallbackTransportOptions {
  /** Tries the preferred transport (see {@link relayAttempt}). Called again, with {@link backoff} between tries, until one succeeds. */
  attempt: TransportAttempt;
  /** Builds the stand-in used while the preferred transport does not answer (a BroadcastChannel). */
  fallback: () => FrameTransport;
  /** What the preferred transport is, for the stats before the first try ends. */
  kind: TransportKind;
  /** Its URL, for the same. */
  target: string;
  /** Delays between tries once fallen back. Default: 500 ms doubling to 15 s, equal jitter. */
  backoff?: BackoffOptions;
}

/** Defaults of a {@link FallbackTransport}: the {@link Backoff}'s own delays. */
const FALLBACK_TRANSPORT_DEFAULTS: Required<Pick<FallbackTransportOptions, 'backoff'>> = { backoff: {} };

/**
 * The preferred transport (the relay) when it answers, a stand-in (a BroadcastChannel between
 * this browser's tabs) while it does not — and back to the preferred one as soon as it answers
 * again: after falling back it keeps trying in the background with the one {@link Backoff}, and
 * on success disposes the stand-in (its leave frame tells the other tabs) and emits `switched`,
 * so a {@link NetSession} forgets the peers of the old wire and shows the new one. Frames, events
 * and stats are those of whichever transport is in use ({@link current}).
 */
export class FallbackTransport implements FrameTransport {
  /** What the transport in use emits, re-emitted, and `switched` when it changes. */
  readonly events = new Emitter<TransportEvents>();
  /** The resolved options. */
  readonly options: Required<FallbackTransportOptions>;
  /** Why the stand-in is in use (null while on the preferred transport, or before the first try ends). */
  fallbackReason: string | null = null;
  /** Tries at the preferred transport that failed. */
  failedAttempts = 0;
  private active: FrameTransport | null = null;
  private offs: Array<() => void> = [];
  private readonly idleStats = emptyTransportStats();
  private readonly backoff: Backoff;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private disposed = false;
  private readonly decided: Promise<boolean>;
  private decide: (preferred: boolean) => void = () => undefined;
  /** The page's profile, handed to whichever transport is in use. */
  private profile: Profile | null = null;

  constructor(options: FallbackTransportOptions) {
    this.options = { ...options, ...withDefaults(FALLBACK_TRANSPORT_DEFAULTS, options) };
    this.backoff = new Backoff(this.options.backoff);
    this.decided = new Promise((resolve) => (this.decide = resolve));
    void this.tryPreferred();
  }

  /** Resolves once the first try ended: true on the preferred transport, false on the stand-in. */
  ready(): Promise<boolean> {
    return this.decided;
  }

  /** The transport frames go through now (null before the first try ended). */
  get current(): FrameTransport | null {
    return this.active;
  }

  /** True while frames go through the stand-in. */
  get fallenBack(): boolean {
    return this.fallbackReason !== null;
  }

  get kind(): TransportKind {
    return this.active?.kind ?? this.options.kind;
  }

  get target(): string {
    return this.active?.target ?? this.options.target;
  }

  get state(): TransportState {
    return this.disposed ? 'closed' : (this.active?.state ?? 'connecting');
  }

  get selfId(): number | null {
    return this.active?.selfId ?? null;
  }

  get avatarToken(): string | null {
    return this.active?.avatarToken ?? null;
  }

  get stats(): TransportStats {
    return this.active?.stats ?? this.idleStats;
  }

  send(frame: Uint8Array): boolean {
    if (this.active) return this.active.send(frame);
    this.idleStats.unsent++;
    return false;
  }

  setProfile(profile: Profile | null): void {
    this.profile = profile;
    this.active?.setProfile?.(profile);
  }

  sendPhase(): number | null {
    return this.active?.sendPhase?.() ?? null;
  }

  sendMoment(now: number): number | null {
    return this.active?.sendMoment?.(now) ?? null;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    for (const off of this.offs) off();
    this.active?.dispose();
    this.active = null;
    this.decide(false);
    this.events.emit('state', 'closed');
    this.events.clear();
  }

  private async tryPreferred(): Promise<void> {
    this.retryTimer = null;
    // A try that throws (no WebSocket here, a URL the page may not open) is a failed try too.
    const result = await this.options.attempt().catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    if (this.disposed) {
      if (typeof result !== 'string') result.dispose();
      return;
    }
    if (typeof result !== 'string') {
      this.fallbackReason = null;
      this.use(result);
      this.decide(true);
      return;
    }
    this.failedAttempts++;
    if (!this.active) {
      this.fallbackReason = result;
      this.use(this.options.fallback());
      this.decide(false);
    }
    this.retryTimer = setTimeout(() => void this.tryPreferred(), this.backoff.next());
  }

  /** Routes frames and events through `next`, disposing the transport in use before. */
  private use(next: FrameTransport): void {
    const previous = this.active;
    for (const off of this.offs) off();
    previous?.dispose();
    this.active = next;
    if (this.profile) next.setProfile?.(this.profile);
    const events = next.events;
    this.offs = [
      events.on('message', (bytes) => this.events.emit('message', bytes)),
      events.on('control', (control) => this.events.emit('control', control)),
      events.on('state', (state) => this.events.emit('state', state)),
      events.on('rejected', (reason) => this.events.emit('rejected', reason)),
      events.on('avatarToken', (token) => this.events.emit('avatarToken', token)),
    ];
    this.events.emit('switched', { kind: next.kind, target: next.target });
    this.events.emit('state', next.state);
    if ((previous?.avatarToken ?? null) !== (next.avatarToken ?? null)) this.events.emit('avatarToken', next.avatarToken ?? null);
  }
}

/**
 * A {@link TransportAttempt} at a relay room: a {@link WebSocketTransport} that resolves once it
 * opens, or, when its first connection fails (or none opens within `waitMs`), is disposed and
 * says why.
 */
export function relayAttempt(url: string, options: Omit<WebSocketTransportOptions, 'url'> = {}, waitMs = 20_000): TransportAttempt {
  return async () => {
    const relay = new WebSocketTransport({ ...options, url });
    let timer: ReturnType<typeof setTimeout> | null = null;
    const opened = await Promise.race([
      relay.opened(),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
    ]);
    if (timer !== null) clearTimeout(timer);
    if (opened) return relay;
    const reason = `no relay answered at ${relay.target} (${relay.stats.lastError ?? 'timed out'})`;
    relay.dispose();
    return reason;
  };
}
