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
  [module: string]: unknown;
}

export interface CairnNotice {
  level: 'info' | 'warn' | 'error';
  title: string;
  detail?: string;
}

export interface CairnGlobal {
  /** True once the page has rendered its first frame. */
  ready: boolean;
  /** Set when the page cannot run at all; the message is also shown on the page. */
  fatal?: string;
  stats: CairnStats;
  notices: CairnNotice[];
  [key: string]: unknown;
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
