import { injectAssetStyles } from './styles.ts';

/**
 * The world's "Assets" toggle (top right). Separate from world-assets.ts so the world plugin can
 * show it without loading the module (and meshoptimizer) until it is first used.
 */
export function createAssetsToggle(): HTMLButtonElement {
  injectAssetStyles();
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'cairn-assets-toggle';
  button.textContent = 'Assets';
  button.title = 'Search CC0 models and place them in the world';
  document.body.append(button);
  return button;
}
