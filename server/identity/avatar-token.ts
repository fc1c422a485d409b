import type { Cell } from '../../src/net/protocol/world.ts';
import { fromBase64Url, mac, sameMac, toBase64Url } from './keys.ts';

/**
 * Avatar tokens: proof that a socket is avatar `id` in an avatar scope, for voice. A relay room
 * issues one in its `welcome` (scope: the room's name), a world cell in its ack (scope `world`).
 *
 * A token is bound to the socket it was issued to: it names that socket (a random number the
 * issuing room keeps in the socket's attachment) and, for a cell, the cell. A voice room accepts
 * an `avatar` claim only when the token's signature, id, scope and age check out *and* the
 * issuing room says that socket is still open there and belongs to the same client (session) as
 * the claiming voice socket ({@link AvatarIssuer.avatarHolder}). So a token copied to another
 * session, to a socket with no session, or replayed after its socket closed proves nothing;
 * the owner's own reconnect brings a fresh token for its new socket.
 *
 * 34 bytes, base64url (46 characters): kind u8 (3) | avatar id u32 | issued u32 (s since epoch) |
 * socket u32 | issuer u8 (0 relay room, 1 world cell) | cell x i16 | cell z i16 | HMAC-SHA-256
 * (avatar key) of those 18 bytes followed by the scope's name, truncated to 16. The scope is signed
 * but not carried: the checker supplies its own, so a token from another room fails the MAC.
 */

/** How long an avatar token is accepted (ms); its socket must still be open besides. */
export const AVATAR_TOKEN_TTL_MS = 6 * 3600_000;
/** The scope world cells issue and world voice rooms accept. */
export const WORLD_SCOPE = 'world';

const KIND = 3;
const BODY_BYTES = 18;
const MAC_BYTES = 16;

/** What a relay room or world cell signs into an avatar token. */
export interface AvatarTokenGrant {
  /** The avatar id (the socket's peer id, or the world id in a cell). */
  id: number;
  /** The room's name for relay rooms, {@link WORLD_SCOPE} for cells. */
  scope: string;
  /** The issuing socket's random number (u32), kept in its attachment. */
  socket: number;
  /** The issuing cell; null for a relay room. */
  cell: Cell | null;
}

/** A verified token's claims. */
export interface AvatarTokenClaims {
  id: number;
  issuedAt: number;
  socket: number;
  cell: Cell | null;
}

/** The part of a relay room or world cell a voice room asks (RPC) about a token's socket. */
export interface AvatarIssuer {
  /** The client key of the open socket `socket` holding avatar `id` here, or null when there is none. */
  avatarHolder(id: number, socket: number): Promise<string | null>;
}

/** The avatar scope a voice room accepts: `world` for world voice rooms, else its own name. */
export function voiceScope(room: string, isWorld: boolean): string {
  return isWorld ? WORLD_SCOPE : room;
}

/** A fresh socket number for an attachment (never 0, so an attachment without one never matches). */
export function randomSocketNumber(): number {
  return (crypto.getRandomValues(new Uint32Array(1))[0]! >>> 0 || 1) >>> 0;
}

export async function signAvatarToken(key: CryptoKey, grant: AvatarTokenGrant, nowMs: number): Promise<string> {
  const bytes = new Uint8Array(BODY_BYTES + MAC_BYTES);
  const view = new DataView(bytes.buffer);
  bytes[0] = KIND;
  view.setUint32(1, grant.id >>> 0, true);
  view.setUint32(5, Math.floor(nowMs / 1000) >>> 0, true);
  view.setUint32(9, grant.socket >>> 0, true);
  bytes[13] = grant.cell ? 1 : 0;
  view.setInt16(14, grant.cell?.x ?? 0, true);
  view.setInt16(16, grant.cell?.z ?? 0, true);
  bytes.set(await mac(key, signed(bytes, grant.scope), MAC_BYTES), BODY_BYTES);
  return toBase64Url(bytes);
}

/** The claims when `token` is a genuine, unexpired token for avatar `id` in `scope` at `nowMs`, else why not. */
export async function verifyAvatarToken(
  key: CryptoKey,
  token: string,
  id: number,
  scope: string,
  nowMs: number,
): Promise<{ ok: true; claims: AvatarTokenClaims } | { ok: false; problem: string }> {
  const bytes = token.length <= 64 ? fromBase64Url(token) : null;
  if (!bytes || bytes.length !== BODY_BYTES + MAC_BYTES || bytes[0] !== KIND) return { ok: false, problem: 'malformed avatar token' };
  if (!sameMac(await mac(key, signed(bytes, scope), MAC_BYTES), bytes.subarray(BODY_BYTES)))
    return { ok: false, problem: 'avatar token signature does not match (forged, or for another room)' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(1, true) !== id) return { ok: false, problem: `avatar token is for another avatar id, not ${id}` };
  const issuedAt = view.getUint32(5, true) * 1000;
  if (nowMs >= issuedAt + AVATAR_TOKEN_TTL_MS) return { ok: false, problem: 'avatar token expired' };
  if (issuedAt > nowMs + 60_000) return { ok: false, problem: 'avatar token issued in the future' };
  const cell = bytes[13] === 1 ? { x: view.getInt16(14, true), z: view.getInt16(16, true) } : null;
  return { ok: true, claims: { id, issuedAt, socket: view.getUint32(9, true), cell } };
}

/** The bytes the MAC covers: the token's body, then the scope's name (UTF-8). */
function signed(bytes: Uint8Array, scope: string): Uint8Array {
  const name = new TextEncoder().encode(scope);
  const out = new Uint8Array(BODY_BYTES + name.length);
  out.set(bytes.subarray(0, BODY_BYTES));
  out.set(name, BODY_BYTES);
  return out;
}
