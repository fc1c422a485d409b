/**
 * `npm run lod -- FILE.gltf|FILE.glb [options]`: bakes the scatter LOD levels (full, 50 %, 15 %) of
 * every piece of a glTF/GLB prop with meshoptimizer and prints triangles per level. The file is read
 * through the import layer (src/rig/node/model-file.ts): a .gltf with an external .bin or a data:
 * URI buffer and embedded textures all load. `--help` lists the options (src/scatter/lod-command.ts).
 * Exit 0 every level shrank and kept a shape, 1 when a level does not shrink or collapses (fewer than
 * four triangles), 2 for bad input.
 */
import { LOD_USAGE, runLodCommand } from '../src/scatter/lod-command.ts';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(
    `Bake Cairn's LOD levels for a glTF/GLB prop.\n\n${LOD_USAGE.replace('FILE.glb', 'FILE.gltf|FILE.glb')}\n\nExit status: 0 every level shrank and kept a shape, 1 some level did not shrink or collapsed (fewer than 4 triangles), 2 bad arguments or an unreadable file.`,
  );
} else {
  process.exitCode = await runLodCommand(args);
}
