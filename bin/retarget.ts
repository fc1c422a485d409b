/**
 * `npm run retarget -- …` (or `npx tsx bin/retarget.ts …`): retargets a whole animation library
 * from one rig onto another and writes the target model with the new clips to a GLB.
 * `--help` lists the options; the command itself lives in src/anim/node/retarget-command.ts.
 * Exit status: 0 every clip retargeted; 1 some clips failed (the others are written); 2 nothing
 * could be done (a rig, a file or an option is unusable).
 */
import { retargetCommand } from '../src/anim/node/retarget-command.ts';

process.exit(await retargetCommand(process.argv.slice(2)));
