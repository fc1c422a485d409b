import type { DenoiserFigures } from './capture-chain.ts';
import type { DelayPhase } from './delay-schedule.ts';
import type { PeerLinkFigures } from './peer-mesh.ts';
import type { WirePosition } from './protocol/signaling.ts';
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
  /** Where voice stands: idle before joining, else the signaling socket's state. */
  state: 'idle' | SignalingState;
  /** The voice room. */
  room: string;
  /** Our peer id in the room. */
  id: number | null;
  /** The AudioContext's state: 'suspended' until the page may play sound (a click or key). */
  audio: AudioContextState | 'none';
  /** Signaling reconnects since start. */
  reconnects: number;
  /** The last error the room sent us ("code: message"). */
  lastSignalingError: string | null;
  /** The microphone. */
  mic: {
    /** Where it stands. */
    state: MicState;
    /** Its level after the compressor, before push-to-talk (dBFS). */
    levelDb: number;
    /** Why it is not live (denied, none), as told to the user; null when live or off. */
    message: string | null;
  };
  /** The denoiser's figures, or zeros while there is no capture chain. */
  denoiser:
    | DenoiserFigures
    | {
        /** No capture chain (not joined, or listening only). */
        state: 'off';
        /** No error. */
        error: null;
        /** No voice probability. */
        vad: 0;
        /** No frames. */
        frames: 0;
        /** No latency. */
        latencyMs: 0;
        /** No wet share. */
        wet: 0;
      };
  /** Push-to-talk. */
  ptt: {
    /** Push-to-talk or open mic. */
    mode: TalkMode;
    /** The talk key is held. */
    pressed: boolean;
    /** Audio is going out (open mic, or the key held). */
    talking: boolean;
    /** The push-to-talk gain now (0…1, ramping). */
    gain: number;
  };
  /** The broadcast delay. */
  delay: {
    /** On. */
    enabled: boolean;
    /** The delay (s). */
    seconds: number;
    /** Off, building, on, or dumped. */
    phase: DelayPhase;
    /** Seconds until delayed audio is heard again (0 when playing or off). */
    resumesIn: number;
  };
  /** 'loading' while the browser loads its HRTF data (voices play unpanned until then). */
  spatial: 'loading' | 'ready';
  /** What the listener hears. */
  output: {
    /** Left channel level (dBFS). */
    leftDb: number;
    /** Right channel level (dBFS). */
    rightDb: number;
  };
  /** Where the listener is. */
  listener: WirePosition;
  /** One entry per remote peer with a link. */
  peers: VoicePeerStats[];
  /** RTCPeerConnections created, closed and open: created − closed = open, or something leaked. */
  connections: {
    /** Created since start. */
    created: number;
    /** Closed since start. */
    closed: number;
    /** Open now. */
    open: number;
    /** Links that failed. */
    failures: number;
    /** Why the last one failed, or null. */
    lastFailure: string | null;
  };
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
  byes: {
    /** Byes this page sent. */
    sent: number;
    /** Byes it received. */
    received: number;
  };
  /**
   * Offers/answers and lone ICE candidates this page sent through the room. Following hearing
   * range, candidates ride inside the descriptions, so `candidates` stays near 0.
   */
  signals: {
    /** Offers and answers sent. */
    descriptions: number;
    /** Lone ICE candidates sent. */
    candidates: number;
  };
}

/** Zeroed figures for a chat in `room` starting in `mode`. */
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
