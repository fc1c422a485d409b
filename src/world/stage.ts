import { PerspectiveCamera, Scene } from 'three';
import type { WebGPURenderer } from 'three/webgpu';
import { Disposers } from '../core/disposers.ts';
import { Services } from '../core/services.ts';
import { createCairnGlobal, type CairnGlobal } from './cairn-global.ts';
import { FrameStats } from './frame-stats.ts';
import { gpuIdle } from './gpu-idle.ts';
import { Hud } from './hud.ts';
import { showNotice } from './notices.ts';
import { createRenderer, showShaderError, type RendererStatus } from './renderer.ts';
import type { ShaderError } from './shader-diagnostics.ts';
import type { WorldServices } from './services.ts';

/** Options of {@link createStage}. */
export interface StageOptions {
  /** Element the canvas and HUD go into. Default document.body. */
  container?: HTMLElement;
  /** Use the WebGL2 backend even where WebGPU works (Cairn's pages set it from `?webgl=1`). Default false. */
  forceWebGL?: boolean;
  /**
   * The page state the stage fills: its figures, main objects and a mirror of every service. Pass
   * the object the page publishes (Cairn's pages: `window.cairn`). Default a fresh one, on
   * `stage.cairn`.
   */
  cairn?: CairnGlobal;
  /** Field of view in degrees. Default 55. */
  fov?: number;
  /** Show the HUD. Default true. */
  hud?: boolean;
}

/** Options of {@link Stage.frames}. */
export interface FramesOptions {
  /** Also wait until the GPU has finished the frames ({@link gpuIdle}). Default false. */
  gpu?: boolean;
}

/** Work done every frame before rendering; `dt` in seconds (clamped), `time` in seconds. */
export type FrameCallback = (dt: number, time: number) => void;

/**
 * A page's rendering shell: renderer (WebGPU with a WebGL2 fallback), scene, camera, HUD, frame
 * loop and the live figures in `window.cairn.stats`. The world and every focused page build on it.
 */
export interface Stage {
  /** The renderer (WebGPU, or its WebGL2 backend). */
  renderer: WebGPURenderer;
  /** What the renderer bootstrap found (also in `cairn.stats.backend` and `backendReason`). */
  status: RendererStatus;
  /** The canvas the renderer draws into, sized to the container (the window for document.body). */
  canvas: HTMLCanvasElement;
  /** The scene rendered every frame. */
  scene: Scene;
  /** The camera the scene is rendered from. */
  camera: PerspectiveCamera;
  /** The HUD, or null when the stage was made with `hud: false`. */
  hud: Hud | null;
  /** Frame, CPU and GPU figures behind `cairn.stats`. */
  frameStats: FrameStats;
  /** The page state the stage fills (the one given in {@link StageOptions.cairn}, or its own). */
  cairn: CairnGlobal;
  /** Typed registry through which modules publish services and find each other's (mirrored onto `cairn`). */
  services: Services<WorldServices>;
  /** Adds a per-frame callback; returns the function that removes it. */
  onFrame(callback: FrameCallback): () => void;
  /** Adds a callback run after each render (for readbacks, stats); returns its remover. */
  afterRender(callback: FrameCallback): () => void;
  /**
   * Resolves after `count` more frames have rendered. With `{ gpu: true }`, also once the GPU has
   * finished them, so a picture read then (a screenshot, a readback) shows the last of them: a
   * software GPU can run frames behind the page. The wait costs: on SwiftShader a walk test that
   * waits on frames took 68 s with it against 39 s without.
   */
  frames(count?: number, options?: FramesOptions): Promise<void>;
  /**
   * Adds what to undo when the stage is disposed (a module's listeners, sockets, scene objects);
   * they run in reverse order of adding, before the renderer goes. Returns the function that removes it.
   */
  onDispose(dispose: () => void): () => void;
  /** Starts the frame loop (`createStage` and `createWorld` start it). */
  start(): void;
  /** Stops the frame loop; {@link start} resumes it. */
  stop(): void;
  /** Runs every {@link onDispose} callback (newest first), then frees the renderer, HUD and canvas. */
  dispose(): void;
}

/** Any page's shell: the renderer (WebGPU, the WebGL2 fallback with its reason), scene, camera, HUD and frame loop. */
export async function createStage(options: StageOptions = {}): Promise<Stage> {
  const container = options.container ?? document.body;
  const cairn = options.cairn ?? createCairnGlobal();
  const shaderErrors: ShaderError[] = [];
  cairn.shaderErrors = shaderErrors;
  const { renderer, canvas, status } = await createRenderer({
    forceWebGL: options.forceWebGL ?? false,
    onShaderError(error) {
      shaderErrors.push(error);
      cairn.stats.shaderErrors = shaderErrors.length;
      // The real compiler message, on the page — not only three's generic log line.
      showShaderError(error);
    },
  });
  canvas.className = 'cairn-canvas';
  Object.assign(canvas.style, { position: 'fixed', inset: '0', width: '100%', height: '100%', display: 'block', touchAction: 'none' });
  container.append(canvas);
  cairn.stats.backend = status.backend;
  cairn.stats.backendReason = status.fallbackReason;
  cairn.renderer = renderer;
  cairn.rendererStatus = status;
  if (status.fallbackReason) {
    showNotice({
      level: 'warn',
      title: 'Running on WebGL2, not WebGPU',
      detail: `${status.fallbackReason}.\nThe world runs; GPU timings are unavailable and GPU-heavy modules use their WebGL2 paths.`,
    });
  }

  const scene = new Scene();
  const camera = new PerspectiveCamera(options.fov ?? 55, 1, 0.1, 5000);
  const resize = (): void => {
    const width = container === document.body ? window.innerWidth : container.clientWidth;
    const height = container === document.body ? window.innerHeight : container.clientHeight;
    renderer.setSize(width, height, false);
    camera.aspect = width / Math.max(1, height);
    camera.updateProjectionMatrix();
  };
  resize();
  window.addEventListener('resize', resize);

  const hud = options.hud === false ? null : new Hud({ container, stats: () => cairn.stats });
  // Published so automation can redraw it before reading it, instead of racing the 250 ms beat.
  if (hud) cairn.hud = hud;
  const frameStats = new FrameStats();
  const frameCallbacks = new Set<FrameCallback>();
  const afterCallbacks = new Set<FrameCallback>();
  const waiters: Array<{ frame: number; gpu: boolean; resolve: () => void }> = [];
  const disposers = new Disposers();
  let disposed = false;
  let lastTime = Number.NaN;
  let resolving = false;

  const tick = (timeMs: number): void => {
    const start = performance.now();
    frameStats.beginFrame(start);
    const dt = Number.isNaN(lastTime) ? 1 / 60 : Math.min(0.1, Math.max(0, (timeMs - lastTime) / 1000));
    lastTime = timeMs;
    const time = timeMs / 1000;
    for (const callback of frameCallbacks) callback(dt, time);
    renderer.render(scene, camera);
    frameStats.recordCpu(performance.now() - start);

    const stats = cairn.stats;
    stats.frame = frameStats.frame;
    stats.fps = frameStats.fps;
    stats.frameMs = frameStats.cpuMs.value;
    stats.drawCalls = renderer.info.render.drawCalls;
    stats.triangles = renderer.info.render.triangles;
    if (status.timestampQueries && !resolving && frameStats.frame % 4 === 0) {
      resolving = true;
      renderer
        .resolveTimestampsAsync('render')
        .then((ms) => {
          if (typeof ms === 'number' && ms > 0) frameStats.recordGpu(ms);
          stats.gpuMs = frameStats.gpuMs.ready ? frameStats.gpuMs.value : null;
        })
        .catch(() => undefined)
        .finally(() => (resolving = false));
    }
    for (const callback of afterCallbacks) callback(dt, time);
    if (!cairn.ready) cairn.ready = true;
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (frameStats.frame >= waiters[i]!.frame) {
        const { resolve, gpu } = waiters.splice(i, 1)[0]!;
        // A lost device or context must not hang the caller: it resolves either way.
        if (gpu) gpuIdle(renderer).then(resolve, resolve);
        else resolve();
      }
    }
  };

  const stage: Stage = {
    renderer,
    status,
    canvas,
    scene,
    camera,
    hud,
    frameStats,
    cairn,
    // The console and tests read each service on window.cairn under its key.
    services: new Services<WorldServices>((key, value) => void Reflect.set(cairn, key, value)),
    onFrame(callback) {
      frameCallbacks.add(callback);
      return () => frameCallbacks.delete(callback);
    },
    afterRender(callback) {
      afterCallbacks.add(callback);
      return () => afterCallbacks.delete(callback);
    },
    frames(count = 1, options = {}) {
      return new Promise((resolve) => waiters.push({ frame: frameStats.frame + count, gpu: options.gpu === true, resolve }));
    },
    onDispose(dispose) {
      disposers.add(dispose);
      return () => disposers.remove(dispose);
    },
    start() {
      void renderer.setAnimationLoop(tick);
    },
    stop() {
      void renderer.setAnimationLoop(null);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      stage.stop();
      disposers.dispose();
      window.removeEventListener('resize', resize);
      hud?.dispose();
      if (cairn.hud === hud) delete cairn.hud;
      stage.services.dispose();
      renderer.dispose();
      canvas.remove();
    },
  };
  cairn.stage = stage;
  cairn.scene = scene;
  cairn.camera = camera;
  return stage;
}
