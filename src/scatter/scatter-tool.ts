import type { Stage } from '../world/stage.ts';
import { showNotice } from '../world/notices.ts';
import { isTyping } from '../core/typing.ts';
import type { HudRow } from '../world/hud.ts';
import type { CairnStats } from '../world/cairn-global.ts';
import { BrushPanel } from './brush-panel.ts';
import { BrushTool } from './brush-tool.ts';
import type { GroundSampler } from './placement.ts';
import type { HeightField } from './ray-march.ts';
import { ScatterLayer, type ScatterStats } from './scatter-layer.ts';
import type { PropCatalog } from './catalog.ts';
import { withDefaults } from '../core/options.ts';
import type { Object3D, PerspectiveCamera } from 'three';

/**
 * Everything the brush needs on a page, wired once: the layer in the scene, the pointer tool, the
 * panel, notices for problems, per-frame LOD and the stats. Give it Cairn's `Stage` (the scatter
 * page and the world plugin do: it then also adds the HUD section, `cairn.stats.scatter` and the
 * `scatter` service, and runs {@link ScatterTool.update} every frame), or your own three.js
 * `scene`, `camera` and `canvas` and call `update(time)` from your render loop.
 */
export interface ScatterToolOptions {
  /** The ground the layer scatters on and the brush's ray is marched against (Cairn's Heightmap). */
  ground: GroundSampler & HeightField;
  /** Cairn's Stage: scene, camera, canvas, frames, HUD, services and stats come from it. */
  stage?: Stage;
  /** Without a stage: the scene the layer and the brush's ring go in. */
  scene?: Object3D;
  /** Without a stage: the camera the pointer is cast from and LOD is measured to. */
  camera?: PerspectiveCamera;
  /** Without a stage: the element the pointer paints on (your renderer's canvas). */
  canvas?: HTMLCanvasElement;
  /** Where the panel goes. Default the page's dock (the right column; src/world/dock.ts). */
  container?: HTMLElement;
  /** Default 1 (Cairn's pages pass ?seed=). */
  seed?: number;
  /** Preset chosen at start (and its props baked in the background). Default 'mixed-forest'; null for none. */
  preset?: string | null;
  /** Start with the brush active. Default true. */
  active?: boolean;
  /** Brush radius, metres. Default 8. */
  radius?: number;
  /** Share a catalog (e.g. with the asset browser). Default: a new one with the procedural props. */
  catalog?: PropCatalog;
}

/** Defaults of {@link ScatterToolOptions} (ground, stage or scene/camera/canvas, container and catalog have none). */
export const SCATTER_TOOL_DEFAULTS: Required<Pick<ScatterToolOptions, 'seed' | 'preset' | 'active' | 'radius'>> = {
  seed: 1,
  preset: 'mixed-forest',
  active: true,
  radius: 8,
};

/** What {@link createScatterTool} returns. */
export interface ScatterTool {
  /** The layer in the scene. */
  layer: ScatterLayer;
  /** The pointer tool. */
  brush: BrushTool;
  /** The brush panel (presets, radius, mode, progress). */
  panel: BrushPanel;
  /** The layer's figures plus the cursor (on a Stage also `cairn.stats.scatter`). */
  stats: ScatterPageStats;
  /** Activates or deactivates the brush (the panel's toggle does the same). */
  setActive(active: boolean): void;
  /** Re-evaluates LOD for the camera and refreshes the stats; `time` in seconds. A Stage calls it every frame. */
  update(time: number): void;
  /** Removes the tool's listeners, its Stage wiring (frames, HUD section, stats, service) and the panel, and frees the brush and the layer. */
  dispose(): void;
}

/** `window.cairn.stats.scatter`: the layer's figures plus the cursor. */
export type ScatterPageStats = ScatterStats & {
  /** The ground under the pointer, or null off the ground. */
  cursor: BrushTool['cursor'];
  /** The brush is active. */
  active: boolean;
};

/** The scatter brush on a page: the layer, the brush and its panel, notices and per-frame LOD (see {@link ScatterToolOptions}). */
export function createScatterTool(options: ScatterToolOptions): ScatterTool {
  const { stage, ground } = options;
  const resolved = withDefaults(SCATTER_TOOL_DEFAULTS, options);
  const scene = stage?.scene ?? options.scene;
  const camera = stage?.camera ?? options.camera;
  const canvas = stage?.canvas ?? options.canvas;
  if (!scene || !camera || !canvas) throw new TypeError('createScatterTool: give it a stage, or a scene, a camera and a canvas');
  const layer = new ScatterLayer({ ground, seed: resolved.seed, parent: scene, catalog: options.catalog });
  const brush = new BrushTool({ canvas, camera, layer, ground, parent: scene, radius: resolved.radius, active: resolved.active });
  brush.on('error', ({ error }) => void showNotice({ level: 'warn', title: 'The brush could not paint', detail: error.message }));
  const panel = new BrushPanel({ layer, brush, container: options.container });
  panel.element.hidden = !brush.isActive;
  const offProblem = layer.on('problem', ({ title, detail }) => void showNotice({ level: 'error', title, detail }));
  // Problems found while the layer was built (invalid presets) were emitted before we listened.
  for (const [name, detail] of Object.entries(layer.stats.invalidPresets))
    showNotice({ level: 'error', title: `Preset "${name}" is invalid and was skipped`, detail: detail.replace(/; /g, '\n') });

  const stats = layer.stats as ScatterPageStats;
  stats.cursor = null;
  stats.active = brush.isActive;
  const onKey = (event: KeyboardEvent): void => {
    if (!brush.isActive || isTyping(event)) return;
    if (event.key === '[') panel.setRadius(brush.radius - 1);
    else if (event.key === ']') panel.setRadius(brush.radius + 1);
  };
  window.addEventListener('keydown', onKey);

  const preset = resolved.preset;
  if (preset && layer.presets.has(preset)) void layer.choosePreset(preset);

  let offStage = (): void => undefined;
  const tool: ScatterTool = {
    layer,
    brush,
    panel,
    stats,
    setActive(active) {
      brush.setActive(active);
      panel.element.hidden = !active;
      stats.active = active;
    },
    update(time) {
      layer.update(camera.position, time);
      stats.cursor = brush.cursor;
      stats.active = brush.isActive;
    },
    dispose() {
      window.removeEventListener('keydown', onKey);
      offStage();
      offProblem();
      panel.dispose();
      brush.dispose();
      layer.dispose();
    },
  };
  if (stage) offStage = onStage(stage, tool);
  return tool;
}

/** The Stage's share: frames, the HUD section, `cairn.stats.scatter` and the service; returns its undo. */
function onStage(stage: Stage, tool: ScatterTool): () => void {
  stage.cairn.stats.scatter = tool.stats;
  const offFrame = stage.onFrame((_dt, time) => tool.update(time));
  const removeHud = stage.hud?.addSection('scatter', { title: 'Scatter', rows: hudRows }) ?? (() => undefined);
  stage.services.provide('scatter', tool);
  return () => {
    offFrame();
    removeHud();
    delete stage.cairn.stats.scatter;
  };
}

/** The HUD section: only what `cairn.stats.scatter` says, so the HUD shows what tests assert. */
function hudRows(all: CairnStats): HudRow[] {
  const s = all.scatter;
  if (!s) return [];
  const r = s.rejections;
  const rows: HudRow[] = [
    {
      label: 'preset',
      value: `${s.preset ?? 'none'}${s.bake.state === 'baking' ? ` (baking ${s.bake.done}/${s.bake.total})` : ''}`,
      tone: s.bake.state === 'baking' ? 'warn' : undefined,
    },
    {
      label: 'instances',
      value: `${s.rendered} drawn${s.pending ? ` · ${s.pending} pending` : ''}${s.skipped ? ` · ${s.skipped} skipped` : ''}`,
    },
    { label: 'candidates', value: `${s.candidates} → ${s.placed} placed` },
    {
      label: 'rejected',
      value: `slope ${r.slope} · alt ${r.altitude} · spacing ${r.spacing} · water ${r.water}${r.outside ? ` · off-map ${r.outside}` : ''}${r.noProp ? ` · no prop ${r.noProp}` : ''}`,
    },
    { label: 'buckets', value: `${s.liveBuckets} live / ${s.buckets} (+${s.shadowBuckets} shadow)` },
    { label: 'LOD 0/1/2', value: `${s.perLevel.join(' / ')} · ${s.lod.lastMs.toFixed(2)} ms` },
  ];
  if (s.cursor) rows.push({ label: 'cursor', value: `${s.cursor.x.toFixed(1)}, ${s.cursor.z.toFixed(1)} (${s.cursor.samples} lookups)` });
  for (const [id, message] of Object.entries(s.failedProps)) rows.push({ label: `failed ${id}`, value: message.slice(0, 60), tone: 'bad' });
  for (const name of Object.keys(s.invalidPresets)) rows.push({ label: 'invalid preset', value: name, tone: 'bad' });
  return rows;
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** The scatter brush and its layer. */
    scatter: ScatterTool;
  }
}

declare module '../world/cairn-global.ts' {
  interface CairnStats {
    /** The scatter layer's figures and the cursor. */
    scatter?: ScatterPageStats;
  }
}
