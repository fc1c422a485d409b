/** A minimal typed event emitter. `on` returns the function that unsubscribes. */
export class Emitter<Events extends Record<string, unknown>> {
  private listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  /** Calls `listener` with the payload of every `type` event emitted from now on; returns the function that unsubscribes it. */
  on<K extends keyof Events>(type: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  /**
   * Calls every listener of `type` with `payload`, in the order they subscribed. A listener added or removed during the call takes effect
   * from the next emit.
   */
  emit<K extends keyof Events>(type: K, payload: Events[K]): void {
    const set = this.listeners.get(type);
    if (!set) return;
    for (const listener of [...set]) (listener as (payload: Events[K]) => void)(payload);
  }

  /** Removes every listener of every event (what `dispose()` of an emitting class calls last). */
  clear(): void {
    this.listeners.clear();
  }
}
