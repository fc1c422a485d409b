import { fromBase64Url, mac, sameMac, toBase64Url } from './keys.ts';

/**
 * Session tokens: the fine-grained client identity. The Worker issues one per `POST /api/session`
 * (the directory rate-limits issuance per IP); a client sends it as `?session=` on every socket,
 * and every room keys its budgets on the session id instead of the socket, so 40 sockets with one
 * session share one client's budget.
 *
 * 29 bytes, base64url (39 characters): kind u8 (1) | session id 8 random bytes | issued u32 (s since
 * epoch) | HMAC-SHA-256 (session key) of the first 13 bytes, truncated to 16.
 */

/** How long a session token is accepted (ms). */
export const SESSION_TTL_MS = 24 * 3600_000;

const KIND = 1;
const BODY_BYTES = 13;
const MAC_BYTES = 16;

export interface SessionClaims {
  /** 16 hex characters. */
  id: string;
  issuedAt: number;
  expiresAt: number;
}

export async function signSession(key: CryptoKey, nowMs: number): Promise<{ token: string; claims: SessionClaims }> {
  const bytes = new Uint8Array(BODY_BYTES + MAC_BYTES);
  bytes[0] = KIND;
  crypto.getRandomValues(bytes.subarray(1, 9));
  new DataView(bytes.buffer).setUint32(9, Math.floor(nowMs / 1000) >>> 0, true);
  bytes.set(await mac(key, bytes.subarray(0, BODY_BYTES), MAC_BYTES), BODY_BYTES);
  const issuedAt = Math.floor(nowMs / 1000) * 1000;
  return { token: toBase64Url(bytes), claims: { id: hex(bytes.subarray(1, 9)), issuedAt, expiresAt: issuedAt + SESSION_TTL_MS } };
}

/** The session's claims, or null when the token is malformed, forged or expired. */
export async function verifySession(key: CryptoKey, token: string, nowMs: number): Promise<SessionClaims | null> {
  if (token.length > 64) return null;
  const bytes = fromBase64Url(token);
  if (!bytes || bytes.length !== BODY_BYTES + MAC_BYTES || bytes[0] !== KIND) return null;
  if (!sameMac(await mac(key, bytes.subarray(0, BODY_BYTES), MAC_BYTES), bytes.subarray(BODY_BYTES))) return null;
  const issuedAt = new DataView(bytes.buffer, bytes.byteOffset).getUint32(9, true) * 1000;
  if (nowMs >= issuedAt + SESSION_TTL_MS || issuedAt > nowMs + 60_000) return null;
  return { id: hex(bytes.subarray(1, 9)), issuedAt, expiresAt: issuedAt + SESSION_TTL_MS };
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
