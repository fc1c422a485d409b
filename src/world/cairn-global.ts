import type { PerspectiveCamera, Scene, WebGPURenderer } from 'three/webgpu';
import type { CalibrationState } from './budget-calibration.ts';
import type { Hud } from './hud.ts';
import { noticeLog } from './notices.ts';
import type { RendererStatus } from './renderer.ts';
import type { ShaderError } from './shader-diagnostics.ts';
import type { WorldServices } from './services.ts';
import type { Stage } from './stage.ts';
import type { Heightmap } from './terrain/index.ts';
import type { Player, World } from './world.ts';

/** The local player's pose and clip under `stats.player` (the world). */
export interface PlayerPageStats {
  x: number;
  y: number;
  z: number;
  facing: number;
  speed: number;
  state: string;
  clip: string;
}

/**
 * A page's live figures (`cairn.stats`): what the HUD shows and tests assert. The stage's own
 * figures are declared here; each module adds its own key from its own file by declaration merging,
 * next to the type of its figures:
 * ```text
 * declare module '../world/cairn-global.ts' {
 *   interface CairnStats { net?: NetPageStats }
 * }
 * ```
 */
export interface CairnStats {
  /** Rendering backend in use, or 'none' before start-up / when nothing can render. */
  backend: 'WebGPU' | 'WebGL2' | 'none';
  /**
   * Why the page runs on WebGL2 rather than WebGPU, for as long as it does (null on WebGPU or before
   * start-up). The HUD shows it beside the backend.
   */
  backendReason: string | null;
  fps: number;
  /** Main-thread ms per frame: update plus render submission (EMA). */
  frameMs: number;
  /** GPU ms per frame from timestamp queries (EMA), or null where they are unavailable. */
  gpuMs: number | null;
  drawCalls: number;
  triangles: number;
  /** Frames rendered since start. */
  frame: number;
  shaderErrors: number;
  /** The player's pose and clip (the world). */
  player?: PlayerPageStats;
  /** The crowd budget's calibration (the world). */
  budgetCalibration?: { state: CalibrationState; runs: number };
}

/** A message shown on the page by {@link showNotice} and recorded in `cairn.notices`. */
export interface CairnNotice {
  level: 'info' | 'warn' | 'error';
  title: string;
  detail?: string;
}

/**
 * A page's state for the console and automation: its live figures (`stats`), its notices and its
 * main objects. A stage fills the object it is given (`StageOptions.cairn`) and mirrors every
 * service provided on it under the service's key (see {@link WorldServices}); the page, not the
 * library, decides to publish it (Cairn's pages as `window.cairn`, app/cairn.ts). Modules find each
 * other through `stage.services`, never through this object. A page adds its own handles by
 * declaration merging, as the stats do.
 */
export interface CairnGlobal extends Partial<WorldServices> {
  /** True once the page has rendered its first frame. */
  ready: boolean;
  /** Set when the page cannot run at all; the message is also shown on the page. */
  fatal?: string;
  stats: CairnStats;
  /** Every notice shown so far (the same list for every stage on the page). */
  notices: CairnNotice[];
  /** Every shader compile error so far, with the compiler's own message. */
  shaderErrors?: ShaderError[];
  renderer?: WebGPURenderer;
  rendererStatus?: RendererStatus;
  stage?: Stage;
  scene?: Scene;
  camera?: PerspectiveCamera;
  hud?: Hud;
  /** The open world, its player and its terrain (the world page and pages built on the world). */
  world?: World;
  player?: Player;
  heightmap?: Heightmap;
}

/** A fresh page state with empty figures; its `notices` is the page's one notice log. */
export function createCairnGlobal(): CairnGlobal {
  return {
    ready: false,
    stats: {
      backend: 'none',
      backendReason: null,
      fps: 0,
      frameMs: 0,
      gpuMs: null,
      drawCalls: 0,
      triangles: 0,
      frame: 0,
      shaderErrors: 0,
    },
    notices: noticeLog,
  };
}
