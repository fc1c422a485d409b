import type { AnimationClip, Bone, Object3D } from 'three';
import type { ProgressListener } from '../../core/progress.ts';
import { MANNEQUIN } from '../../rig/mannequin.ts';
import { ANIMATION_LIBRARY, createAnimationLibrary, libraryClip, withoutRootMotion } from '../library/index.ts';
import { coreBoneGaps } from './bone-map.ts';
import { createRetargetContext, RetargetError, type RetargetContext } from './retarget-clip.ts';
import { retargetLibraryAsync } from './retarget-library.ts';
import { rigFromDef, rigFromObject } from './rig-description.ts';

/** Options of {@link libraryForRig}. */
export interface LibraryForRigOptions {
  /** Library clips to retarget (names); default every clip. */
  clips?: readonly string[];
  /** Keep root motion; default false (a controller or crowd moves the character). */
  rootMotion?: boolean;
  /** Hears `done` of `total` clips while retargeting, `label` the clip just finished. */
  onProgress?: ProgressListener;
}

/** What {@link libraryForRig} produced: clips (possibly none) and why any are missing. */
export interface LibraryForRig {
  /** The retargeted clips (none when the rig could not be mapped). */
  clips: AnimationClip[];
  /** The context, when the rig could be mapped at all. */
  context: RetargetContext | null;
  /** Sentences for a notice: unmapped core bones, clips that failed, or why nothing retargeted. */
  problems: string[];
}

/**
 * Cairn's clip library retargeted onto any rig (a file with no clips of its own, say): the
 * mannequin's clips carried onto `bones` under `object`. Never throws for a rig that cannot be
 * mapped; `problems` says why and `clips` is empty.
 */
export async function libraryForRig(
  object: Object3D,
  bones: readonly Bone[],
  name: string,
  options: LibraryForRigOptions = {},
): Promise<LibraryForRig> {
  // Bake only the clips asked for (the whole library takes a while in a page).
  const inPlace = (clip: AnimationClip): AnimationClip => (options.rootMotion ? clip : withoutRootMotion(clip));
  const wanted = options.clips
    ? options.clips.filter((n) => ANIMATION_LIBRARY.some((d) => d.name === n)).map((n) => inPlace(libraryClip(n)))
    : createAnimationLibrary({ rootMotion: options.rootMotion ?? false });
  let context: RetargetContext;
  try {
    context = createRetargetContext(rigFromDef(MANNEQUIN), rigFromObject(object, name, bones), {
      rootMotion: options.rootMotion ? 'hips' : 'in-place',
    });
  } catch (error) {
    return { clips: [], context: null, problems: [error instanceof RetargetError ? error.message : (error as Error).message] };
  }
  const problems = coreBoneGaps(context.mapping, 'cairn-mannequin', name).filter((gap) => gap.startsWith('target'));
  const result = await retargetLibraryAsync(wanted, context, { onProgress: options.onProgress });
  for (const report of result.reports)
    if (!report.ok) problems.push(`clip ${report.clip} did not retarget: ${report.error ?? 'unknown reason'}`);
  return { clips: result.clips, context, problems };
}
