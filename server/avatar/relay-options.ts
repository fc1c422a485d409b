import type { RelayMode } from '../../src/net/protocol/control.ts';

/** How a room relays. Every field has a default; a room's founder may ask for a smaller room or a fixed mode. */
export interface RelayOptions {
  /** Most open sockets in a room; joins past it are refused with close code 4001. Default 320. */
  capacity: number;
  /** Frames per second per socket above which frames are dropped (token bucket). Default 30. */
  rateCap: number;
  /** Frames a socket may send back to back before the rate cap applies. Default 15. */
  rateBurst: number;
  /** Coalescing tick in ms: frames arriving within it go out together. Default 40. */
  tickMs: number;
  /**
   * `auto` (default): forward each frame at once while the room is small, coalesce from
   * {@link coalesceAt} sockets up. `direct` / `coalesce` fix the mode (benchmarks, tests).
   */
  mode: RelayMode | 'auto';
  /** Sockets at which `auto` switches to coalescing (and back below `coalesceAt - 2`). Default 8. */
  coalesceAt: number;
  /**
   * World cells: subscribers watching from a neighbouring cell get their frames at the first tick
   * at least this many ms after their previous delivery (they are drawn further behind anyway:
   * their peers update at half rate). With players sending at random moments (a tick every
   * ~25 ms) that is every 3rd–4th tick; with players sending together (one tick per 100 ms, see
   * `cellSendPhase`) it is every tick — in time, not in ticks, so lining players up never
   * slows the watchers down. Watchers that said they stand close (`pace` close: within the
   * live-detail radius of this cell) are exempt: they get every tick, since the extra wait is
   * visible on a peer 10 m away. Default 0 (plain rooms have no watchers).
   */
  farIntervalMs: number;
}

export const DEFAULT_RELAY_OPTIONS: RelayOptions = {
  capacity: 320,
  rateCap: 30,
  rateBurst: 15,
  tickMs: 40,
  mode: 'auto',
  coalesceAt: 8,
  farIntervalMs: 0,
};

/**
 * World cells always coalesce, on a shorter tick for the players standing in the cell and those
 * watching from close by (50 ms at p99 between neighbours is the target), at most every ~80 ms
 * for the other watchers from the 8 cells around — a watcher's 8 neighbouring cells would
 * otherwise send it 8 × 40 messages a second — and hold the cell's publishers plus everyone
 * watching.
 */
export const CELL_RELAY_OPTIONS: RelayOptions = {
  ...DEFAULT_RELAY_OPTIONS,
  mode: 'coalesce',
  tickMs: 25,
  farIntervalMs: 80,
  capacity: 320,
};

/**
 * Most players publishing in one cell: 80 × 10 frames/s = 800 incoming messages a second, under
 * a Durable Object's ~1,000 requests/s soft limit. A crowd denser than this needs smaller cells
 * (docs/scale.md).
 */
export const MAX_CELL_PUBLISHERS = 80;

/** What a joining socket may ask of the room through its URL (`?mode=…&capacity=…`). */
export interface RoomRequest {
  mode?: RelayMode | 'auto';
  capacity?: number;
}

/**
 * Reads `?mode=` and `?capacity=` from a join URL. Returns a reason for values it cannot honour;
 * a capacity above the default is refused rather than silently clamped.
 */
export function parseRoomRequest(url: URL): { ok: true; value: RoomRequest } | { ok: false; problem: string } {
  const value: RoomRequest = {};
  const mode = url.searchParams.get('mode');
  if (mode !== null) {
    if (mode !== 'auto' && mode !== 'direct' && mode !== 'coalesce')
      return { ok: false, problem: `mode "${mode.slice(0, 20)}" is not one of auto, direct, coalesce` };
    value.mode = mode;
  }
  const capacity = url.searchParams.get('capacity');
  if (capacity !== null) {
    const n = Number(capacity);
    if (!Number.isInteger(n) || n < 1 || n > DEFAULT_RELAY_OPTIONS.capacity)
      return { ok: false, problem: `capacity must be a whole number from 1 to ${DEFAULT_RELAY_OPTIONS.capacity}` };
    value.capacity = n;
  }
  return { ok: true, value };
}

/** Picks the delivery mode for a room of `sockets`, with hysteresis around `coalesceAt`. */
export function chooseMode(options: Pick<RelayOptions, 'mode' | 'coalesceAt'>, sockets: number, current: RelayMode): RelayMode {
  if (options.mode !== 'auto') return options.mode;
  if (current === 'direct') return sockets >= options.coalesceAt ? 'coalesce' : 'direct';
  return sockets <= options.coalesceAt - 2 ? 'direct' : 'coalesce';
}
