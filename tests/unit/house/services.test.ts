import { describe, expect, it } from 'vitest';
import { Services } from '../../../src/core/services.ts';

interface Registry {
  clock: { now(): number };
  name: string;
}

describe('Services', () => {
  it('returns what was provided, by key, and undefined before', () => {
    const services = new Services<Registry>();
    expect(services.get('clock')).toBeUndefined();
    const clock = { now: () => 7 };
    services.provide('clock', clock);
    expect(services.get('clock')).toBe(clock);
    expect(services.get('name')).toBeUndefined();
  });

  it('tells a subscriber the current value at once and every later change', () => {
    const services = new Services<Registry>();
    services.provide('name', 'first');
    const seen: Array<string | undefined> = [];
    const stop = services.subscribe('name', (name) => seen.push(name));
    services.provide('name', 'second');
    stop();
    services.provide('name', 'third');
    expect(seen).toEqual(['first', 'second']);
  });

  it('lets a module that starts first find one that starts later', () => {
    const services = new Services<Registry>();
    const seen: number[] = [];
    services.subscribe('clock', (clock) => clock && seen.push(clock.now()));
    expect(seen).toEqual([]);
    services.provide('clock', { now: () => 3 });
    expect(seen).toEqual([3]);
  });

  it('withdraws only its own value, and mirrors every change', () => {
    const mirror: Record<string, unknown> = {};
    const services = new Services<Registry>((key, value) => void (mirror[key] = value));
    const withdrawFirst = services.provide('name', 'first');
    services.provide('name', 'second');
    withdrawFirst();
    expect(services.get('name')).toBe('second');
    expect(mirror.name).toBe('second');
    const withdrawSecond = services.provide('name', 'third');
    withdrawSecond();
    expect(services.get('name')).toBeUndefined();
    expect(mirror.name).toBeUndefined();
  });

  it('forgets values and subscribers on dispose', () => {
    const services = new Services<Registry>();
    const seen: Array<string | undefined> = [];
    services.subscribe('name', (name) => seen.push(name));
    services.provide('name', 'a');
    services.dispose();
    expect(services.get('name')).toBeUndefined();
    services.provide('name', 'b');
    expect(seen).toEqual(['a']);
  });
});
