import { createBody, type Body, type HumanoidDetail } from '../../rig/body-kit.ts';
import { CC4_RIG } from './cc4.ts';
import { buildCc4Pieces, CC4_PALETTE, type Cc4Palette } from './cc4-body.ts';

/** Options of {@link createCc4Character}. */
export interface Cc4CharacterOptions {
  /** Colours; defaults to {@link CC4_PALETTE}. */
  palette?: Partial<Cc4Palette>;
  /** Tessellation; 'high' (default) or 'low'. */
  detail?: HumanoidDetail;
  /** Cast shadows from every piece. Default true. */
  castShadow?: boolean;
}

/** The CC4-style character: 213 bones shared by three skinned pieces (body, head, clothing). */
export type Cc4Character = Body;

/**
 * Builds the CC4-style character in its A-pose bind. It carries no clips of its own: its animation
 * comes from retargeting a library authored on another rig (see `retargetLibrary`).
 */
export function createCc4Character(options: Cc4CharacterOptions = {}): Cc4Character {
  const palette = { ...CC4_PALETTE, ...options.palette };
  return createBody(CC4_RIG, buildCc4Pieces(palette, options.detail ?? 'high'), {
    name: CC4_RIG.name,
    meshPrefix: 'cc4-',
    materialPrefix: 'cc4-',
    roughness: { clothing: 0.85, other: 0.65 },
    castShadow: options.castShadow ?? true,
    label: 'CC4 character',
  });
}
