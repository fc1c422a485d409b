import type { DenoiserFigures } from './capture-chain.ts';
import type { DelayPhase } from './delay-schedule.ts';
import type { PeerLinkFigures } from './peer-mesh.ts';
import type { TalkMode } from './push-to-talk.ts';
import type { SignalingState } from './signaling-client.ts';

/** Where the microphone stands. */
export type MicState = 'off' | 'asking' | 'live' | 'denied' | 'unavailable';

/** One remote peer as the HUD shows it. */
export interface VoicePeerStats extends PeerLinkFigures {
  /** Level of its incoming audio before panning, dBFS. */
  levelDb: number;
  /** Distance from the listener, m (null until it has sent a position). */
  distance: number | null;
}

/** `window.cairn.stats.voice`: everything the voice HUD shows, refreshed 4× a second. */
export interface VoiceStats {
  state: 'idle' | SignalingState;
  room: string;
  /** Our peer id in the room. */
  id: number | null;
  /** The AudioContext's state: 'suspended' until the page may play sound (a click or key). */
  audio: AudioContextState | 'none';
  reconnects: number;
  /** The last error the room sent us ("code: message"). */
  lastSignalingError: string | null;
  mic: { state: MicState; levelDb: number; message: string | null };
  denoiser: DenoiserFigures | { state: 'off'; error: null; vad: 0; frames: 0; latencyMs: 0; wet: 0 };
  ptt: { mode: TalkMode; pressed: boolean; talking: boolean; gain: number };
  delay: { enabled: boolean; seconds: number; phase: DelayPhase; resumesIn: number };
  /** 'loading' while the browser loads its HRTF data (voices play unpanned until then). */
  spatial: 'loading' | 'ready';
  output: { leftDb: number; rightDb: number };
  listener: { x: number; y: number; z: number; facing: number };
  peers: VoicePeerStats[];
  /** RTCPeerConnections created, closed and open: created − closed = open, or something leaked. */
  connections: { created: number; closed: number; open: number; failures: number; lastFailure: string | null };
  /**
   * Who voice connects to: 'room' (everyone in the voice room: the full mesh) or 'hearing' (only
   * peers whose avatar is within hearing range: the open world).
   */
  follows: 'room' | 'hearing';
  /** Avatar ids within hearing range now, ascending (empty when following the room). */
  hearing: number[];
  /** False while the hearing source is not connected yet (avatar sync still starting). */
  hearingReady: boolean;
  /** RTCPeerConnections that exist now (any state) — the size of this page's voice mesh. */
  links: number;
  /** Other peers in the voice room (linked or not). */
  roomPeers: number;
  /** The avatar id announced to the voice room (null: none). */
  avatarId: number | null;
  /** Offers waiting for their sender to enter our hearing range. */
  heldOffers: number;
  /** Links closed because a peer left hearing range (ours: sent; theirs: received). */
  byes: { sent: number; received: number };
  /**
   * Offers/answers and lone ICE candidates this page sent through the room. Following hearing
   * range, candidates ride inside the descriptions, so `candidates` stays near 0.
   */
  signals: { descriptions: number; candidates: number };
}

export function emptyVoiceStats(room: string, mode: TalkMode): VoiceStats {
  return {
    state: 'idle',
    room,
    id: null,
    audio: 'none',
    reconnects: 0,
    lastSignalingError: null,
    mic: { state: 'off', levelDb: -120, message: null },
    denoiser: { state: 'off', error: null, vad: 0, frames: 0, latencyMs: 0, wet: 0 },
    ptt: { mode, pressed: false, talking: mode === 'open', gain: mode === 'open' ? 1 : 0 },
    delay: { enabled: false, seconds: 5, phase: 'off', resumesIn: 0 },
    spatial: 'loading',
    output: { leftDb: -120, rightDb: -120 },
    listener: { x: 0, y: 0, z: 0, facing: 0 },
    peers: [],
    connections: { created: 0, closed: 0, open: 0, failures: 0, lastFailure: null },
    follows: 'room',
    hearing: [],
    hearingReady: true,
    links: 0,
    roomPeers: 0,
    avatarId: null,
    heldOffers: 0,
    byes: { sent: 0, received: 0 },
    signals: { descriptions: 0, candidates: 0 },
  };
}

declare module '../world/cairn-global.ts' {
  interface CairnStats {
    /** Voice chat: links, levels, the capture chain. */
    voice?: VoiceStats;
  }
}
