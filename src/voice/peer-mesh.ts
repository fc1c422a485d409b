import { withDefaults } from '../core/options.ts';
import { Emitter } from '../core/emitter.ts';
import { planLinks, wantedPeers } from './link-plan.ts';
import { isOfferer } from './negotiation-roles.ts';
import { summarizePeerStats, type PeerFigures, type StatsSample } from './peer-stats.ts';
import type { ClientMessage, WireCandidate } from './protocol/signaling.ts';
import { CAIRN_OPUS, rewriteOpusFmtp, sdpSessionId, type OpusParameters } from './sdp.ts';

/** Options of a {@link PeerMesh}. */
export interface PeerMeshOptions {
  /** Sends a signaling message; returns false when signaling is down (the mesh retries nothing). */
  send(message: ClientMessage): boolean;
  /** STUN/TURN servers. Default none: host candidates only (same machine or LAN). */
  iceServers?: RTCIceServer[];
  /** Opus parameters written into every offer and answer. Default {@link CAIRN_OPUS}. */
  opus?: OpusParameters;
  /** Seconds a link may sit in 'disconnected' before the offerer restarts ICE. Default 4. */
  disconnectedGraceSeconds?: number;
  /**
   * Link only to the peers {@link PeerMesh.follow} selects (voice within hearing range), instead
   * of to every peer {@link PeerMesh.addPeer} names. Offers from other peers wait until they are
   * selected. Default false (the full mesh).
   */
  gated?: boolean;
  /**
   * Send each offer and answer with its ICE candidates inside, after waiting up to
   * {@link gatherTimeoutSeconds} for gathering, instead of trickling candidates one message each:
   * ~3 signaling messages per link (offer, answer, bye) instead of ~10 — what keeps a world voice
   * room's load low while links open and close as players walk. Candidates found after the wait
   * still trickle. Default: on for a gated mesh, off for the full mesh.
   */
  bundleCandidates?: boolean;
  /** Longest wait for ICE gathering before a bundled description goes out anyway, s. Default 2. */
  gatherTimeoutSeconds?: number;
}

/** {@link PeerMeshOptions} with every default filled in. */
export type ResolvedPeerMeshOptions = Required<PeerMeshOptions>;

/** The defaults, applied once. */
export function resolvePeerMeshOptions(options: PeerMeshOptions): ResolvedPeerMeshOptions {
  const resolved = withDefaults(PEER_MESH_DEFAULTS, options);
  // Candidates are bundled by default exactly when links are gated.
  return { ...resolved, send: options.send, bundleCandidates: options.bundleCandidates ?? resolved.gated };
}

/** Defaults of a {@link PeerMesh}: no ICE servers, Cairn's Opus settings, 4 s grace, ungated, a 2 s gathering timeout. */
const PEER_MESH_DEFAULTS: Omit<ResolvedPeerMeshOptions, 'send' | 'bundleCandidates'> = {
  iceServers: [],
  opus: CAIRN_OPUS,
  disconnectedGraceSeconds: 4,
  gated: false,
  gatherTimeoutSeconds: 2,
};

/** What a {@link PeerMesh} emits on its `events`. */
export type PeerMeshEvents = {
  /** A remote peer's audio arrived. */
  stream: {
    /** The peer's id. */
    id: number;
    /** Its audio. */
    stream: MediaStream;
  };
  /** A link was torn down (leave, failure, dispose); the peer id. */
  closed: number;
};

/** Which side of a link makes the offers: the peer with the smaller id offers. */
export type LinkRole = 'offerer' | 'answerer';

/** What the HUD shows for one remote peer. */
export interface PeerLinkFigures extends PeerFigures {
  /** The remote peer's id. */
  id: number;
  /** Whether this side offers or answers. */
  role: LinkRole;
  /** The RTCPeerConnection's state. */
  connection: RTCPeerConnectionState;
  /** The ICE connection's state. */
  ice: RTCIceConnectionState;
  /** The signaling state. */
  signaling: RTCSignalingState;
  /** ICE restarts on this link. */
  iceRestarts: number;
  /** Offers made or answered on this link. */
  negotiations: number;
}

const EMPTY_FIGURES: PeerFigures = {
  kbpsIn: 0,
  kbpsOut: 0,
  targetBitrate: 0,
  lossPercent: 0,
  rttMs: Number.NaN,
  fecPackets: 0,
  packetsIn: 0,
  packetsOut: 0,
  codecIn: '',
  codecOut: '',
  fmtpIn: '',
  fmtpOut: '',
};

class PeerLink {
  readonly pc: RTCPeerConnection;
  closed = false;
  /** Remote candidates that arrived before the remote description. */
  pending: RTCIceCandidateInit[] = [];
  /** Every operation on the connection runs in order through this chain. */
  queue: Promise<void> = Promise.resolve();
  awaitingAnswer = false;
  iceRestarts = 0;
  negotiations = 0;
  graceTimer: ReturnType<typeof setTimeout> | null = null;
  sample: StatsSample | null = null;
  figures: PeerFigures = { ...EMPTY_FIGURES };
  /** The remote side's SDP session id (from its offer or answer): one per RTCPeerConnection. */
  remoteSession: string | null = null;
  /** Bundling: candidates found now go inside the description about to be sent, not alone. */
  holdCandidates = false;

  readonly id: number;
  readonly role: LinkRole;

  constructor(id: number, role: LinkRole, configuration: RTCConfiguration) {
    this.id = id;
    this.role = role;
    this.pc = new RTCPeerConnection(configuration);
  }
}

/**
 * The full mesh: one RTCPeerConnection per remote peer. The peer with the lexicographically
 * smaller id offers (negotiation-roles.ts), so both sides agree without perfect negotiation; the
 * offerer also restarts ICE when a link fails. Offers and answers carry Cairn's Opus parameters
 * (sdp.ts) on both sides, and the sender's maxBitrate is raised to match. A leave, even in the
 * middle of a negotiation, closes the link and drops anything that arrives for it later.
 */
export class PeerMesh {
  /** What the mesh emits: streams that arrived and links that closed. */
  readonly events = new Emitter<PeerMeshEvents>();
  /** The resolved options. */
  readonly options: ResolvedPeerMeshOptions;
  /**
   * Connections created and closed since start (created − closed = open: the leak check); byes
   * sent and received, and offers held until their sender entered hearing range (gated mesh).
   */
  readonly counters = {
    /** RTCPeerConnections created. */
    created: 0,
    /** RTCPeerConnections closed. */
    closed: 0,
    /** Messages for a link that no longer exists (dropped). */
    staleMessages: 0,
    /** Links that failed. */
    failures: 0,
    /** Byes sent. */
    byesSent: 0,
    /** Byes received. */
    byesReceived: 0,
    /** Offers held until their sender entered hearing range. */
    held: 0,
    /** Offers and answers sent. */
    descriptionsSent: 0,
    /** Lone ICE candidates sent (trickled). */
    candidatesSent: 0,
  };
  /** Why the last link failed, or null. */
  lastFailure: string | null = null;
  /** True when links follow {@link follow} (hearing range) rather than the whole room. */
  readonly gated: boolean;
  private localId: number | null = null;
  private readonly links = new Map<number, PeerLink>();
  /** Gated: offers (and their early candidates) from peers not selected yet. */
  private readonly held = new Map<number, { sdp: string; candidates: RTCIceCandidateInit[] }>();
  /** Gated: peers that said bye while we still wanted them (see link-plan.ts). */
  private readonly declined = new Set<number>();
  /** Gated: the peers selected by the last {@link follow}. */
  private wanted = new Set<number>();
  /** Session id of the last connection closed per peer: a late offer for it is stale. */
  private readonly deadSessions = new Map<number, string>();
  private readonly bundle: boolean;
  private readonly gatherMs: number;
  private localTrack: MediaStreamTrack | null = null;
  private localStream: MediaStream | null = null;
  private readonly opus: OpusParameters;
  private readonly configuration: RTCConfiguration;
  private readonly graceMs: number;

  constructor(options: PeerMeshOptions) {
    const resolved = (this.options = resolvePeerMeshOptions(options));
    this.opus = resolved.opus;
    this.configuration = { iceServers: resolved.iceServers, bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require' };
    this.graceMs = resolved.disconnectedGraceSeconds * 1000;
    this.gated = resolved.gated;
    this.bundle = resolved.bundleCandidates;
    this.gatherMs = resolved.gatherTimeoutSeconds * 1000;
  }

  /** Our id in the room. Changing it (after a reconnect) closes every link. */
  setLocalId(id: number): void {
    if (this.localId !== null && this.localId !== id) this.closeLinks();
    this.localId = id;
  }

  /** The track we send (the capture chain's output), or null to listen only. Set before peers. */
  setLocalTrack(track: MediaStreamTrack | null): void {
    this.localTrack = track;
    this.localStream = track ? new MediaStream([track]) : null;
  }

  /** Open links. */
  get size(): number {
    return this.links.size;
  }

  /** Ids of the peers with an open link. */
  peerIds(): number[] {
    return [...this.links.keys()];
  }

  /** The peer's RTCPeerConnection, or null without a link. */
  connection(id: number): RTCPeerConnection | null {
    return this.links.get(id)?.pc ?? null;
  }

  /** A peer is in the room: make a link; the offerer starts negotiating at once. (Full mesh only.) */
  addPeer(id: number): void {
    if (this.gated || this.localId === null || id === this.localId || this.links.has(id)) return;
    const link = this.createLink(id);
    if (link.role === 'offerer') this.enqueue(link, () => this.makeOffer(link, false));
  }

  /** A peer left: tear its link down (safe mid-negotiation; later messages for it are dropped). */
  removePeer(id: number): void {
    const link = this.links.get(id);
    if (link) this.close(link);
    this.held.delete(id);
    this.declined.delete(id);
    this.deadSessions.delete(id);
    this.wanted.delete(id);
  }

  /**
   * Gated mesh: opens and closes links so that they follow hearing range — `roster` maps each
   * voice peer to the avatar it announced, `hearing` holds the avatar ids in earshot. Call on
   * every change of either. See link-plan.ts for the rules (one offerer, held offers, bye).
   */
  follow(roster: ReadonlyMap<number, number | null>, hearing: ReadonlySet<number>): void {
    if (!this.gated) throw new Error('PeerMesh.follow() needs a gated mesh (options.gated: true)');
    this.wanted = wantedPeers(this.localId, roster, hearing);
    const plan = planLinks({
      localId: this.localId,
      roster,
      hearing,
      linked: this.links.keys(),
      held: this.held.keys(),
      declined: this.declined,
    });
    for (const id of plan.close) {
      const link = this.links.get(id);
      if (!link) continue;
      this.close(link);
      if (this.options.send({ type: 'bye', to: id })) this.counters.byesSent++;
    }
    for (const id of plan.dropHeld) this.held.delete(id);
    for (const id of plan.forgive) this.declined.delete(id);
    for (const id of plan.offer) {
      const link = this.createLink(id);
      this.enqueue(link, () => this.makeOffer(link, false));
    }
    for (const id of plan.answer) {
      const offer = this.held.get(id)!;
      this.held.delete(id);
      this.startAnswer(id, offer.sdp, offer.candidates);
    }
  }

  /** Peers whose offers wait for them to enter hearing range (gated mesh). */
  heldIds(): number[] {
    return [...this.held.keys()];
  }

  /** Takes an offer from peer `from` (answering it, or holding it until the peer is selected in a gated mesh). */
  handleOffer(from: number, sdp: string): void {
    if (this.localId === null || from === this.localId) return this.stale();
    const session = sdpSessionId(sdp);
    // An offer (an ICE restart, say) for a connection we already closed: its peer has our bye.
    if (session !== null && this.deadSessions.get(from) === session) return this.stale();
    const existing = this.links.get(from);
    // Only the offerer offers; an offer on a link we offer for is a confused peer: ignore it.
    if (existing?.role === 'offerer') return this.stale();
    if (existing) {
      // A new RTCPeerConnection on the other side (it closed the old one): start over.
      if (session !== null && existing.remoteSession !== null && session !== existing.remoteSession) this.close(existing);
      else return this.enqueue(existing, () => this.answer(existing, sdp));
    }
    if (this.gated && !this.wanted.has(from)) {
      // Not in our earshot (yet): keep the offer; follow() answers it when the peer enters.
      this.held.set(from, { sdp, candidates: [] });
      this.counters.held++;
      return;
    }
    this.startAnswer(from, sdp, []);
  }

  /** Gated mesh: the peer closed its link with us (out of its hearing range). */
  handleBye(from: number): void {
    this.counters.byesReceived++;
    this.held.delete(from);
    const link = this.links.get(from);
    if (link) this.close(link);
    // Still in our earshot: do not dial again until the peer has left it (link-plan.ts).
    if (this.gated && this.localId !== null && from !== this.localId && this.wanted.has(from) && isOfferer(this.localId, from))
      this.declined.add(from);
  }

  /** Takes the answer to our offer from peer `from`. */
  handleAnswer(from: number, sdp: string): void {
    const link = this.links.get(from);
    if (!link) return this.stale();
    this.enqueue(link, async () => {
      if (!link.awaitingAnswer || link.pc.signalingState !== 'have-local-offer') return this.stale();
      link.remoteSession = sdpSessionId(sdp);
      await link.pc.setRemoteDescription({ type: 'answer', sdp: rewriteOpusFmtp(sdp, this.opus) });
      link.awaitingAnswer = false;
      await this.flushCandidates(link);
      await this.raiseBitrate(link);
    });
  }

  /** Takes an ICE candidate from peer `from` (null: end of candidates); held until the remote description is set. */
  handleIce(from: number, candidate: WireCandidate | null): void {
    const link = this.links.get(from);
    if (!link) {
      const held = this.held.get(from);
      if (held) held.candidates.push(candidate ?? { candidate: '' });
      else this.stale();
      return;
    }
    this.enqueue(link, async () => {
      const init: RTCIceCandidateInit = candidate ?? { candidate: '' };
      if (!link.pc.remoteDescription) link.pending.push(init);
      else await link.pc.addIceCandidate(init).catch((error: Error) => this.note(`ICE candidate from ${from} refused: ${error.message}`));
    });
  }

  /** Refreshes every link's figures from getStats(). */
  async pollStats(): Promise<void> {
    await Promise.all(
      [...this.links.values()].map(async (link) => {
        try {
          const report = await link.pc.getStats();
          if (link.closed) return;
          const { figures, sample } = summarizePeerStats(report.values() as Iterable<Record<string, unknown>>, link.sample, Date.now());
          link.figures = figures;
          link.sample = sample;
        } catch {
          // closed mid-call
        }
      }),
    );
  }

  /** The HUD figures of every open link. */
  figures(): PeerLinkFigures[] {
    return [...this.links.values()].map((link) => ({
      ...link.figures,
      id: link.id,
      role: link.role,
      connection: link.pc.connectionState,
      ice: link.pc.iceConnectionState,
      signaling: link.pc.signalingState,
      iceRestarts: link.iceRestarts,
      negotiations: link.negotiations,
    }));
  }

  /** Forces an ICE restart on a link we offer for (diagnostics; failures trigger it themselves). */
  restartIce(id: number): void {
    const link = this.links.get(id);
    if (link?.role === 'offerer') this.enqueue(link, () => this.makeOffer(link, true));
  }

  /** Closes every link and forgets every peer (the mesh stays usable: a new id re-creates them). */
  private closeLinks(): void {
    for (const link of [...this.links.values()]) this.close(link);
    this.held.clear();
    this.declined.clear();
    this.deadSessions.clear();
    this.wanted.clear();
  }

  /** Closes every connection for good. */
  dispose(): void {
    this.closeLinks();
    this.events.clear();
  }

  private startAnswer(from: number, sdp: string, candidates: RTCIceCandidateInit[]): void {
    const link = this.createLink(from, 'answerer');
    link.remoteSession = sdpSessionId(sdp);
    link.pending.push(...candidates);
    this.enqueue(link, () => this.answer(link, sdp));
  }

  private createLink(id: number, role: LinkRole = isOfferer(this.localId!, id) ? 'offerer' : 'answerer'): PeerLink {
    const link = new PeerLink(id, role, this.configuration);
    this.links.set(id, link);
    this.counters.created++;
    const pc = link.pc;
    pc.onicecandidate = (event) => {
      // Bundling, candidates ride in the description; the end-of-candidates marker is not needed.
      if (link.closed || link.holdCandidates || (this.bundle && !event.candidate)) return;
      this.counters.candidatesSent++;
      const c = event.candidate;
      this.options.send({
        type: 'ice',
        to: id,
        candidate: c
          ? { candidate: c.candidate, sdpMid: c.sdpMid, sdpMLineIndex: c.sdpMLineIndex, usernameFragment: c.usernameFragment }
          : null,
      });
    };
    pc.ontrack = (event) => {
      if (link.closed) return;
      this.events.emit('stream', { id, stream: event.streams[0] ?? new MediaStream([event.track]) });
    };
    pc.onconnectionstatechange = () => this.onConnectionState(link);
    if (role === 'offerer') {
      // One audio m-line, added up front; listen-only peers receive without sending.
      if (this.localTrack) pc.addTransceiver(this.localTrack, { direction: 'sendrecv', streams: [this.localStream!] });
      else pc.addTransceiver('audio', { direction: 'recvonly' });
    }
    return link;
  }

  private async makeOffer(link: PeerLink, iceRestart: boolean): Promise<void> {
    if (link.closed) return;
    if (iceRestart) link.iceRestarts++;
    const offer = await link.pc.createOffer({ iceRestart });
    if (link.closed) return;
    const sdp = rewriteOpusFmtp(offer.sdp ?? '', this.opus);
    link.holdCandidates = this.bundle;
    await link.pc.setLocalDescription({ type: 'offer', sdp });
    if (link.closed) return;
    const sent = await this.describe(link, sdp);
    if (link.closed) return;
    link.awaitingAnswer = true;
    link.negotiations++;
    this.counters.descriptionsSent++;
    this.options.send({ type: 'offer', to: link.id, sdp: sent });
  }

  private async answer(link: PeerLink, sdp: string): Promise<void> {
    if (link.closed) return;
    await link.pc.setRemoteDescription({ type: 'offer', sdp: rewriteOpusFmtp(sdp, this.opus) });
    if (link.closed) return;
    const transceiver = link.pc.getTransceivers().find((t) => t.receiver.track.kind === 'audio');
    if (transceiver && transceiver.currentDirection !== 'stopped') {
      if (this.localTrack && transceiver.sender.track !== this.localTrack) {
        await transceiver.sender.replaceTrack(this.localTrack);
        transceiver.sender.setStreams?.(this.localStream!);
      }
      transceiver.direction = this.localTrack ? 'sendrecv' : 'recvonly';
    }
    const answer = await link.pc.createAnswer();
    if (link.closed) return;
    const local = rewriteOpusFmtp(answer.sdp ?? '', this.opus);
    link.holdCandidates = this.bundle;
    await link.pc.setLocalDescription({ type: 'answer', sdp: local });
    if (link.closed) return;
    const sent = await this.describe(link, local);
    if (link.closed) return;
    link.negotiations++;
    this.counters.descriptionsSent++;
    this.options.send({ type: 'answer', to: link.id, sdp: sent });
    await this.flushCandidates(link);
    await this.raiseBitrate(link);
  }

  /**
   * The description to send: `sdp` as set (trickling), or — bundling — the local description
   * once gathering completed (or the wait ran out), candidates inside. From here on, candidates
   * found later trickle.
   */
  private async describe(link: PeerLink, sdp: string): Promise<string> {
    if (!link.holdCandidates) return sdp;
    await gatheringDone(link.pc, this.gatherMs);
    link.holdCandidates = false;
    // The browser re-serialises its local description; the edit is idempotent, so reapply it.
    return rewriteOpusFmtp(link.pc.localDescription?.sdp ?? sdp, this.opus);
  }

  private async flushCandidates(link: PeerLink): Promise<void> {
    const pending = link.pending;
    link.pending = [];
    for (const candidate of pending) {
      await link.pc
        .addIceCandidate(candidate)
        .catch((error: Error) => this.note(`queued ICE candidate from ${link.id} refused: ${error.message}`));
    }
  }

  /** Raises the sender's cap to the bitrate we asked the other side to decode. */
  private async raiseBitrate(link: PeerLink): Promise<void> {
    for (const sender of link.pc.getSenders()) {
      if (sender.track?.kind !== 'audio') continue;
      const params = sender.getParameters();
      if (!params.encodings || params.encodings.length === 0) continue;
      if (params.encodings[0]!.maxBitrate === this.opus.maxaveragebitrate) continue;
      params.encodings[0]!.maxBitrate = this.opus.maxaveragebitrate;
      await sender.setParameters(params).catch((error: Error) => this.note(`setParameters(maxBitrate) failed: ${error.message}`));
    }
  }

  private onConnectionState(link: PeerLink): void {
    if (link.closed) return;
    const state = link.pc.connectionState;
    if (link.graceTimer && state !== 'disconnected') {
      clearTimeout(link.graceTimer);
      link.graceTimer = null;
    }
    if (link.role !== 'offerer') return;
    if (state === 'failed') this.enqueue(link, () => this.makeOffer(link, true));
    else if (state === 'disconnected' && !link.graceTimer) {
      link.graceTimer = setTimeout(() => {
        link.graceTimer = null;
        if (!link.closed && link.pc.connectionState === 'disconnected') this.enqueue(link, () => this.makeOffer(link, true));
      }, this.graceMs);
    }
  }

  private enqueue(link: PeerLink, operation: () => Promise<void>): void {
    link.queue = link.queue.then(operation).catch((error: Error) => {
      if (link.closed) return;
      this.counters.failures++;
      this.note(`peer ${link.id}: ${error.message}`);
    });
  }

  private close(link: PeerLink): void {
    if (link.closed) return;
    link.closed = true;
    if (link.graceTimer) clearTimeout(link.graceTimer);
    this.links.delete(link.id);
    if (link.remoteSession !== null) this.deadSessions.set(link.id, link.remoteSession);
    const pc = link.pc;
    pc.onicecandidate = null;
    pc.ontrack = null;
    pc.onconnectionstatechange = null;
    pc.close();
    this.counters.closed++;
    this.events.emit('closed', link.id);
  }

  private stale(): void {
    this.counters.staleMessages++;
  }

  private note(message: string): void {
    this.lastFailure = message;
  }
}

/** Resolves when the connection has gathered all its ICE candidates, or after `timeoutMs`. */
function gatheringDone(pc: RTCPeerConnection, timeoutMs: number): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      pc.removeEventListener('icegatheringstatechange', check);
      resolve();
    };
    const check = (): void => {
      if (pc.iceGatheringState === 'complete' || pc.signalingState === 'closed') done();
    };
    const timer = setTimeout(done, timeoutMs);
    pc.addEventListener('icegatheringstatechange', check);
  });
}
