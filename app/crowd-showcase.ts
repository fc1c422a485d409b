/**
 * The crowd showcase: synthetic peers walking, idling and dancing over the terrain around the
 * player, a count control (0–1000, or `?count=N`), and bring-your-own character (`?model=URL`,
 * drag-and-drop, or the file button). A bad model gets a clear message and the crowd keeps going.
 * Peers wear palette colours; every 5th turns its head to the camera (procedural control, the
 * live path within the live radius; `?lookAt=0..1` sets the share). `?liveEnter=M&liveExit=M`
 * set that radius (default 20 m / 25 m, see lod-policy.ts).
 */
import {
  CrowdTemplateError,
  resolveLod,
  type LodOptions,
  loadCrowdTemplateFromFile,
  loadCrowdTemplateFromUrl,
  MAX_SYNTHETIC_PEERS,
  StageCrowd,
  type LoadTemplateProgress,
} from '../src/crowd/index.ts';
import { PlayerAvatar } from '../src/avatar/player-avatar.ts';
import { createWorld, showNotice } from '../src/world/index.ts';
import { pageBonePath, pageStageOptions } from './cairn.ts';

/** What the crowd showcase publishes as `cairn.crowdPage`. */
export interface CrowdPageApi {
  /** Sets the number of synthetic peers (clamped to 0–1000) and the panel with it. */
  setCount(count: number): void;
  /** Loads a character file into the crowd; the running crowd stays if it is refused. */
  loadModelUrl(url: string): Promise<void>;
  loadModelFile(file: File): Promise<void>;
}

declare module '../src/world/cairn-global.ts' {
  interface CairnGlobal {
    /** The crowd showcase's controls. */
    crowdPage?: CrowdPageApi;
    /** True once the showcase has its peers (and `?model=` has loaded or been refused). */
    crowdReady?: boolean;
  }
}

const STYLE = `
.crowd-panel { position: fixed; right: 10px; bottom: 10px; z-index: 10; padding: 10px 12px; border-radius: 6px;
  background: rgba(12, 18, 24, .78); color: #e8edf2; font: 12px/1.5 system-ui, sans-serif; display: grid; gap: 6px; min-width: 240px; }
.crowd-panel label { display: flex; align-items: center; gap: 8px; }
.crowd-panel input[type=range] { flex: 1; }
.crowd-panel input[type=number] { width: 64px; }
.crowd-panel .crowd-status { min-height: 1.5em; color: #9fb3c6; }
.crowd-drop { position: fixed; inset: 0; z-index: 15; display: none; place-items: center; font: 600 22px system-ui, sans-serif;
  color: #fff; background: rgba(20, 60, 90, .55); border: 3px dashed #9fd3ff; pointer-events: none; }
.crowd-drop[data-active] { display: grid; }
`;

export async function startShowcase(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const world = await createWorld(pageStageOptions(params));
  // The player walks among the crowd as Cairn's humanoid.
  const avatar = new PlayerAvatar();
  world.player.setCharacter(avatar);
  world.services.provide('avatar', avatar);
  const initial = clampCount(Number(params.get('count') ?? 120));
  const spawn = world.player.state;
  const stageCrowd = new StageCrowd(world, {
    heightmap: world.heightmap,
    lod: lodFromParams(params),
    // `?lookAt=` share of peers whose heads follow the camera (0–1, default 0.2).
    lookAtShare: params.has('lookAt') ? Math.min(1, Math.max(0, Number(params.get('lookAt')) || 0)) : undefined,
    // In front of the player (the camera starts looking north, −Z), near and far.
    peers: {
      seed: Number(params.get('seed') ?? 7),
      centerX: spawn.x,
      centerZ: spawn.z - 30,
      radius: 38,
      moving: params.get('still') !== '1',
    },
    count: 0,
    path: pageBonePath(params),
  });
  // The GPU budget calibrates on the empty crowd for a few frames before the peers arrive.
  await Promise.race([world.frames(6), new Promise((resolve) => setTimeout(resolve, 4000))]);
  stageCrowd.setCount(initial);

  const panel = buildPanel(initial, stageCrowd);
  const load = async (what: { url: string } | { file: File }): Promise<void> => {
    const label = 'url' in what ? what.url : what.file.name;
    panel.status(`Loading ${label}…`);
    const onProgress = ({ done, total, label: phase }: LoadTemplateProgress): void =>
      panel.status(`${phase} ${label}: ${total ? `${Math.round((done / total) * 100)}%` : `${Math.round(done / 1024)} KiB`}`);
    try {
      const options = { targetHeight: 1.8, maxBones: 256, onProgress };
      const template =
        'url' in what ? await loadCrowdTemplateFromUrl(what.url, options) : await loadCrowdTemplateFromFile(what.file, options);
      panel.status(`Baking ${template.clips.length} clip(s)…`);
      // Let the status line paint before the (synchronous) bake.
      await world.frames(1);
      stageCrowd.setTemplate(template);
      const r = template.report;
      const partial = r.drawnVertices < r.sourceVertices;
      const notes = [
        `${r.pieces} piece(s), ${r.bones} bones, draws ${r.drawnVertices.toLocaleString('en-US')} of ${r.sourceVertices.toLocaleString('en-US')} vertices, clips: ${r.clips.join(', ')}`,
        ...r.notes,
        r.clampedVertices ? `${r.clampedVertices} vertices had more than 4 influences: kept the strongest 4, renormalised` : '',
      ].filter(Boolean);
      panel.status(`Crowd is now ${template.name}`);
      showNotice({
        level: partial || r.losses.length ? 'warn' : 'info',
        title: partial ? `Crowd character: ${template.name} (partly drawn)` : `Crowd character: ${template.name}`,
        detail: notes.join('\n'),
      });
      stageCrowd.reportError(null);
    } catch (error) {
      const message = error instanceof CrowdTemplateError ? error.message : `${label}: ${(error as Error).message}`;
      panel.status('Model rejected; the crowd is unchanged');
      stageCrowd.reportError(message);
      showNotice({ level: 'error', title: 'This model cannot join the crowd', detail: `${message}\nThe running crowd is unchanged.` });
    }
  };
  panel.onFile((file) => void load({ file }));
  installDrop((file) => void load({ file }));

  world.cairn.stageCrowd = stageCrowd;
  world.cairn.crowdPage = {
    setCount: (n) => {
      stageCrowd.setCount(clampCount(n));
      panel.sync(stageCrowd.count);
    },
    loadModelUrl: (url) => load({ url }),
    loadModelFile: (file) => load({ file }),
  };
  const model = params.get('model');
  if (model) await load({ url: model });
  world.cairn.crowdReady = true;
}

function clampCount(n: number): number {
  return Number.isFinite(n) ? Math.min(MAX_SYNTHETIC_PEERS, Math.max(0, Math.round(n))) : 0;
}

interface Panel {
  status(text: string): void;
  sync(count: number): void;
  onFile(callback: (file: File) => void): void;
}

function buildPanel(initial: number, stageCrowd: StageCrowd): Panel {
  const style = document.createElement('style');
  style.textContent = STYLE;
  document.head.append(style);
  const panel = document.createElement('div');
  panel.className = 'crowd-panel';
  panel.innerHTML = `
    <label>Avatars <input type="range" min="0" max="${MAX_SYNTHETIC_PEERS}" step="10" aria-label="crowd size"> <input type="number" min="0" max="${MAX_SYNTHETIC_PEERS}" aria-label="crowd size (exact)"></label>
    <label>Character <input type="file" accept=".glb,.gltf,.fbx" aria-label="load a character model"></label>
    <div class="crowd-status" role="status"></div>`;
  document.body.append(panel);
  const range = panel.querySelector<HTMLInputElement>('input[type=range]')!;
  const number = panel.querySelector<HTMLInputElement>('input[type=number]')!;
  const file = panel.querySelector<HTMLInputElement>('input[type=file]')!;
  const statusLine = panel.querySelector<HTMLElement>('.crowd-status')!;
  const sync = (count: number): void => {
    range.value = String(count);
    number.value = String(count);
  };
  sync(initial);
  const apply = (value: string): void => {
    const n = clampCount(Number(value));
    stageCrowd.setCount(n);
    sync(n);
  };
  range.addEventListener('input', () => apply(range.value));
  number.addEventListener('change', () => apply(number.value));
  // Typing in the panel must not walk the player.
  panel.addEventListener('keydown', (event) => event.stopPropagation());
  let fileCallback: (file: File) => void = () => undefined;
  file.addEventListener('change', () => {
    const chosen = file.files?.[0];
    if (chosen) fileCallback(chosen);
    file.value = '';
  });
  return {
    status: (text) => (statusLine.textContent = text),
    sync,
    onFile: (callback) => (fileCallback = callback),
  };
}

function installDrop(onFile: (file: File) => void): void {
  const overlay = document.createElement('div');
  overlay.className = 'crowd-drop';
  overlay.textContent = 'Drop a skinned .glb / .gltf / .fbx to fill the crowd with it';
  document.body.append(overlay);
  let depth = 0;
  window.addEventListener('dragenter', (event) => {
    event.preventDefault();
    depth++;
    overlay.dataset.active = '';
  });
  window.addEventListener('dragleave', () => {
    if (--depth <= 0) delete overlay.dataset.active;
  });
  window.addEventListener('dragover', (event) => event.preventDefault());
  window.addEventListener('drop', (event) => {
    event.preventDefault();
    depth = 0;
    delete overlay.dataset.active;
    const file = event.dataTransfer?.files?.[0];
    if (file) onFile(file);
  });
}

/** `?liveEnter=&liveExit=` as LOD options; a pair that breaks the rules gets a notice and the defaults. */
function lodFromParams(params: URLSearchParams): LodOptions {
  const lod: LodOptions = {};
  for (const key of ['liveEnter', 'liveExit'] as const) if (params.has(key)) lod[key] = Number(params.get(key));
  try {
    resolveLod(lod);
    return lod;
  } catch (error) {
    showNotice({ level: 'warn', title: 'Live radius ignored', detail: `${(error as Error).message}; using the defaults` });
    return {};
  }
}
