import { withDefaults } from '../../core/options.ts';

/** Options of a {@link HearingSet}. */
export interface HearingOptions {
  /** Metres within which a peer is offered a connection. Default 24. */
  enterRadius?: number;
  /** Metres beyond which a connection is closed. Default 32. */
  exitRadius?: number;
  /** Most connections at once (the nearest win). Default 8. */
  max?: number;
}

/** Defaults of a {@link HearingSet}: offered within 24 m, closed beyond 32 m, 8 at most. */
const HEARING_DEFAULTS: Required<HearingOptions> = { enterRadius: 24, exitRadius: 32, max: 8 };

/** Who joined and who left the hearing set in one {@link HearingSet.update}. */
export interface HearingChange {
  /** Peer ids that joined (voice connects to them). */
  added: number[];
  /** Peer ids that left (voice hangs up on them). */
  removed: number[];
}

/**
 * Who is close enough to hear: the peers voice should connect to. Peers within `enterRadius`
 * (nearest first, while fewer than `max`) join; members stay until they are beyond `exitRadius`, so a
 * peer pacing at the edge does not make the voice mesh connect and hang up over and over. Voice
 * discovery follows the same cells as avatars because its input is the avatar peer table, which
 * only holds peers from the 3×3 cells around the player. Pure.
 */
export class HearingSet {
  /** The peer ids within hearing now. */
  readonly ids = new Set<number>();
  /** Metres within which a peer is offered a connection. */
  readonly enterRadius: number;
  /** Metres beyond which a connection is closed. */
  readonly exitRadius: number;
  /** Most members at once. */
  readonly max: number;

  constructor(options: HearingOptions = {}) {
    ({ enterRadius: this.enterRadius, exitRadius: this.exitRadius, max: this.max } = withDefaults(HEARING_DEFAULTS, options));
    if (!(this.exitRadius >= this.enterRadius)) throw new RangeError('HearingSet: exitRadius must be ≥ enterRadius');
  }

  /** Re-selects from `peers` around (x, z); returns who joined and who left. */
  update(x: number, z: number, peers: Iterable<{ id: number; x: number; z: number }>): HearingChange {
    // Members keep their place while within the exit radius; newcomers (within the enter radius,
    // nearest first) only take free places — so a closer stranger never makes voice hang up on
    // someone still in range.
    const members: Array<{ id: number; d: number }> = [];
    const newcomers: Array<{ id: number; d: number }> = [];
    for (const peer of peers) {
      const d = Math.hypot(peer.x - x, peer.z - z);
      if (this.ids.has(peer.id)) {
        if (d <= this.exitRadius) members.push({ id: peer.id, d });
      } else if (d <= this.enterRadius) newcomers.push({ id: peer.id, d });
    }
    members.sort((a, b) => a.d - b.d);
    newcomers.sort((a, b) => a.d - b.d);
    const keep = new Set(members.slice(0, this.max).map((c) => c.id));
    for (const c of newcomers) {
      if (keep.size >= this.max) break;
      keep.add(c.id);
    }
    const added: number[] = [];
    const removed: number[] = [];
    for (const id of this.ids) if (!keep.has(id)) removed.push(id);
    for (const id of keep) if (!this.ids.has(id)) added.push(id);
    for (const id of removed) this.ids.delete(id);
    for (const id of added) this.ids.add(id);
    return { added, removed };
  }
}
