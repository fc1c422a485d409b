/**
 * cairn-world/scatter: a brush that places forests where they belong — presets as JSON data, a pure
 * deterministic placement engine, a prop catalog with meshoptimizer LOD baking, instanced buckets
 * with distance LOD, and a heightmap ray-march cursor. See docs/scatter.md.
 *
 * Pure (Node-testable): preset, placement, session, instance-buckets, lod-select, lod-bake,
 * ray-march, transform, regions, shared-edits, shared-cell. three glue: catalog, prop-lod, gltf-prop, props/*, bucket-meshes,
 * scatter-layer. DOM glue: brush-tool, brush-panel, overview-camera, scatter-tool, shared-scatter. Node only (not
 * exported here): lod-command (the `npm run lod` command).
 *
 * @module scatter
 */
export * from './preset.ts';
export * from './presets/index.ts';
export * from './placement.ts';
export * from './ground.ts';
export * from './session.ts';
export * from './lod-select.ts';
export * from './lod-bake.ts';
export * from './ray-march.ts';
export * from './catalog.ts';
export * from './prop-lod.ts';
export * from './gltf-prop.ts';
export * from './props/prop-types.ts';
export * from './props/materials.ts';
export * from './props/procedural.ts';
export * from './props/register.ts';
export * from './scatter-layer.ts';
export * from './brush-tool.ts';
export * from './overview-camera.ts';
export * from './scatter-tool.ts';
export * from './regions.ts';
export * from './shared-edits.ts';
export * from './shared-cell.ts';
export * from './shared-scatter.ts';
