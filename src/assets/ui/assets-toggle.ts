import { worldDock } from '../../world/dock.ts';
import { injectAssetStyles } from './styles.ts';

/**
 * The world's "Assets" toggle, a tool in the page's dock (top right). Separate from
 * world-assets.ts so the world plugin can show it without loading the module (and meshoptimizer)
 * until it is first used.
 */
export function createAssetsToggle(): HTMLButtonElement {
  injectAssetStyles();
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'cairn-tool cairn-assets-toggle';
  button.textContent = 'Assets';
  button.title = 'Search CC0 models and place them in the world';
  worldDock().tools.append(button);
  return button;
}
