import type { DropReason, RelayMode } from '../../src/net/protocol/control.ts';
import type { ProfileDeskStats } from './profile-desk.ts';

/** A room's figures, as `GET /api/rooms/avatar/:room` returns them. */
export interface RoomStats {
  room: string;
  /** Open sockets now. */
  peers: number;
  mode: RelayMode;
  capacity: number;
  /** Times this object was constructed: 1 + evictions (hibernation or restarts) survived. */
  wakes: number;
  /** Ids assigned so far (the durable counter). */
  lastPeerId: number;
  /** Frames accepted from clients. */
  received: number;
  /** Frames delivered (one per recipient). */
  delivered: number;
  /** WebSocket sends made (direct: one per frame per recipient; coalesced: one per recipient per tick). */
  sends: number;
  /** Coalescing ticks flushed. */
  ticks: number;
  /** Leave frames generated. */
  leaves: number;
  /** Joins refused (capacity, bad parameters). */
  refused: number;
  dropped: Record<DropReason, number>;
  /** World cells: notes sent to publishers whose frames arrived off the cell's send moment (`timing`). */
  timingNotes: number;
  /** Display names and looks since the object started (live, not persisted). */
  profiles?: ProfileDeskStats;
}

/** The counters that persist across evictions (the rest are live figures). */
export type PersistedCounters = Pick<
  RoomStats,
  'received' | 'delivered' | 'sends' | 'ticks' | 'leaves' | 'refused' | 'dropped' | 'timingNotes'
>;

export function emptyCounters(): PersistedCounters {
  return {
    received: 0,
    delivered: 0,
    sends: 0,
    ticks: 0,
    leaves: 0,
    refused: 0,
    dropped: { text: 0, size: 0, header: 0, frame: 0, rate: 0, role: 0 },
    timingNotes: 0,
  };
}
