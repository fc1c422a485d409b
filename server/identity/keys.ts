/**
 * Signing keys. One 32-byte master key lives in the world directory's storage (created on first
 * use); every object that signs or checks a token fetches it once over RPC and keeps a copy. Each
 * kind of token signs with its own key derived from the master (HMAC-SHA-256 of a label), so a
 * token of one kind can never pass as another.
 */

export type TokenKind = 'world' | 'session' | 'avatar';

const LABELS: Record<Exclude<TokenKind, 'world'>, string> = { session: 'cairn session token v1', avatar: 'cairn avatar token v1' };

export function importHmacKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/** The key for `kind` from the master's raw bytes (the world token signs with the master itself, as it always has). */
export async function deriveKey(master: Uint8Array, kind: TokenKind): Promise<CryptoKey> {
  if (kind === 'world') return importHmacKey(master);
  const base = await importHmacKey(master);
  const derived = new Uint8Array(await crypto.subtle.sign('HMAC', base, new TextEncoder().encode(LABELS[kind])));
  return importHmacKey(derived);
}

export function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** HMAC-SHA-256 of `body`, truncated to `bytes`. */
export async function mac(key: CryptoKey, body: Uint8Array, bytes: number): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, body as Uint8Array<ArrayBuffer>)).subarray(0, bytes);
}

/** Constant-time comparison of two MACs of equal length. */
export function sameMac(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
