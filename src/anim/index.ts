/**
 * cairn-world/anim: animation state machine with clip aliases, mixer driver, retargeting, parity
 * check.
 *
 * @module anim
 */
export * from './state-machine.ts';
export * from './mixer-driver.ts';
export * from './rig-offset.ts';
export * from './rigs/cc4.ts';
export * from './rigs/cc4-body.ts';
export * from './rigs/cc4-character.ts';
export * from './library/index.ts';
export { SWIM_RIG_OFFSETS } from './library/movement.ts';
export * from './view/reference-view.ts';
export * from './retarget/rig-description.ts';
export * from './retarget/canonical.ts';
export * from './retarget/bone-maps.ts';
export * from './retarget/auto-map.ts';
export * from './retarget/bone-map.ts';
export * from './retarget/retarget-clip.ts';
export * from './retarget/retarget-library.ts';
export * from './retarget/instantiate.ts';
export * from './parity/parity-check.ts';
export * from './parity/baseline.ts';
export * from './retarget/library-for-rig.ts';
