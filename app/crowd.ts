/**
 * The crowd page. `crowd.html` is the showcase (synthetic peers over the terrain, a count
 * control, bring-your-own character); `?scene=compare` is the image-comparison scene the browser
 * tests use (three's SkinnedMesh + mixer vs the crowd's live and GPU paths); `?bench=1` is the
 * benchmark harness driven by bench/crowd. Each lives in its own module, loaded on demand.
 */
import { pageFatal } from './cairn.ts';

const scene = new URLSearchParams(location.search);

async function start(): Promise<void> {
  if (scene.get('scene') === 'compare') await (await import('./crowd-compare.ts')).startCompare();
  else if (scene.get('bench') === '1') await (await import('./crowd-bench.ts')).startBench();
  else await (await import('./crowd-showcase.ts')).startShowcase();
}

start().catch((error: unknown) => pageFatal('The crowd page cannot start', (error as Error).message));
