/**
 * Variants of Cairn's humanoid, so that players look like themselves: a build (height and width),
 * a skin tone, a hair colour and an outfit (shirt, trousers, shoes), each an index into a table
 * here. A variant is four small integers, so it travels in a profile (src/net/protocol/profile.ts
 * `HumanoidLook`, whose part counts a unit test keeps equal to these tables' lengths), and the
 * crowd draws every variant with the one humanoid template (a per-avatar index into a table of
 * colours and scales: three draw calls for any mix of variants). Pure: no three.js.
 */
import { Mulberry32 } from '../core/rng.ts';
import type { BodyPalette } from './body-kit.ts';
import type { Vec3 } from './tube.ts';

/** One variant: an index per part. Index 0 of each part is the default humanoid's. */
export interface HumanoidVariant {
  /** Index into {@link HUMANOID_BUILDS}. */
  build: number;
  /** Index into {@link SKIN_TONES}. */
  skin: number;
  /** Index into {@link HAIR_COLOURS}. */
  hair: number;
  /** Index into the outfits. */
  outfit: number;
}

/** How a build scales the humanoid: `height` along Y, `width` along X and Z (1: the 1.8 m default). */
export interface HumanoidBuild {
  /** The build's name. */
  name: string;
  /** Scale along Y. */
  height: number;
  /** Scale along X and Z. */
  width: number;
}

/** Builds: the default, then shorter, taller, broader and slighter. */
export const HUMANOID_BUILDS: readonly HumanoidBuild[] = [
  { name: 'average', height: 1, width: 1 },
  { name: 'short', height: 0.9, width: 0.97 },
  { name: 'tall', height: 1.07, width: 1 },
  { name: 'broad', height: 1.01, width: 1.14 },
  { name: 'slight', height: 0.96, width: 0.88 },
];

/** Skin tones, linear RGB: the default first. */
export const SKIN_TONES: readonly Vec3[] = [
  [0.8, 0.56, 0.42],
  [0.93, 0.72, 0.6],
  [0.62, 0.4, 0.27],
  [0.42, 0.25, 0.15],
  [0.24, 0.13, 0.08],
  [0.86, 0.64, 0.45],
];

/** Hair colours, linear RGB: the default (dark brown) first. */
export const HAIR_COLOURS: readonly Vec3[] = [
  [0.16, 0.09, 0.05],
  [0.02, 0.02, 0.02],
  [0.55, 0.36, 0.14],
  [0.8, 0.62, 0.3],
  [0.45, 0.12, 0.04],
  [0.62, 0.62, 0.6],
  [0.06, 0.16, 0.42],
  [0.5, 0.1, 0.32],
];

/** What an outfit colours. */
export interface HumanoidOutfit {
  /** Shirt colour (linear RGB). */
  shirt: Vec3;
  /** Trousers colour. */
  pants: Vec3;
  /** Shoes colour. */
  shoes: Vec3;
}

/** Outfits, linear RGB: the default (teal shirt, navy trousers) first, then eleven that read apart at a distance. */
export const OUTFITS: readonly HumanoidOutfit[] = [
  { shirt: [0.12, 0.42, 0.5], pants: [0.11, 0.13, 0.24], shoes: [0.18, 0.11, 0.07] },
  { shirt: [0.62, 0.12, 0.1], pants: [0.08, 0.08, 0.09], shoes: [0.05, 0.05, 0.05] },
  { shirt: [0.85, 0.6, 0.08], pants: [0.2, 0.27, 0.45], shoes: [0.5, 0.5, 0.48] },
  { shirt: [0.9, 0.9, 0.86], pants: [0.3, 0.22, 0.12], shoes: [0.12, 0.08, 0.05] },
  { shirt: [0.1, 0.38, 0.12], pants: [0.35, 0.3, 0.2], shoes: [0.2, 0.12, 0.06] },
  { shirt: [0.36, 0.16, 0.55], pants: [0.06, 0.06, 0.07], shoes: [0.6, 0.6, 0.6] },
  { shirt: [0.07, 0.07, 0.08], pants: [0.45, 0.45, 0.45], shoes: [0.6, 0.08, 0.06] },
  { shirt: [0.85, 0.3, 0.45], pants: [0.8, 0.78, 0.7], shoes: [0.15, 0.1, 0.08] },
  { shirt: [0.05, 0.2, 0.6], pants: [0.55, 0.45, 0.3], shoes: [0.08, 0.06, 0.05] },
  { shirt: [0.9, 0.42, 0.08], pants: [0.1, 0.18, 0.14], shoes: [0.25, 0.15, 0.08] },
  { shirt: [0.45, 0.5, 0.52], pants: [0.04, 0.05, 0.12], shoes: [0.04, 0.04, 0.04] },
  { shirt: [0.55, 0.78, 0.85], pants: [0.3, 0.06, 0.06], shoes: [0.35, 0.22, 0.1] },
];

/** The default humanoid. */
export const DEFAULT_VARIANT: HumanoidVariant = { build: 0, skin: 0, hair: 0, outfit: 0 };

/** A variant from a seed: the same seed gives the same variant on every machine. */
export function humanoidVariantFromSeed(seed: number): HumanoidVariant {
  const rng = new Mulberry32(seed ^ 0x5eed1005);
  return {
    build: rng.int(HUMANOID_BUILDS.length),
    skin: rng.int(SKIN_TONES.length),
    hair: rng.int(HAIR_COLOURS.length),
    outfit: rng.int(OUTFITS.length),
  };
}

/** `variant` with every index brought into its table (wrapping), for values from elsewhere. */
export function clampVariant(variant: HumanoidVariant): HumanoidVariant {
  const wrap = (i: number, n: number): number => ((Math.trunc(i) % n) + n) % n;
  return {
    build: wrap(variant.build, HUMANOID_BUILDS.length),
    skin: wrap(variant.skin, SKIN_TONES.length),
    hair: wrap(variant.hair, HAIR_COLOURS.length),
    outfit: wrap(variant.outfit, OUTFITS.length),
  };
}

/** The palette a variant dresses the humanoid in (eyes stay the default's). */
export function variantPalette(variant: HumanoidVariant, eyes: Vec3 = [0.04, 0.04, 0.05]): BodyPalette {
  const v = clampVariant(variant);
  const outfit = OUTFITS[v.outfit]!;
  return { skin: SKIN_TONES[v.skin]!, hair: HAIR_COLOURS[v.hair]!, shirt: outfit.shirt, pants: outfit.pants, shoes: outfit.shoes, eyes };
}

/** The build's scale of a variant. */
export function variantBuild(variant: HumanoidVariant): HumanoidBuild {
  return HUMANOID_BUILDS[clampVariant(variant).build]!;
}

/** The variant's parts in words ("tall · skin 3 · hair 2 · outfit 7"), for the HUD and the look panel. */
export function describeVariant(variant: HumanoidVariant): string {
  const v = clampVariant(variant);
  return `${HUMANOID_BUILDS[v.build]!.name} · skin ${v.skin + 1} · hair ${v.hair + 1} · outfit ${v.outfit + 1}`;
}
