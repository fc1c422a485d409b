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
  /** East position of the player's feet (m). */
  x: number;
  /** Height of the player's feet (m). */
  y: number;
  /** South position of the player's feet (m). */
  z: number;
  /** Facing in radians, atan2(wx, wz): 0 faces +Z. */
  facing: number;
  /** Horizontal speed (m/s). */
  speed: number;
  /** The controller's locomotion state (`idle`, `walk`, `run`, `jump`, `swim`). */
  state: string;
  /** The clip the character plays, or '' for a character without clips. */
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
  /** Frames per second over the last frames (EMA of the frame interval); 0 before the second frame. */
  fps: number;
  /** Main-thread ms per frame: update plus render submission (EMA). */
  frameMs: number;
  /** GPU ms per frame from timestamp queries (EMA), or null where they are unavailable. */
  gpuMs: number | null;
  /** Draw calls of the last frame's render. */
  drawCalls: number;
  /** Triangles drawn in the last frame's render. */
  triangles: number;
  /** Frames rendered since start. */
  frame: number;
  /** Shader compile errors so far (their messages are in `cairn.shaderErrors`). */
  shaderErrors: number;
  /** The player's pose and clip (the world). */
  player?: PlayerPageStats;
  /** How the ground's detail texture is filtered, and why (the world): 1 on a software rasteriser. */
  terrain?: {
    /** The detail texture's anisotropic filtering now. */
    anisotropy: number;
    /** Why: `GPU`, `software rasteriser (…)` or `frames took N ms: drawn in software`. */
    why: string;
  };
  /** The crowd budget's calibration (the world). */
  budgetCalibration?: {
    /** Where the calibration stands: waiting for frames, measuring, calibrated, or unavailable (no GPU timing). */
    state: CalibrationState;
    /** Calibrations completed (the first, then one per resize). */
    runs: number;
  };
}

/** A message shown on the page by {@link showNotice} and recorded in `cairn.notices`. */
export interface CairnNotice {
  /** How serious it is: sets the notice's colour and how long it stays ({@link NOTICE_SECONDS}). */
  level: 'info' | 'warn' | 'error';
  /** The notice's first line. */
  title: string;
  /** More text under the title (the compiler message, the server's answer, what to do). */
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
  /** The page's live figures: what the HUD shows and tests assert. */
  stats: CairnStats;
  /** Every notice shown so far (the same list for every stage on the page). */
  notices: CairnNotice[];
  /** Every shader compile error so far, with the compiler's own message. */
  shaderErrors?: ShaderError[];
  /** The renderer (WebGPU, or its WebGL2 backend), once the stage has one. */
  renderer?: WebGPURenderer;
  /** What the renderer bootstrap found: the backend, why not WebGPU, the adapter. */
  rendererStatus?: RendererStatus;
  /** The page's stage. */
  stage?: Stage;
  /** The stage's scene. */
  scene?: Scene;
  /** The stage's camera. */
  camera?: PerspectiveCamera;
  /** The stage's HUD (absent when the stage was made without one). */
  hud?: Hud;
  /** The open world, its player and its terrain (the world page and pages built on the world). */
  world?: World;
  /** The world's local player. */
  player?: Player;
  /** The world's terrain heights. */
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
