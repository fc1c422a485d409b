import { progressFraction } from '../core/progress.ts';
import { withDefaults } from '../core/options.ts';
import { worldDock } from '../world/dock.ts';
import { parseGltfProp } from './gltf-prop.ts';
import { parseRecording, savedPresets, savedProps, savePreset, saveProp } from './local-store.ts';
import type { BrushTool } from './brush-tool.ts';
import type { ScatterLayer } from './scatter-layer.ts';

/**
 * The brush's control panel (DOM glue): preset picker with a baking progress bar, paint/erase,
 * radius, seed and new session, replay/save of the recording, loading a preset JSON file and
 * adding any glTF/GLB file as a prop. Every failure lands in the layer's `problem` event, which
 * the page shows as a notice.
 */

const STYLE = `
.cairn-scatter { padding: 10px 12px; background: rgba(12, 18, 24, .82); color: #e8edf2; border-radius: 8px;
  font: 12px/1.4 system-ui, sans-serif; overflow: auto; }
.cairn-scatter h2 { margin: 0 0 6px; font: 600 12px/1.4 system-ui, sans-serif; text-transform: uppercase; letter-spacing: .06em; color: #9fb3c6; }
.cairn-scatter .row { display: flex; flex-wrap: wrap; gap: 4px; margin: 6px 0; align-items: center; }
.cairn-scatter button { background: #26384a; color: inherit; border: 1px solid #3b546c; border-radius: 4px; padding: 3px 7px; cursor: pointer; font: inherit; }
.cairn-scatter button[aria-pressed="true"] { background: #3f7a4f; border-color: #6fbf83; }
.cairn-scatter input[type="range"] { flex: 1; }
.cairn-scatter input[type="number"], .cairn-scatter input[type="text"] { width: 70px; background: #15202b; color: inherit; border: 1px solid #3b546c; border-radius: 4px; padding: 2px 4px; }
.cairn-scatter .progress { height: 6px; background: #15202b; border-radius: 3px; overflow: hidden; }
.cairn-scatter .progress > div { height: 100%; width: 0; background: #6fbf83; transition: width .15s; }
.cairn-scatter .status { color: #9fb3c6; min-height: 1.4em; }
.cairn-scatter label.file { display: inline-block; background: #26384a; border: 1px solid #3b546c; border-radius: 4px; padding: 3px 7px; cursor: pointer; }
.cairn-scatter label.file input { display: none; }
`;

export interface BrushPanelOptions {
  layer: ScatterLayer;
  brush: BrushTool;
  /** Where the panel goes. Default the page's dock (the right column, under the tools; src/world/dock.ts). */
  container?: HTMLElement;
}

/** Defaults of {@link BrushPanelOptions}: `container` null is the page's dock, found when the panel is built. */
export const BRUSH_PANEL_DEFAULTS: { container: HTMLElement | null } = { container: null };

export class BrushPanel {
  readonly element: HTMLElement;
  private readonly layer: ScatterLayer;
  private readonly brush: BrushTool;
  private readonly progressBar: HTMLElement;
  private readonly status: HTMLElement;
  private readonly presetRow: HTMLElement;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(options: BrushPanelOptions) {
    const { container } = withDefaults(BRUSH_PANEL_DEFAULTS, options);
    this.layer = options.layer;
    this.brush = options.brush;
    if (!document.getElementById('cairn-scatter-style')) {
      const style = document.createElement('style');
      style.id = 'cairn-scatter-style';
      style.textContent = STYLE;
      document.head.append(style);
    }
    const el = (this.element = document.createElement('div'));
    el.className = 'cairn-scatter';
    el.setAttribute('aria-label', 'Scatter brush');
    el.innerHTML = `
      <h2>Scatter brush</h2>
      <div class="row presets" role="group" aria-label="Preset"></div>
      <div class="progress" role="progressbar" aria-label="Baking LODs" aria-valuemin="0" aria-valuemax="100"><div></div></div>
      <div class="status" data-role="status">Choose a preset</div>
      <div class="row" role="group" aria-label="Mode">
        <button type="button" data-mode="paint" aria-pressed="true">Paint</button>
        <button type="button" data-mode="erase" aria-pressed="false">Erase</button>
      </div>
      <div class="row"><span>Radius</span><input type="range" min="2" max="40" step="1" data-role="radius"><span data-role="radius-value"></span></div>
      <div class="row"><span>Seed</span><input type="number" data-role="seed" min="0" step="1"><button type="button" data-action="new-session">New session</button></div>
      <div class="row"><button type="button" data-action="replay">Replay</button><button type="button" data-action="save">Save recording</button></div>
      <div class="row">
        <label class="file">Load recording…<input type="file" accept=".json,application/json" data-role="recording-file"></label>
      </div>
      <div class="row">
        <label class="file">Load preset…<input type="file" accept=".json,application/json" data-role="preset-file"></label>
      </div>
      <div class="row">
        <label class="file">Add glTF prop…<input type="file" accept=".glb,.gltf" data-role="prop-file"></label>
        <input type="text" data-role="prop-category" value="rock" title="Category the prop joins">
      </div>`;
    this.presetRow = el.querySelector('.presets')!;
    this.progressBar = el.querySelector('.progress > div')!;
    this.status = el.querySelector('[data-role="status"]')!;
    (container ?? worldDock().panels).append(el);
    this.renderPresets();

    el.addEventListener('click', this.onClick);
    const radius = el.querySelector<HTMLInputElement>('[data-role="radius"]')!;
    radius.value = String(this.brush.radius);
    el.querySelector('[data-role="radius-value"]')!.textContent = `${this.brush.radius} m`;
    radius.addEventListener('input', () => this.setRadius(Number(radius.value)));
    el.querySelector<HTMLInputElement>('[data-role="seed"]')!.value = String(this.layer.session.seed);
    el.querySelector<HTMLInputElement>('[data-role="preset-file"]')!.addEventListener(
      'change',
      (event) => void this.loadPresetFile(event.target as HTMLInputElement),
    );
    el.querySelector<HTMLInputElement>('[data-role="prop-file"]')!.addEventListener(
      'change',
      (event) => void this.addPropFile(event.target as HTMLInputElement),
    );
    el.querySelector<HTMLInputElement>('[data-role="recording-file"]')!.addEventListener(
      'change',
      (event) => void this.loadRecordingFile(event.target as HTMLInputElement),
    );
    void this.restore();
    this.unsubscribe.push(
      // Presets chosen elsewhere (console, replay, the world) still light the right button.
      this.layer.on('change', ({ event }) => {
        if (event.kind === 'preset') this.renderPresets();
      }),
      this.layer.on('progress', ({ progress, state }) => {
        const { done, total, label } = progress;
        const fraction = progressFraction(progress);
        const percent = fraction === null ? 100 : Math.round(fraction * 100);
        this.progressBar.style.width = `${percent}%`;
        this.progressBar.parentElement!.setAttribute('aria-valuenow', String(percent));
        this.status.textContent = state === 'ready' ? `Ready — ${total} props baked` : `Baking LODs ${done}/${total} (${label})`;
      }),
    );
  }

  /** Re-renders the preset buttons (after presets were added). */
  renderPresets(): void {
    this.presetRow.replaceChildren(
      ...[...this.layer.presets.values()].map((preset) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.dataset.preset = preset.id;
        button.textContent = preset.name;
        button.title = preset.description ?? preset.name;
        button.setAttribute('aria-pressed', String(this.layer.session.preset?.id === preset.id));
        return button;
      }),
    );
  }

  setRadius(radius: number): void {
    this.brush.setRadius(radius);
    this.element.querySelector<HTMLInputElement>('[data-role="radius"]')!.value = String(this.brush.radius);
    this.element.querySelector('[data-role="radius-value"]')!.textContent = `${this.brush.radius} m`;
  }

  setMode(mode: 'paint' | 'erase'): void {
    this.brush.mode = mode;
    for (const button of this.element.querySelectorAll<HTMLButtonElement>('[data-mode]'))
      button.setAttribute('aria-pressed', String(button.dataset.mode === mode));
  }

  dispose(): void {
    for (const off of this.unsubscribe) off();
    this.element.remove();
  }

  private readonly onClick = (event: MouseEvent): void => {
    const target = (event.target as HTMLElement).closest('button');
    if (!target) return;
    if (target.dataset.preset) {
      void this.layer.choosePreset(target.dataset.preset);
    } else if (target.dataset.mode) {
      this.setMode(target.dataset.mode as 'paint' | 'erase');
    } else if (target.dataset.action === 'new-session') {
      const seed = Number(this.element.querySelector<HTMLInputElement>('[data-role="seed"]')!.value);
      const preset = this.layer.session.preset?.id;
      this.layer.reset(Number.isFinite(seed) ? seed >>> 0 : 1);
      if (preset) void this.layer.choosePreset(preset);
    } else if (target.dataset.action === 'replay') {
      void this.layer.replay(this.layer.recording());
    } else if (target.dataset.action === 'save') {
      const blob = new Blob([JSON.stringify(this.layer.recording(), null, 1)], { type: 'application/json' });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `scatter-session-${this.layer.session.seed}.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 1000);
    }
  };

  private async loadPresetFile(input: HTMLInputElement): Promise<void> {
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    let data: unknown;
    try {
      data = JSON.parse(await file.text());
    } catch (error) {
      this.layer.emit('problem', { title: `Preset file "${file.name}" is not JSON`, detail: (error as Error).message });
      return;
    }
    const errors = this.layer.addPresets([{ source: file.name, data }]);
    if (errors.length === 0) {
      savePreset({ source: file.name, data });
      this.renderPresets();
    }
  }

  /** Replays a recording file (what "Save recording" wrote), after checking every field. */
  async loadRecordingFile(input: HTMLInputElement): Promise<void> {
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    let data: unknown;
    try {
      data = JSON.parse(await file.text());
    } catch (error) {
      this.layer.emit('problem', { title: `Recording "${file.name}" is not JSON`, detail: (error as Error).message });
      return;
    }
    const parsed = parseRecording(data);
    if (!parsed.ok) {
      this.layer.emit('problem', { title: `Recording "${file.name}" is not a scatter recording`, detail: parsed.problem });
      return;
    }
    try {
      await this.layer.replay(parsed.recording);
      this.status.textContent = `Replayed ${file.name}: ${parsed.recording.events.length} events`;
    } catch (error) {
      this.layer.emit('problem', { title: `Recording "${file.name}" could not be replayed`, detail: (error as Error).message });
    }
  }

  /** Brings back the presets and props this browser loaded before (see local-store.ts). */
  private async restore(): Promise<void> {
    const presets = savedPresets().filter(
      (p) =>
        !(
          typeof p.data === 'object' &&
          p.data !== null &&
          'id' in p.data &&
          typeof p.data.id === 'string' &&
          this.layer.presets.has(p.data.id)
        ),
    );
    if (presets.length > 0) {
      this.layer.addPresets(presets);
      this.renderPresets();
    }
    for (const prop of await savedProps()) {
      if (this.layer.catalog.has(prop.id)) continue;
      try {
        this.layer.catalog.register({ id: prop.id, category: prop.category, load: () => parseGltfProp(prop.bytes, prop.name) });
      } catch {
        // a prop of that id arrived meanwhile
      }
    }
  }

  private async addPropFile(input: HTMLInputElement): Promise<void> {
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    const category = this.element.querySelector<HTMLInputElement>('[data-role="prop-category"]')!.value.trim() || 'rock';
    const bytes = await file.arrayBuffer();
    const id = `file:${file.name}`;
    try {
      this.layer.catalog.register({ id, category, replace: true, load: () => parseGltfProp(bytes, file.name) });
    } catch (error) {
      this.layer.emit('problem', { title: `Prop "${file.name}" was not added`, detail: (error as Error).message });
      return;
    }
    try {
      await this.layer.catalog.resolve(id);
      void saveProp({ id, name: file.name, category, bytes });
      this.status.textContent = `Added ${file.name} to "${category}"`;
    } catch {
      // Reported by the catalog's `failed` event.
    }
  }
}
