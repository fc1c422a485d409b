/**
 * Parity-check time per clip (the whole built-in library at 60 Hz, mannequin → CC4), against the
 * floor it cannot go below, measured in the same run, interleaved: playing both clips through
 * three.js AnimationMixers at the same 60 Hz samples and updating both skeletons' world matrices,
 * without comparing anything. The ratio is what the comparison itself costs.
 */
import { AnimationMixer, LoopOnce, type AnimationClip } from 'three';
import { createAnimationLibrary } from '../../src/anim/library/index.ts';
import { checkLibraryParity } from '../../src/anim/parity/parity-check.ts';
import { instantiateRig } from '../../src/anim/retarget/instantiate.ts';
import { createRetargetContext } from '../../src/anim/retarget/retarget-clip.ts';
import { retargetLibrary } from '../../src/anim/retarget/retarget-library.ts';
import { rigFromDef } from '../../src/anim/retarget/rig-description.ts';
import { CC4_RIG } from '../../src/anim/rigs/cc4.ts';
import { MANNEQUIN } from '../../src/rig/mannequin.ts';
import { compare, formatMs, printComparison } from '../lib/measure.ts';

const library = createAnimationLibrary();
const context = createRetargetContext(rigFromDef(MANNEQUIN), rigFromDef(CC4_RIG));
const retargeted = retargetLibrary(library, context).clips;
const frames = library.reduce((sum, clip) => sum + Math.floor(clip.duration * 60) + 1, 0);

const sourceRig = instantiateRig(context.source);
const targetRig = instantiateRig(context.target);
const sourceMixer = new AnimationMixer(sourceRig.root);
const targetMixer = new AnimationMixer(targetRig.root);
function sampleOnly(): number {
  let n = 0;
  library.forEach((clip, i) => {
    const pair: Array<[AnimationMixer, AnimationClip]> = [
      [sourceMixer, clip],
      [targetMixer, retargeted[i]!],
    ];
    const actions = pair.map(([mixer, c]) => {
      mixer.stopAllAction();
      const action = mixer.clipAction(c).setLoop(LoopOnce, 1);
      action.clampWhenFinished = true;
      return action.play();
    });
    const count = Math.floor(clip.duration * 60) + 1;
    for (let f = 0; f < count; f++) {
      for (const action of actions) action.time = Math.min(f / 60, clip.duration);
      sourceMixer.update(0);
      targetMixer.update(0);
      sourceRig.root.updateMatrixWorld(true);
      targetRig.root.updateMatrixWorld(true);
      n++;
    }
  });
  return n;
}

const report = checkLibraryParity(library, retargeted, context);
if (!report.ok) throw new Error(`parity failed: ${report.failures.join('; ')}`);

const results = compare(
  [
    { name: 'mixer sampling only (both rigs, 60 Hz)', run: sampleOnly, callsPerRound: 1 },
    { name: 'parity check, whole library', run: () => checkLibraryParity(library, retargeted, context), callsPerRound: 1 },
  ],
  { rounds: 5 },
);
printComparison(
  `Parity check: ${library.length} clips, ${frames} frames at 60 Hz, ${context.mapping.pairs.length} bones compared`,
  results,
  'mixer sampling only (both rigs, 60 Hz)',
);
const parity = results.find((r) => r.name === 'parity check, whole library')!;
console.log(`parity check per clip: ${formatMs(parity.msPerCall / library.length)}; per frame: ${formatMs(parity.msPerCall / frames)}`);
