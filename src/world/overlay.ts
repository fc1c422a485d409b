import { useLayout } from './dock.ts';

/**
 * The left overlay column every page shares: the HUD on top, notices under it. One column, so the
 * HUD growing (H) pushes the notices down instead of covering them, and both stop above the
 * bottom line (key hints, the gallery link); as wide as the dock on the right (`--cairn-side`), so
 * the centre third stays free (dock.ts). Nothing in it takes the pointer except a notice's × and
 * links.
 */
const STYLE = `
.cairn-overlay { position: fixed; top: 10px; left: 10px; z-index: 20; display: flex; flex-direction: column; align-items: flex-start;
  gap: 8px; max-height: calc(100vh - var(--cairn-bottom) - 26px); width: var(--cairn-side); overflow: hidden; pointer-events: none;
  user-select: none; -webkit-user-select: none; }
`;

let column: HTMLElement | null = null;

/** The column (created on first use, in document.body). */
export function overlayColumn(): HTMLElement {
  if (column?.isConnected) return column;
  useLayout();
  const style = document.createElement('style');
  style.textContent = STYLE;
  document.head.append(style);
  column = document.createElement('div');
  column.className = 'cairn-overlay';
  document.body.append(column);
  return column;
}
