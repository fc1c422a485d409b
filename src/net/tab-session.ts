/**
 * This tab's session (`POST /api/session`): the identity the server keys budgets on, and the one
 * an avatar token is bound to. The avatar socket (relay room or world cells) and the voice socket
 * of one tab send the same session as `?session=`, so the avatar token the first hands out proves
 * the avatar to the second, and to no other tab (server/identity/avatar-token.ts).
 */
import { keptSession } from '../core/server-session.ts';

/** Where {@link tabSession} keeps the token (in the `storage` it is given). */
export const TAB_SESSION_KEY = 'cairn.tab-session';

/** Answers in flight or given, per storage (a tab) and origin. */
const pending = new WeakMap<object, Map<string, Promise<string | null>>>();
const NO_STORAGE = {};

/**
 * The session token for this tab on `origin` (an http(s) origin): the one kept in `storage` while
 * it is valid (pass `sessionStorage`: one per tab, kept through reloads), else a new one from
 * `POST /api/session`, kept for next time. Every caller in a page gets the same answer from one
 * request, so the avatar and the voice sockets always carry the same session. Null when the
 * server gives none (offline, or too many sessions from this address lately): the sockets then
 * connect without one, and the server knows the tab by its address only.
 */
export function tabSession(origin: string, storage: Storage | null, now = Date.now()): Promise<string | null> {
  let answers = pending.get(storage ?? NO_STORAGE);
  if (!answers) pending.set(storage ?? NO_STORAGE, (answers = new Map()));
  let answer = answers.get(origin);
  if (!answer) {
    answer = keptSession(origin, storage, TAB_SESSION_KEY, now);
    answers.set(origin, answer);
    // A failure is not kept: the next caller (a reconnect, a later Join voice) asks again.
    void answer.then((token) => {
      if (token === null) answers.delete(origin);
    });
  }
  return answer;
}
