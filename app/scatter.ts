import { Vector3 } from 'three';
import { createStage, type Environment, type Stage } from '../src/world/index.ts';
import type { Mesh } from 'three';
import { pageFatal, pageStageOptions } from './cairn.ts';
import type { ScatterBench } from './scatter-bench.ts';
import { createEnvironment } from '../src/world/environment.ts';
import { generateTerrain, LANDMARKS } from '../src/world/terrain/generate.ts';
import { terrainAnisotropyFor } from '../src/world/terrain/terrain-material.ts';
import { createTerrainMesh } from '../src/world/terrain/terrain-mesh.ts';
import { OverviewCamera } from '../src/scatter/overview-camera.ts';
import { createScatterTool } from '../src/scatter/scatter-tool.ts';

declare module '../src/world/cairn-global.ts' {
  interface CairnGlobal {
    /** The scatter page's overview camera. */
    view?: OverviewCamera;
    /** The scatter page's terrain mesh. */
    terrain?: Mesh;
    /** The scatter page's sky, sun and water. */
    environment?: Environment;
    /** The scatter page's benchmark helpers (`?bench=1`). */
    scatterBench?: ScatterBench;
  }
}

/**
 * The scatter page: Cairn's terrain seen from above, the brush and its panel. URL options:
 * `?seed=N` (placement seed), `?preset=id` (initial preset), `?webgl=1`, `?bench=1` (loads the
 * benchmark helpers for bench/scatter).
 */
async function main(): Promise<void> {
  const params = new URLSearchParams(location.search);
  let stage: Stage;
  try {
    stage = await createStage(pageStageOptions(params));
  } catch (error) {
    pageFatal('Cairn cannot start', (error as Error).message);
    return;
  }
  const heightmap = generateTerrain({ seed: 1 });
  const terrain = createTerrainMesh(heightmap, { anisotropy: terrainAnisotropyFor(stage.status) });
  stage.scene.add(terrain);
  const environment = createEnvironment(stage.scene, heightmap.waterLevel);
  const view = new OverviewCamera(stage.camera, stage.canvas, heightmap, { focus: LANDMARKS.spawn, distance: 70, pitch: 0.85 });
  const tool = createScatterTool({
    stage,
    ground: heightmap,
    seed: Number(params.get('seed') ?? 1) >>> 0,
    preset: params.get('preset') ?? 'mixed-forest',
    radius: 10,
  });
  const focus = new Vector3();
  stage.onFrame((dt) => {
    view.update(dt);
    const f = view.focus;
    environment.follow(focus.set(f.x, f.y, f.z));
  });
  Object.assign(stage.cairn, { view, heightmap, terrain, environment });
  if (params.get('bench') === '1') {
    const bench = await import('./scatter-bench.ts');
    stage.cairn.scatterBench = bench.createScatterBench(stage, tool);
  }
  stage.start();
}

void main();
