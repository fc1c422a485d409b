import { cairnGlobal, type CairnStats } from './cairn-global.ts';

/** A HUD row: a label and the value to show; `tone` colours the value. */
export interface HudRow {
  label: string;
  value: string;
  tone?: 'ok' | 'warn' | 'bad';
}

export interface HudSection {
  title: string;
  rows(stats: CairnStats): HudRow[];
}

const STYLE = `
.cairn-hud { position: fixed; top: 10px; left: 10px; z-index: 10; min-width: 190px; padding: 8px 10px;
  background: rgba(12, 18, 24, .72); color: #e8edf2; border-radius: 6px; pointer-events: none;
  font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
.cairn-hud h2 { font: 600 11px/1.6 system-ui, sans-serif; text-transform: uppercase; letter-spacing: .06em;
  color: #9fb3c6; margin: 6px 0 2px; }
.cairn-hud h2:first-child { margin-top: 0; }
.cairn-hud div { display: flex; justify-content: space-between; gap: 14px; }
.cairn-hud [data-tone="ok"] { color: #8fe39a; } .cairn-hud [data-tone="warn"] { color: #ffd27a; }
.cairn-hud [data-tone="bad"] { color: #ff8a8a; }
`;

/**
 * The heads-up display. It renders only from `window.cairn.stats` (four times a second), so the
 * figures a person reads are the ones tests assert. Modules add sections with {@link addSection}.
 */
export class Hud {
  readonly element: HTMLElement;
  private readonly sections = new Map<string, HudSection>();
  private timer: number;

  constructor(parent: HTMLElement = document.body) {
    const style = document.createElement('style');
    style.textContent = STYLE;
    document.head.append(style);
    this.element = document.createElement('div');
    this.element.className = 'cairn-hud';
    this.element.setAttribute('aria-live', 'off');
    parent.append(this.element);
    this.addSection('frame', { title: 'Frame', rows: frameRows });
    this.timer = window.setInterval(() => this.refresh(), 250);
    // Published so automation can redraw it before reading it, instead of racing the 250 ms beat.
    cairnGlobal().hud = this;
  }

  /** Adds (or replaces) a section; returns a function that removes it. */
  addSection(id: string, section: HudSection): () => void {
    this.sections.set(id, section);
    this.refresh();
    return () => {
      this.sections.delete(id);
      this.refresh();
    };
  }

  refresh(): void {
    const stats = cairnGlobal().stats;
    const parts: string[] = [];
    for (const [id, section] of this.sections) {
      let rows: HudRow[];
      try {
        rows = section.rows(stats);
      } catch (error) {
        rows = [{ label: 'error', value: (error as Error).message, tone: 'bad' }];
      }
      parts.push(`<h2 data-section="${escape(id)}">${escape(section.title)}</h2>`);
      for (const row of rows) {
        parts.push(`<div><span>${escape(row.label)}</span><span${row.tone ? ` data-tone="${row.tone}"` : ''}>${escape(row.value)}</span></div>`);
      }
    }
    this.element.innerHTML = parts.join('');
  }

  dispose(): void {
    clearInterval(this.timer);
    this.element.remove();
    const cairn = cairnGlobal();
    if (cairn.hud === this) delete cairn.hud;
  }
}

function frameRows(stats: CairnStats): HudRow[] {
  return [
    { label: 'backend', value: stats.backend, tone: stats.backend === 'WebGPU' ? 'ok' : 'warn' },
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
