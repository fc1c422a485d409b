/**
 * `npm run retarget -- …` (or `npx tsx bin/retarget.ts …`): retargets a whole animation library
 * from one rig onto another and writes the target model with the new clips to a GLB.
 * `--help` lists the options; the command itself lives in src/anim/node/retarget-command.ts.
 * Every retargeted clip goes through the trajectory-parity check, and its verdict is this command's
 * (the one `npm run retarget:check` gives on the same pair).
 * Exit status: 0 every clip retargeted and passed; 1 a clip failed to retarget or its parity bounds
 * (the others are written); 2 nothing could be done (a rig, a file or an option is unusable).
 */
import { retargetCommand } from '../src/anim/node/retarget-command.ts';

process.exit(await retargetCommand(process.argv.slice(2)));
