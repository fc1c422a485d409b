/**
 * cairn-world/assets: type a word, get a CC0 model. A client for Poly Haven's public API (catalog,
 * file lists), client-side search, include-map glTF loading, non-destructive group-wise
 * simplification, disposal, and the glue for the assets page and the world. See docs/assets.md.
 *
 * Pure (Node-testable): asset-id, errors, catalog-parse, search-index, debounce, include-map,
 * simplify-index, fetch-json, catalog-cache (memory), catalog-client, polyhaven-api.
 * three glue (no renderer): model-loader, model-simplifier, model-slot, dispose-object,
 * placement, scatter-bridge, asset-browser. Page glue: studio, world-assets, ui/*.
 *
 * @module assets
 */
export * from './asset-id.ts';
export * from './errors.ts';
export * from './polyhaven-types.ts';
export * from './catalog-parse.ts';
export * from './search-index.ts';
export * from './include-map.ts';
export * from './fetch-json.ts';
export * from './catalog-cache.ts';
export * from './catalog-client.ts';
export * from './polyhaven-api.ts';
export * from './simplify-index.ts';
export * from './model-simplifier.ts';
export * from './dispose-object.ts';
export * from './model-loader.ts';
export * from './model-slot.ts';
export * from './placement.ts';
export * from './scatter-bridge.ts';
export * from './asset-browser.ts';
export * from './asset-stats.ts';
export * from './studio.ts';
export * from './world-assets.ts';
export * from './ui/asset-panel.ts';
