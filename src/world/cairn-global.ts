import type { PerspectiveCamera, Scene, WebGPURenderer } from 'three/webgpu';
import type { AssetsPageApi } from '../assets/assets-page.ts';
import type { AssetPageStats } from '../assets/asset-stats.ts';
import type { AudioStats } from '../audio/index.ts';
import type { NetStats, WorldStats } from '../net/index.ts';
import type { ScatterPageStats } from '../scatter/scatter-tool.ts';
import type { SharedScatterStats } from '../scatter/shared-scatter.ts';
import type { AmbientScatterStats } from '../ambient/ambient-scatter.ts';
import type { CalibrationState } from './budget-calibration.ts';
import type { VoiceStats } from '../voice/index.ts';
import type { Hud } from './hud.ts';
import type { RendererStatus } from './renderer.ts';
import type { ShaderError } from './shader-diagnostics.ts';
import type { WorldServices } from './services.ts';
import type { Stage } from './stage.ts';
import type { Heightmap } from './terrain/index.ts';
import type { AvatarStats } from './player/avatar-report.ts';
import type { Player, World } from './world.ts';

/**
 * The avatar-sync figures under `stats.net`: the session's own, which transport it fell back to and
 * why (null when none), and in the open world the cell client's figures and the directory's counts.
 */
export type NetPageStats = Partial<NetStats> & {
  fallback?: string | null;
  world?: WorldStats;
  population?: { players: number; cells: number };
};

/**
 * `window.cairn`: every page publishes its live figures (`stats`) and main objects here, for the
 * console and for automation. The HUD reads the same object, so what a person sees is what tests
 * assert. Modules add their own figures under their own key (`stats.crowd`, `stats.net`, …).
 */
export interface CairnStats {
  /** Rendering backend in use, or 'none' before start-up / when nothing can render. */
  backend: 'WebGPU' | 'WebGL2' | 'none';
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
  /** The player's pose and clip, and what its character is (the world). */
  player?: { x: number; y: number; z: number; facing: number; speed: number; state: string; clip: string; avatar: AvatarStats };
  net?: NetPageStats;
  voice?: VoiceStats;
  audio?: AudioStats;
  assets?: AssetPageStats;
  scatter?: ScatterPageStats;
  /** The ambient vegetation's figures and the quality tier it runs at (the world). */
  ambient?: AmbientScatterStats & { quality: string };
  /** Shared scatter strokes (the world). */
  sharedScatter?: SharedScatterStats;
  /** The crowd budget's calibration (the world). */
  budgetCalibration?: { state: CalibrationState; runs: number };
  /**
   * The crowd's and the animation module's figures: their shape differs per page (the world and
   * crowd pages publish `CrowdPageStats`, the comparison page one per renderer; the world publishes
   * the reference view's state, the retarget page `RetargetViewerStats`).
   */
  crowd?: unknown;
  anim?: unknown;
}

export interface CairnNotice {
  level: 'info' | 'warn' | 'error';
  title: string;
  detail?: string;
}

/**
 * What `window.cairn` holds. It is the read-only window for the console and tests: modules publish
 * their services through `stage.services` (mirrored here under the same keys, see
 * {@link WorldServices}) and find each other there, never through this object.
 */
export interface CairnGlobal extends Partial<Omit<WorldServices, 'assets'>> {
  /** True once the page has rendered its first frame. */
  ready: boolean;
  /** Set when the page cannot run at all; the message is also shown on the page. */
  fatal?: string;
  stats: CairnStats;
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
  /** The world's asset browser (world page) or the assets page's own controls (assets page). */
  assets?: WorldServices['assets'] | AssetsPageApi;
  /**
   * Page-specific handles for automation; each page (app/*.ts) documents its own shape: the voice
   * page (`voicePage`, `voiceModule`), the sound page (`sfx`), the crowd pages (`crowdPage`,
   * `crowdReady`, `compare`, `compareReady`, `crowdLive`, `crowdBaked`), the crowd bench
   * (`benchProgress`, `benchResult`) and the scatter page (`view`, `terrain`, `environment`,
   * `scatterBench`).
   */
  voicePage?: unknown;
  voiceModule?: unknown;
  sfx?: unknown;
  crowdPage?: unknown;
  crowdReady?: boolean;
  compare?: unknown;
  compareReady?: boolean;
  crowdLive?: unknown;
  crowdBaked?: unknown;
  benchProgress?: { done: number; total: number };
  benchResult?: unknown;
  view?: unknown;
  terrain?: unknown;
  environment?: unknown;
  scatterBench?: unknown;
}

declare global {
  interface Window {
    cairn: CairnGlobal;
  }
}

/** Returns `window.cairn`, creating it with empty figures on first use. */
export function cairnGlobal(): CairnGlobal {
  if (!window.cairn) {
    window.cairn = {
      ready: false,
      stats: { backend: 'none', fps: 0, frameMs: 0, gpuMs: null, drawCalls: 0, triangles: 0, frame: 0, shaderErrors: 0 },
      notices: [],
    };
  }
  return window.cairn;
}
