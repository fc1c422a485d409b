/** Types for the synchronous RNNoise build (WASM inlined as base64), which ships without any. */
declare module '@jitsi/rnnoise-wasm/dist/rnnoise-sync.js' {
  import type { RnnoiseModule } from './rnnoise-denoiser.ts';
  /** Instantiates the module synchronously (allowed in an AudioWorklet, where async fetches are not). */
  export default function createRNNWasmModuleSync(options?: Record<string, unknown>): RnnoiseModule;
}
