import { withDefaults } from '../core/options.ts';
import type { DropReason, ServerControl } from './protocol/control.ts';
import { checkProfile, lookKey, readProfiles, type PeerProfile, type Profile } from './protocol/profile.ts';
import { MessageReader } from './protocol/message.ts';
import { createPose, type RemotePose } from './peers/remote-peer.ts';
import { LocalPublisher, type LocalPose, type LocalPublisherOptions } from './peers/local-publisher.ts';
import { PeerTable, type PeerTableOptions } from './peers/peer-table.ts';
import type { FrameTransport, TransportEvents, TransportKind, TransportState } from './transport/transport.ts';
import type { AnimationStateName } from './protocol/frame.ts';
import type { AvatarDetail, RemoteAvatar, RemotePeerView } from './view/remote-peer-view.ts';
import { Emitter } from '../core/emitter.ts';
import { HearingSet, type HearingChange, type HearingOptions } from './world/hearing.ts';
import { phaseOf } from './protocol/world.ts';
import type { WorldStats } from './world/world-transport.ts';

/** Options of a {@link NetSession}. */
export interface NetSessionOptions {
  /** The wire: a relay room, a BroadcastChannel, the open world's cells, or a fallback between them. */
  transport: FrameTransport;
  /** How remote players are drawn. */
  view: RemotePeerView;
  /** The remote-peer table's interpolation delay, prediction, silence and capacity. Default: the table's own. */
  table?: PeerTableOptions;
  /** The local publisher's rate and alignment. Default: the publisher's own. */
  publisher?: LocalPublisherOptions;
  /** Local monotonic clock (ms). Default performance.now. */
  now?: () => number;
  /**
   * Send regular frames from a timer (ms period) rather than only from rendered frames, so a
   * slow or background tab keeps its 10 Hz (browsers throttle timers in background tabs to 1 Hz,
   * still inside the peers' silence timeout; animation frames stop entirely). With a timer, the
   * session also wakes exactly when the next regular frame is due, so frames leave at their
   * moment (see {@link alignSends}), not up to a rendered frame later. 0 turns both off.
   * Default 25.
   */
  timerMs?: number;
  /** Within this distance (m) of {@link NetSession.setFocus} avatars are 'live', beyond it 'baked' (+5 m hysteresis). Default 40. */
  liveRadius?: number;
  /** Who voice should connect to (see {@link HearingSet}); updated 4 times a second around the focus. Default: a HearingSet with its defaults. */
  hearing?: HearingOptions;
  /**
   * Send regular frames at the moment the transport asks for ({@link FrameTransport.sendPhase}:
   * in the open world, the moment the cell's other players send too, so the cell forwards them in
   * one message instead of ~4), and send the reduced-rate frames for neighbouring cells on the
   * moments the transport numbers ({@link FrameTransport.sendMoment}), so those go out together
   * too. Each half is ignored when `publisher.phase` / `publisher.moment` is given. Default true.
   */
  alignSends?: boolean;
}

/** {@link NetSessionOptions} with every default filled in. */
export interface ResolvedNetSessionOptions {
  /** The wire. */
  transport: FrameTransport;
  /** How remote players are drawn. */
  view: RemotePeerView;
  /** The remote-peer table's options. */
  table: PeerTableOptions;
  /** The local publisher's options. */
  publisher: LocalPublisherOptions;
  /** Local monotonic clock (ms). */
  now: () => number;
  /** Period of the send timer (ms); 0: sends only from rendered frames. */
  timerMs: number;
  /** Radius (m) around the focus within which avatars are live. */
  liveRadius: number;
  /** The hearing set's radii and cap. */
  hearing: HearingOptions;
  /** Whether regular frames leave at the transport's send phase and moments. */
  alignSends: boolean;
}

/** The defaults, applied once. */
export function resolveNetSessionOptions(options: NetSessionOptions): ResolvedNetSessionOptions {
  return { ...options, ...withDefaults(NET_SESSION_DEFAULTS, options) };
}

/** Defaults of a {@link NetSession}: the table's, publisher's and hearing's own, `performance.now`, a 25 ms timer, 40 m live radius, aligned sends. */
const NET_SESSION_DEFAULTS: Omit<ResolvedNetSessionOptions, 'transport' | 'view'> = {
  table: {},
  publisher: {},
  now: () => performance.now(),
  timerMs: 25,
  liveRadius: 40,
  hearing: {},
  alignSends: true,
};

/**
 * The avatar-sync figures a page publishes under `stats.net`: the session's own, which transport it
 * fell back to and why (null when none), and in the open world the cell client's figures and the
 * directory's counts.
 */
export type NetPageStats = Partial<NetStats> & {
  /** Why the page fell back to another wire (a bad room name, the relay unreachable), or null when it did not. */
  fallback?: string | null;
  /** The open world's cell client figures (the world transport only). */
  world?: WorldStats;
  /** The world directory's counts (the world transport only). */
  population?: {
    /** Players in the world, as the directory counts them. */
    players: number;
    /** Busy cells. */
    cells: number;
  };
};

/** `cairn.stats.net`: what the HUD shows and tests assert. */
export interface NetStats {
  /** Which wire the session uses now. */
  transport: TransportKind;
  /** Relay URL or channel name. */
  target: string;
  /** Where the wire stands. */
  state: TransportState;
  /** This page's id on the wire (null until the relay's welcome). */
  selfId: number | null;
  /** Remote peers in the table. */
  peers: number;
  /** Peers drawn with live skinning (the rest are 'baked'). */
  live: number;
  /** Frames sent / not sent (transport down). */
  sent: number;
  /** Frames not sent because the wire was down (dropped, never queued). */
  unsent: number;
  /** State-change frames sent between regular ones. */
  changeFrames: number;
  /** Messages received, frames accepted from them, messages rejected (and the last reason). */
  messages: number;
  /** Frames accepted from those messages. */
  frames: number;
  /** Messages rejected, by the transport or the reader. */
  rejected: number;
  /** Why the last rejected message was rejected, or null. */
  lastRejection: string | null;
  /** Frames that failed validation and were skipped, the rest of their message taken (see {@link MessageReader.skipped}). */
  badFrames: number;
  /** Own frames echoed back (filtered out). */
  echoes: number;
  /** Duplicate and out-of-order frames dropped. */
  stale: number;
  /** Leave frames received. */
  leaves: number;
  /** Peers dropped after silence. */
  silenced: number;
  /** Successful connections after the first. */
  reconnects: number;
  /** The wire's last error or close reason, or null. */
  lastError: string | null;
  /** Round trip of the last keep-alive ping (ms); null before the first, and on wires without one. */
  pingMs: number | null;
  /** What the relay reported dropping from this page, by reason. */
  relayDropped: Partial<Record<DropReason, number>>;
  /** Peers within hearing range (offered voice connections). */
  hearing: number;
  /** Times the session moved to another wire (a fallen-back page reaching the relay again). */
  switches: number;
  /** This page's profile as sent (null until {@link NetSession.setProfile}), and why the relay refused it, if it did. */
  profile: {
    /** The display name sent. */
    name: string;
    /** The look sent, as its key (see {@link lookKey}). */
    look: string;
  } | null;
  /** Why the relay refused this page's profile, or null. */
  profileRefused: string | null;
  /** Peers in the table whose profile is known, distinct looks among them, and profiles refused on arrival. */
  profiles: number;
  /** Distinct looks among those peers. */
  looks: number;
  /** Profiles refused on arrival (failed the checks). */
  badProfiles: number;
}

/** What a {@link NetSession} emits on its `events`. */
export type NetSessionEvents = {
  /** The hearing set changed: voice connects to `added` and hangs up on `removed` (peer ids). */
  hearing: HearingChange;
  /** {@link NetSession.avatarToken} changed. */
  avatarToken: string | null;
  /** The transport moved to another wire (see {@link TransportEvents.switched}); the peer table was cleared. */
  switched: {
    /** The new wire. */
    kind: TransportKind;
    /** Its URL or channel name. */
    target: string;
  };
  /** A player's profile arrived or changed (it may not be in the peer table yet). */
  profile: PeerProfile;
};

interface Shown {
  avatar: RemoteAvatar;
  detail: AvatarDetail;
}

/**
 * Glue between a transport, the peer table and a view: publishes the local pose (10 Hz and on
 * animation-state change), validates incoming messages all-or-nothing, interpolates every remote
 * peer ~100 ms behind and drives its avatar, and keeps {@link stats} current. No three.js, no DOM.
 */
export class NetSession {
  /** The wire the session sends and receives on. */
  readonly transport: FrameTransport;
  /** How remote players are drawn. */
  readonly view: RemotePeerView;
  /** The remote peers, one interpolation buffer each. */
  readonly table: PeerTable;
  /** Decides when the local pose is sent and writes its frames. */
  readonly publisher: LocalPublisher;
  /** Live figures (`cairn.stats.net`), refreshed every {@link update}. */
  readonly stats: NetStats;
  /** Peers within hearing range, by id: what voice should connect to. */
  readonly hearing: HearingSet;
  /** What the session emits: hearing changes, avatar tokens, wire switches, profiles. */
  readonly events = new Emitter<NetSessionEvents>();
  private readonly reader = new MessageReader();
  private hearingAt = Number.NEGATIVE_INFINITY;
  private readonly hearingScratch: Array<{ id: number; x: number; z: number }> = [];
  private readonly now: () => number;
  private readonly shown = new Map<number, Shown>();
  private readonly pose: RemotePose = createPose();
  private readonly requests: AnimationStateName[] = [];
  /** The resolved options. */
  readonly options: ResolvedNetSessionOptions;
  private latest: LocalPose | null = null;
  /** Messages the reader rejected (the transport counts the ones it rejects itself). */
  private rejectedHere = 0;
  private focusX = Number.NaN;
  private focusZ = Number.NaN;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** One-shot wake-up at the publisher's next due time, and that time. */
  private dueTimer: ReturnType<typeof setTimeout> | null = null;
  private dueTimerAt = Number.NaN;
  private readonly unsubscribe: Array<() => void> = [];
  /** Other players' profiles by id (kept a while after they leave: a hop's leave from the old cell comes after the new cell's profile). */
  private readonly profileBook = new Map<number, PeerProfile>();
  private readonly lookScratch = new Set<string>();

  constructor(options: NetSessionOptions) {
    const o = (this.options = resolveNetSessionOptions(options));
    this.transport = o.transport;
    this.view = o.view;
    this.table = new PeerTable(o.table);
    this.now = o.now;
    const transport = this.transport;
    const aligned = o.alignSends && !o.publisher.phase && transport.sendPhase;
    const counted = o.alignSends && !o.publisher.moment && transport.sendMoment;
    this.publisher = new LocalPublisher({
      ...o.publisher,
      // The transport's moment is in Date.now(); poll() runs on this.now(): move it across.
      ...(aligned ? { phase: () => this.phaseFor(transport.sendPhase?.() ?? null) } : {}),
      ...(counted ? { moment: (now: number) => transport.sendMoment?.(now + (Date.now() - this.now())) ?? null } : {}),
    });
    this.hearing = new HearingSet(o.hearing);
    this.table.selfId = this.transport.selfId;
    this.stats = {
      transport: this.transport.kind,
      target: this.transport.target,
      state: this.transport.state,
      selfId: this.transport.selfId,
      peers: 0,
      live: 0,
      sent: 0,
      unsent: 0,
      changeFrames: 0,
      messages: 0,
      frames: 0,
      rejected: 0,
      lastRejection: null,
      badFrames: 0,
      echoes: 0,
      stale: 0,
      leaves: 0,
      silenced: 0,
      reconnects: 0,
      lastError: null,
      pingMs: null,
      relayDropped: {},
      hearing: 0,
      switches: 0,
      profile: null,
      profileRefused: null,
      profiles: 0,
      looks: 0,
      badProfiles: 0,
    };
    const events = this.transport.events;
    this.unsubscribe.push(
      events.on('message', (bytes) => this.receive(bytes)),
      events.on('control', (control) => this.onControl(control)),
      events.on('state', () => this.refreshStats()),
      events.on('rejected', (reason) => {
        this.stats.lastRejection = reason;
        this.stats.rejected = this.transport.stats.rejected + this.rejectedHere;
      }),
      events.on('avatarToken', (token) => this.events.emit('avatarToken', token)),
      events.on('switched', (wire) => this.switched(wire)),
      this.table.events.on('added', (peer) => {
        const avatar = this.view.add(peer.id);
        this.shown.set(peer.id, { avatar, detail: 'live' });
        const profile = this.profileBook.get(peer.id);
        if (profile) avatar.setProfile?.(profile);
      }),
      this.table.events.on('removed', (peer) => {
        this.shown.get(peer.id)?.avatar.remove();
        this.shown.delete(peer.id);
      }),
    );
    if (o.timerMs > 0) this.timer = setInterval(() => this.pump(), o.timerMs);
  }

  /**
   * The server's signed proof that this page owns its avatar id ({@link NetStats.selfId}), from the
   * relay's welcome or the world cell's ack: voice sends it with its avatar claim. Null on a
   * BroadcastChannel and while disconnected; the `avatarToken` event says when it changes.
   */
  get avatarToken(): string | null {
    return this.transport.avatarToken ?? null;
  }

  /**
   * Publishes this player's display name and look: the transport sends it now and on every
   * reconnection, and every other player's view gets it once. Returns why it was not sent (the
   * rules of `checkProfile`: the relay would refuse it), or null.
   */
  setProfile(profile: Profile): string | null {
    const checked = checkProfile(profile);
    if (!checked.ok) return checked.problem;
    this.stats.profile = { name: checked.value.name, look: lookKey(checked.value.look) };
    this.stats.profileRefused = null;
    this.transport.setProfile?.(checked.value);
    return null;
  }

  /** A player's profile, if known. */
  profileOf(id: number): PeerProfile | undefined {
    return this.profileBook.get(id);
  }

  /** Sets the local player's pose (every rendered frame); a state change is sent at once. */
  setLocalPose(pose: LocalPose): void {
    this.latest = pose;
    this.pump();
  }

  /** Where the camera/player is, for the live/baked split. */
  setFocus(x: number, z: number): void {
    this.focusX = x;
    this.focusZ = z;
  }

  /** Expires peers, poses every avatar and advances the view. Call once per rendered frame. */
  update(dt: number): void {
    const now = this.now();
    this.table.expire(now);
    let live = 0;
    const hearingDue = now - this.hearingAt >= 250 && !Number.isNaN(this.focusX);
    const around = this.hearingScratch;
    around.length = 0;
    for (const peer of this.table.peers.values()) {
      const shown = this.shown.get(peer.id);
      if (!shown) continue;
      const pose = this.pose;
      peer.pose(this.table.renderTime(peer, now), this.table.extrapolateMs, pose);
      shown.avatar.setTransform(pose.x, pose.y, pose.z, pose.facing);
      for (const state of peer.takeStateRequests(this.requests)) shown.avatar.play(state, pose.speed);
      if (!Number.isNaN(this.focusX)) {
        const d = Math.hypot(pose.x - this.focusX, pose.z - this.focusZ);
        const radius = this.options.liveRadius;
        const detail: AvatarDetail = shown.detail === 'live' ? (d > radius + 5 ? 'baked' : 'live') : d < radius ? 'live' : 'baked';
        if (detail !== shown.detail) {
          shown.detail = detail;
          shown.avatar.setDetail?.(detail);
        }
      }
      if (shown.detail === 'live') live++;
      if (hearingDue) around.push({ id: peer.id, x: pose.x, z: pose.z });
    }
    if (hearingDue) {
      this.hearingAt = now;
      const change = this.hearing.update(this.focusX, this.focusZ, around);
      if (change.added.length || change.removed.length) this.events.emit('hearing', change);
      this.stats.hearing = this.hearing.ids.size;
    }
    this.view.update(dt);
    this.stats.live = live;
    this.refreshStats();
  }

  /** Stops the timers, clears the peer table and disposes the transport (which sends a leave where the wire allows) and the view. */
  dispose(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (this.dueTimer !== null) clearTimeout(this.dueTimer);
    this.dueTimer = null;
    for (const off of this.unsubscribe) off();
    this.table.clear();
    this.transport.dispose();
    this.view.dispose();
    this.refreshStats();
  }

  /** A moment of `Date.now()` (ms within the publisher's period) in the net session's own clock. */
  private phaseFor(epochPhase: number | null): number | null {
    if (epochPhase === null) return null;
    const period = 1000 / this.publisher.rateHz;
    return phaseOf(epochPhase - (Date.now() - this.now()), period);
  }

  private pump(): void {
    if (!this.latest) return;
    const now = this.now();
    const frame = this.publisher.poll(this.latest, now);
    if (frame) this.transport.send(frame);
    // Wake when the next frame is due (re-armed only when that moves).
    const due = this.publisher.nextDueAt;
    if (this.timer === null || due === this.dueTimerAt || !Number.isFinite(due)) return;
    if (this.dueTimer !== null) clearTimeout(this.dueTimer);
    this.dueTimerAt = due;
    this.dueTimer = setTimeout(
      () => {
        this.dueTimer = null;
        this.dueTimerAt = Number.NaN;
        this.pump();
      },
      Math.max(0, due - now),
    );
  }

  private onControl(control: ServerControl): void {
    if (control.type === 'welcome') this.table.selfId = this.transport.selfId;
    else if (control.type === 'dropped') this.stats.relayDropped[control.reason] = control.count;
    else if (control.type === 'refused' && control.command === 'profile') this.stats.profileRefused = control.reason;
    else if (control.type === 'profiles') {
      // Checked again here: a relay that does not check must not reach the views.
      const { peers, refused } = readProfiles(control);
      this.stats.badProfiles += refused;
      for (const profile of peers) this.learn(profile);
    }
  }

  private learn(profile: PeerProfile): void {
    if (profile.id === this.transport.selfId) return;
    const known = this.profileBook.get(profile.id);
    if (known && known.name === profile.name && lookKey(known.look) === lookKey(profile.look)) return;
    // Bounded: past twice the table (and a margin), forget the profiles of players no longer here.
    if (!known && this.profileBook.size >= 2 * this.table.size + 64)
      for (const id of this.profileBook.keys()) if (!this.table.peers.has(id)) this.profileBook.delete(id);
    this.profileBook.set(profile.id, profile);
    this.shown.get(profile.id)?.avatar.setProfile?.(profile);
    this.events.emit('profile', profile);
  }

  /** The transport moved to another wire: everyone heard on the old one is gone (their ids were of that wire). */
  private switched(wire: TransportEvents['switched']): void {
    this.profileBook.clear();
    this.table.clear();
    this.table.selfId = this.transport.selfId;
    this.stats.transport = wire.kind;
    this.stats.target = wire.target;
    this.stats.switches++;
    this.refreshStats();
    this.events.emit('switched', wire);
  }

  private receive(bytes: Uint8Array): void {
    const rejection = this.reader.read(bytes);
    if (rejection) {
      this.rejectedHere++;
      this.stats.lastRejection = rejection.problem;
      this.stats.rejected = this.transport.stats.rejected + this.rejectedHere;
      return;
    }
    // Bad frames inside a message (a hostile or broken sender's, forwarded by a relay that does not
    // validate) were skipped by the reader; the honest frames beside them are taken.
    if (this.reader.skipped !== this.stats.badFrames) {
      this.stats.badFrames = this.reader.skipped;
      this.stats.lastRejection = this.reader.lastSkip;
    }
    this.stats.frames += this.reader.count;
    this.table.ingestAll(this.reader.frames, this.reader.count, this.now());
  }

  private refreshStats(): void {
    const s = this.stats;
    const t = this.transport.stats;
    s.state = this.transport.state;
    s.selfId = this.transport.selfId;
    s.peers = this.table.size;
    s.sent = t.sent;
    s.unsent = t.unsent;
    s.changeFrames = this.publisher.changeFrames;
    s.messages = t.messages;
    s.rejected = t.rejected + this.rejectedHere;
    s.echoes = this.table.stats.echoes;
    s.stale = this.table.stats.stale;
    s.leaves = this.table.stats.leaves;
    s.silenced = this.table.stats.silenced;
    s.reconnects = t.reconnects;
    s.lastError = t.lastError;
    s.pingMs = t.pingMs;
    let profiles = 0;
    const looks = this.lookScratch;
    looks.clear();
    for (const id of this.table.peers.keys()) {
      const profile = this.profileBook.get(id);
      if (!profile) continue;
      profiles++;
      looks.add(lookKey(profile.look));
    }
    s.profiles = profiles;
    s.looks = looks.size;
  }
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** Avatar sync (app/world-plugins/net.ts). */
    net: NetSession;
  }
}

declare module '../world/cairn-global.ts' {
  interface CairnStats {
    /** Avatar sync: the session's figures, its fallback and, in the open world, the cells'. */
    net?: NetPageStats;
  }
}
