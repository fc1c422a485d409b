/**
 * cairn-world/core: math, the seeded RNG, the spatial hash and the small building blocks every
 * module shares, one of each: the defaults resolver, `Emitter`, the progress shape, `Services`, `Disposers`, decibels,
 * backoff, the reconnecting socket and the token bucket. No three, no DOM.
 *
 * @module core
 */
export * from './math.ts';
export * from './rng.ts';
export * from './spatial-hash.ts';
export * from './ema.ts';
export * from './emitter.ts';
export * from './decibels.ts';
export * from './services.ts';
export * from './options.ts';
export * from './progress.ts';
export * from './typing.ts';
export * from './disposers.ts';
export * from './backoff.ts';
export * from './reconnecting-socket.ts';
export * from './token-bucket.ts';
export * from './server-session.ts';
