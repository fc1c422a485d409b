import { withDefaults } from '../../core/options.ts';
import { Backoff, type BackoffOptions } from '../../core/backoff.ts';
import { Emitter } from '../../core/emitter.ts';
import type { XZ } from '../../core/math.ts';
import type { ServerControl } from '../protocol/control.ts';
import type { Profile } from '../protocol/profile.ts';
import {
  cellDistance,
  cellRoom,
  cellSendPhase,
  neighbourhood,
  sameCell,
  sendMomentNumber,
  type Cell,
  type CellAck,
  type WorldEntry,
  type WorldHop,
} from '../protocol/world.ts';
import {
  emptyTransportStats,
  type FrameTransport,
  type TransportEvents,
  type TransportState,
  type TransportStats,
} from '../transport/transport.ts';
import type { TransportAttempt } from '../transport/fallback-transport.ts';
import type { WebSocketConstructor } from '../transport/websocket-transport.ts';
import { CellSockets, type CellSocket } from './cell-sockets.ts';
import { CellTracker } from './cell-tracker.ts';
import { DirectoryClient, DirectoryError, type Timed } from './directory-client.ts';
import { ServerClock } from './server-clock.ts';

/** Options of a {@link WorldTransport}. */
export interface WorldTransportOptions {
  /** http(s) origin of the Worker, e.g. `https://cairn.example` (its /api/world and /rooms). */
  origin: string;
  /** Where the player stands when entering (m). */
  start: XZ;
  /** Metres past a border before publication moves (hysteresis). Default 4. */
  margin?: number;
  /**
   * Renew the identity token this often (ms); tokens last 120 s. Default 40,000. A token younger
   * than half of this (a hop just brought one) is not renewed yet; the directory refuses a
   * renewal within 10 s of the last token.
   */
  renewMs?: number;
  /** Reconnect delays of each cell socket. Default: the socket's own (500 ms doubling to 15 s). */
  backoff?: BackoffOptions;
  /** WebSocket implementation (Node: `ws`). Default the global one. */
  WebSocket?: WebSocketConstructor;
  /** fetch implementation. Default the global one. */
  fetch?: typeof fetch;
  /**
   * Gives up on a directory request (enter, hop, renew) after this many ms, so a Worker that
   * hangs (restarting, overloaded) cannot stall the client; start() then retries. Default 10,000.
   */
  requestTimeoutMs?: number;
  /**
   * Ask neighbouring cells the player stands close to for every tick (`pace`; see
   * `wantsCloseWatch` in close-watch.ts). Default true. False: every neighbouring cell paces this client —
   * the fewest messages, but peers across a border arrive up to ~80 ms later.
   */
  closeWatch?: boolean;
  /**
   * Ask the publication cell for its clock (`clock` probes) this often (ms), after the first
   * {@link CLOCK_BURST} probes a second apart from entering. Default 30,000; 0: never probe (the
   * directory's answers alone set the clock).
   */
  clockProbeMs?: number;
  /**
   * This tab's session token (`POST /api/session`; `tabSession()` in src/net/tab-session.ts), sent as `?session=` on
   * every cell socket: the avatar token a cell hands out then proves this player's avatar to the
   * voice socket of the same session only. Default none.
   */
  session?: string | null;
}

/** {@link WorldTransportOptions} with every default filled in. */
export interface ResolvedWorldTransportOptions {
  /** http(s) origin of the Worker. */
  origin: string;
  /** Where the player stands when entering (m), copied. */
  start: XZ;
  /** Metres past a border before publication moves. */
  margin: number;
  /** Identity token renewal period (ms). */
  renewMs: number;
  /** Reconnect delays of each cell socket. */
  backoff: BackoffOptions;
  /** The WebSocket implementation given, or undefined for the global one. */
  WebSocket: WebSocketConstructor | undefined;
  /** The fetch implementation given, or undefined for the global one. */
  fetch: typeof fetch | undefined;
  /** Directory request timeout (ms). */
  requestTimeoutMs: number;
  /** Whether neighbouring cells the player stands close to are asked for every tick. */
  closeWatch: boolean;
  /** Clock probe period (ms); 0: never. */
  clockProbeMs: number;
  /** This tab's session token, or null. */
  session: string | null;
}

/** The defaults, applied once. */
export function resolveWorldTransportOptions(options: WorldTransportOptions): ResolvedWorldTransportOptions {
  return {
    ...withDefaults(WORLD_TRANSPORT_DEFAULTS, options),
    origin: options.origin,
    start: { ...options.start },
    WebSocket: options.WebSocket,
    fetch: options.fetch,
  };
}

/**
 * Defaults of a {@link WorldTransport}: a 4 m margin, renewed every 40 s, the backoff's own
 * delays, 10 s requests, close-watch on, a clock probe every 30 s, no session; `WebSocket` and
 * `fetch` left out are the global ones.
 */
const WORLD_TRANSPORT_DEFAULTS: Omit<ResolvedWorldTransportOptions, 'origin' | 'start' | 'WebSocket' | 'fetch'> = {
  margin: 4,
  renewMs: 40_000,
  backoff: {},
  requestTimeoutMs: 10_000,
  closeWatch: true,
  clockProbeMs: 30_000,
  session: null,
};

/** Probes a second apart after entering: the first answers come while joining is busiest. */
export const CLOCK_BURST = 8;
const CLOCK_BURST_INTERVAL_MS = 1000;

/** The world-specific figures (`stats.net.world`). */
export interface WorldStats {
  /** Publication cell, "x:z". */
  cell: string | null;
  /** Cell sockets open now (the 3×3: 9 inside the map). */
  subscriptions: number;
  /** Cell changes completed. */
  hops: number;
  /** Times the identity was replaced (teleports, lost identity). */
  reentries: number;
  /** Directory requests (hops, renewals) that failed, and commands a cell refused. */
  hopErrors: number;
  /** Why the last of them failed, or null. */
  lastHopError: string | null;
  /** Token renewals completed. */
  renewals: number;
  /** Neighbouring cells that send this client every tick because it stands close to them (`pace`). */
  closeWatches: number;
  /**
   * The server's clock minus this client's `Date.now()` (ms), from the directory's answers and the
   * publication cell's answers to `clock` probes (the one with the shortest round trip wins; see
   * `ServerClock`, server-clock.ts). Null until the first answer that carries it.
   */
  clockOffsetMs: number | null;
  /** Round trip of the answer {@link clockOffsetMs} came from (ms): its uncertainty is half of it. */
  clockRttMs: number | null;
  /** {@link WorldTransport.sendPhase} now (ms within each 100 ms of `Date.now()`), or null. */
  sendPhase: number | null;
  /**
   * How far (ms) the sends were moved on the publication cell's word (`timing` notes: its frames
   * arrived that late, network delay and clock error together), in (−50, 50].
   */
  timingCorrectionMs: number;
  /** `timing` notes received. */
  timingNotes: number;
  /** `clock` probes the publication cell answered. */
  clockProbes: number;
}

/**
 * The open world as one {@link FrameTransport}: publishes to the cell the player stands in and
 * listens to the 3×3 cells around it, one WebSocket per cell ({@link CellSockets}), each cell an
 * AvatarRoom Durable Object (`world:cell:X:Z`); identities and cell tokens come from the world
 * directory ({@link DirectoryClient}). Messages from every cell come out of one `message` event;
 * the peer table merges them without duplicates (one world id per player, sequence numbers decide).
 *
 * Crossing a border (past the hysteresis margin) asks the directory for a token for the new cell
 * (`POST /api/world/hop`), tells the new cell `publish` and the old one `subscribe` (the old cell
 * sends the others a leave frame for this id; they keep the avatar because its frames continue
 * from the new cell), then opens the cells that came into the 3×3 and closes those that left it.
 * A jump of more than one cell (a teleport) enters again under a new identity.
 */
export class WorldTransport implements FrameTransport {
  /** The open world's cells. */
  readonly kind = 'world' as const;
  readonly target: string;
  /** What the transport counted, over every cell socket. */
  readonly stats: TransportStats = emptyTransportStats();
  /** What the transport emits: messages from every cell, controls, state changes, tokens. */
  readonly events = new Emitter<TransportEvents>();
  /** The world-specific figures (`stats.net.world`). */
  readonly world: WorldStats = {
    cell: null,
    subscriptions: 0,
    hops: 0,
    reentries: 0,
    hopErrors: 0,
    lastHopError: null,
    renewals: 0,
    closeWatches: 0,
    clockOffsetMs: null,
    clockRttMs: null,
    sendPhase: null,
    timingCorrectionMs: 0,
    timingNotes: 0,
    clockProbes: 0,
  };
  /** The resolved options. */
  readonly options: ResolvedWorldTransportOptions;
  /** Where the transport stands: open while the publication cell's socket is open and acknowledged as publisher. */
  state: TransportState = 'connecting';
  selfId: number | null = null;
  /** The publication cell's signed proof that avatar {@link selfId} is this client's (from its ack). */
  avatarToken: string | null = null;
  /** The cell this client publishes in (acknowledged). */
  cell: Cell | null = null;
  /** Which cell the player publishes in, with hysteresis. */
  readonly tracker: CellTracker;
  /** The server's clock and the cell's corrections to it (mirrored into {@link world}). */
  readonly clock = new ServerClock();
  private readonly directory: DirectoryClient;
  private readonly cells: CellSockets;
  private token: string | null = null;
  private tokenCell: Cell | null = null;
  /** `Date.now()` when {@link token} was issued to us (enter, hop or renewal). */
  private tokenAt = 0;
  private busy = false;
  private retryAt = 0;
  private renewTimer: ReturnType<typeof setInterval> | null = null;
  private disposed = false;
  private position: { x: number; z: number };
  private clockTimer: ReturnType<typeof setTimeout> | null = null;
  /** The `t` of the clock probe awaiting its answer (one at a time; a late answer to an older one is ignored). */
  private probeT: number | null = null;
  private probesSent = 0;

  constructor(options: WorldTransportOptions) {
    const o = (this.options = resolveWorldTransportOptions(options));
    this.directory = new DirectoryClient({ origin: o.origin, fetch: o.fetch, requestTimeoutMs: o.requestTimeoutMs });
    this.target = this.directory.url;
    this.cells = new CellSockets({
      wsOrigin: this.directory.options.origin.replace(/^http/, 'ws'),
      backoff: o.backoff,
      WebSocket: o.WebSocket,
      session: o.session,
    });
    this.tracker = new CellTracker(undefined, o.margin);
    this.position = { ...o.start };
    const events = this.cells.events;
    events.on('message', (bytes) => {
      this.stats.messages++;
      this.events.emit('message', bytes);
    });
    events.on('rejected', (reason) => {
      this.stats.rejected++;
      this.stats.lastRejection = reason;
      this.events.emit('rejected', reason);
    });
    events.on('ack', ({ socket, ack }) => this.onAck(socket, ack));
    events.on('control', ({ socket, control }) => this.onControl(socket, control));
    events.on('state', ({ socket, state }) => {
      if (state === 'closed' && socket.transport.stats.lastError)
        this.stats.lastError = `${socket.key}: ${socket.transport.stats.lastError}`;
      this.refreshState();
    });
  }

  /**
   * Enters the world and opens the 3×3 around the start. A failed attempt — no answer, or a 5xx
   * (a busy or restarting Worker) — is retried twice with jittered backoff; a refusal (4xx) is
   * not. Resolves false (with the reason in stats) when the world API does not answer, or when
   * the transport was disposed meanwhile.
   */
  async start(): Promise<boolean> {
    const backoff = new Backoff(this.options.backoff);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.enter(this.position);
        break;
      } catch (error) {
        this.stats.lastError = (error as Error).message;
        const status = error instanceof DirectoryError ? error.status : null;
        if ((status !== null && status < 500) || attempt >= 2 || this.disposed) {
          this.setState('closed');
          return false;
        }
        await new Promise((resolve) => setTimeout(resolve, backoff.next()));
      }
    }
    if (this.disposed) return false;
    this.renewTimer = setInterval(() => void this.renew(), this.options.renewMs);
    this.scheduleClockProbe();
    return true;
  }

  /** Where the player is now (every rendered frame). Moves publication and subscriptions when due. */
  setPosition(x: number, z: number): void {
    this.position = { x, z };
    if (this.disposed || this.busy || !this.token || Date.now() < this.retryAt) return;
    const want = this.tracker.update(x, z);
    if (this.tokenCell && !sameCell(want, this.tokenCell)) void this.move(want);
    this.pace();
  }

  send(frame: Uint8Array): boolean {
    const pub = this.publication();
    if (!pub || !pub.transport.send(frame)) {
      this.stats.unsent++;
      return false;
    }
    this.stats.sent++;
    return true;
  }

  /**
   * When, within each {@link SEND_PERIOD_MS} of `Date.now()`, this client's regular frames
   * should leave: its publication cell's {@link cellSendPhase} moved from the server's clock to
   * this one, less what the cell said about how late its frames arrive (`timing` notes). The
   * cell's other players send at the same moment, so the cell forwards all their frames in one
   * message per recipient. Null before the cell acknowledged publication or while the server's
   * clock is unknown.
   */
  sendPhase(): number | null {
    const phase = this.cell ? this.clock.phase(cellSendPhase(this.cell)) : null;
    this.world.sendPhase = phase;
    return phase;
  }

  /**
   * The number of the publication cell's send moment that a frame leaving at `now` (`Date.now()`
   * ms) belongs to, on the server's clock as best known ({@link sendMomentNumber}): every player of
   * the cell gets the same number for the same moment, so their half-rate frames to the
   * neighbouring cells go out in the same periods. Null under the same conditions as
   * {@link sendPhase}.
   */
  sendMoment(now: number): number | null {
    const serverTime = this.cell ? this.clock.serverTime(now) : null;
    return this.cell && serverTime !== null ? sendMomentNumber(serverTime, this.cell) : null;
  }

  /** Publishes this player's profile in every cell socket, now and as cells open (see {@link CellSockets.setProfile}). */
  setProfile(profile: Profile | null): void {
    this.cells.setProfile(profile);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.renewTimer !== null) clearInterval(this.renewTimer);
    if (this.clockTimer !== null) clearTimeout(this.clockTimer);
    this.cells.dispose();
    this.world.subscriptions = 0;
    this.setAvatarToken(null);
    this.setState('closed');
    this.events.clear();
  }

  // ── Identity and cells ──────────────────────────────────────────────────────────────────────

  /** The publication cell's socket, once it acknowledged publication. */
  private publication(): CellSocket | undefined {
    const pub = this.cell ? this.cells.get(this.cell) : undefined;
    return pub?.role === 'pub' ? pub : undefined;
  }

  /** A stamped answer (directory or cell): the clock keeps it if its round trip is the shortest (see {@link ServerClock.observe}). */
  private observeClock(serverTime: unknown, sentAt: number, readAt: number): void {
    if (this.clock.observe(serverTime, sentAt, readAt)) this.clockChanged();
  }

  /** A directory answer's body, its `serverTime` offered to the clock. */
  private timed<T extends { serverTime?: number }>(answer: Timed<T>): T {
    this.observeClock(answer.body.serverTime, answer.sentAt, answer.readAt);
    return answer.body;
  }

  private clockChanged(): void {
    this.world.clockOffsetMs = this.clock.offsetMs;
    this.world.clockRttMs = this.clock.rttMs;
    this.world.timingCorrectionMs = this.clock.correctionMs;
    this.world.timingNotes = this.clock.notes;
    this.sendPhase();
  }

  /** Probes the clock a second apart {@link CLOCK_BURST} times, then every {@link WorldTransportOptions.clockProbeMs}. */
  private scheduleClockProbe(): void {
    const steady = this.options.clockProbeMs;
    if (this.disposed || steady <= 0) return;
    this.clockTimer = setTimeout(
      () => {
        this.clockTimer = null;
        this.probeClock();
        this.scheduleClockProbe();
      },
      this.probesSent < CLOCK_BURST ? CLOCK_BURST_INTERVAL_MS : steady,
    );
  }

  /** Asks the publication cell for its time (skipped while publication is not acknowledged). */
  private probeClock(): void {
    const pub = this.publication();
    if (!pub) return;
    const t = Date.now();
    if (!pub.transport.sendText(JSON.stringify({ type: 'clock', t }))) return;
    this.probeT = t;
    this.probesSent++;
  }

  private async enter(at: { x: number; z: number }): Promise<void> {
    const entry: WorldEntry = this.timed(await this.directory.enter(at));
    // Disposed while the request was in flight: open nothing (it would outlive its owner).
    if (this.disposed) return;
    if (this.selfId !== null) this.world.reentries++;
    this.cells.closeExcept(() => false);
    this.selfId = entry.id;
    this.setAvatarToken(null);
    this.token = entry.token;
    this.tokenAt = Date.now();
    this.tokenCell = entry.cell;
    this.cell = null;
    this.tracker.reset(entry.cell);
    for (const cell of neighbourhood(entry.cell)) this.openCell(cell, sameCell(cell, entry.cell) ? 'pub' : 'sub');
  }

  /** Moves publication to `to` (adjacent: a hop; farther: enter again). */
  private async move(to: Cell): Promise<void> {
    this.busy = true;
    try {
      if (cellDistance(to, this.tokenCell!) > 1) {
        await this.enter(this.position);
        return;
      }
      const hop: WorldHop = this.timed(await this.directory.hop(this.token!, to));
      if (this.disposed) return;
      this.adopt(hop);
      const target = this.cells.get(to);
      if (target && target.transport.state === 'open') target.transport.sendText(JSON.stringify({ type: 'publish', token: hop.token }));
      else this.openCell(to, 'pub');
      // The rest (stop publishing in the old cell, reshape the 3×3) follows the new cell's ack.
    } catch (error) {
      const status = error instanceof DirectoryError ? error.status : null;
      this.world.hopErrors++;
      this.world.lastHopError = (error as Error).message;
      if (status === 409 || status === 401) {
        // The directory no longer knows this token (expired, or another tab took over): start over.
        try {
          await this.enter(this.position);
        } catch (again) {
          this.world.lastHopError = (again as Error).message;
        }
      }
      this.tracker.reset(this.tokenCell);
      this.retryAt = Date.now() + 1000;
    } finally {
      this.busy = false;
    }
  }

  private adopt(grant: WorldHop): void {
    this.token = grant.token;
    this.tokenAt = Date.now();
    this.tokenCell = grant.cell;
    this.cells.retarget(grant.token, grant.cell);
  }

  /** Keeps the identity alive: a fresh token for the current cell, passed to every open cell. */
  private async renew(): Promise<void> {
    if (this.busy || !this.token || !this.tokenCell || this.disposed) return;
    // A hop brought a fresh token moments ago: it lasts; renewing it now would only cost the directory a write.
    if (Date.now() - this.tokenAt < this.options.renewMs / 2) return;
    this.busy = true;
    try {
      const grant: WorldHop = this.timed(await this.directory.hop(this.token, this.tokenCell));
      if (this.disposed) return;
      this.adopt(grant);
      this.cells.broadcast(JSON.stringify({ type: 'renew', token: grant.token }));
      this.world.renewals++;
    } catch (error) {
      this.world.lastHopError = (error as Error).message;
      this.world.hopErrors++;
    } finally {
      this.busy = false;
    }
  }

  private openCell(cell: Cell, role: 'pub' | 'sub'): void {
    if (this.disposed) return;
    this.cells.open(cell, role, this.token);
    this.world.subscriptions = this.cells.size;
  }

  private onAck(socket: CellSocket, ack: CellAck): void {
    this.stats.controls++;
    if (ack.role === 'pub') {
      this.published(socket.cell);
      if (ack.avatarToken !== undefined) this.setAvatarToken(ack.avatarToken);
    }
    this.refreshState();
    this.pace();
  }

  private onControl(socket: Pick<CellSocket, 'cell'>, control: ServerControl): void {
    this.stats.controls++;
    if (control.type === 'timing') {
      // Only the publication cell times this client's frames; a note from elsewhere is stale.
      if (!this.cell || !sameCell(socket.cell, this.cell) || !this.clock.note(control.lateMs)) return;
      this.clockChanged();
    } else if (control.type === 'clock') {
      // The answer to the probe in flight, and only that one: its round trip is known.
      if (this.probeT === null || control.t !== this.probeT) return;
      this.probeT = null;
      this.world.clockProbes++;
      this.observeClock(control.serverTime, control.t, Date.now());
    } else if (control.type === 'profiles' || (control.type === 'refused' && control.command === 'profile')) {
      // Cells the player watches show their own players; the same profile may come from two cells.
      this.events.emit('control', control);
    } else if (control.type === 'refused') {
      this.world.lastHopError = `${cellRoom(socket.cell)} refused ${String(control.command)}: ${String(control.reason)}`;
      this.world.hopErrors++;
    } else if (control.type === 'welcome' || control.type === 'dropped') {
      this.events.emit('control', control);
    }
  }

  /** A cell acknowledged publication: stop publishing in the old one and reshape the 3×3. */
  private published(cell: Cell): void {
    const previous = this.cell;
    this.cell = cell;
    this.world.cell = `${cell.x}:${cell.z}`;
    const hopped = previous !== null && !sameCell(previous, cell);
    if (hopped) {
      this.world.hops++;
      this.cells.get(previous)?.transport.sendText(JSON.stringify({ type: 'subscribe' }));
    }
    const wanted = new Set(neighbourhood(cell).map(cellRoom));
    this.cells.closeExcept((key) => wanted.has(key));
    for (const next of neighbourhood(cell)) {
      const existing = this.cells.get(next);
      if (!existing) this.openCell(next, 'sub');
      else if (!sameCell(next, cell) && hopped) existing.transport.sendText(JSON.stringify({ type: 'renew', token: this.token }));
    }
    this.world.subscriptions = this.cells.size;
  }

  /**
   * Asks each neighbouring cell for every tick while the player stands within the live-detail
   * radius of it, and for the paced rate again once well beyond (see {@link CellSockets.pace}):
   * those peers can be close enough to be drawn live, and pacing would add up to ~80 ms to them.
   */
  private pace(): void {
    if (this.disposed || !this.options.closeWatch) return;
    this.world.closeWatches = this.cells.pace(this.position.x, this.position.z);
  }

  private refreshState(): void {
    if (this.disposed) return;
    const pub = this.cell ? this.cells.get(this.cell) : undefined;
    const state: TransportState =
      pub?.role === 'pub' && pub.transport.state === 'open' ? 'open' : this.cell ? 'reconnecting' : 'connecting';
    this.stats.pingMs = pub?.transport.stats.pingMs ?? null;
    this.stats.reconnects = this.cells.reconnects;
    this.setState(state);
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

/**
 * A {@link TransportAttempt} at the open world, for a `FallbackTransport`: a
 * {@link WorldTransport} that resolves once it entered the world, or, when the world API does not
 * answer (or refuses), is disposed and says why. `options` is read at each try, so a retry enters
 * where the player stands then, not where the page started.
 */
export function worldAttempt(options: () => WorldTransportOptions): TransportAttempt {
  return async () => {
    const world = new WorldTransport(options());
    if (await world.start()) return world;
    const reason = `the world API did not answer (${world.stats.lastError ?? 'no reason'})`;
    world.dispose();
    return reason;
  };
}
