const CSS = `
.cairn-assets { position: fixed; top: 0; right: 0; bottom: 0; width: 340px; z-index: 15; display: flex; flex-direction: column;
  background: rgba(16, 23, 30, .94); color: #e8edf2; font: 13px/1.4 system-ui, sans-serif; box-shadow: -4px 0 18px rgba(0,0,0,.35); }
.cairn-assets[hidden] { display: none; }
.cairn-assets header { display: flex; gap: 6px; align-items: center; padding: 10px 10px 6px; }
.cairn-assets-toggle[hidden] { display: none; }
.cairn-assets header [data-role=close] { padding: 2px 8px; font-size: 15px; line-height: 1; }
.cairn-assets header h1 { font: 600 13px/1 system-ui, sans-serif; margin: 0 4px 0 0; letter-spacing: .04em; text-transform: uppercase; color: #9fb3c6; }
.cairn-assets input[type=search] { flex: 1; min-width: 0; padding: 6px 8px; border-radius: 5px; border: 1px solid #3a4957; background: #0d141a; color: inherit; font: inherit; }
.cairn-assets select, .cairn-assets button { font: inherit; color: inherit; background: #24323e; border: 1px solid #3a4957; border-radius: 5px; padding: 5px 7px; cursor: pointer; }
.cairn-assets button:disabled { opacity: .5; cursor: default; }
.cairn-assets .count { padding: 0 10px 4px; font-size: 11px; color: #9fb3c6; }
.cairn-assets .status { padding: 0 10px 6px; min-height: 18px; color: #b9c7d3; font-size: 12px; }
.cairn-assets .status[data-tone="bad"] { color: #ff9d9d; } .cairn-assets .status[data-tone="warn"] { color: #ffd27a; }
.cairn-assets .status button { margin-left: 6px; padding: 1px 8px; }
.cairn-assets progress { width: calc(100% - 20px); margin: 0 10px 6px; height: 6px; }
.cairn-assets progress[hidden] { display: none; }
.cairn-assets .grid { flex: 1; overflow-y: auto; display: grid; grid-template-columns: repeat(3, 1fr); gap: 6px; padding: 4px 10px 10px; align-content: start; }
.cairn-asset-card { position: relative; display: flex; flex-direction: column; text-align: left; padding: 0 !important; overflow: hidden; min-height: 128px; }
.cairn-asset-card img { width: 100%; aspect-ratio: 1; object-fit: cover; background: #1c2730; display: block; }
.cairn-asset-card .name { padding: 4px 6px 0; font-weight: 600; font-size: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.cairn-asset-card .meta { padding: 0 6px 5px; font-size: 11px; color: #9fb3c6; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.cairn-asset-card .state { position: absolute; left: 0; right: 0; top: 0; padding: 4px 6px; font-size: 11px; background: rgba(10, 14, 18, .8); }
.cairn-asset-card[data-state="idle"] .state, .cairn-asset-card[data-state="loaded"] .state:empty { display: none; }
.cairn-asset-card[data-state="error"] { border-color: #c44; }
.cairn-asset-card[data-state="error"] .state { background: rgba(150, 25, 25, .92); color: #fff; white-space: normal; }
.cairn-asset-card[data-state="loaded"] { border-color: #6fbf7a; }
.cairn-assets .model { padding: 8px 10px; border-top: 1px solid #2c3a46; display: grid; gap: 5px; font-size: 12px; }
.cairn-assets .model[hidden] { display: none; }
.cairn-assets .model .row { display: flex; gap: 8px; align-items: center; justify-content: space-between; }
.cairn-assets .model input[type=range] { flex: 1; }
.cairn-assets .credit { padding: 6px 10px 8px; font-size: 11px; color: #9fb3c6; border-top: 1px solid #2c3a46; }
.cairn-assets .credit a { color: #cfe3f5; }
.cairn-assets-toggle { font-weight: 600; }
/* In the page's dock (src/world/dock.ts) the panel is a card in the right column, sharing its height
   (at least 45 % of the panels' area, so its results stay in view beside the brush panel). */
.cairn-dock .cairn-assets { position: relative; inset: auto; width: auto; flex: 1 1 0; min-height: min(240px, 45%); border-radius: 8px; overflow: hidden;
  box-shadow: none; font-size: 12px; }
.cairn-dock .cairn-assets header { flex-wrap: wrap; padding: 8px 8px 4px; }
.cairn-dock .cairn-assets .grid { grid-template-columns: repeat(auto-fill, minmax(84px, 1fr)); padding: 4px 8px 8px; }
.cairn-dock .cairn-asset-card { min-height: 96px; }
`;

let injected = false;

/** Adds the assets panel's stylesheet once per page. */
export function injectAssetStyles(): void {
  if (injected) return;
  injected = true;
  const style = document.createElement('style');
  style.dataset.module = 'assets';
  style.textContent = CSS;
  document.head.append(style);
}
