/**
 * cairn-world/crowd: hundreds of animated characters, one draw call per geometry piece, a few ms of
 * CPU: {@link Crowd} and {@link MixedCrowd} over a {@link CrowdTemplate}, procedural control on the live
 * path ({@link headLookAt}), the bone path and LOD policy, remote avatars and the world's `StageCrowd`.
 * The baking, buffer layouts and materials behind them are internal. See docs/crowd.md.
 *
 * @module crowd
 */
export * from './lod-policy.ts';
export * from './gpu-budget.ts';
export * from './bone-path.ts';
export * from './template.ts';
export * from './clip-sampler.ts';
export * from './look-at.ts';
export * from './variant-table.ts';
export * from './crowd.ts';
export * from './mixed-crowd.ts';
export * from './load-template.ts';
export * from './device.ts';
export * from './crowd-hud.ts';
export * from './synthetic-peers.ts';
export * from './remote-avatars.ts';
export * from './stage-crowd.ts';
