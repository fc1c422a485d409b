import { ACESFilmicToneMapping, PCFShadowMap, SRGBColorSpace, WebGPURenderer } from 'three/webgpu';
import { backendHandles, type BackendHandles } from './backend-handles.ts';
import { showNotice } from './notices.ts';
import {
  formatShaderError,
  installShaderDiagnostics,
  needsFlatSamplingShim,
  stripFlatInterpolationSampling,
  type ShaderError,
} from './shader-diagnostics.ts';

/** The rendering backend of three's WebGPURenderer: WebGPU, or its WebGL2 fallback. */
export type BackendName = 'WebGPU' | 'WebGL2';

/** What the renderer bootstrap found out about this device; published in `cairn.stats`. */
export interface RendererStatus {
  /** The backend in use. */
  backend: BackendName;
  /** Why WebGPU is not in use (null when it is): shown to the user, not just logged. */
  fallbackReason: string | null;
  /** Adapter vendor/architecture/description, as far as the browser tells. */
  adapter: string;
  /** GPU frame times can be measured (WebGPU 'timestamp-query'). */
  timestampQueries: boolean;
  /** The WGSL flat-interpolation shim is rewriting shader source on this device. */
  flatSamplingShim: boolean;
  /** A WebGPU compatibility-mode device (fewer vertex storage buffers, no MSAA…). */
  compatibilityMode: boolean;
  /** The adapter is a software rasteriser (SwiftShader, llvmpipe…): a CPU draws, see {@link isSoftwareAdapter}. */
  software: boolean;
}

/** True for an adapter description of a software rasteriser (SwiftShader, llvmpipe, WARP). */
export function isSoftwareAdapter(adapter: string): boolean {
  return /swiftshader|llvmpipe|lavapipe|softpipe|software|basic render|microsoft basic/i.test(adapter);
}

/** Options of {@link createRenderer}. */
export interface CreateRendererOptions {
  /** Use the WebGL2 backend even when WebGPU works (testing both paths, or user choice). */
  forceWebGL?: boolean;
  /** Multisample antialiasing. Default true. */
  antialias?: boolean;
  /** Called for every WGSL compile error with the compiler's own message. */
  onShaderError?: (error: ShaderError) => void;
}

/** What {@link createRenderer} returns: the renderer, its canvas and what it found. */
export interface CreatedRenderer {
  /** The renderer, initialised on its backend. */
  renderer: WebGPURenderer;
  /** The canvas the renderer draws into; a fresh one is made if WebGPU had to be abandoned. */
  canvas: HTMLCanvasElement;
  /** What the bootstrap found: the backend, why not WebGPU, the adapter. */
  status: RendererStatus;
}

/** Thrown when neither WebGPU nor WebGL2 can render here. The message is meant for the user. */
export class NoRendererError extends Error {
  /** The error's name, for telling it apart from other errors. */
  override name = 'NoRendererError';
}

/** Options of {@link prepareWebGPUDevice}. */
export interface PrepareDeviceOptions {
  /** Default 'high-performance'. */
  powerPreference?: GPUPowerPreference;
  /**
   * Called for every WGSL compile error with the compiler's own message. Default
   * {@link showShaderError}: a notice on the page.
   */
  onShaderError?: (error: ShaderError) => void;
}

/** A WebGPU device made ready for Cairn ({@link prepareWebGPUDevice}), or why there is none. */
export type PreparedDevice =
  | {
      /** The device, with the shader diagnostics installed. */
      device: GPUDevice;
      /** Adapter vendor/architecture/description, as far as the browser tells. */
      adapter: string;
      /** The WGSL flat-interpolation shim rewrites shader source on this device (WebKit). */
      flatSamplingShim: boolean;
      /** GPU frame times can be measured (the device has 'timestamp-query'). */
      timestampQueries: boolean;
      /** No reason: there is a device. */
      reason: null;
    }
  | {
      /** No device. */
      device: null;
      /** Why there is none (no WebGPU, no adapter, the device request failed): shown to the user. */
      reason: string;
    };

/** Shows a WGSL compile error as a notice on the page, with the compiler's own message. */
export function showShaderError(error: ShaderError): void {
  showNotice({ level: 'error', title: 'A shader failed to compile', detail: formatShaderError(error) });
}

/**
 * Cairn's browser-support layer for a renderer you create yourself: checks that WebGPU really
 * works here (`navigator.gpu`, a secure context, an adapter, a device), requests the device with
 * every optional feature and the storage limits the crowd needs, installs the WebKit WGSL shim where
 * the device needs it and reports each WGSL compile error with the compiler's own message. Pass
 * the device to your own `WebGPURenderer`, or fall back to WebGL2 with the reason:
 * ```text
 * const gpu = await prepareWebGPUDevice();
 * const renderer = new WebGPURenderer({ device: gpu.device ?? undefined, forceWebGL: gpu.device === null });
 * await renderer.init();
 * const status = describeRenderer(renderer, gpu);   // backend, fallbackReason, adapter, …
 * ```
 * {@link createRenderer} does exactly this (and makes the canvas).
 */
export async function prepareWebGPUDevice(options: PrepareDeviceOptions = {}): Promise<PreparedDevice> {
  if (typeof navigator === 'undefined' || !('gpu' in navigator) || !navigator.gpu) {
    const secure = typeof window === 'undefined' || window.isSecureContext;
    if (!secure) return { device: null, reason: 'WebGPU needs a secure context (https or localhost)' };
    // WebKitGTK with its WebGPU feature on has the property but no implementation behind it.
    const present = typeof navigator !== 'undefined' && 'gpu' in navigator;
    return {
      device: null,
      reason: present
        ? 'this browser has navigator.gpu but it is null (WebGPU is switched on without an implementation)'
        : 'this browser has no WebGPU (navigator.gpu is missing)',
    };
  }
  try {
    const adapter = await navigator.gpu.requestAdapter({ powerPreference: options.powerPreference ?? 'high-performance' });
    if (!adapter)
      return { device: null, reason: 'WebGPU is present but requestAdapter() returned no adapter (GPU blocklisted or unavailable)' };
    // Ask for every optional feature the adapter has (timestamp queries, texture formats…) and the
    // storage limits crowds need, as three does when it creates the device itself.
    const device = await adapter.requestDevice({
      requiredFeatures: [...adapter.features] as GPUFeatureName[],
      requiredLimits: {
        maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
        maxBufferSize: adapter.limits.maxBufferSize,
        maxStorageBuffersPerShaderStage: adapter.limits.maxStorageBuffersPerShaderStage,
      },
    });
    const shim = await needsFlatSamplingShim(device);
    installShaderDiagnostics(device, options.onShaderError ?? showShaderError, shim ? stripFlatInterpolationSampling : undefined);
    const info = adapter.info;
    return {
      device,
      adapter: [info?.vendor, info?.architecture, info?.description].filter(Boolean).join(' / ') || 'unknown adapter',
      flatSamplingShim: shim,
      timestampQueries: device.features.has('timestamp-query'),
      reason: null,
    };
  } catch (error) {
    return { device: null, reason: `the WebGPU device could not be created (${(error as Error).message})` };
  }
}

/**
 * What an initialised renderer runs on (call after `await renderer.init()`): the backend three
 * really started, and why it is not WebGPU (three falls back to WebGL2 by itself when it cannot
 * start WebGPU, and says so only in the console).
 */
export function describeRenderer(renderer: WebGPURenderer, prepared: PreparedDevice): RendererStatus {
  const backend = backendHandles(renderer);
  if (backend.isWebGPUBackend === true && prepared.device !== null) {
    return {
      backend: 'WebGPU',
      fallbackReason: null,
      adapter: prepared.adapter,
      timestampQueries: prepared.timestampQueries,
      flatSamplingShim: prepared.flatSamplingShim,
      compatibilityMode: backend.compatibilityMode === true,
      software: isSoftwareAdapter(prepared.adapter),
    };
  }
  const adapter = glRendererName(backend) ?? 'WebGL2';
  return {
    backend: 'WebGL2',
    fallbackReason: prepared.reason ?? 'three.js did not start its WebGPU backend on this device',
    adapter,
    timestampQueries: false,
    flatSamplingShim: false,
    compatibilityMode: false,
    software: isSoftwareAdapter(adapter),
  };
}

/**
 * The GL renderer behind three's WebGL2 backend as `WebGL2 (name)`, e.g. `WebGL2 (llvmpipe (LLVM 19.1.7, 256 bits))`:
 * the unmasked name where the browser gives it, else `RENDERER`. So a software rasteriser under
 * WebGL2 is known as one (the quality tiers read it) as it is under WebGPU. Null without a context.
 */
function glRendererName(backend: BackendHandles): string | null {
  const gl = backend.gl;
  if (!gl || typeof gl.getParameter !== 'function') return null;
  try {
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const name: unknown = gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER);
    return typeof name === 'string' && name.length > 0 ? `WebGL2 (${name.slice(0, 120)})` : null;
  } catch {
    return null;
  }
}

/**
 * Creates a WebGPURenderer on a real WebGPU device when there is one ({@link prepareWebGPUDevice}):
 * the backend three ends up using must really be WebGPU. Otherwise it falls back to three's WebGL2
 * backend and says why in `status.fallbackReason`. Shader compile errors surface through `onShaderError`.
 */
export async function createRenderer(options: CreateRendererOptions = {}): Promise<CreatedRenderer> {
  let reason: string | null = options.forceWebGL ? 'WebGL2 was requested (?webgl=1)' : null;
  if (!reason) {
    const prepared = await prepareWebGPUDevice({ onShaderError: options.onShaderError });
    if (prepared.device) {
      const canvas = document.createElement('canvas');
      const renderer = new WebGPURenderer({
        canvas,
        device: prepared.device,
        antialias: options.antialias ?? true,
        trackTimestamp: prepared.timestampQueries,
      });
      await renderer.init();
      const status = describeRenderer(renderer, prepared);
      if (status.backend === 'WebGPU') {
        configure(renderer);
        return { renderer, canvas, status };
      }
      renderer.dispose();
      reason = status.fallbackReason;
    } else reason = prepared.reason;
  }
  return createWebGL2(options, reason ?? 'WebGPU is unavailable');
}

async function createWebGL2(options: CreateRendererOptions, reason: string): Promise<CreatedRenderer> {
  const canvas = document.createElement('canvas');
  const gl = canvas.getContext('webgl2');
  if (!gl) {
    throw new NoRendererError(`Cairn cannot render here: WebGPU is unavailable (${reason}) and WebGL2 is not supported either.`);
  }
  // getContext() above claimed the canvas for WebGL2; three asks for the same context type.
  const renderer = new WebGPURenderer({ canvas, forceWebGL: true, antialias: options.antialias ?? true });
  await renderer.init();
  configure(renderer);
  // The unmasked renderer string names a software rasteriser (SwiftShader, llvmpipe) as WebGPU's adapter info does.
  const adapter = glRendererName({ gl }) ?? 'WebGL2';
  return {
    renderer,
    canvas,
    status: {
      backend: 'WebGL2',
      fallbackReason: reason,
      adapter,
      timestampQueries: false,
      flatSamplingShim: false,
      compatibilityMode: false,
      software: isSoftwareAdapter(adapter),
    },
  };
}

function configure(renderer: WebGPURenderer): void {
  renderer.outputColorSpace = SRGBColorSpace;
  renderer.toneMapping = ACESFilmicToneMapping;
  renderer.toneMappingExposure = 0.75;
  renderer.shadowMap.enabled = true;
  renderer.shadowMap.type = PCFShadowMap;
  renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
}
