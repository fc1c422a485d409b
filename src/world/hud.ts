import { withDefaults } from '../core/options.ts';
import type { CairnStats } from './cairn-global.ts';
import { overlayColumn } from './overlay.ts';
import { isTyping } from '../core/typing.ts';

/** A HUD row: a label and the value to show; `tone` colours the value. */
export interface HudRow {
  /** What the row shows on the left. */
  label: string;
  /** The figure, formatted for reading. */
  value: string;
  /** Colours the value: `ok` green, `warn` amber, `bad` red. Default none (plain). */
  tone?: 'ok' | 'warn' | 'bad';
}

/** A HUD section: its title and rows; a section with no rows shows no title either. */
export interface HudSection {
  /** The section's heading. */
  title: string;
  /** The rows to show, computed from the page's figures on every redraw (every 250 ms and on {@link Hud.refresh}). */
  rows(stats: CairnStats): HudRow[];
  /**
   * Rows shown in the HUD's first lines, under the backend (what a person sees in the compact
   * HUD): for a state that changes what the page is, like the world's quality tier. Keep to one.
   */
  headline?(stats: CairnStats): HudRow[];
}

const STYLE = `
.cairn-hud { flex: none; min-width: min(190px, 100%); max-width: 100%; padding: 8px 10px; box-sizing: border-box;
  background: rgba(12, 18, 24, .72); color: #e8edf2; border-radius: 6px; pointer-events: none; overflow: hidden; position: relative;
  font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
.cairn-hud[data-compact] { max-height: 84px; }
.cairn-hud[data-compact]::after { content: 'H: more'; position: absolute; right: 0; bottom: 0; left: 0; padding: 14px 10px 3px; text-align: right;
  font: 11px system-ui, sans-serif; color: #9fb3c6; background: linear-gradient(rgba(12, 18, 24, 0), rgba(12, 18, 24, .96) 60%); }
.cairn-hud:not([data-compact]) { max-height: calc(100vh - var(--cairn-bottom, 0px) - 26px); }
.cairn-hud h2 { font: 600 11px/1.6 system-ui, sans-serif; text-transform: uppercase; letter-spacing: .06em;
  color: #9fb3c6; margin: 6px 0 2px; }
.cairn-hud h2:first-child { margin-top: 0; }
.cairn-hud div { display: flex; justify-content: space-between; gap: 14px; }
.cairn-hud [data-tone="ok"] { color: #8fe39a; } .cairn-hud [data-tone="warn"] { color: #ffd27a; }
.cairn-hud [data-tone="bad"] { color: #ff8a8a; }
`;

/** Options of a {@link Hud}. */
export interface HudOptions {
  /** The element it goes into. Default document.body, where it heads the page's left overlay column. */
  container?: HTMLElement;
  /** The figures it renders from (a page's `cairn.stats`), read at every refresh. */
  stats: () => CairnStats;
}

/**
 * The heads-up display. It renders only from the page's `cairn.stats` (four times a second), so the
 * figures a person reads are the ones tests assert. Modules add sections with {@link addSection}.
 *
 * Compact by default (the first few rows; every figure is still in the element, clipped), H
 * expands it to the window's height. It sits at the top of the left overlay column, above the
 * notices, and never takes the pointer.
 */
export class Hud {
  /** The HUD's element; at the top of the left overlay column unless a container was given. */
  readonly element: HTMLElement;
  private readonly sections = new Map<string, HudSection>();
  private readonly stats: () => CairnStats;
  private timer: number;

  constructor(options: HudOptions) {
    // The default container is resolved here, not in a module-level defaults object: the module also loads where there is no document.
    const parent = withDefaults({ container: document.body, stats: options.stats }, options).container;
    this.stats = options.stats;
    const style = document.createElement('style');
    style.textContent = STYLE;
    document.head.append(style);
    this.element = document.createElement('div');
    this.element.className = 'cairn-hud';
    this.element.setAttribute('aria-live', 'off');
    this.element.dataset.compact = '';
    // In a page's own container (not the body) the HUD stays there, positioned by the page.
    if (parent === document.body) overlayColumn().prepend(this.element);
    else parent.append(this.element);
    window.addEventListener('keydown', this.onKey);
    this.addSection('frame', { title: 'Frame', rows: frameRows });
    this.timer = window.setInterval(() => this.refresh(), 250);
  }

  /** True while the HUD shows only its first rows (the default); H toggles it. */
  get compact(): boolean {
    return this.element.dataset.compact !== undefined;
  }

  /** Shows only the first rows (true) or every row (false). */
  set compact(value: boolean) {
    if (value) this.element.dataset.compact = '';
    else delete this.element.dataset.compact;
  }

  private readonly onKey = (event: KeyboardEvent): void => {
    if (event.code !== 'KeyH' || event.repeat || event.ctrlKey || event.metaKey || event.altKey || isTyping(event)) return;
    this.compact = !this.compact;
  };

  /** Adds (or replaces) a section; returns a function that removes it. */
  addSection(id: string, section: HudSection): () => void {
    this.sections.set(id, section);
    this.refresh();
    return () => {
      this.sections.delete(id);
      this.refresh();
    };
  }

  /** Redraws every section from the figures now (it also redraws every 250 ms). A section that throws shows one `error` row with its message, and the others still show. */
  refresh(): void {
    const stats = this.stats();
    const parts: string[] = [];
    const headlines: HudRow[] = [];
    for (const section of this.sections.values()) if (section.headline) headlines.push(...guarded(() => section.headline!(stats)));
    for (const [id, section] of this.sections) {
      const rows = guarded(() => section.rows(stats));
      // The headlines go under the frame section's first rows (the backend and its reason).
      if (id === 'frame') rows.splice(stats.backendReason ? 2 : 1, 0, ...headlines);
      if (rows.length === 0) continue;
      parts.push(`<h2 data-section="${escape(id)}">${escape(section.title)}</h2>`);
      for (const row of rows) {
        parts.push(
          `<div><span>${escape(row.label)}</span><span${row.tone ? ` data-tone="${row.tone}"` : ''}>${escape(row.value)}</span></div>`,
        );
      }
    }
    this.element.innerHTML = parts.join('');
  }

  /** Stops redrawing, removes the key listener and the element. */
  dispose(): void {
    clearInterval(this.timer);
    window.removeEventListener('keydown', this.onKey);
    this.element.remove();
  }
}

function guarded(rows: () => HudRow[]): HudRow[] {
  try {
    return rows();
  } catch (error) {
    return [{ label: 'error', value: (error as Error).message, tone: 'bad' }];
  }
}

function frameRows(stats: CairnStats): HudRow[] {
  return [
    { label: 'backend', value: stats.backend, tone: stats.backend === 'WebGPU' ? 'ok' : 'warn' },
    // The reason stays on screen for as long as the fallback is in use, not only in a fading notice.
    ...(stats.backendReason ? [{ label: 'because', value: stats.backendReason, tone: 'warn' as const }] : []),
    { label: 'fps', value: stats.fps.toFixed(0) },
    { label: 'cpu ms', value: stats.frameMs.toFixed(2) },
    { label: 'gpu ms', value: stats.gpuMs === null ? 'n/a (no timestamp queries)' : stats.gpuMs.toFixed(2) },
    { label: 'draw calls', value: String(stats.drawCalls) },
    { label: 'triangles', value: stats.triangles.toLocaleString('en-US') },
    ...(stats.shaderErrors > 0 ? [{ label: 'shader errors', value: String(stats.shaderErrors), tone: 'bad' as const }] : []),
  ];
}

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
