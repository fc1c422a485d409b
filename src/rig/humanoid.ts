import type { AnimationClip } from 'three';
import { createBody, type Body, type HumanoidDetail } from './body-kit.ts';
import { createHumanoidClips } from './clips.ts';
import { buildHumanoidPieces, DEFAULT_PALETTE, type HumanoidPalette } from './humanoid-body.ts';
import { MANNEQUIN } from './mannequin.ts';

/** Options of {@link createHumanoid}. */
export interface HumanoidOptions {
  /** Colours; defaults to {@link DEFAULT_PALETTE}. */
  palette?: Partial<HumanoidPalette>;
  /** Tessellation; 'high' (default) for the player, 'low' for crowds. */
  detail?: HumanoidDetail;
  /** Cast shadows from every piece. Default true. */
  castShadow?: boolean;
}

/** A procedural character: one skeleton shared by several skinned geometry pieces (body, head with facial morph targets, clothing), plus its clips. */
export interface Humanoid extends Body {
  /** The mannequin's procedural clips ({@link HUMANOID_CLIPS}). */
  clips: AnimationClip[];
  /** The clip named `name`; throws when there is none. */
  clip(name: string): AnimationClip;
}

let cachedClips: AnimationClip[] | null = null;

/**
 * Builds Cairn's procedural humanoid: the 64-bone mannequin rig, three skinned pieces and the idle,
 * walk, run, jump, wave and dance clips. No model files needed.
 */
export function createHumanoid(options: HumanoidOptions = {}): Humanoid {
  const palette = { ...DEFAULT_PALETTE, ...options.palette };
  const body = createBody(MANNEQUIN, buildHumanoidPieces(palette, options.detail ?? 'high'), {
    name: 'humanoid',
    meshPrefix: '',
    materialPrefix: 'humanoid-',
    roughness: { clothing: 0.9, other: 0.7 },
    castShadow: options.castShadow ?? true,
    label: 'humanoid',
  });
  // The clips depend only on the rig definition; bake them once per page.
  const clips = (cachedClips ??= createHumanoidClips(MANNEQUIN));
  return {
    ...body,
    clips,
    clip(name) {
      const clip = clips.find((c) => c.name === name);
      if (!clip) throw new Error(`humanoid has no clip "${name}"; it has: ${clips.map((c) => c.name).join(', ')}`);
      return clip;
    },
  };
}
