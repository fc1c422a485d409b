import { cairnGlobal, type CairnNotice } from './cairn-global.ts';

const STYLE = `
.cairn-notices { position: fixed; top: 12px; left: 50%; transform: translateX(-50%); z-index: 20;
  display: flex; flex-direction: column; gap: 8px; max-width: min(720px, 92vw); font: 13px/1.4 system-ui, sans-serif; }
.cairn-notice { padding: 10px 14px; border-radius: 8px; color: #fff; background: rgba(30, 60, 90, .92);
  box-shadow: 0 4px 16px rgba(0,0,0,.3); }
.cairn-notice[data-level="warn"] { background: rgba(140, 90, 10, .94); }
.cairn-notice[data-level="error"] { background: rgba(150, 25, 25, .95); }
.cairn-notice strong { display: block; margin-bottom: 2px; }
.cairn-notice pre { margin: 6px 0 0; white-space: pre-wrap; font: 12px/1.35 ui-monospace, monospace; max-height: 40vh; overflow: auto; }
.cairn-notice button { float: right; margin-left: 12px; background: none; border: 0; color: inherit; font-size: 16px; cursor: pointer; }
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
  document.body.append(container);
  return container;
}

/**
 * Shows a message where the user looks (top of the page) and records it in `cairn.notices`.
 * Returns a function that removes it. Detail text is shown preformatted (compiler output fits).
 */
export function showNotice(notice: CairnNotice): () => void {
  cairnGlobal().notices.push(notice);
  const element = document.createElement('div');
  element.className = 'cairn-notice';
  element.dataset.level = notice.level;
  const close = document.createElement('button');
  close.textContent = '×';
  close.title = 'Dismiss';
  close.onclick = () => element.remove();
  const title = document.createElement('strong');
  title.textContent = notice.title;
  element.append(close, title);
  if (notice.detail) {
    const detail = document.createElement('pre');
    detail.textContent = notice.detail;
    element.append(detail);
  }
  ensureContainer().append(element);
  return () => element.remove();
}

/** Replaces the page with a full-screen explanation and sets `cairn.fatal`. */
export function showFatal(title: string, message: string): void {
  const cairn = cairnGlobal();
  cairn.fatal = `${title}: ${message}`;
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
}
