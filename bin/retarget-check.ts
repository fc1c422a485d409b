/**
 * `npm run retarget:check -- --source A.glb --target B.glb` (or `npx tsx bin/retarget-check.ts …`):
 * the trajectory-parity check. Loads both rigs headless, retargets every clip, samples source and
 * target at 60 Hz through three.js's AnimationMixer and compares every mapped bone with the scaled
 * source; bind deltas are reported, frame-varying drift is bounded, a baseline catches regressions.
 * `--help` lists the options; the command itself lives in src/anim/node/check-command.ts.
 * Exit status: 0 pass; 1 a clip fails its bounds or regressed; 2 the input cannot be used.
 */
import { checkCommand } from '../src/anim/node/check-command.ts';

process.exit(await checkCommand(process.argv.slice(2)));
