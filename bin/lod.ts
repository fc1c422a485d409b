/**
 * `npm run lod -- FILE.glb` (until that script exists: `npx tsx bin/lod.ts FILE.glb`): bakes the
 * scatter LOD levels (full, 50 %, 15 %) of every piece of a glTF/GLB prop with meshoptimizer and
 * prints triangles per level. Exit 1 when a level does not shrink, 2 for bad input.
 * See src/scatter/lod-command.ts for the options.
 */
import { runLodCommand } from '../src/scatter/lod-command.ts';

process.exitCode = await runLodCommand(process.argv.slice(2));
