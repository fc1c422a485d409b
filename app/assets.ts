import { startAssetsPage } from '../src/assets/assets-page.ts';
import { createStage, showFatal } from '../src/world/index.ts';

/** The assets page: search Poly Haven's CC0 models, load one, simplify it, send it to the world. */
async function main(): Promise<void> {
  let stage;
  try {
    stage = await createStage();
  } catch (error) {
    showFatal('Cairn cannot start', (error as Error).message);
    return;
  }
  try {
    await startAssetsPage(stage);
  } catch (error) {
    showFatal('The assets page failed to start', (error as Error).message);
    return;
  }
  stage.start();
}

void main();
