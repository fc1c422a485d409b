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

/**
 * Everything the brush needs on a page, wired once: the layer in the scene, the pointer tool, the
 * panel, notices for problems, the HUD section, per-frame LOD, `cairn.stats.scatter` and
 * `cairn.scatter`. The scatter page and the world plugin both use it.
 */
export interface ScatterToolOptions {
  stage: Stage;
  ground: GroundSampler & HeightField;
  /** Default 1, or ?seed= in the URL. */
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

export interface ScatterTool {
  layer: ScatterLayer;
  brush: BrushTool;
  panel: BrushPanel;
  setActive(active: boolean): void;
  dispose(): void;
}

/** `window.cairn.stats.scatter`: the layer's figures plus the cursor. */
export type ScatterPageStats = ScatterStats & { cursor: BrushTool['cursor']; active: boolean };

/** The scatter brush on a page with a Stage: the layer, the brush and its panel, the HUD section and per-frame LOD. */
export function createScatterTool(options: ScatterToolOptions): ScatterTool {
  const { stage, ground } = options;
  const layer = new ScatterLayer({ ground, seed: options.seed ?? 1, parent: stage.scene, catalog: options.catalog });
  const brush = new BrushTool({
    canvas: stage.canvas,
    camera: stage.camera,
    layer,
    ground,
    parent: stage.scene,
    radius: options.radius,
    active: options.active ?? true,
  });
  brush.on('error', ({ error }) => void showNotice({ level: 'warn', title: 'The brush could not paint', detail: error.message }));
  // The panel goes in the page's dock (right column, under the tools).
  const panel = new BrushPanel({ layer, brush });
  panel.element.hidden = !brush.isActive;
  const offProblem = layer.on('problem', ({ title, detail }) => void showNotice({ level: 'error', title, detail }));
  // Problems found while the layer was built (invalid presets) were emitted before we listened.
  for (const [name, detail] of Object.entries(layer.stats.invalidPresets))
    showNotice({ level: 'error', title: `Preset "${name}" is invalid and was skipped`, detail: detail.replace(/; /g, '\n') });

  const stats = layer.stats as ScatterPageStats;
  stats.cursor = null;
  stats.active = brush.isActive;
  stage.cairn.stats.scatter = stats;
  const offFrame = stage.onFrame((_dt, time) => {
    layer.update(stage.camera.position, time);
    stats.cursor = brush.cursor;
    stats.active = brush.isActive;
  });
  const removeHud = stage.hud?.addSection('scatter', { title: 'Scatter', rows: hudRows }) ?? (() => undefined);
  const onKey = (event: KeyboardEvent): void => {
    if (!brush.isActive || isTyping(event)) return;
    if (event.key === '[') panel.setRadius(brush.radius - 1);
    else if (event.key === ']') panel.setRadius(brush.radius + 1);
  };
  window.addEventListener('keydown', onKey);

  const preset = options.preset === undefined ? 'mixed-forest' : options.preset;
  if (preset && layer.presets.has(preset)) void layer.choosePreset(preset);

  const tool: ScatterTool = {
    layer,
    brush,
    panel,
    setActive(active) {
      brush.setActive(active);
      panel.element.hidden = !active;
      stats.active = active;
    },
    dispose() {
      window.removeEventListener('keydown', onKey);
      offFrame();
      offProblem();
      removeHud();
      panel.dispose();
      brush.dispose();
      layer.dispose();
      delete stage.cairn.stats.scatter;
    },
  };
  stage.services.provide('scatter', tool);
  return tool;
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
