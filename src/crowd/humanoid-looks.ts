/**
 * Cairn's humanoid variants (src/rig/humanoid-variants.ts) as crowd variants (variant-table.ts):
 * the regions a variant recolours are the default humanoid's skin, hair, shirt, trousers and
 * shoes, and its build scales height and width. Every humanoid look is then one entry of the
 * humanoid crowd's variant table — the same three draw calls for any mix of players.
 */
import { DEFAULT_PALETTE } from '../rig/humanoid-body.ts';
import { variantBuild, variantPalette, type HumanoidVariant } from '../rig/humanoid-variants.ts';
import type { CrowdVariant, CrowdVariantsOptions } from './variant-table.ts';

/** The regions of the default humanoid a variant recolours, in this order. */
export const HUMANOID_REGIONS = ['skin', 'hair', 'shirt', 'pants', 'shoes'] as const;

/** Variant options for a crowd of Cairn's humanoid. */
export const HUMANOID_CROWD_VARIANTS: CrowdVariantsOptions = { regions: HUMANOID_REGIONS.map((region) => DEFAULT_PALETTE[region]) };

/** The crowd variant of a humanoid variant: its colours per region and its build. */
export function humanoidCrowdVariant(variant: HumanoidVariant): CrowdVariant {
  const palette = variantPalette(variant);
  const build = variantBuild(variant);
  return { colors: HUMANOID_REGIONS.map((region) => palette[region]), height: build.height, width: build.width };
}
