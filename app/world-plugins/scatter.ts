import type { World } from '../../src/world/world.ts';
import type { WorldPlugin } from '../../src/world/plugins.ts';
import type { ScatterTool } from '../../src/scatter/scatter-tool.ts';
import { Disposers } from '../../src/core/disposers.ts';
import { isTyping } from '../../src/core/typing.ts';
import { worldDock } from '../../src/world/dock.ts';
import { showNotice } from '../../src/world/notices.ts';

/**
 * The scatter brush as a tool in the world. Idle cost is one small button and a key listener:
 * the brush, its presets and meshoptimizer load only when the tool is first switched on (B or the
 * button). While it is on, left-drag paints (the camera rig leaves the left button to tools that
 * set `canvas.dataset.tool`); right-drag still orbits, WASD still walks. The brush draws from
 * the ambient world's prop catalog, so props bake once. The toggle and the panel sit in the page's
 * dock with the other tools (src/world/dock.ts), so nothing overlaps. Strokes are shared through the world's edit
 * cells (src/scatter/shared-scatter.ts): everyone near sees them, later visitors too; Ctrl+Z undoes
 * one's own last press (own: painted under this browser's session, `POST /api/session`). Every
 * refusal or failure to share is a notice, and a figure in `cairn.stats.sharedScatter` and the HUD.
 * `?shared=0` keeps the brush local.
 */
export const plugin: WorldPlugin = { name: 'scatter', provides: ['scatter', 'sharedScatter'], uses: ['ambient'], install };

function install(world: World): () => void {
  const undo = new Disposers();
  let tool: ScatterTool | null = null;
  let loading: Promise<ScatterTool> | null = null;

  // A tool in the page's dock (src/world/dock.ts); its panel opens in the dock's panel area.
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'cairn-tool cairn-scatter-toggle';
  button.textContent = 'Scatter brush (B)';
  button.setAttribute('aria-pressed', 'false');
  worldDock().tools.append(button);
  undo.add(() => button.remove());

  // No preset until the brush is first switched on: a layer that only draws shared strokes bakes
  // just the props those strokes use.
  const load = (): Promise<ScatterTool> =>
    (loading ??= Promise.all([import('../../src/scatter/scatter-tool.ts'), world.services.get('ambient')?.scatterReady ?? null]).then(
      ([{ createScatterTool }, ambient]) => {
        tool = createScatterTool({
          stage: world,
          ground: world.heightmap,
          active: false,
          radius: 6,
          catalog: ambient?.catalog,
          preset: null,
        });
        undo.add(() => tool?.dispose());
        return tool;
      },
    ));

  // Shared edits: the brush layer is built (idle) once the world is up, and joins the edit cells
  // around the player, so strokes others painted appear without opening the brush.
  const params = new URLSearchParams(location.search);
  if (params.get('shared') !== '0') {
    const seed = Number(params.get('seed') ?? 1) || 1;
    void world
      .frames(4)
      .then(() => Promise.all([load(), import('../../src/scatter/shared-scatter.ts')]))
      .then(async ([ready, { SharedScatter, editSession }]) => {
        // A session proves who painted a stroke: only it can undo the stroke (kept across reloads while valid).
        const session = await editSession(location.origin, localStorage);
        const shared = new SharedScatter({
          layer: ready.layer,
          brush: ready.brush,
          seed,
          session,
          origin: location.origin.replace(/^http/, 'ws'),
        });
        undo.add(shared.on('problem', ({ level, title, detail }) => void showNotice({ level, title, detail })));
        if (session === null)
          showNotice({
            level: 'warn',
            title: 'Your strokes are not shared',
            detail:
              'The server gave this page no session (offline, or too many from this address lately): you see what others paint; reload later to paint for everyone.',
          });
        undo.add(world.services.provide('sharedScatter', shared));
        undo.add(() => shared.dispose());
        world.cairn.stats.sharedScatter = shared.stats;
        world.hud?.addSection('shared-edits', {
          title: 'Shared edits',
          rows: (all) => {
            const s = all.sharedScatter;
            if (!s) return [];
            return [
              {
                label: 'cells',
                value: `${s.cells} open / ${s.joined} · ${s.strokes} strokes`,
                tone: s.cells < s.joined ? 'warn' : undefined,
              },
              {
                label: 'mine',
                value: `${s.sent} sent · ${s.stored} stored${s.queued ? ` · ${s.queued} queued` : ''}${s.author ? '' : ' · watching only'}`,
                tone: s.author ? undefined : 'warn',
              },
              ...(s.refused || s.evictedMine
                ? [
                    {
                      label: 'refused',
                      value: `${s.refused} · evicted ${s.evictedMine} · ${s.lastRefusal ?? ''}`.slice(0, 70),
                      tone: 'bad' as const,
                    },
                  ]
                : []),
              ...(s.apply.busyCells ? [{ label: 'applying', value: `${s.apply.busyCells} cells · ${s.apply.queue} waiting` }] : []),
            ];
          },
        });
        let tick = 0;
        undo.add(
          world.onFrame(() => {
            if (tick++ % 30 === 0) shared.focus(world.player.state.x, world.player.state.z);
          }),
        );
        const onUndoKey = (event: KeyboardEvent): void => {
          if (event.code === 'KeyZ' && (event.ctrlKey || event.metaKey) && !isTyping(event)) {
            event.preventDefault();
            shared.undo();
          }
        };
        window.addEventListener('keydown', onUndoKey);
        undo.add(() => window.removeEventListener('keydown', onUndoKey));
      })
      .catch((error: Error) => console.warn('shared scatter could not start', error));
  }

  const toggle = async (): Promise<void> => {
    const active = !(tool?.brush.isActive ?? false);
    const ready = await load();
    if (active && !ready.layer.session.preset) void ready.layer.choosePreset('mixed-forest');
    ready.setActive(active);
    button.setAttribute('aria-pressed', String(active));
  };

  button.addEventListener('click', () => void toggle());
  const onKey = (event: KeyboardEvent): void => {
    if (event.code !== 'KeyB' || event.repeat || isTyping(event)) return;
    void toggle();
  };
  window.addEventListener('keydown', onKey);
  undo.add(() => window.removeEventListener('keydown', onKey));
  return () => undo.dispose();
}
