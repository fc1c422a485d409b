import { deriveKey, type TokenKind } from './keys.ts';

/**
 * An object's copy of the signing keys: the master key's raw bytes from its own storage, else from
 * `fetchMaster` (the world directory, over RPC) once, stored for next time; each kind's key
 * derived once and kept in memory.
 */
export class KeyRing {
  private master: Promise<Uint8Array> | null = null;
  private readonly keys = new Map<TokenKind, Promise<CryptoKey>>();

  private readonly storage: DurableObjectStorage;
  private readonly fetchMaster: () => Promise<string>;

  constructor(
    storage: DurableObjectStorage,
    /** The master key's raw bytes, base64 (the directory's `worldKey()`). */
    fetchMaster: () => Promise<string>,
  ) {
    this.storage = storage;
    this.fetchMaster = fetchMaster;
  }

  key(kind: TokenKind): Promise<CryptoKey> {
    let key = this.keys.get(kind);
    if (!key) {
      key = this.raw().then((raw) => deriveKey(raw, kind));
      // A failed fetch (the directory restarting) is retried on the next use, not cached.
      key.catch(() => {
        this.keys.delete(kind);
        this.master = null;
      });
      this.keys.set(kind, key);
    }
    return key;
  }

  private raw(): Promise<Uint8Array> {
    this.master ??= (async () => {
      let raw = await this.storage.get<Uint8Array>('world:cellKey');
      if (!raw) {
        const b64 = await this.fetchMaster();
        raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        await this.storage.put('world:cellKey', raw);
      }
      return raw;
    })();
    return this.master;
  }
}
