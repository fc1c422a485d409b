import type { Cell } from '../../src/net/protocol/world.ts';

/**
 * World identity tokens: who a client is in the open world and which cell it may publish in,
 * signed by the world directory so any cell can check them without asking anyone.
 *
 * 28 bytes, base64url (38 characters): id u32 | cell x i16 | cell z i16 | issued u32 (s since
 * epoch) | HMAC-SHA-256 of the first 12 bytes, truncated to 16 bytes. The key is 32 random bytes
 * the directory creates once and keeps in its storage; cells fetch it once and keep a copy.
 */

/** How long a token lets a socket stay in a cell without renewal (ms). */
export const TOKEN_TTL_MS = 120_000;

export interface TokenClaims {
  id: number;
  cell: Cell;
  /** ms since epoch (second resolution). */
  issuedAt: number;
  /** issuedAt + {@link TOKEN_TTL_MS}. */
  expiresAt: number;
}

const BODY_BYTES = 12;
const MAC_BYTES = 16;

export async function importTokenKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

export function randomTokenKey(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export async function signToken(key: CryptoKey, id: number, cell: Cell, issuedAtMs: number): Promise<string> {
  const bytes = new Uint8Array(BODY_BYTES + MAC_BYTES);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, id >>> 0, true);
  view.setInt16(4, cell.x, true);
  view.setInt16(6, cell.z, true);
  view.setUint32(8, Math.floor(issuedAtMs / 1000) >>> 0, true);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, bytes.subarray(0, BODY_BYTES) as Uint8Array<ArrayBuffer>));
  bytes.set(mac.subarray(0, MAC_BYTES), BODY_BYTES);
  return toBase64Url(bytes);
}

/** Checks a token's signature and expiry; returns its claims or why it is refused. */
export async function verifyToken(
  key: CryptoKey,
  token: string,
  nowMs: number,
): Promise<{ ok: true; claims: TokenClaims } | { ok: false; expired: boolean; reason: string }> {
  const bytes = fromBase64Url(token);
  if (!bytes || bytes.length !== BODY_BYTES + MAC_BYTES) return { ok: false, expired: false, reason: 'malformed world token' };
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, bytes.subarray(0, BODY_BYTES) as Uint8Array<ArrayBuffer>));
  let difference = 0;
  for (let i = 0; i < MAC_BYTES; i++) difference |= mac[i]! ^ bytes[BODY_BYTES + i]!;
  if (difference !== 0) return { ok: false, expired: false, reason: 'world token signature does not match' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const issuedAt = view.getUint32(8, true) * 1000;
  const claims: TokenClaims = {
    id: view.getUint32(0, true),
    cell: { x: view.getInt16(4, true), z: view.getInt16(6, true) },
    issuedAt,
    expiresAt: issuedAt + TOKEN_TTL_MS,
  };
  if (claims.id === 0) return { ok: false, expired: false, reason: 'world token for id 0' };
  if (nowMs >= claims.expiresAt)
    return { ok: false, expired: true, reason: `world token expired ${Math.round((nowMs - claims.expiresAt) / 1000)} s ago` };
  if (issuedAt > nowMs + 60_000) return { ok: false, expired: false, reason: 'world token issued in the future' };
  return { ok: true, claims };
}
