/** Timer functions, injectable so tests and benchmarks can drive time. Default: the global ones. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const globalTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** A debounced function: calls restart the wait; only the last call's arguments run. */
export interface Debounced<A extends unknown[]> {
  (...args: A): void;
  /** Drops the pending call, if any. */
  cancel(): void;
  /** Runs the pending call now, if any. */
  flush(): void;
  /** Whether a call is waiting. */
  readonly pending: boolean;
}

/**
 * Delays `fn` until `waitMs` have passed without another call (trailing edge only), so typing a
 * word runs one search, not one per keystroke. Search input uses 120 ms.
 */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, waitMs: number, timers: Timers = globalTimers): Debounced<A> {
  if (!(waitMs >= 0)) throw new RangeError(`debounce wait must be ≥ 0 ms, got ${waitMs}`);
  let handle: unknown = null;
  let lastArgs: A | null = null;
  const run = (): void => {
    handle = null;
    const args = lastArgs!;
    lastArgs = null;
    fn(...args);
  };
  const debounced = ((...args: A) => {
    lastArgs = args;
    if (handle !== null) timers.clearTimeout(handle);
    handle = timers.setTimeout(run, waitMs);
  }) as Debounced<A>;
  debounced.cancel = () => {
    if (handle !== null) timers.clearTimeout(handle);
    handle = null;
    lastArgs = null;
  };
  debounced.flush = () => {
    if (handle === null) return;
    timers.clearTimeout(handle);
    run();
  };
  Object.defineProperty(debounced, 'pending', { get: () => handle !== null });
  return debounced;
}
