/** cairn/world: renderer bootstrap, terrain, sky, player, camera, HUD, the frame loop and window.cairn. */
export * from './renderer.ts';
export * from './wgsl-dialect.ts';
export * from './shader-diagnostics.ts';
export * from './frame-stats.ts';
export * from './cairn-global.ts';
export * from './notices.ts';
export * from './hud.ts';
export * from './stage.ts';
export * from './world.ts';
export * from './environment.ts';
export * from './camera-rig.ts';
export * from './terrain/index.ts';
export * from './terrain/terrain-mesh.ts';
export * from './player/player-controller.ts';
export * from './player/keyboard.ts';
export * from './player/player-avatar.ts';
export * from './services.ts';
