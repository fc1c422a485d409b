/**
 * The retarget page: the 55-clip mannequin library retargeted onto the CC4-style character (or a
 * model you drop), with the clip's parity figures in the HUD and backslash for the source rig beside
 * it. Everything lives in app/retarget-viewer.ts; `window.cairn.retarget` is the viewer.
 */
import { RetargetViewer } from './retarget-viewer.ts';
import { createStage } from '../src/world/index.ts';
import { pageFatal, pageStageOptions } from './cairn.ts';

declare module '../src/world/cairn-global.ts' {
  interface CairnGlobal {
    /** The retarget page's viewer. */
    retarget?: RetargetViewer;
  }
}

async function start(): Promise<void> {
  const stage = await createStage(pageStageOptions());
  const viewer = new RetargetViewer(stage);
  stage.cairn.retarget = viewer;
  stage.start();
  await viewer.start();
}

start().catch((error: unknown) => pageFatal('The retarget page cannot start', (error as Error).message));
