import { Emitter } from './emitter.ts';

/** The change events of a {@link Services} registry: one per key, carrying the new value. */
export type ServiceEvents<Registry> = { [K in keyof Registry & string]: Registry[K] | undefined };

/**
 * A tiny typed store of named services, in the spirit of zustand: one interface declares every key
 * and the type of its value, so `get('net')` returns `NetSession | undefined` with no cast, and a
 * key that is not declared does not compile. Modules publish with `provide`, find each other with
 * `get`, and wait for a service that starts later with `subscribe`.
 *
 * ```ts
 * import { Services } from 'cairn-world/core';
 *
 * interface Registry {
 *   clock: { now(): number };
 * }
 * const services = new Services<Registry>();
 * const seen: number[] = [];
 * const stop = services.subscribe('clock', (clock) => clock && seen.push(clock.now()));
 * services.provide('clock', { now: () => 42 });
 * if (services.get('clock')?.now() !== 42 || seen[0] !== 42) throw new Error('the clock is not there');
 * stop();
 * services.dispose();
 * ```
 */
export class Services<Registry extends object> {
  private values: Partial<Registry> = {};
  private readonly events = new Emitter<ServiceEvents<Registry>>();

  private readonly onProvide?: <K extends keyof Registry & string>(key: K, value: Registry[K] | undefined) => void;

  /**
   * @param onProvide called after every `provide` and withdrawal (e.g. to mirror the services
   *   onto `window.cairn` for the console and tests).
   */
  constructor(onProvide?: <K extends keyof Registry & string>(key: K, value: Registry[K] | undefined) => void) {
    this.onProvide = onProvide;
  }

  /**
   * Publishes `value` under `key`, replacing any earlier value, and tells the key's subscribers.
   * Returns the function that withdraws it (only if it is still the value under `key`).
   */
  provide<K extends keyof Registry & string>(key: K, value: Registry[K]): () => void {
    this.set(key, value);
    return () => {
      if (this.values[key] === value) this.set(key, undefined);
    };
  }

  /** The value under `key`, or undefined while no module has provided it. */
  get<K extends keyof Registry & string>(key: K): Registry[K] | undefined {
    return this.values[key];
  }

  /**
   * Calls `listener` with the value under `key` now (when there is one) and on every later change
   * (undefined when withdrawn), so a module that starts first still finds one that starts later.
   * Returns the function that unsubscribes.
   */
  subscribe<K extends keyof Registry & string>(key: K, listener: (value: Registry[K] | undefined) => void): () => void {
    const off = this.events.on(key, listener);
    const current = this.get(key);
    if (current !== undefined) listener(current);
    return off;
  }

  /** Forgets every value and subscriber (the values themselves are disposed by their owners). */
  dispose(): void {
    this.values = {};
    this.events.clear();
  }

  private set<K extends keyof Registry & string>(key: K, value: Registry[K] | undefined): void {
    if (value === undefined) delete this.values[key];
    else this.values[key] = value;
    this.onProvide?.(key, value);
    this.events.emit(key, value);
  }
}
