import type { TokenBucketLimits } from '../../src/core/token-bucket.ts';
import type { SeatLimits } from '../identity/client.ts';

/**
 * The edits cells' budgets and close codes (pure, so tests read the same figures the cells use;
 * server/world/edits-room.ts applies them).
 */

/** What a client's budget covers in an edits cell: the messages it sends, and the snapshots its joins pull. */
export type EditsBudget = 'edit' | 'join';

/**
 * One client's budgets in one cell. `edit`: a burst of 8 messages, then 2 a second (a painter
 * sends one per press). `join`: kilobytes of snapshot, a burst of 1 MB then 64 KB a second — a
 * page joining a full cell (about 90 KB binary) may rejoin ten times at once and then about once
 * every 1.5 s; eight watchers of one address share eight clients' worth.
 */
export const EDITS_LIMITS: Record<EditsBudget, TokenBucketLimits> = {
  edit: { ratePerSecond: 2, burst: 8 },
  join: { ratePerSecond: 64, burst: 1024 },
};
/**
 * Seats in one cell: a session (a tab, another tab of the same browser, a reconnect), the
 * session-less watchers of one address, and one address in all.
 */
export const EDITS_SEATS: SeatLimits = { client: 4, anonymousAddress: 16, address: 64 };
/** Close code for a join refused because its client already holds its most sockets here (as the relay's and voice's). */
export const CLOSE_TOO_MANY_SOCKETS = 4006;
/** Close code for a join refused because its client pulled too many snapshots lately: retry later (with backoff). */
export const CLOSE_TOO_MANY_JOINS = 4029;
/** Close code for a name that is not an edits room. */
export const CLOSE_BAD_ROOM = 4400;
/** Close code for an edits room of a world or cell that does not exist. */
export const CLOSE_NO_SUCH_CELL = 4404;
