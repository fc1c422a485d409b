import { withDefaults } from './options.ts';

/** Options of a {@link Backoff}. */
export interface BackoffOptions {
  /** First delay's upper bound, ms. Default 500. */
  baseMs?: number;
  /** Largest delay, ms. Default 15,000. */
  maxMs?: number;
  /** Uniform [0, 1) source. Default Math.random. */
  random?: () => number;
}

/** {@link BackoffOptions} with every default filled in. */
export type ResolvedBackoffOptions = Required<BackoffOptions>;

/** Defaults of a {@link Backoff}: 500 ms doubling to 15 s, `Math.random` for the jitter. */
const BACKOFF_DEFAULTS: ResolvedBackoffOptions = { baseMs: 500, maxMs: 15_000, random: Math.random };

/** The defaults, applied once. */
export function resolveBackoffOptions(options: BackoffOptions = {}): ResolvedBackoffOptions {
  const resolved = withDefaults(BACKOFF_DEFAULTS, options);
  if (!(resolved.baseMs > 0 && resolved.maxMs >= resolved.baseMs))
    throw new RangeError(`Backoff: need 0 < baseMs (${resolved.baseMs}) ≤ maxMs (${resolved.maxMs})`);
  return resolved;
}

/**
 * Jittered exponential backoff for reconnects: attempt n waits a random time in [cap/2, cap]
 * where cap = min(maxMs, baseMs · 2ⁿ) ("equal jitter"). The random half spreads a room's clients
 * out after a server restart, so they do not all knock at once; the fixed half keeps each client
 * from retrying in a tight loop. Pure: the random source is injectable (seed it to replay a run).
 */
export class Backoff {
  /** Failed attempts since the last success. */
  attempt = 0;
  /** The resolved options: delays and the random source this backoff draws from. */
  readonly options: ResolvedBackoffOptions;

  constructor(options: BackoffOptions = {}) {
    this.options = resolveBackoffOptions(options);
  }

  /** The delay before the next attempt (ms); counts the attempt. */
  next(): number {
    const { baseMs, maxMs, random } = this.options;
    const cap = Math.min(maxMs, baseMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return cap / 2 + random() * (cap / 2);
  }

  /** Call on success: the next failure starts from the base delay again. */
  reset(): void {
    this.attempt = 0;
  }
}
