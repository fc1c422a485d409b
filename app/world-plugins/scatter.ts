import type { World } from '../../src/world/world.ts';
import type { ScatterTool } from '../../src/scatter/scatter-tool.ts';
import { ambientOf } from '../../src/world/ambient/index.ts';
import { isTyping } from '../../src/world/typing.ts';

/**
 * The scatter brush as a tool in the world. Idle cost is one small button and a key listener:
 * the brush, its presets and meshoptimizer load only when the tool is first switched on (B or the
 * button). While it is on, left-drag paints (the camera rig leaves the left button to tools that
 * set `canvas.dataset.tool`); right-drag still orbits, WASD still walks. The brush draws from
 * the ambient world's prop catalog, so props bake once. Its panel moves left while the asset
 * browser's panel is open, so the two never overlap.
 */
export function install(world: World): void {
  let tool: ScatterTool | null = null;
  let loading: Promise<ScatterTool> | null = null;

  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'cairn-scatter-toggle';
  button.textContent = 'Scatter brush (B)';
  button.setAttribute('aria-pressed', 'false');
  Object.assign(button.style, {
    position: 'fixed',
    // Above the voice toolbar (bottom right); the panel opens below the asset browser's toggle.
    right: '10px',
    bottom: '54px',
    zIndex: '11',
    padding: '5px 10px',
    borderRadius: '6px',
    border: '1px solid #3b546c',
    background: 'rgba(12, 18, 24, .78)',
    color: '#e8edf2',
    font: '12px system-ui, sans-serif',
    cursor: 'pointer',
  });
  document.body.append(button);

  const load = (): Promise<ScatterTool> =>
    (loading ??= Promise.all([import('../../src/scatter/scatter-tool.ts'), ambientOf(world)?.scatterReady ?? null]).then(([{ createScatterTool }, ambient]) => {
      tool = createScatterTool({ stage: world, ground: world.heightmap, active: false, radius: 6, panelTop: 56, catalog: ambient?.catalog });
      return tool;
    }));

  // The asset browser's panel is a sidebar at the right: the brush panel moves to its left.
  let frame = 0;
  world.onFrame(() => {
    if (!tool || ++frame % 10 !== 0) return;
    const assets = document.querySelector<HTMLElement>('.cairn-assets');
    const right = assets && assets.offsetParent !== null ? `${assets.offsetWidth + 10}px` : '10px';
    if (tool.panel.element.style.right !== right) tool.panel.element.style.right = right;
  });

  const toggle = async (): Promise<void> => {
    const active = !(tool?.brush.isActive ?? false);
    const ready = await load();
    ready.setActive(active);
    button.setAttribute('aria-pressed', String(active));
  };

  button.addEventListener('click', () => void toggle());
  window.addEventListener('keydown', (event) => {
    if (event.code !== 'KeyB' || event.repeat || isTyping(event)) return;
    void toggle();
  });
}
