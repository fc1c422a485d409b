import { fromBase64Url, mac, sameMac, toBase64Url } from './keys.ts';

/**
 * Avatar tokens: proof that a socket is avatar `id` in an avatar scope, for voice. A relay room
 * issues one in its `welcome` (scope: the room's name), a world cell in its ack (scope `world`);
 * a voice room accepts an `avatar` claim only with a valid, unexpired token for that id and for
 * its own scope ({@link voiceScope}), so nobody can claim to be the avatar standing next to you.
 *
 * 25 bytes, base64url (34 characters): kind u8 (2) | avatar id u32 | issued u32 (s since epoch) |
 * HMAC-SHA-256 (avatar key) of those 9 bytes followed by the scope's name, truncated to 16. The
 * scope is signed but not carried: the checker supplies its own, so a token from another room
 * fails the MAC.
 */

/** How long an avatar token is accepted (ms): a reconnect of avatar sync brings a fresh one. */
export const AVATAR_TOKEN_TTL_MS = 6 * 3600_000;
/** The scope world cells issue and world voice rooms accept. */
export const WORLD_SCOPE = 'world';

const KIND = 2;
const BODY_BYTES = 9;
const MAC_BYTES = 16;

/** The avatar scope a voice room accepts: `world` for world voice rooms, else its own name. */
export function voiceScope(room: string, isWorld: boolean): string {
  return isWorld ? WORLD_SCOPE : room;
}

export async function signAvatarToken(key: CryptoKey, id: number, scope: string, nowMs: number): Promise<string> {
  const bytes = new Uint8Array(BODY_BYTES + MAC_BYTES);
  const view = new DataView(bytes.buffer);
  bytes[0] = KIND;
  view.setUint32(1, id >>> 0, true);
  view.setUint32(5, Math.floor(nowMs / 1000) >>> 0, true);
  bytes.set(await mac(key, signed(bytes, scope), MAC_BYTES), BODY_BYTES);
  return toBase64Url(bytes);
}

/** Null when `token` proves avatar `id` in `scope` at `nowMs`, else why not. */
export async function avatarTokenProblem(key: CryptoKey, token: string, id: number, scope: string, nowMs: number): Promise<string | null> {
  const bytes = token.length <= 64 ? fromBase64Url(token) : null;
  if (!bytes || bytes.length !== BODY_BYTES + MAC_BYTES || bytes[0] !== KIND) return 'malformed avatar token';
  if (!sameMac(await mac(key, signed(bytes, scope), MAC_BYTES), bytes.subarray(BODY_BYTES)))
    return 'avatar token signature does not match (forged, or for another room)';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(1, true) !== id) return `avatar token is for another avatar id, not ${id}`;
  const issuedAt = view.getUint32(5, true) * 1000;
  if (nowMs >= issuedAt + AVATAR_TOKEN_TTL_MS) return 'avatar token expired';
  if (issuedAt > nowMs + 60_000) return 'avatar token issued in the future';
  return null;
}

/** The bytes the MAC covers: the token's body, then the scope's name (UTF-8). */
function signed(bytes: Uint8Array, scope: string): Uint8Array {
  const name = new TextEncoder().encode(scope);
  const out = new Uint8Array(BODY_BYTES + name.length);
  out.set(bytes.subarray(0, BODY_BYTES));
  out.set(name, BODY_BYTES);
  return out;
}
