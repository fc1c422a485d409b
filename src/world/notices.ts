import type { CairnNotice } from './cairn-global.ts';
import { overlayColumn } from './overlay.ts';

const STYLE = `
.cairn-notices { display: flex; flex-direction: column; gap: 6px; width: 100%; min-height: 0;
  font: 13px/1.4 system-ui, sans-serif; pointer-events: none; user-select: none; -webkit-user-select: none; }
.cairn-notice { padding: 8px 12px; border-radius: 8px; color: #fff; background: rgba(30, 60, 90, .92);
  box-shadow: 0 4px 16px rgba(0,0,0,.3); transition: opacity .6s ease; }
.cairn-notice[data-fading] { opacity: 0; }
.cairn-notice[hidden] { display: none; }
.cairn-notice[data-level="warn"] { background: rgba(140, 90, 10, .94); }
.cairn-notice[data-level="error"] { background: rgba(150, 25, 25, .95); }
.cairn-notice strong { display: block; margin-bottom: 2px; }
.cairn-notice pre { margin: 6px 0 0; white-space: pre-wrap; font: 12px/1.35 ui-monospace, monospace; max-height: 30vh; overflow: hidden; }
.cairn-notice .actions { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; }
.cairn-notice .actions a { pointer-events: auto; padding: 2px 8px; border-radius: 4px; color: #fff; background: rgba(255, 255, 255, .16);
  border: 1px solid rgba(255, 255, 255, .35); text-decoration: none; font-size: 12px; }
.cairn-notice .actions a:hover, .cairn-notice .actions a:focus-visible { background: rgba(255, 255, 255, .3); }
.cairn-notice button { float: right; margin-left: 12px; background: none; border: 0; color: inherit; font-size: 16px; cursor: pointer;
  pointer-events: auto; }
.cairn-fatal { position: fixed; inset: 0; display: grid; place-items: center; background: #1b2630; color: #f3f3f3;
  font: 16px/1.5 system-ui, sans-serif; padding: 24px; text-align: center; z-index: 30; }
.cairn-fatal h1 { font-size: 22px; margin: 0 0 8px; }
`;

let container: HTMLElement | null = null;

function ensureContainer(): HTMLElement {
  if (container?.isConnected) return container;
  const style = document.createElement('style');
  style.textContent = STYLE;
  document.head.append(style);
  container = document.createElement('div');
  container.className = 'cairn-notices';
  container.setAttribute('role', 'status');
  overlayColumn().append(container);
  return container;
}

/**
 * Every notice shown on this page so far, oldest first: one list for the page (notices are one
 * column on the page, whoever shows them). Each page state's `notices` is this list.
 */
export const noticeLog: CairnNotice[] = [];

/** Seconds a notice stays before it fades, by level: errors stay longest. */
export const NOTICE_SECONDS: Record<CairnNotice['level'], number> = { info: 8, warn: 20, error: 45 };
/** Faded notices kept (hidden) in the page for the console and tests; older ones are removed. */
const KEEP_FADED = 30;

/** A link under a notice's text: what a person can do about it (another URL of the page, a doc). */
export interface NoticeAction {
  /** The link's text. */
  label: string;
  /** Where it leads. */
  href: string;
  /** Tooltip. */
  title?: string;
}

/** Options of {@link showNotice}. */
export interface NoticeOptions {
  /** Links shown under the text (they take the pointer, like the ×). Default none. */
  actions?: NoticeAction[];
  /**
   * Seconds before it fades, or null to keep it until its × (for a notice a person must be able to
   * act on however slowly the page starts). Default by level, {@link NOTICE_SECONDS}.
   */
  seconds?: number | null;
}

/**
 * Shows a message where the user looks (the left column, under the HUD) and records it in
 * {@link noticeLog} (`cairn.notices`). Notices stack newest last, fade after {@link NOTICE_SECONDS} (then stay in the
 * page, hidden, so their text can still be read by automation), and never take the pointer but
 * for their × and their action links. Returns a function that removes it. Detail text is shown
 * preformatted.
 */
export function showNotice(notice: CairnNotice, options: NoticeOptions = {}): () => void {
  noticeLog.push(notice);
  const element = document.createElement('div');
  element.className = 'cairn-notice';
  element.dataset.level = notice.level;
  const close = document.createElement('button');
  close.textContent = '×';
  close.title = 'Dismiss';
  const title = document.createElement('strong');
  title.textContent = notice.title;
  element.append(close, title);
  if (notice.detail) {
    const detail = document.createElement('pre');
    detail.textContent = notice.detail;
    element.append(detail);
  }
  if (options.actions?.length) {
    const actions = document.createElement('div');
    actions.className = 'actions';
    for (const action of options.actions) {
      const link = document.createElement('a');
      link.href = action.href;
      link.textContent = action.label;
      if (action.title) link.title = action.title;
      actions.append(link);
    }
    element.append(actions);
  }
  const parent = ensureContainer();
  parent.append(element);
  const seconds = options.seconds === undefined ? NOTICE_SECONDS[notice.level] : options.seconds;
  const fade =
    seconds === null
      ? undefined
      : window.setTimeout(() => {
          element.dataset.fading = '';
          window.setTimeout(() => {
            element.hidden = true;
            // No hidden control left behind for anything that dismisses notices by their × or follows their links.
            close.remove();
            element.querySelector('.actions')?.remove();
            const faded = parent.querySelectorAll('.cairn-notice[hidden]');
            for (let i = 0; i < faded.length - KEEP_FADED; i++) faded[i]!.remove();
          }, 700);
        }, seconds * 1000);
  close.onclick = () => {
    clearTimeout(fade);
    element.remove();
  };
  return () => {
    clearTimeout(fade);
    element.remove();
  };
}

/**
 * Replaces the page with a full-screen explanation. Returns the one-line message (`title: message`)
 * a page records as its `cairn.fatal`.
 */
export function showFatal(title: string, message: string): string {
  const element = document.createElement('div');
  element.className = 'cairn-fatal';
  element.setAttribute('role', 'alert');
  const box = document.createElement('div');
  const heading = document.createElement('h1');
  heading.textContent = title;
  const body = document.createElement('p');
  body.textContent = message;
  box.append(heading, body);
  element.append(box);
  ensureContainer();
  document.body.append(element);
  return `${title}: ${message}`;
}
