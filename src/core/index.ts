/** cairn/core: math, seeded RNG, spatial hash and small utilities shared by every module. */
export * from './math.ts';
export * from './rng.ts';
export * from './spatial-hash.ts';
export * from './ema.ts';
export * from './emitter.ts';
export * from './decibels.ts';
export * from './services.ts';
export * from './options.ts';
export * from './typing.ts';
export * from './disposers.ts';
