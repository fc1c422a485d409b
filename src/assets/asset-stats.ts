import type { HudRow } from '../world/hud.ts';
import type { AssetBrowserStats } from './asset-browser.ts';
import type { LazyImageStats } from './ui/lazy-images.ts';

/** `window.cairn.stats.assets`: the browser's figures plus thumbnails, GPU memory and placements. */
export interface AssetPageStats extends AssetBrowserStats {
  /** The thumbnails' lazy loading: requested, loaded, waiting. */
  thumbnails: LazyImageStats;
  /** renderer.info.memory: live GPU geometries and textures on this page. */
  memory: {
    /** Geometries on the GPU. */
    geometries: number;
    /** Textures on the GPU. */
    textures: number;
  };
  /** Models placed and kept in the world (world page only). */
  placed: number;
}

/** HUD rows for the assets section; reads only the published stats. */
export function assetHudRows(s: AssetPageStats | undefined): HudRow[] {
  if (!s) return [{ label: 'catalog', value: 'not loaded' }];
  const rows: HudRow[] = [
    {
      label: 'catalog',
      value: `${s.catalog} · ${s.entries.toLocaleString('en-US')}${s.catalogSource === 'cache' ? ' (cache)' : ''}`,
      tone: s.catalog === 'ready' ? 'ok' : s.catalog === 'stale' ? 'warn' : s.catalog === 'error' ? 'bad' : undefined,
    },
    { label: 'search', value: `${s.results.toLocaleString('en-US')} hits · ${s.searchMs.toFixed(2)} ms` },
    { label: 'thumbnails', value: `${s.thumbnails.loaded}/${s.thumbnails.requested} loaded, ${s.thumbnails.waiting} waiting` },
    {
      label: 'model',
      value: s.loadingId ? `loading ${s.loadingId}…` : (s.model ?? 'none'),
      tone: s.modelState === 'error' ? 'bad' : undefined,
    },
  ];
  if (s.model)
    rows.push({
      label: 'triangles',
      value: `${s.trianglesOriginal.toLocaleString('en-US')} → ${s.triangles.toLocaleString('en-US')} (${Math.round(s.ratio * 100)}%)`,
    });
  rows.push({ label: 'gpu memory', value: `${s.memory.geometries} geometries, ${s.memory.textures} textures` });
  if (s.placed) rows.push({ label: 'placed', value: String(s.placed) });
  if (s.lastError)
    rows.push({ label: 'last error', value: s.lastError.length > 60 ? `${s.lastError.slice(0, 60)}…` : s.lastError, tone: 'bad' });
  return rows;
}

declare module '../world/cairn-global.ts' {
  interface CairnStats {
    /** The asset browser's figures. */
    assets?: AssetPageStats;
  }
}
