import type { BonePath } from '../src/crowd/bone-path.ts';
// Straight from their files: the world's index would pull three.js into pages that draw without it (the voice page).
import { createCairnGlobal, type CairnGlobal } from '../src/world/cairn-global.ts';
import { showFatal } from '../src/world/notices.ts';
import type { StageOptions } from '../src/world/stage.ts';

/**
 * The page state of Cairn's own pages, published as `window.cairn` for the console and automation.
 * Library code fills the object it is given and never touches `window.cairn`; the pages (this
 * folder) publish it. Each page adds its own handles to {@link CairnGlobal} by declaration merging.
 */
declare global {
  interface Window {
    cairn: CairnGlobal;
  }
}

/** `window.cairn`, created with empty figures on first use. */
export function pageCairn(): CairnGlobal {
  window.cairn ??= createCairnGlobal();
  return window.cairn;
}

/** The stage options every page takes from its URL (`?webgl=1` forces WebGL2), filling `window.cairn`. */
export function pageStageOptions(params: URLSearchParams = new URLSearchParams(location.search)): StageOptions {
  return { cairn: pageCairn(), forceWebGL: params.get('webgl') === '1' };
}

/** Replaces the page with a full-screen explanation and records it as `cairn.fatal`. */
export function pageFatal(title: string, message: string): void {
  pageCairn().fatal = showFatal(title, message);
}

/** The crowd's bone path a page asks for with `?bonePath=storage|texture` (default 'auto'). */
export function pageBonePath(params: URLSearchParams = new URLSearchParams(location.search)): BonePath | 'auto' {
  const requested = params.get('bonePath');
  return requested === 'storage' || requested === 'texture' ? requested : 'auto';
}
