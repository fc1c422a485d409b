/**
 * Time to retarget the whole built-in library (55 clips, mannequin → 213-bone CC4 rig), against two
 * peers measured in the same run, interleaved:
 * - the naive retarget three.js users reach for first: copy each mapped bone's local rotation track
 *   under the target's bone name (cheap, and wrong for a rig with other bind frames — the A-pose is
 *   added to every frame), the floor for what any retarget must cost;
 * - baking the source library itself (sampling the procedural clips with foot grounding), the cost
 *   of producing the clips in the first place.
 */
import { AnimationClip, QuaternionKeyframeTrack } from 'three';
import { ANIMATION_LIBRARY, bakeLibraryClip, createAnimationLibrary } from '../../src/anim/library/index.ts';
import { createRetargetContext } from '../../src/anim/retarget/retarget-clip.ts';
import { retargetLibrary } from '../../src/anim/retarget/retarget-library.ts';
import { rigFromDef } from '../../src/anim/retarget/rig-description.ts';
import { CC4_RIG } from '../../src/anim/rigs/cc4.ts';
import { MANNEQUIN } from '../../src/rig/mannequin.ts';
import { compare, formatMs, printComparison } from '../lib/measure.ts';

const library = createAnimationLibrary();
const source = rigFromDef(MANNEQUIN);
const target = rigFromDef(CC4_RIG);
const context = createRetargetContext(source, target);
const names = new Map(context.mapping.pairs.map((p) => [source.bones[p.source]!.name, target.bones[p.target]!.name]));

function naiveCopy(): AnimationClip[] {
  return library.map((clip) => {
    const tracks = clip.tracks.flatMap((track) => {
      const [bone, property] = track.name.split('.');
      const to = names.get(bone!);
      return to && property === 'quaternion' ? [new QuaternionKeyframeTrack(`${to}.quaternion`, track.times, track.values)] : [];
    });
    return new AnimationClip(clip.name, clip.duration, tracks);
  });
}

const check = retargetLibrary(library, context);
if (check.clips.length !== library.length) throw new Error(`only ${check.clips.length}/${library.length} clips retargeted`);

const results = compare(
  [
    { name: 'naive local-rotation copy (wrong on A-pose)', run: naiveCopy, callsPerRound: 1 },
    { name: 'Cairn retarget, whole library', run: () => retargetLibrary(library, context), callsPerRound: 1 },
    { name: 'bake the source library', run: () => ANIMATION_LIBRARY.map((def) => bakeLibraryClip(def)), callsPerRound: 1 },
  ],
  { rounds: 5 },
);
printComparison(
  `Retarget the whole library: ${library.length} clips, ${source.bones.length} → ${target.bones.length} bones`,
  results,
  'Cairn retarget, whole library',
);
const cairn = results.find((r) => r.name === 'Cairn retarget, whole library')!;
console.log(`per clip: ${formatMs(cairn.msPerCall / library.length)}; context (map, align, ratios): measured below`);
printComparison(
  'Context set-up (steps 1–3, once per rig pair) vs one library retarget',
  compare(
    [
      { name: 'createRetargetContext', run: () => createRetargetContext(source, target), callsPerRound: 5 },
      { name: 'Cairn retarget, whole library', run: () => retargetLibrary(library, context), callsPerRound: 1 },
    ],
    { rounds: 5 },
  ),
  'Cairn retarget, whole library',
);
