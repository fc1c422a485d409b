/**
 * cairn-world/audio: procedural sound through one mix bus. Context lifecycle (AudioEngine), the mix bus
 * (MixBus), the synth blocks (Synth.tone / Synth.noiseHit), layered recipes (RECIPES), procedural
 * music (MusicPlayer), ambiences, cooldowns and voice limits, level meters and offline renders.
 *
 * @module audio
 */
export * from './audio-engine.ts';
export * from './audio-input.ts';
export * from './audio-lifecycle.ts';
export * from './audio-storage.ts';
export * from './bus-meter.ts';
export * from './loudness-targets.ts';
export * from './meter/loudness-meter.ts';
export * from './audio-graph.ts';
export * from './audio-random.ts';
export * from './clipper-curve.ts';
export * from './class-budget.ts';
export * from './cooldowns.ts';
export * from './voice-limiter.ts';
export * from './layers.ts';
export * from './synth.ts';
export * from './mix-settings.ts';
export * from './mix-bus.ts';
export * from './meter-tap.ts';
export * from './level-meter.ts';
export * from './music-theory.ts';
export * from './music-score.ts';
export * from './music-player.ts';
export * from './chime-streak.ts';
export * from './surfaces.ts';
export * from './footstep-tracker.ts';
export * from './lifecycle.ts';
export * from './fft.ts';
export * from './render-summary.ts';
export * from './offline-render.ts';
export * from './gameplay-slice.ts';
export * from './hud-rows.ts';
export * from './ambience/wind.ts';
export * from './ambience/fire.ts';
export * from './recipes/index.ts';
export * from './golden-cases.ts';
