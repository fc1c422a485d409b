/**
 * A session token from a Cairn server (`POST /api/session`), kept in a `Storage` while it is valid.
 * The one place that asks for, reads and keeps one: the tab's session (src/net/tab-session.ts, kept
 * in `sessionStorage`, one per tab) and the shared edits' author session (src/scatter, kept in
 * `localStorage`, one per browser) are this with their own key.
 */

/** A session token and when it stops being accepted (ms since epoch), as `POST /api/session` answers. */
export interface ServerSession {
  /** The bearer token (1–64 characters of [A-Za-z0-9_-]). */
  token: string;
  /** When the server stops accepting the token, ms since epoch. */
  expiresAt: number;
}

/** A kept token this close to its expiry (ms) is replaced rather than reused. */
export const SESSION_RENEW_MARGIN_MS = 10 * 60_000;

/**
 * The token kept under `key` in `storage` while it has more than {@link SESSION_RENEW_MARGIN_MS}
 * left, else a new one from `POST /api/session` on `origin` (an http(s) origin), kept for next
 * time. Null when the server gives none (offline, refused, or an answer that is not a session).
 * Storage that throws (a sandboxed frame, a full quota) keeps nothing.
 */
export async function keptSession(origin: string, storage: Storage | null, key: string, now = Date.now()): Promise<string | null> {
  const kept = readServerSession(safely(() => storage?.getItem(key) ?? null));
  if (kept && kept.expiresAt - SESSION_RENEW_MARGIN_MS > now) return kept.token;
  try {
    const response = await fetch(`${origin}/api/session`, { method: 'POST' });
    if (!response.ok) return null;
    const issued = readServerSession(await response.text());
    if (!issued) return null;
    safely(() => storage?.setItem(key, JSON.stringify(issued)));
    return issued.token;
  } catch {
    return null;
  }
}

/** A session from its JSON (the server's answer or a kept copy); null for anything else. */
export function readServerSession(text: string | null): ServerSession | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const { token, expiresAt } = value as { token?: unknown; expiresAt?: unknown };
    return typeof token === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(token) && typeof expiresAt === 'number' ? { token, expiresAt } : null;
  } catch {
    return null;
  }
}

function safely<T>(use: () => T): T | null {
  try {
    return use();
  } catch {
    return null;
  }
}
