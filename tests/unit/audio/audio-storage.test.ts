import { afterEach, describe, expect, it } from 'vitest';
import { AudioSettingsStore } from '../../../src/audio/audio-storage.ts';

/** A Map behind the Storage methods the store uses. */
function fakeStorage(initial: Record<string, string> = {}): Storage {
  const data = new Map(Object.entries(initial));
  return {
    get length() {
      return data.size;
    },
    clear: () => data.clear(),
    getItem: (key) => data.get(key) ?? null,
    key: (i) => [...data.keys()][i] ?? null,
    removeItem: (key) => void data.delete(key),
    setItem: (key, value) => void data.set(key, String(value)),
  };
}

const scope = globalThis as { localStorage?: Storage };
afterEach(() => {
  delete scope.localStorage;
});

describe('AudioSettingsStore', () => {
  it('round-trips mute and volumes', () => {
    scope.localStorage = fakeStorage();
    const store = new AudioSettingsStore('cairn.audio');
    store.save({ muted: true, volumes: { master: 0.5, music: 1.2 } });
    expect(store.load()).toEqual({ muted: true, volumes: { master: 0.5, music: 1.2 } });
  });

  it('clamps volumes to 0…2 and drops values that are not finite numbers, keeping the rest', () => {
    scope.localStorage = fakeStorage({
      k: JSON.stringify({ muted: true, volumes: { master: 7, music: -1, ui: 'loud', effects: null, ambience: 0.4, extra: 1 } }),
    });
    expect(new AudioSettingsStore('k').load()).toEqual({ muted: true, volumes: { master: 2, music: 0, ambience: 0.4 } });
  });

  it('reads corrupt or foreign JSON as defaults, and keeps nothing without a key', () => {
    scope.localStorage = fakeStorage({ a: '{not json', b: JSON.stringify({ muted: 'yes' }), c: '[1,2]' });
    for (const key of ['a', 'b', 'c', 'missing']) expect(new AudioSettingsStore(key).load(), key).toEqual({ muted: false, volumes: {} });
    const none = new AudioSettingsStore(null);
    none.save({ muted: true, volumes: {} });
    expect(scope.localStorage.length).toBe(3);
    expect(none.load()).toEqual({ muted: false, volumes: {} });
  });

  it('survives a storage that throws (private mode, quota)', () => {
    scope.localStorage = {
      ...fakeStorage(),
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
    } as Storage;
    const store = new AudioSettingsStore('k');
    expect(() => store.save({ muted: true, volumes: {} })).not.toThrow();
    expect(store.load()).toEqual({ muted: false, volumes: {} });
  });
});
