/**
 * cairn-world/world: the host — renderer bootstrap, terrain, sky, the player and its camera, HUD, notices,
 * the frame loop, the page state (`cairn`) and the typed service registry modules extend.
 *
 * @module world
 */
export * from './renderer.ts';
export * from './wgsl-dialect.ts';
export * from './shader-diagnostics.ts';
export * from './frame-stats.ts';
export * from './cairn-global.ts';
export * from './notices.ts';
export * from './hud.ts';
export * from './dock.ts';
export * from './state-card.ts';
export * from './stage.ts';
export * from './gpu-idle.ts';
export * from './world.ts';
export * from './environment.ts';
export * from './camera-rig.ts';
export * from './terrain/index.ts';
export * from './terrain/terrain-mesh.ts';
export * from './terrain/terrain-material.ts';
export * from './terrain/slow-frames.ts';
export * from './player/player-controller.ts';
export * from './player/keyboard.ts';
export * from './player/player-character.ts';
export * from './services.ts';
export * from './plugins.ts';
