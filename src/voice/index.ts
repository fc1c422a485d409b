/**
 * cairn-world/voice: proximity voice chat. Signaling client and protocol, peer mesh, spatial receive,
 * Opus SDP edits, the capture chain (RNNoise worklet, compressor, push-to-talk, broadcast delay),
 * and the HUD rows. See docs/voice.md.
 *
 * @module voice
 */
export * from './protocol/signaling.ts';
export * from './sdp.ts';
export * from './levels.ts';
export * from './ptt-envelope.ts';
export * from './push-to-talk.ts';
export * from './delay-schedule.ts';
export * from './broadcast-delay.ts';
export * from './spatial-model.ts';
export * from './spatial-mixer.ts';
export * from './hrtf-probe.ts';
export * from './peer-stats.ts';
export * from './peer-mesh.ts';
export * from './signaling-client.ts';
export * from './capture-chain.ts';
export * from './voice-stats.ts';
export * from './voice-hud.ts';
export * from './voice-chat.ts';
export * from './avatar-claim.ts';
export * from './hearing-source.ts';
export * from './voice-panel.ts';
/** Voice rooms follow the one room-name rule of the Worker and the relay. */
export { ROOM_NAME_RULE, roomNameIssue } from '../net/protocol/room-name.ts';
export { RNNOISE_FRAME, RNNOISE_SAMPLE_RATE, DENOISE_WET, RnnoiseDenoiser, type RnnoiseModule } from './denoise/rnnoise-denoiser.ts';
export { BlockFramer } from './denoise/block-framer.ts';
