/**
 * The screen layout every page shares, one rule for every module's controls:
 *
 * - the **left column** (overlay.ts): the HUD, notices under it;
 * - the **right column** (the dock): a toolbar of toggles and indicators on top ({@link worldDock}
 *   `.tools`), the open panels under it (`.panels`), sharing its height: each shrinks and scrolls
 *   inside rather than covering the next;
 * - the **bottom line**: the gallery link and the key hints (`.cairn-home`, `.cairn-help`); both
 *   columns stop above it (its height is measured, `--cairn-bottom`);
 * - the **centre third** of the window stays free: the player and the people near them stand there.
 *
 * Both columns are `--cairn-side` wide: a third of the window less its margins, 180–340 px, so they
 * never reach the centre third down to 640 px. A module puts its toggle in `tools` and its panel in
 * `panels` and styles only how it looks (colours, type, its own rows), never where it sits. The
 * pause card (state-card.ts) is the one thing drawn over the centre: the world is stopped then.
 */
const LAYOUT = `:root { --cairn-side: clamp(180px, calc(33.333vw - 20px), 340px); --cairn-bottom: 0px; }`;

const STYLE = `
.cairn-dock { position: fixed; top: 10px; right: 10px; bottom: calc(var(--cairn-bottom) + 16px); width: var(--cairn-side); z-index: 14;
  display: flex; flex-direction: column; gap: 8px; pointer-events: none; font: 12px/1.35 system-ui, sans-serif; }
.cairn-dock-tools { flex: none; display: flex; flex-wrap: wrap; justify-content: flex-end; align-items: center; gap: 6px; }
.cairn-dock-tools > *, .cairn-dock-panels > * { pointer-events: auto; }
.cairn-dock-tools > [hidden], .cairn-dock-panels > [hidden] { display: none; }
.cairn-dock-panels { flex: 1 1 auto; min-height: 0; display: flex; flex-direction: column; gap: 8px; }
.cairn-dock-panels > * { flex: 0 1 auto; min-height: 34px; overflow: auto; box-sizing: border-box; }
.cairn-tool { font: 12px system-ui, sans-serif; color: #e8edf2; background: rgba(12, 18, 24, .82); border: 1px solid #3b546c;
  border-radius: 6px; padding: 5px 9px; cursor: pointer; white-space: nowrap; }
.cairn-tool:hover, .cairn-tool:focus-visible { background: rgba(30, 48, 64, .92); }
.cairn-tool[aria-pressed="true"] { background: #2f6b45; border-color: #4d9a68; }
.cairn-tool[data-tone="warn"] { background: rgba(140, 90, 10, .94); border-color: #d9a441; }
@media (max-width: 800px), (max-height: 480px) { .cairn-dock-tools { gap: 4px; } .cairn-tool { padding: 3px 7px; font-size: 11px; } }
`;

/** The right column's two areas. */
export interface WorldDock {
  /** The column itself. */
  element: HTMLElement;
  /** Toggles and indicators, right-aligned, wrapping onto more rows when narrow. */
  tools: HTMLElement;
  /** Open panels, stacked under the tools; they share the column's height and scroll inside. */
  panels: HTMLElement;
}

let dock: WorldDock | null = null;
let observer: ResizeObserver | null = null;
let layout: HTMLStyleElement | null = null;

/** The layout's shared measures (`--cairn-side`, `--cairn-bottom`), kept current; both columns call it. */
export function useLayout(): void {
  if (layout?.isConnected) return;
  layout = document.createElement('style');
  layout.textContent = LAYOUT;
  document.head.prepend(layout);
  watchBottomLine();
}

/**
 * The page's dock (created on first use, in document.body), where modules put their toggles
 * (`tools`) and panels (`panels`). A button given the class `cairn-tool` looks like every other
 * tool (`aria-pressed="true"` for a tool that is on, `data-tone="warn"` for an indicator).
 */
export function worldDock(): WorldDock {
  if (dock?.element.isConnected) return dock;
  useLayout();
  const style = document.createElement('style');
  style.textContent = STYLE;
  document.head.append(style);
  const element = document.createElement('div');
  element.className = 'cairn-dock';
  const tools = document.createElement('div');
  tools.className = 'cairn-dock-tools';
  tools.setAttribute('role', 'toolbar');
  tools.setAttribute('aria-label', 'Tools');
  const panels = document.createElement('div');
  panels.className = 'cairn-dock-panels';
  element.append(tools, panels);
  document.body.append(element);
  dock = { element, tools, panels };
  return dock;
}

/**
 * Keeps `--cairn-bottom` at the height of the bottom line (the tallest of the gallery link and the
 * key hints, from the window's bottom edge), so both columns stop above it however it wraps.
 */
function watchBottomLine(): void {
  if (observer || typeof ResizeObserver === 'undefined') return;
  const measure = (): void => {
    let height = 0;
    for (const element of document.querySelectorAll<HTMLElement>('.cairn-help, .cairn-home')) {
      // Not offsetParent: it is null for every fixed element.
      if (element.getClientRects().length === 0) continue;
      height = Math.max(height, window.innerHeight - element.getBoundingClientRect().top);
    }
    document.documentElement.style.setProperty('--cairn-bottom', `${Math.ceil(Math.max(0, height))}px`);
  };
  observer = new ResizeObserver(measure);
  observer.observe(document.documentElement);
  for (const element of document.querySelectorAll<HTMLElement>('.cairn-help, .cairn-home')) observer.observe(element);
  measure();
}

/**
 * The centre band the layout keeps free, in CSS pixels of a `width`×`height` window: the middle
 * third of the width, from the top down to the bottom line.
 */
export function centreBand(
  width: number,
  height: number,
  bottomLine = 0,
): {
  /** Left edge (CSS px from the window's left). */
  left: number;
  /** Top edge (CSS px from the window's top): 0. */
  top: number;
  /** Right edge (CSS px from the window's left). */
  right: number;
  /** Bottom edge (CSS px from the window's top): `bottomLine` above the window's bottom. */
  bottom: number;
} {
  return { left: width / 3, top: 0, right: (2 * width) / 3, bottom: height - bottomLine };
}
