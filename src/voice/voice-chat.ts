import { withDefaults } from '../core/options.ts';
import type { CairnNotice } from '../world/cairn-global.ts';
import { AvatarClaim } from './avatar-claim.ts';
import { CAPTURE_CONSTRAINTS, CaptureChain } from './capture-chain.ts';
import { RNNOISE_SAMPLE_RATE } from './denoise/rnnoise-denoiser.ts';
import type { VoiceHearingSource } from './hearing-source.ts';
import { PeerMesh } from './peer-mesh.ts';
import { VOICE_CLOSE, isAvatarId, type WirePosition } from './protocol/signaling.ts';
import type { TalkMode } from './push-to-talk.ts';
import { SignalingClient } from './signaling-client.ts';
import { SpatialMixer } from './spatial-mixer.ts';
import { emptyVoiceStats, type MicState, type VoiceStats } from './voice-stats.ts';

/** Options of a {@link VoiceChat}. */
export interface VoiceChatOptions {
  /** Voice room to join. Default 'lobby'. */
  room?: string;
  /** http(s) origin of the Cairn server. Default the page's origin. */
  serverUrl?: string;
  /** Audio context. Default a new 48 kHz interactive one (RNNoise runs at 48 kHz). */
  context?: AudioContext;
  /** Push-to-talk ('push-to-talk', hold a key) or open mic. Default 'push-to-talk'. */
  mode?: TalkMode;
  /** RNNoise worklet URL (default: the module-relative file next to the capture chain). */
  workletUrl?: string | URL;
  /** STUN/TURN servers for peers behind NAT. Default none (host candidates: same machine or LAN). */
  iceServers?: RTCIceServer[];
  /** Keep-alive ping interval, ms. Default 5,000 (the room is told it in whole seconds, 1–60). */
  pingMs?: number;
  /** Signaling silent this long counts as dead and reconnects, ms. Default 15,000. */
  deadMs?: number;
  /** Position updates sent per second at most. Default 10 (the room accepts 15). */
  positionRate?: number;
  /** Shows a message to the user (e.g. showNotice). Default: none. */
  notify?: (notice: CairnNotice) => void;
  /**
   * Follow hearing range instead of the whole room: link only to peers whose announced avatar id
   * is in this set (the open world: a world of 1,000 is not a mesh of 1,000). With a `positionOf`,
   * voices are placed where their avatars stand and no positions go through the room. Default
   * none: link to everyone in the room (the full mesh, ≤ 16).
   */
  hearing?: VoiceHearingSource;
  /** This player's avatar id to announce (see {@link VoiceChat.setAvatarId}). Default null. */
  avatarId?: number | null;
  /**
   * The proof that goes with the avatar claim: the signed token the relay room or world cell issued
   * for this player's avatar id (`NetSession.avatarToken`). Read each time a claim is sent; a claim
   * whose token changed is sent again. Default: none (a claim without proof, which a room that
   * checks avatar tokens refuses).
   */
  avatarToken?: () => string | null;
  /**
   * This tab's session token (`POST /api/session`), sent as `?session=` on the voice socket. An
   * avatar token counts only on a voice socket of the session its avatar socket was opened with,
   * so pass the session the net session's sockets use. Default none.
   */
  session?: string | null;
}

/** {@link VoiceChatOptions} with every default filled in (`context` stays optional: one is made when absent). */
export interface ResolvedVoiceChatOptions {
  /** The voice room joined. */
  room: string;
  /** http(s) origin of the Cairn server. */
  serverUrl: string;
  /** The audio context given, or null for a new one. */
  context: AudioContext | null;
  /** Push-to-talk or open mic at the start. */
  mode: TalkMode;
  /** The RNNoise worklet URL, or undefined for the bundled one. */
  workletUrl: string | URL | undefined;
  /** STUN/TURN servers. */
  iceServers: RTCIceServer[];
  /** Keep-alive ping interval (ms). */
  pingMs: number;
  /** Silence (ms) after which signaling reconnects. */
  deadMs: number;
  /** Position updates per second at most. */
  positionRate: number;
  /** Shows a message to the user. */
  notify: (notice: CairnNotice) => void;
  /** The hearing range to follow, or null for the whole room. */
  hearing: VoiceHearingSource | null;
  /** The avatar id announced at the start, or null. */
  avatarId: number | null;
  /** Reads the avatar token that goes with the claim. */
  avatarToken: () => string | null;
  /** This tab's session token, or null. */
  session: string | null;
}

/** The defaults, applied once. */
export function resolveVoiceChatOptions(options: VoiceChatOptions = {}): ResolvedVoiceChatOptions {
  // The page's origin is read only when no server is given: the options also resolve where there is no page.
  const serverUrl = options.serverUrl ?? location.origin;
  return { ...withDefaults(VOICE_CHAT_DEFAULTS, options), serverUrl, workletUrl: options.workletUrl };
}

/**
 * Defaults of a {@link VoiceChat}: the lobby on this page's origin, its own audio context,
 * push-to-talk, the bundled worklet, no ICE servers, a ping every 5 s (dead after 15 s), positions
 * 10 times a second, no notices, everyone heard, no avatar claim, no session.
 */
const VOICE_CHAT_DEFAULTS: Omit<ResolvedVoiceChatOptions, 'serverUrl' | 'workletUrl'> = {
  room: 'lobby',
  context: null,
  mode: 'push-to-talk',
  iceServers: [],
  pingMs: 5000,
  deadMs: 15_000,
  positionRate: 10,
  notify: () => undefined,
  hearing: null,
  avatarId: null,
  avatarToken: () => null,
  session: null,
};

/** Only positions that moved this much (m, rad) are worth a message. */
const MOVE_EPSILON = 0.02;
const TURN_EPSILON = 0.02;
/** Following hearing range, voices move to their avatars' places at most this often (ms). */
const AVATAR_POSITION_MS = 50;
/** An avatar id refused as taken is asked for again after this long (ms). */
const AVATAR_RETRY_MS = 5000;

/**
 * Proximity voice chat for one room: microphone → capture chain (RNNoise, compressor,
 * push-to-talk, broadcast delay) → one WebRTC connection per peer → each remote voice through its
 * own HRTF panner, placed where that peer stands. Positions and signaling go through the
 * VoiceRoom; audio never touches the server.
 *
 * ```ts
 * const voice = new VoiceChat({ room: 'lobby', notify: showNotice });
 * await voice.join();
 * stage.onFrame(() => voice.setListener(player.state));   // x, y, z, facing
 * voice.press(); voice.release();                          // push-to-talk
 * voice.setDelay(true); voice.dump();                      // radio-style five-second delay
 * ```
 */
export class VoiceChat {
  /** The audio context everything runs in. */
  readonly context: AudioContext;
  /** The voice room. */
  readonly room: string;
  /** The signaling connection to the room. */
  readonly signaling: SignalingClient;
  /** The WebRTC links to the other peers. */
  readonly mesh: PeerMesh;
  /** Places and mixes the other peers' voices. */
  readonly mixer: SpatialMixer;
  /** The capture chain, or null when listening only (no microphone). */
  capture: CaptureChain | null = null;
  /** The microphone stream, or null. */
  microphone: MediaStream | null = null;
  /** The live figures (also `cairn.stats.voice`). */
  readonly stats: VoiceStats;
  /** The resolved options. */
  readonly options: ResolvedVoiceChatOptions;
  private micSource: MediaStreamAudioSourceNode | null = null;
  private sendNode: MediaStreamAudioDestinationNode | null = null;
  private listener: WirePosition = { x: 0, y: 0, z: 0, facing: 0 };
  private lastSent: (WirePosition & { at: number }) | null = null;
  private statsTimer: ReturnType<typeof setInterval> | null = null;
  private statsTicks = 0;
  private joined = false;
  private disposed = false;
  /** Told the user the room is full (once per run of refusals; a welcome resets it). */
  private toldFull = false;
  /** Voice peers in the room → the avatar id each announced. */
  private readonly roster = new Map<number, number | null>();
  private readonly hearing: VoiceHearingSource | null;
  private avatarId: number | null;
  /** The avatar claims sent (a claim is repeated only when the id or the token changes). */
  private readonly claim = new AvatarClaim();
  private unsubscribeHearing: (() => void) | null = null;
  private avatarPositionsAt = Number.NEGATIVE_INFINITY;
  private avatarRetry: ReturnType<typeof setTimeout> | null = null;
  private readonly unlockAudio = (): void => void this.context.resume().catch(() => undefined);

  constructor(options: VoiceChatOptions = {}) {
    const o = (this.options = resolveVoiceChatOptions(options));
    this.room = o.room;
    this.hearing = o.hearing;
    this.avatarId = o.avatarId;
    if (this.avatarId !== null && !isAvatarId(this.avatarId))
      throw new RangeError(`VoiceChat: avatarId must be an integer from 1 to 4294967295 or null, not ${String(this.avatarId)}`);
    this.context = o.context ?? new AudioContext({ sampleRate: RNNOISE_SAMPLE_RATE, latencyHint: 'interactive' });
    this.stats = emptyVoiceStats(this.room, o.mode);
    // `ping` tells the room how often we ping (whole seconds on the wire), so it can drop us if we
    // go silent (a crashed tab).
    const session = o.session ? `&session=${encodeURIComponent(o.session)}` : '';
    const url = `${o.serverUrl.replace(/^http/, 'ws')}/rooms/voice/${encodeURIComponent(this.room)}?ping=${o.pingMs / 1000}${session}`;
    this.signaling = new SignalingClient({ url, pingMs: o.pingMs, deadMs: o.deadMs });
    this.mixer = new SpatialMixer(this.context);
    this.mesh = new PeerMesh({ send: (message) => this.signaling.send(message), iceServers: o.iceServers, gated: this.hearing !== null });
    this.mesh.events.on('stream', ({ id, stream }) => this.mixer.addStream(id, stream));
    this.mesh.events.on('closed', (id) => this.mixer.removeStream(id));
    this.stats.follows = this.hearing ? 'hearing' : 'room';
    this.stats.avatarId = this.avatarId;
    this.wireSignaling();
    if (this.hearing) this.unsubscribeHearing = this.hearing.onChange(() => this.followHearing());
  }

  /**
   * Joins the room: asks for the microphone (listen-only with a clear message if refused), builds
   * the capture chain, connects signaling. Resolves once the chain is built; the connection
   * proceeds in the background (watch `stats.state`).
   */
  async join(): Promise<void> {
    if (this.joined) return;
    // Debian's WebKitGTK is built without WebRTC: say so now, before asking for the microphone or
    // taking a place in the room, not with a ReferenceError when the first peer arrives.
    if (typeof RTCPeerConnection !== 'function') {
      const detail = 'this browser has no WebRTC (RTCPeerConnection is missing), so voice chat cannot connect to anyone';
      this.stats.connections.lastFailure = detail;
      this.options.notify({ level: 'error', title: 'Voice is unavailable in this browser', detail });
      throw new Error(detail);
    }
    this.joined = true;
    if (this.context.state === 'suspended') {
      this.unlockAudio();
      // Autoplay policy: a page opened with ?voice=1 needs one click or key before it can play.
      window.addEventListener('pointerdown', this.unlockAudio, { once: true });
      window.addEventListener('keydown', this.unlockAudio, { once: true });
    }
    await this.openMicrophone();
    if (this.disposed) return;
    this.signaling.connect();
    this.statsTimer = setInterval(() => this.refreshStats(), 250);
  }

  /**
   * Moves the listener to the local player (call every frame) and shares the position (≤ 10 Hz)
   * — or, following hearing range with avatar positions, moves each voice to its avatar instead.
   */
  setListener(pos: { x: number; y: number; z: number; facing: number }): void {
    this.listener = { x: pos.x, y: pos.y, z: pos.z, facing: pos.facing };
    this.mixer.setListener(this.listener);
    if (this.hearing?.positionOf) this.placeVoicesAtAvatars();
    else this.maybeSendPosition(false);
  }

  /**
   * This player's avatar id (null: none), announced to the room now and after every reconnect,
   * so peers following hearing range know which voice belongs to which avatar. The claim carries
   * the avatar token ({@link VoiceChatOptions.avatarToken}) that proves the avatar is ours. Call it
   * whenever avatar sync gets a new id or token (every frame is fine): a claim is sent again only
   * when the id or the token changed.
   */
  setAvatarId(id: number | null): void {
    if (id !== null && !isAvatarId(id))
      throw new RangeError(`VoiceChat.setAvatarId: an avatar id is an integer from 1 to 4294967295 (or null), not ${String(id)}`);
    this.avatarId = id;
    this.stats.avatarId = id;
    this.claimAvatar();
  }

  /** Push-to-talk: start talking. */
  press(): void {
    this.capture?.ptt.press();
  }

  /** Push-to-talk: stop talking (the release drains over 0.4 s). */
  release(): void {
    this.capture?.ptt.release();
  }

  /** Switches between push-to-talk and open mic. */
  setMode(mode: TalkMode): void {
    this.capture?.ptt.setMode(mode);
    this.stats.ptt.mode = mode;
  }

  /** Turns the five-second broadcast delay on or off. */
  setDelay(on: boolean): void {
    this.capture?.delay.setEnabled(on);
  }

  /** Drops everything said in the last five seconds before anyone hears it. */
  dump(): void {
    this.capture?.delay.dump();
  }

  /** Leaves the room and releases the microphone, connections and audio nodes. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.statsTimer) clearInterval(this.statsTimer);
    this.unsubscribeHearing?.();
    if (this.avatarRetry !== null) clearTimeout(this.avatarRetry);
    window.removeEventListener('pointerdown', this.unlockAudio);
    window.removeEventListener('keydown', this.unlockAudio);
    this.signaling.dispose();
    this.mesh.dispose();
    this.mixer.dispose();
    this.capture?.dispose();
    this.micSource?.disconnect();
    for (const track of this.microphone?.getTracks() ?? []) track.stop();
    for (const track of this.sendNode?.stream.getTracks() ?? []) track.stop();
    this.stats.state = 'closed';
    this.refreshStats();
    if (!this.options.context) void this.context.close().catch(() => undefined);
  }

  /** Sends the avatar claim (id and token) if it changed and signaling is up. */
  private claimAvatar(): void {
    const claim = this.claim.next(this.avatarId, this.avatarId === null ? null : this.options.avatarToken());
    if (claim && this.signaling.send(claim)) this.claim.sentClaim(claim);
  }

  private async openMicrophone(): Promise<void> {
    const mic = this.stats.mic;
    mic.state = 'asking';
    try {
      if (!navigator.mediaDevices?.getUserMedia)
        throw Object.assign(new Error('this browser has no getUserMedia (an insecure http:// page?)'), { name: 'NotSupportedError' });
      this.microphone = await navigator.mediaDevices.getUserMedia({ audio: CAPTURE_CONSTRAINTS, video: false });
    } catch (error) {
      const name = (error as Error).name;
      const denied = name === 'NotAllowedError' || name === 'SecurityError';
      this.setMic(
        denied ? 'denied' : 'unavailable',
        denied
          ? 'Microphone access was denied, so you are listening only: others cannot hear you. Allow the microphone for this site and join again to talk.'
          : `No microphone could be opened (${name}: ${(error as Error).message}), so you are listening only.`,
      );
      this.mesh.setLocalTrack(null);
      return;
    }
    if (this.disposed) return;
    this.capture = new CaptureChain(this.context, { workletUrl: this.options.workletUrl, mode: this.options.mode });
    this.capture.on('denoiserFailed', ({ reason }) =>
      this.options.notify({
        level: 'warn',
        title: 'Noise suppression is off',
        detail: `${reason}\nYour voice still goes out through a plain high-pass and compressor.`,
      }),
    );
    await this.capture.ready;
    this.micSource = this.context.createMediaStreamSource(this.microphone);
    this.micSource.connect(this.capture.input);
    this.sendNode = this.context.createMediaStreamDestination();
    this.sendNode.channelCount = 1;
    this.capture.output.connect(this.sendNode);
    const track = this.sendNode.stream.getAudioTracks()[0]!;
    track.contentHint = 'speech';
    this.mesh.setLocalTrack(track);
    this.setMic('live', null);
  }

  private setMic(state: MicState, message: string | null): void {
    this.stats.mic.state = state;
    this.stats.mic.message = message;
    if (message)
      this.options.notify({ level: 'warn', title: state === 'denied' ? 'Voice: listening only' : 'Voice: no microphone', detail: message });
  }

  private wireSignaling(): void {
    const s = this.signaling.events;
    s.on('welcome', (welcome) => {
      // A new id (after a reconnect) closes every old link; the roster re-creates them.
      this.mesh.setLocalId(welcome.id);
      this.roster.clear();
      for (const peer of welcome.peers) {
        this.roster.set(peer.id, peer.avatar);
        if (peer.pos) this.mixer.setPeerPosition(peer.id, peer.pos);
        this.mesh.addPeer(peer.id);
      }
      this.lastSent = null;
      this.toldFull = false;
      // Say which avatar is ours (also after a reconnect: the new socket starts without one).
      this.claim.reset();
      if (this.avatarId !== null) this.claimAvatar();
      if (this.hearing) this.followHearing();
      if (!this.hearing?.positionOf) this.maybeSendPosition(true);
    });
    s.on('lost', ({ reason, code }) => {
      if (code !== VOICE_CLOSE.full || this.toldFull) return;
      this.toldFull = true;
      this.options.notify({
        level: 'warn',
        title: 'Voice room is full',
        detail: `${reason}.\nRetrying with backoff (up to every 10 s) until a place frees up; the HUD shows the state.`,
      });
    });
    s.on('join', ({ id }) => {
      this.roster.set(id, null);
      this.mesh.addPeer(id);
    });
    s.on('leave', ({ id }) => {
      this.roster.delete(id);
      this.mesh.removePeer(id);
      this.mixer.removePeer(id);
      if (this.hearing) this.followHearing();
    });
    s.on('avatar', ({ from, id }) => {
      if (!this.roster.has(from)) return;
      this.roster.set(from, id);
      if (this.hearing) this.followHearing();
    });
    s.on('bye', ({ from }) => this.mesh.handleBye(from));
    s.on('error', ({ code }) => {
      // Our avatar id is still held by a socket of ours that has not gone yet (a reconnect whose
      // resume did not land): the room reaps it within ~17 s, so ask again until it is ours.
      if (code !== 'avatar-taken' || this.avatarRetry !== null) return;
      this.avatarRetry = setTimeout(() => {
        this.avatarRetry = null;
        if (this.disposed || this.avatarId === null) return;
        this.claim.reset(); // the room refused it: the same claim goes again
        this.claimAvatar();
      }, AVATAR_RETRY_MS);
    });
    s.on('offer', ({ from, sdp }) => this.mesh.handleOffer(from, sdp));
    s.on('answer', ({ from, sdp }) => this.mesh.handleAnswer(from, sdp));
    s.on('ice', ({ from, candidate }) => this.mesh.handleIce(from, candidate));
    s.on('pos', (p) => this.mixer.setPeerPosition(p.from, p));
    s.on('state', (state) => (this.stats.state = state));
  }

  /** Following hearing range: links open and close with who is in earshot (link-plan.ts). */
  private followHearing(): void {
    if (!this.hearing || this.disposed) return;
    this.mesh.follow(this.roster, this.hearing.ids);
    this.avatarPositionsAt = Number.NEGATIVE_INFINITY;
  }

  /** Places each linked voice where its avatar stands (≤ 20 Hz; the panners glide between). */
  private placeVoicesAtAvatars(): void {
    const now = performance.now();
    if (now - this.avatarPositionsAt < AVATAR_POSITION_MS) return;
    this.avatarPositionsAt = now;
    for (const peer of this.mesh.peerIds()) {
      const avatar = this.roster.get(peer);
      const pos = avatar === undefined || avatar === null ? null : this.hearing!.positionOf!(avatar);
      if (pos) this.mixer.setPeerPosition(peer, pos);
    }
  }

  private maybeSendPosition(force: boolean): void {
    if (this.signaling.state !== 'open') return;
    const now = performance.now();
    const p = this.listener;
    const last = this.lastSent;
    if (!force && last) {
      if (now - last.at < 1000 / this.options.positionRate) return;
      const moved = Math.hypot(p.x - last.x, p.y - last.y, p.z - last.z) > MOVE_EPSILON || Math.abs(p.facing - last.facing) > TURN_EPSILON;
      if (!moved) return;
    }
    if (this.signaling.send({ type: 'pos', ...p })) this.lastSent = { ...p, at: now };
  }

  /** Refreshes `stats` (4× a second; WebRTC stats once a second). */
  refreshStats(): void {
    const s = this.stats;
    s.id = this.signaling.id;
    s.audio = this.context.state;
    s.reconnects = this.signaling.reconnects;
    s.lastSignalingError = this.signaling.lastError;
    if (this.capture) {
      s.mic.levelDb = this.capture.micLevelDb();
      s.denoiser = { ...this.capture.denoiser };
      const ptt = this.capture.ptt;
      s.ptt = { mode: ptt.mode, pressed: ptt.pressed, talking: ptt.talking, gain: ptt.node.gain.value };
      const delay = this.capture.delay;
      s.delay = { enabled: delay.enabled, seconds: delay.seconds, phase: delay.phase, resumesIn: delay.resumesIn };
    }
    s.spatial = this.mixer.spatial;
    const levels = this.mixer.outputLevels();
    s.output = { leftDb: levels.left, rightDb: levels.right };
    s.listener = { ...this.listener };
    s.peers = this.mesh.figures().map((figures) => {
      const distance = this.mixer.distanceTo(figures.id);
      return { ...figures, levelDb: this.mixer.peerLevelDb(figures.id), distance: Number.isNaN(distance) ? null : distance };
    });
    const c = this.mesh.counters;
    s.connections = {
      created: c.created,
      closed: c.closed,
      open: this.mesh.size,
      failures: c.failures,
      lastFailure: this.mesh.lastFailure,
    };
    s.links = this.mesh.size;
    s.roomPeers = this.roster.size;
    s.heldOffers = this.mesh.heldIds().length;
    s.byes = { sent: c.byesSent, received: c.byesReceived };
    s.signals = { descriptions: c.descriptionsSent, candidates: c.candidatesSent };
    if (this.hearing) {
      s.hearing = [...this.hearing.ids].sort((a, b) => a - b);
      s.hearingReady = this.hearing.ready !== false;
    }
    if (++this.statsTicks % 4 === 0 && !this.disposed) void this.mesh.pollStats();
  }
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** The voice chat while joined. */
    voice: VoiceChat;
  }
}
