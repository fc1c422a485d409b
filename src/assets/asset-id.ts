import { AssetError } from './errors.ts';

/**
 * Poly Haven's own rule for asset ids (routes/files.js in its public API): letters, digits, `_`
 * and `-`, at most 50 characters. Anything else is never sent: it cannot name an asset, and it
 * could steer a request somewhere else (`../`, `?`, `#`, `%2F`).
 */
export const ASSET_ID_PATTERN = /^[A-Za-z0-9_-]{1,50}$/;

/** Whether `id` is a string Poly Haven could name an asset by ({@link ASSET_ID_PATTERN}). */
export function isValidAssetId(id: unknown): id is string {
  return typeof id === 'string' && ASSET_ID_PATTERN.test(id);
}

/** Throws an `invalid-id` {@link AssetError} for anything {@link isValidAssetId} rejects. */
export function assertValidAssetId(id: unknown): asserts id is string {
  if (!isValidAssetId(id)) {
    const shown = typeof id === 'string' ? JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id) : String(id);
    throw new AssetError(
      'invalid-id',
      `${shown} is not a Poly Haven asset id (letters, digits, _ and -, up to 50 characters); nothing was requested`,
    );
  }
}
