import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { debounce } from '../../../src/assets/debounce.ts';

describe('debounce (search input, 120 ms)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs once, with the last arguments, 120 ms after the last call', () => {
    const calls: string[] = [];
    const search = debounce((q: string) => calls.push(q), 120);
    for (const q of ['r', 'ro', 'roc', 'rock']) {
      search(q);
      vi.advanceTimersByTime(50); // typing faster than the wait
    }
    expect(calls).toEqual([]);
    vi.advanceTimersByTime(69); // 119 ms after the last keystroke
    expect(calls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(calls).toEqual(['rock']);
    vi.advanceTimersByTime(1000);
    expect(calls).toEqual(['rock']);
  });

  it('runs again for a later burst', () => {
    const calls: string[] = [];
    const search = debounce((q: string) => calls.push(q), 120);
    search('a');
    vi.advanceTimersByTime(120);
    search('b');
    search('c');
    vi.advanceTimersByTime(120);
    expect(calls).toEqual(['a', 'c']);
  });

  it('cancel drops the pending call; flush runs it now', () => {
    const calls: string[] = [];
    const search = debounce((q: string) => calls.push(q), 120);
    search('x');
    expect(search.pending).toBe(true);
    search.cancel();
    expect(search.pending).toBe(false);
    vi.advanceTimersByTime(500);
    expect(calls).toEqual([]);
    search('y');
    search.flush();
    expect(calls).toEqual(['y']);
    search.flush(); // nothing pending: no second call
    expect(calls).toEqual(['y']);
  });

  it('rejects a negative wait', () => {
    expect(() => debounce(() => undefined, -1)).toThrow(RangeError);
  });
});
