import { withDefaults } from '../../core/options.ts';
import { Emitter } from '../../core/emitter.ts';
import { FrameKind, type AvatarFrame } from '../protocol/frame.ts';
import { RemotePeer } from './remote-peer.ts';

/** Options of a {@link PeerTable}. */
export interface PeerTableOptions {
  /** Render this far behind the newest data (ms); slow peers get more (1.2 × their interval). Default 100. */
  delayMs?: number;
  /** Predict at most this far past a peer's newest sample (ms) before holding still. Default 250. */
  extrapolateMs?: number;
  /** Drop a peer heard from not for this long (ms). Default 3,000. */
  silenceMs?: number;
  /**
   * Keep a peer this long after a leave frame (ms), in case newer frames still arrive (it moved to
   * another world cell, whose frames can overtake the old cell's leave). Default 300.
   */
  leaveGraceMs?: number;
  /** Most peers tracked; frames from more are ignored (counted). Default 512. */
  maxPeers?: number;
}

/** Defaults of a {@link PeerTable}: 100 ms behind, 250 ms of prediction, dropped after 3 s silent or 300 ms after leaving, 512 peers. */
const PEER_TABLE_DEFAULTS: Required<PeerTableOptions> = {
  delayMs: 100,
  extrapolateMs: 250,
  silenceMs: 3000,
  leaveGraceMs: 300,
  maxPeers: 512,
};

/** What happened to one frame offered to the table. */
export type IngestResult = 'added' | 'updated' | 'stale' | 'echo' | 'leave' | 'full';

/**
 * What a {@link PeerTable} counted: frames offered and what became of them. Frames reach the table
 * decoded and validated; what failed validation is counted where it was read (`NetStats.rejected`).
 */
export interface PeerTableStats {
  /** Frames offered. */
  frames: number;
  /** Own frames echoed back (filtered). */
  echoes: number;
  /** Duplicates and out-of-order frames (dropped). */
  stale: number;
  /** Leave frames received. */
  leaves: number;
  /** Peers dropped after silence. */
  silenced: number;
  /** Frames ignored because the table was full. */
  full: number;
}

/** What a {@link PeerTable} emits. */
export interface PeerTableEvents extends Record<string, unknown> {
  /** A peer was heard for the first time (its first frame). */
  added: RemotePeer;
  /** A peer was dropped: silent too long, or a leave's grace ran out. */
  removed: RemotePeer;
}

/**
 * The remote-peer table: one {@link RemotePeer} (interpolation buffer) per sender id. It filters
 * this page's own echo, ignores stale frames, drops a peer after silence or shortly after a leave,
 * and merges frames from any number of sources (several world cells) without duplicates — a
 * sender's sequence numbers decide what is new. Pure: time comes in as `now` (ms).
 */
export class PeerTable {
  /** The remote peers, by sender id. */
  readonly peers = new Map<number, RemotePeer>();
  /** What the table emits: peers added and removed. */
  readonly events = new Emitter<PeerTableEvents>();
  /** Counts of frames offered and what became of them. */
  readonly stats: PeerTableStats = { frames: 0, echoes: 0, stale: 0, leaves: 0, silenced: 0, full: 0 };
  /** This page's id on the wire (frames from it are echoes). */
  selfId: number | null = null;
  /** How far behind the newest data poses are drawn (ms); slow peers get more. */
  readonly delayMs: number;
  /** Longest prediction past a peer's newest sample (ms) before it holds still. */
  readonly extrapolateMs: number;
  /** Silence (ms) after which a peer is dropped. */
  readonly silenceMs: number;
  /** How long a peer is kept after its leave frame (ms). */
  readonly leaveGraceMs: number;
  /** Most peers tracked; frames from more are ignored. */
  readonly maxPeers: number;

  constructor(options: PeerTableOptions = {}) {
    ({
      delayMs: this.delayMs,
      extrapolateMs: this.extrapolateMs,
      silenceMs: this.silenceMs,
      leaveGraceMs: this.leaveGraceMs,
      maxPeers: this.maxPeers,
    } = withDefaults(PEER_TABLE_DEFAULTS, options));
  }

  /** Peers in the table. */
  get size(): number {
    return this.peers.size;
  }

  /** Offers one decoded frame received at local time `now`. */
  ingest(frame: AvatarFrame, now: number): IngestResult {
    this.stats.frames++;
    if (this.selfId !== null && frame.senderId === this.selfId) {
      this.stats.echoes++;
      return 'echo';
    }
    let peer = this.peers.get(frame.senderId);
    if (frame.kind === FrameKind.leave) {
      this.stats.leaves++;
      if (peer && peer.leavingSince === null) peer.leavingSince = now;
      return 'leave';
    }
    if (!peer) {
      if (this.peers.size >= this.maxPeers) {
        this.stats.full++;
        return 'full';
      }
      peer = new RemotePeer(frame.senderId, now);
      peer.accept(frame, now);
      this.peers.set(frame.senderId, peer);
      this.events.emit('added', peer);
      return 'added';
    }
    if (!peer.accept(frame, now)) {
      this.stats.stale++;
      return 'stale';
    }
    return 'updated';
  }

  /** Offers `count` frames (a whole relay message, already validated). */
  ingestAll(frames: readonly AvatarFrame[], count: number, now: number): void {
    for (let i = 0; i < count; i++) this.ingest(frames[i]!, now);
  }

  /** Removes peers that went silent or whose leave grace has passed. Call once per rendered frame. */
  expire(now: number): void {
    for (const peer of this.peers.values()) {
      const left = peer.leavingSince !== null && now - peer.leavingSince >= this.leaveGraceMs;
      const silent = now - peer.lastHeard > this.silenceMs;
      if (!left && !silent) continue;
      if (silent && !left) this.stats.silenced++;
      this.remove(peer.id);
    }
  }

  /** Forgets a peer at once (emits `removed`). */
  remove(id: number): void {
    const peer = this.peers.get(id);
    if (!peer) return;
    this.peers.delete(id);
    this.events.emit('removed', peer);
  }

  /** Forgets everyone (a transport switch or reconnect under a new id). */
  clear(): void {
    for (const id of [...this.peers.keys()]) this.remove(id);
  }

  /** The local time at which `peer` should be drawn now. */
  renderTime(peer: RemotePeer, now: number): number {
    return now - peer.delayFor(this.delayMs);
  }
}
