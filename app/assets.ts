import { startAssetsPage } from './assets-page.ts';
import { createStage } from '../src/world/index.ts';
import { pageFatal, pageStageOptions } from './cairn.ts';

/** The assets page: search Poly Haven's CC0 models, load one, simplify it, send it to the world. */
async function main(): Promise<void> {
  let stage;
  try {
    stage = await createStage(pageStageOptions());
  } catch (error) {
    pageFatal('Cairn cannot start', (error as Error).message);
    return;
  }
  try {
    await startAssetsPage(stage);
  } catch (error) {
    pageFatal('The assets page failed to start', (error as Error).message);
    return;
  }
  stage.start();
}

void main();
