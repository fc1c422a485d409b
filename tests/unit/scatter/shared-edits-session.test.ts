import { afterEach, describe, expect, it, vi } from 'vitest';
import { EDIT_SESSION_KEY, editSession } from '../../../src/scatter/shared-scatter.ts';

/** localStorage's interface over a Map (Node has none). */
class MemoryStorage implements Storage {
  private readonly items = new Map<string, string>();
  get length(): number {
    return this.items.size;
  }
  clear(): void {
    this.items.clear();
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

const NOW = Date.UTC(2026, 11, 1, 12);
const HOUR = 3600_000;
const issued = (token: string) => new Response(JSON.stringify({ token, expiresAt: NOW + 24 * HOUR }), { status: 200 });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('editSession (the session shared edits are proven with)', () => {
  it('asks POST /api/session once and keeps the token while it is valid, so a reload can still undo', async () => {
    const fetch = vi.fn(async () => issued('token-one'));
    vi.stubGlobal('fetch', fetch);
    const storage = new MemoryStorage();
    expect(await editSession('http://cairn.test', storage, NOW)).toBe('token-one');
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(fetch).toHaveBeenCalledWith('http://cairn.test/api/session', { method: 'POST' });
    expect(JSON.parse(storage.getItem(EDIT_SESSION_KEY)!)).toEqual({ token: 'token-one', expiresAt: NOW + 24 * HOUR });
    // A reload 20 hours later: the same session, no new request.
    expect(await editSession('http://cairn.test', storage, NOW + 20 * HOUR)).toBe('token-one');
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('replaces a session that has expired, is about to, or is not one', async () => {
    const fetch = vi.fn(async () => issued('token-new'));
    vi.stubGlobal('fetch', fetch);
    const storage = new MemoryStorage();
    for (const kept of [
      JSON.stringify({ token: 'token-old', expiresAt: NOW - 1 }),
      JSON.stringify({ token: 'token-old', expiresAt: NOW + 60_000 }),
      JSON.stringify({ token: 'has spaces', expiresAt: NOW + 10 * HOUR }),
      JSON.stringify({ token: 'token-old' }),
      'not json',
    ]) {
      storage.setItem(EDIT_SESSION_KEY, kept);
      expect(await editSession('http://cairn.test', storage, NOW)).toBe('token-new');
    }
    expect(fetch).toHaveBeenCalledTimes(5);
  });

  it('watches only (null) when the server gives no session, and stores nothing', async () => {
    const storage = new MemoryStorage();
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('too many sessions from this address lately', { status: 429 })),
    );
    expect(await editSession('http://cairn.test', storage, NOW)).toBeNull();
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('offline'))),
    );
    expect(await editSession('http://cairn.test', storage, NOW)).toBeNull();
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('{"token": 5}', { status: 200 })),
    );
    expect(await editSession('http://cairn.test', storage, NOW)).toBeNull();
    expect(storage.length).toBe(0);
  });
});
